/*
 * tttext.c: `ttdecode text`, every event of every CPU in time order, one
 * line each as the device's cpuN files print it (ttrace_format_timed_line
 * from kern/lib, names through ttload_resolve), declared losses in place:
 *
 *	12.345 us cpu0 sys:sh[1]:read syscall_enter: read(0, 0x405438, 0x400)
 *	-- cpu2: 1234 records lost (overwritten) --
 *
 * The records each CPU's ring overwrote before the trace was read are
 * its first declared loss (the file's first LOSS run of the CPU), so they
 * come before its first event.
 *
 * The options of ttfilter.h choose events; a loss is shown when its cpu
 * and time pass. Each event's format is compiled once (ttrace_fmt_plan);
 * lines are formatted straight into one 64 KiB output buffer (struct
 * ttout, in the loader's spare memory when it has room), so the cost is
 * the formatting, not copies, writes or page faults.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttfilter.h"
#include "ttmerge.h"
#include "ttmodel.h"

#define TEXT_LINE_MAX	8192	/* longer lines are cut (as the device's) */

static void print_loss(struct ttout *o, uint32_t cpu,
		       const struct ttload_loss *l)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "-- cpu%u: %llu records lost "
			 "(%s) --\n", cpu, ull(l->count),
			 ttrace_loss_name(l->reason));

	ttout_write(o, line, (size_t)n);
}

/* The line of ev, formatted straight into o's buffer (with room for the
 * longest line the formatter keeps), plans being t's compiled formats. */
static void print_event(struct ttout *o, const struct ttload *t,
			const struct ttrace_fmt_plan *plans,
			const struct ttrace_event_view *ev)
{
	char *line;
	int n;
	size_t len;

	if (TTOUT_SIZE - o->len < TEXT_LINE_MAX)
		ttout_flush(o);
	line = o->buf + o->len;
	n = ttrace_format_timed_line_plans(line, TEXT_LINE_MAX - 1,
					   t->version.tsc_hz,
					   t->version.tsc_boot, &t->meta, plans,
					   ev, ttload_resolve, (void *)t);
	len = n < 0 ? 0 : MIN((size_t)n, TEXT_LINE_MAX - 2);
	line[len] = '\n';
	o->len += len + 1;
}

/* Every event's format of t compiled once, in t's scratch memory (no page
 * faults) or else in *owned; NULL if out of memory. */
static struct ttrace_fmt_plan *compile_plans(struct ttload *t, void **owned)
{
	size_t size = (t->meta.nevents ? t->meta.nevents : 1) *
		      sizeof(struct ttrace_fmt_plan);
	struct ttrace_fmt_plan *plans = ttload_scratch(t, size);

	*owned = NULL;
	if (!plans)
		plans = *owned = malloc(size);
	if (plans)
		memset(plans, 0, size);
	for (uint32_t i = 0; plans && i < t->meta.nevents; i++)
		ttrace_fmt_plan_init(&plans[i], &t->meta.events[i]);
	return plans;
}

/* Whether a loss of cpu at ts passes f (a trailing loss, ts UINT64_MAX,
 * passes when the window is open at its end). */
static bool loss_passes(const struct ttfilter *f, uint32_t cpu, uint64_t ts)
{
	if (f->has_cpu && cpu != f->cpu)
		return false;
	return ts == UINT64_MAX ? !f->has_to : ttfilter_time(f, ts);
}

static int text_run(struct ttload *t, const struct ttfilter *f)
{
	static char obuf[TTOUT_SIZE];
	char *spare = ttload_scratch(t, TTOUT_SIZE);	/* no page faults */
	struct ttout o = { .f = stdout, .buf = spare ? spare : obuf };
	void *owned;
	struct ttrace_fmt_plan *plans = compile_plans(t, &owned);
	struct ttmerge m;
	struct ttmerge_item it;
	bool all = ttfilter_none(f);

	if (!plans || ttmerge_init(&m, t) < 0) {
		free(owned);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	ttmerge_progress(&m, ttmerge_progress_wanted(t));
	while (ttmerge_next(&m, &it)) {
		if (it.loss) {
			if (loss_passes(f, it.cpu, it.loss->ts))
				print_loss(&o, it.cpu, it.loss);
		} else if (all || ttfilter_event(f, it.ev)) {
			print_event(&o, t, plans, it.ev);
		}
	}
	ttmerge_free(&m);
	free(owned);
	ttout_flush(&o);
	if (o.failed)
		fprintf(stderr, "ttdecode: write error on stdout\n");
	return ttdecode_finish_output(stdout, "stdout") || o.failed;
}

static int ttdecode_text(int argc, char **argv)
{
	struct ttfilter f;
	struct ttload t;
	int rc;

	if ((rc = ttdecode_open("text", &argc, argv, TTFILTER_ALL, 1,
				"one TRACE operand", &f, &t)))
		return rc;
	rc = text_run(&t, &f);
	ttdecode_close(&f, &t);
	return rc;
}

static const struct ttdecode_command cmd_text = {
	"text", 1, ttdecode_text,
	"text [--cpu N] [--event GLOB] [--pid N] "
	"[--from NS] [--to NS] TRACE" };
TTDECODE_COMMAND(cmd_text);
