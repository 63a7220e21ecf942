/*
 * tttext.c: `ttdecode text`, every event of every CPU in time order, one
 * line each as the device's cpuN files print it (ttrace_format_timed_line
 * from kern/lib, names through ttload_resolve), declared losses in place:
 *
 *	12.345 us cpu0 sys:sh[1]:read syscall_enter: read(0, 0x405438, 0x400)
 *	-- cpu2: 1234 records lost (overwritten) --
 *
 * The options of ttfilter.h choose events; a loss is shown when its cpu
 * and time pass. Output goes through one big stdio buffer, a line at a
 * time, so the cost is the formatting, not the writes.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttfilter.h"
#include "ttmerge.h"

#define TEXT_BUFSIZE	(1 << 20)

static void print_loss(uint32_t cpu, const struct ttload_loss *l)
{
	printf("-- cpu%u: %llu records lost (%s) --\n", cpu, ull(l->count),
	       ttrace_loss_name(l->reason));
}

static void print_event(const struct ttload *t,
			const struct ttrace_event_view *ev)
{
	static char line[8192];
	int n = ttrace_format_timed_line(line, sizeof(line) - 1,
					 t->version.tsc_hz, t->version.tsc_boot,
					 &t->meta, ev, ttload_resolve,
					 (void *)t);
	size_t len = n < 0 ? 0 : MIN((size_t)n, sizeof(line) - 2);

	line[len] = '\n';
	fwrite(line, 1, len + 1, stdout);
}

/* Whether a loss of cpu at ts passes f (a trailing loss, ts UINT64_MAX,
 * passes when the window is open at its end). */
static bool loss_passes(const struct ttfilter *f, uint32_t cpu, uint64_t ts)
{
	if (f->has_cpu && cpu != f->cpu)
		return false;
	return ts == UINT64_MAX ? !f->has_to : ttfilter_time(f, ts);
}

static int text_run(const struct ttload *t, const struct ttfilter *f)
{
	struct ttmerge m;
	struct ttmerge_item it;

	if (ttmerge_init(&m, t) < 0) {
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	ttmerge_progress(&m, ttmerge_progress_wanted(t));
	while (ttmerge_next(&m, &it)) {
		if (it.loss) {
			if (loss_passes(f, it.cpu, it.loss->ts))
				print_loss(it.cpu, it.loss);
		} else if (ttfilter_event(f, it.ev)) {
			print_event(t, it.ev);
		}
	}
	ttmerge_free(&m);
	return ttdecode_finish_output(stdout, "stdout");
}

int ttdecode_text(int argc, char **argv)
{
	static char obuf[TEXT_BUFSIZE];
	struct ttfilter f;
	struct ttload t;
	const char *why;
	int rc;

	if (ttfilter_parse(&f, &argc, argv, TTFILTER_ALL, &why) < 0)
		return ttdecode_usage_error("text", why);
	if (argc != 1)
		return ttdecode_usage_error("text", "one TRACE operand");
	if ((rc = ttdecode_load(&t, argv[0])))
		return rc;
	if (ttfilter_bind(&f, &t) < 0) {
		ttload_free(&t);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	rc = text_run(&t, &f);
	ttfilter_free(&f);
	ttload_free(&t);
	return rc;
}
