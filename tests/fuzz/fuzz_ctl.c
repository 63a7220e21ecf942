/*
 * Fuzz target: writes to /dev/ttrace/ctl, parsed against the kernel's own
 * event table (build/gen/ttrace_events.c). The input is cut at newlines
 * into commands applied in turn to one state, as successive writes would
 * be. After each: a failed parse left the state as it was, so did a
 * command the kernel carries out (clear ... module: the table holds every
 * command), and every armed byte is what the group mask and enable byte
 * say it must be. The
 * events listing is made at the end, into a buffer that may be too small.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_ctl.h>
#include <ttrace_events.h>

#include "fuzz.h"

static uint8_t enabled[TTRACE_NUM_EVENTS], armed[TTRACE_NUM_EVENTS];

/* Aborts unless every armed byte of st follows from its mask. */
static void check_armed(const struct ttrace_ctl_state *st)
{
	for (uint32_t id = 0; id < st->meta->nevents; id++)
		if (armed[id] != ttrace_ctl_wants(st, st->mask, id))
			abort();
}

/* Parses and applies one command of len bytes; aborts if a failed parse,
 * or the apply of a command that is the kernel's, changed the state. */
static void one_command(struct ttrace_ctl_state *st, const char *text,
			size_t len)
{
	static struct ttrace_ctl_cmd cmd;
	static uint8_t before[TTRACE_NUM_EVENTS];
	uint64_t mask = st->mask;

	memcpy(before, enabled, sizeof(before));
	if (ttrace_ctl_parse(&cmd, text, len, st->meta)) {
		if (mask != st->mask || memcmp(before, enabled, sizeof(before)))
			abort();
		return;
	}
	ttrace_ctl_apply(st, &cmd);
	if (cmd.op >= TTRACE_CTL_CLEAR &&
	    (mask != st->mask || memcmp(before, enabled, sizeof(before))))
		abort();
	check_armed(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char list[4096];
	struct ttrace_ctl_state st;
	const char *p = (const char *)data, *end = p + size;

	ttrace_ctl_init(&st, &ttrace_meta_builtin, enabled, armed);
	check_armed(&st);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		one_command(&st, p, len);
		p += len + 1;
	}
	/* the listing: its whole length, and what fits in a third of it */
	struct seqbuf s;

	seqbuf_init(&s, list, sizeof(list));
	ttrace_ctl_list(&st, &s);
	size_t n = s.len;

	seqbuf_init(&s, list, n / 3 + 1);
	ttrace_ctl_list(&st, &s);
	if (strlen(list) > n / 3 || s.len != n)
		abort();
	return 0;
}
