/*
 * ttfilter.c: the common options of ttdecode's commands (see ttfilter.h).
 * Parsing takes the options out of argv, leaving the operands in order,
 * so each command sees only its own operands afterwards.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ttfilter.h"

/* Parses a decimal number that must fill s; returns 0 or -1. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Takes option argv[i] (and its value argv[i + 1]) into f. Returns 0, or
 * -1 with *why set. */
static int take_option(struct ttfilter *f, const char *opt, const char *val,
		       enum ttfilter_opts opts, const char **why)
{
	uint64_t v;

	if (!val)
		return *why = "option needs a value", -1;
	if (!strcmp(opt, "--event") && opts == TTFILTER_ALL) {
		f->glob = val;
		return 0;
	}
	if (parse_u64(val, &v) < 0)
		return *why = "option value is not a decimal number", -1;
	if (!strcmp(opt, "--from")) {
		f->has_from = true;
		f->from_ns = v;
	} else if (!strcmp(opt, "--to")) {
		f->has_to = true;
		f->to_ns = v;
	} else if (!strcmp(opt, "--cpu") && opts == TTFILTER_ALL &&
		   v <= UINT32_MAX) {
		f->has_cpu = true;
		f->cpu = (uint32_t)v;
	} else if (!strcmp(opt, "--pid") && opts == TTFILTER_ALL &&
		   v <= UINT32_MAX) {
		f->has_pid = true;
		f->pid = (uint32_t)v;
	} else {
		return *why = "unknown option", -1;
	}
	return 0;
}

/*
 * Takes the options (those opts allows) out of argv[0..*argc), leaving the
 * operands in order and *argc their number. Returns 0, or -1 with *why
 * naming the problem.
 */
int ttfilter_parse(struct ttfilter *f, int *argc, char **argv,
		   enum ttfilter_opts opts, const char **why)
{
	int out = 0;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < *argc; i++) {
		if (strncmp(argv[i], "--", 2) || !argv[i][2]) {
			argv[out++] = argv[i];
			continue;
		}
		if (take_option(f, argv[i], i + 1 < *argc ? argv[i + 1] : NULL,
				opts, why) < 0)
			return -1;
		i++;
	}
	*argc = out;
	if (f->has_from && f->has_to && f->from_ns > f->to_ns)
		return *why = "--from is after --to", -1;
	return 0;
}

/* ns nanoseconds since boot in t's TSC ticks (saturating). */
uint64_t ttfilter_ns_to_ts(const struct ttload *t, uint64_t ns)
{
	uint64_t hz = t->version.tsc_hz, ticks;

	if (!hz)
		return t->version.tsc_boot + ns;	/* raw TSC traces */
	ticks = ns / 1000000000 * hz;
	if (ns / 1000000000 && ticks / (ns / 1000000000) != hz)
		return UINT64_MAX;
	ticks += ns % 1000000000 * hz / 1000000000;
	return ticks > UINT64_MAX - t->version.tsc_boot ? UINT64_MAX :
	       ticks + t->version.tsc_boot;
}

/* Turns f's times into t's ticks and its glob into flags per event id.
 * Returns 0, or -1 if out of memory. */
int ttfilter_bind(struct ttfilter *f, const struct ttload *t)
{
	f->from_ts = f->has_from ? ttfilter_ns_to_ts(t, f->from_ns) : 0;
	f->to_ts = f->has_to ? ttfilter_ns_to_ts(t, f->to_ns) : UINT64_MAX;
	if (!f->glob)
		return 0;
	f->nevents = t->meta.nevents;
	f->event_on = calloc(f->nevents ? f->nevents : 1, sizeof(bool));
	if (!f->event_on)
		return -1;
	for (uint32_t i = 0; i < f->nevents; i++)
		f->event_on[i] = t->meta.events[i].name &&
				 !fnmatch(f->glob, t->meta.events[i].name, 0);
	return 0;
}

/* Whether ts (a timestamp on CPU 0's clock) is inside the window. */
bool ttfilter_time(const struct ttfilter *f, uint64_t ts)
{
	return ts >= f->from_ts && ts <= f->to_ts;
}

/* Whether every event passes f (no option given): a caller's loop can
 * then skip ttfilter_event(). */
bool ttfilter_none(const struct ttfilter *f)
{
	return !f->has_cpu && !f->has_pid && !f->has_from && !f->has_to &&
	       !f->glob;
}

/* Whether ev passes every option. Precondition: ttfilter_bind() done. */
bool ttfilter_event(const struct ttfilter *f,
		    const struct ttrace_event_view *ev)
{
	if (!ttfilter_time(f, ev->timestamp))
		return false;
	if (f->has_cpu && ev->cpu != f->cpu)
		return false;
	if (f->event_on && (ev->id >= f->nevents || !f->event_on[ev->id]))
		return false;
	if (f->has_pid && ((ev->ctx_kind != TTRACE_CTX_SYSC &&
			    ev->ctx_kind != TTRACE_CTX_TRAP) ||
			   TTRACE_CTX_PID(ev->context) != f->pid))
		return false;
	return true;
}

void ttfilter_free(struct ttfilter *f)
{
	free(f->event_on);
	f->event_on = NULL;
}
