/*
 * Fuzz target: the built-in probes' ctl grammar (kern/trace/lib/probe_parse.c,
 * through the ctl table's ttrace_ctl_parse), parsed against the kernel's
 * own event table. The input is cut at newlines into commands. A refused
 * one gives "ttrace probe: ..." in the command's own buffer when its
 * first word is probe or unprobe, else "ttrace ctl: ..."; an accepted
 * `probe` is written back as text
 * (ttrace_probe_spec_text, also into a buffer too small for it), which
 * must parse again to the same text, and its tests are run against a hit
 * made of the command's bytes. Every command's bytes are then counted in
 * a small keyed table (ttrace_keytab) as a count and as a histogram: no
 * add may be lost (the counters and the overflow add up).
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_events.h>
#include <seqbuf.h>
#include <ttrace_ctl.h>

#include "fuzz.h"

#define TAB_CAP		8	/* small: full tables and overflow too */

/* Text of an accepted probe: it must parse again to the same text, and
 * a buffer too small for it holds its prefix and counts all of it. */
static void roundtrip(const struct ttrace_probe_spec *s)
{
	static struct ttrace_ctl_cmd again;
	static char text[512], text2[512], small[512];
	struct seqbuf sb;
	size_t n;

	seqbuf_init(&sb, text, sizeof(text));
	ttrace_probe_spec_text(s, &ttrace_meta_builtin, &sb);
	n = sb.len;
	if (n >= sizeof(text) || strlen(text) != n)
		abort();
	seqbuf_init(&sb, small, n / 2 + 1);
	ttrace_probe_spec_text(s, &ttrace_meta_builtin, &sb);
	if (sb.len != n || strlen(small) != n / 2)
		abort();
	if (ttrace_ctl_parse(&again, text, n, &ttrace_meta_builtin) ||
	    again.op != TTRACE_CTL_PROBE)
		abort();
	seqbuf_init(&sb, text2, sizeof(text2));
	ttrace_probe_spec_text(&again.probe, &ttrace_meta_builtin, &sb);
	if (strcmp(text, text2))
		abort();
}

/* Runs s's tests on a hit whose arguments are the command's bytes. */
static void run_tests(const struct ttrace_probe_spec *s, const char *p,
		      size_t len)
{
	uint64_t args[TTRACE_MAX_ARGS] = { 0 };
	struct ttrace_probe_hit h = { .id = s->event, .cpu = (uint32_t)len,
				      .pid = len & 1 ? -1 : (int32_t)len,
				      .args = args };

	h.nargs = (uint32_t)(len % (TTRACE_MAX_ARGS + 1));
	memcpy(args, p, MIN(len, sizeof(args)));
	ttrace_probe_test(s, &h);
	ttrace_field_get(&s->value, &h);
	ttrace_field_get(&s->key, &h);
}

static void one_command(const char *p, size_t len)
{
	static struct ttrace_ctl_cmd cmd;
	const char *why, *who;

	why = ttrace_ctl_parse(&cmd, p, len, &ttrace_meta_builtin);
	if (why) {
		who = cmd.op == TTRACE_CTL_PROBE || cmd.op == TTRACE_CTL_UNPROBE ?
		      "ttrace probe: " : "ttrace ctl: ";
		if (why != cmd.err || !memchr(cmd.err, 0, sizeof(cmd.err)) ||
		    strncmp(why, who, strlen(who)))
			abort();
		return;
	}
	if (cmd.op == TTRACE_CTL_PROBE) {
		if (cmd.probe.event >= ttrace_meta_builtin.nevents ||
		    cmd.probe.ntests > TTRACE_PROBE_MAX_TESTS)
			abort();
		roundtrip(&cmd.probe);
		run_tests(&cmd.probe, p, len);
	}
}

/* Adds every 8-byte word of the input to a count and a histogram table;
 * what they hold and their overflow must add up to the adds. */
static void keytabs(const uint8_t *data, size_t size)
{
	static uint64_t mem[2][4096];
	struct ttrace_keytab count, hist;
	uint64_t adds = 0, sum[2] = { 0 };

	ttrace_keytab_init(&count, mem[0], TAB_CAP, 1);
	ttrace_keytab_init(&hist, mem[1], TAB_CAP, TTRACE_HIST_BUCKETS);
	for (size_t i = 0; i + 8 <= size; i += 8, adds++) {
		uint64_t k;

		memcpy(&k, data + i, sizeof(k));
		ttrace_keytab_add(&count, k & 0x1f, 0, 1);
		ttrace_keytab_add(&hist, k >> 59, ttrace_hist_bucket(k), 1);
	}
	for (uint32_t slot = 0; slot <= TAB_CAP; slot++) {
		const struct ttrace_keytab *t[2] = { &count, &hist };

		for (int j = 0; j < 2; j++) {
			const uint64_t *v;
			uint64_t key;

			if (ttrace_keytab_slot(t[j], slot, &key, &v))
				for (uint32_t b = 0; b < t[j]->width; b++)
					sum[j] += v[b];
		}
	}
	if (sum[0] + count.overflow != adds || sum[1] + hist.overflow != adds)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		one_command(p, len);
		p += len + 1;
	}
	keytabs(data, size);
	return 0;
}
