/*
 * ttfilter: the options that choose what part of a trace a ttdecode
 * command reads, parsed one way for every command:
 *
 *	--cpu N		events of cpu N only
 *	--event GLOB	events whose name matches GLOB (fnmatch(3))
 *	--pid N		events in the context of process N (syscall or
 *			trap context: the pid in the context word)
 *	--from NS	events at or after NS nanoseconds since boot
 *	--to NS		events at or before NS nanoseconds since boot
 *
 * Times are turned into the trace's TSC ticks once, and the event glob
 * into one flag per event id, so testing an event costs a few compares.
 *
 * Usage:
 *	struct ttfilter f;
 *	if (ttfilter_parse(&f, &argc, argv, TTFILTER_ALL, &why) < 0)
 *		usage(why);
 *	... load t ...
 *	if (ttfilter_bind(&f, &t) < 0)
 *		oom();
 *	if (ttfilter_event(&f, ev)) print(ev);
 *	ttfilter_free(&f);
 */
#ifndef TTFILTER_H
#define TTFILTER_H

#include <stdbool.h>

#include <ttrace_decode.h>

#include "ttload.h"

/* Which options a command takes. */
enum ttfilter_opts {
	TTFILTER_WINDOW = 1,		/* --from --to */
	TTFILTER_ALL = 0xff,		/* and --cpu --event --pid */
};

struct ttfilter {
	bool has_cpu, has_pid, has_from, has_to;
	uint32_t cpu;
	uint32_t pid;
	const char *glob;		/* NULL: every event */
	uint64_t from_ns, to_ns;
	uint64_t from_ts, to_ts;	/* in ticks, set by ttfilter_bind */
	bool *event_on;			/* per event id, NULL: every event */
	uint32_t nevents;
};

int ttfilter_parse(struct ttfilter *f, int *argc, char **argv,
		   enum ttfilter_opts opts, const char **why);
int ttfilter_bind(struct ttfilter *f, const struct ttload *t);
bool ttfilter_none(const struct ttfilter *f);
bool ttfilter_event(const struct ttfilter *f,
		    const struct ttrace_event_view *ev);
bool ttfilter_time(const struct ttfilter *f, uint64_t ts);
void ttfilter_free(struct ttfilter *f);
uint64_t ttfilter_ns_to_ts(const struct ttload *t, uint64_t ns);

#endif /* TTFILTER_H */
