/*
 * ttcrit: the analyses of the scheduling model (ttsched.h) that
 * `ttdecode critpath` and `ttdecode wakeup` print (docs/analysis.md).
 *
 * The critical path of a thread over [from, to) is the window cut into
 * pieces that tile it exactly, found walking back from `to`:
 *	the thread running (in user mode or a syscall): its own piece;
 *	runnable on a CPU's queue: one piece per thread that ran on that
 *		CPU meanwhile (behind whom it waited);
 *	blocked (or not yet created), then woken (created) by a thread W
 *		at time w: the sleep's part of
 *		the window is W's own path back from w (recursively: W's
 *		sleeps are its wakers' paths), announced by a WAIT entry;
 *	blocked and woken by an IRQ, by nobody traced, or not yet woken
 *		when the window ends: a blocked piece naming the IRQ or
 *		the waker's absence;
 *	before the thread's first record: an untraced piece.
 * A waker is followed only when it ran (or waited for a CPU) just before
 * its wakeup, so each step makes a piece of nonzero length and the walk
 * ends: it costs O(pieces * log(states)). Perfetto's
 * _thread_executing_span_critical_path and Trace Compass's critical path
 * walk the same graph.
 *
 * Usage:
 *	struct ttcrit_path p;
 *	if (ttcrit_path(&p, &s, pid, from, to) < 0) oom();
 *	for (uint64_t i = 0; i < p.n; i++) show(&p.e[i]);
 *	ttcrit_path_free(&p);
 */
#ifndef TTCRIT_H
#define TTCRIT_H

#include "ttsched.h"

#define TTCRIT_UNTRACED		TTSCHED_NSTATES	/* a piece's state */
#define TTCRIT_NO_PID		UINT32_MAX

enum ttcrit_kind {
	TTCRIT_PIECE,			/* a part of the tiling */
	TTCRIT_WAIT,			/* pid blocked over [start, end),
					   woken by waker: the pieces after
					   it at depth + 1 tile that time */
};

struct ttcrit_entry {
	int64_t start, end;
	uint32_t kind;			/* enum ttcrit_kind */
	uint32_t depth;			/* wakeups followed to get here */
	uint32_t pid;			/* whose state it is */
	uint32_t state;			/* enum ttsched_state or UNTRACED */
	uint32_t cpu;			/* RUNNING: where; RUNNABLE: the
					   queue */
	uint32_t behind;		/* RUNNABLE: who ran on cpu then
					   (TTCRIT_NO_PID: not known) */
	uint64_t sys;			/* RUNNING: 1 + syscall, 0 user */
	uint64_t caller, chan;		/* BLOCKED, WAIT: why */
	struct ttsched_waker waker;	/* BLOCKED, NEW, WAIT: who woke
					   (created) it */
	int64_t woken;			/* ... and when (the interval's end;
					   INT64_MAX: not in the trace) */
};

struct ttcrit_path {
	struct ttcrit_entry *e;		/* in time order, WAITs before the
					   pieces they announce */
	uint64_t n, cap;
	bool oom;
};

int ttcrit_path(struct ttcrit_path *p, const struct ttsched *s, uint32_t pid,
		int64_t from, int64_t to);
void ttcrit_path_free(struct ttcrit_path *p);

/* A thread's runnable-to-running delays (ns), `perf sched latency`'s. */
struct ttcrit_latency {
	uint32_t pid;
	uint64_t count;
	int64_t p50, p99, max;
	int64_t max_at;			/* when the longest began */
	int64_t running;		/* ns it ran in the window */
};

int ttcrit_latency(const struct ttsched *s, const struct ttsched_thread *th,
		   int64_t from, int64_t to, struct ttcrit_latency *l);

#endif /* TTCRIT_H */
