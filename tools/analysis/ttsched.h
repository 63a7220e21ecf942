/*
 * ttsched: the scheduling model of a trace, what the host analyses
 * (critpath, wakeup, docs/analysis.md) read: for every thread the
 * sequence of its states, each an interval that begins where the one
 * before it ends, and for every CPU who ran on it from when.
 *
 *	RUNNING		on a CPU, in user mode or in a syscall (sys)
 *	RUNNABLE	on a CPU's run queue (cpu), since a wakeup (waker)
 *			or a preemption (no waker)
 *	BLOCKED		asleep (on chan, blocked at caller) until a wakeup:
 *			the waker (a thread or an IRQ) is the interval's
 *	DEAD		exited
 *	NEW		not yet created: its creator (the waker of its
 *			sched_wakeup_new) made it at the interval's end
 *
 * Times are nanoseconds since boot (ttmodel_ns), so the lengths of
 * intervals that tile a window add up to the window to the nanosecond.
 * A thread's history begins at its first record; what came before is not
 * made up, except what a record proves: a thread switched out by a CPU's
 * first switch ran there since the trace began, a thread woken was
 * blocked, a thread created did not exist.
 *
 * The model is built through the calls below, one per fact and in time
 * order: ttsched_build() makes them from a trace's records (sched_switch,
 * sched_waking, sched_wakeup, sched_wakeup_new, sched_blocked_reason,
 * syscall_enter/exit), the host tests from hand-written stories.
 *
 * The analyses read a window of it: what ended before the window's start
 * (s->keep_from) is not kept, so a model of the last second of a long
 * trace holds each thread's state at that second's start and what
 * follows, not every state since the trace began (ttsched_build()).
 *
 * Usage:
 *	struct ttsched s;
 *	ttsched_init(&s, ncpus, start_ns);
 *	ttsched_switch(&s, ns, cpu, prev, TTSCHED_BLOCKED, next);
 *	ttsched_wake(&s, ns, wakee, cpu, (struct ttsched_waker){...});
 *	ttsched_finish(&s, end_ns);
 *	const struct ttsched_thread *th = ttsched_thread(&s, pid);
 *	ttsched_free(&s);
 */
#ifndef TTSCHED_H
#define TTSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ttload.h"

#define TTSCHED_NO_CPU	UINT32_MAX

enum ttsched_state {
	TTSCHED_RUNNING,
	TTSCHED_RUNNABLE,
	TTSCHED_BLOCKED,
	TTSCHED_DEAD,
	TTSCHED_NEW,
	TTSCHED_NSTATES,
};

enum ttsched_waker_kind {
	TTSCHED_WAKER_NONE,		/* unknown, or a preemption */
	TTSCHED_WAKER_THREAD,		/* id: its pid */
	TTSCHED_WAKER_IRQ,		/* id: the vector */
};

struct ttsched_waker {
	uint32_t kind;			/* enum ttsched_waker_kind */
	uint32_t id;
};

/* One state of a thread over [start, end). */
struct ttsched_iv {
	int64_t start, end;
	uint32_t state;			/* enum ttsched_state */
	uint32_t cpu;			/* RUNNING: where; RUNNABLE: the run
					   queue; else TTSCHED_NO_CPU */
	struct ttsched_waker waker;	/* BLOCKED, NEW: who ended it;
					   RUNNABLE: who began it */
	uint64_t sys;			/* RUNNING: 1 + the syscall it is in,
					   0 in user mode */
	uint64_t caller;		/* BLOCKED: the code that blocked */
	uint64_t chan;			/* BLOCKED: the wait channel */
};

struct ttsched_thread {
	uint32_t pid;
	uint64_t sys;			/* 1 + its open syscall, 0 none */
	uint64_t caller, chan;		/* why its next sleep will be (a
					   reason recorded before the switch
					   out), until that switch */
	struct ttsched_iv *iv;		/* in time order, contiguous */
	uint64_t n, cap;
};

/* cpu ran pid from start until the next run's start. */
struct ttsched_run {
	int64_t start;
	uint32_t pid;
};

struct ttsched_cpu {
	struct ttsched_run *runs;	/* in time order */
	uint64_t n, cap;
};

/* Facts that did not fit the story, counted, never guessed over. */
struct ttsched_counts {
	uint64_t spurious;		/* wakeups of a thread not blocked */
	uint64_t unwoken;		/* switched in while blocked: the
					   wakeup is missing */
	uint64_t late;			/* facts older than the thread's
					   present state: dropped */
};

struct ttsched {
	int64_t start, end;		/* the trace's first and last times */
	int64_t keep_from;		/* states and runs that end at or
					   before it are overwritten, never
					   kept: the analyses read [keep_from,
					   end) only (INT64_MIN: keep all) */
	uint32_t ncpus;
	struct ttsched_cpu *cpus;
	struct ttsched_thread *threads;	/* in order of first appearance */
	uint32_t nthreads;
	uint64_t cap;
	uint32_t *slots;		/* pid -> 1 + index in threads */
	uint32_t bits;
	struct ttsched_counts counts;
	bool oom;
};

int ttsched_init(struct ttsched *s, uint32_t ncpus, int64_t start);
void ttsched_free(struct ttsched *s);
void ttsched_switch(struct ttsched *s, int64_t ns, uint32_t cpu,
		    uint32_t prev, enum ttsched_state prev_state,
		    uint32_t next);
void ttsched_wake(struct ttsched *s, int64_t ns, uint32_t pid, uint32_t cpu,
		  struct ttsched_waker waker);
void ttsched_wake_new(struct ttsched *s, int64_t ns, uint32_t pid,
		      uint32_t cpu, struct ttsched_waker waker);
void ttsched_blocked(struct ttsched *s, uint32_t pid, uint64_t caller,
		     uint64_t chan);
void ttsched_syscall(struct ttsched *s, int64_t ns, uint32_t cpu,
		     uint32_t pid, uint64_t sys);
void ttsched_finish(struct ttsched *s, int64_t end);

const struct ttsched_thread *ttsched_thread(const struct ttsched *s,
					    uint32_t pid);
const struct ttsched_iv *ttsched_at(const struct ttsched_thread *th,
				    int64_t t);
int64_t ttsched_run_at(const struct ttsched *s, uint32_t cpu, int64_t t);
const char *ttsched_state_name(uint32_t state);
int ttsched_grow(void *pp, uint64_t n, uint64_t *cap, size_t size);

/* ttsched_build.c: the model of a loaded trace for the window that
 * begins at from (INT64_MIN: the whole trace) (0, or -1 out of memory),
 * and the lookups by name it makes in the trace's metadata (UINT32_MAX:
 * none) */
int ttsched_build(struct ttsched *s, const struct ttload *t, int64_t from);
uint32_t ttsched_event_id(const struct ttload *t, const char *name);
uint32_t ttsched_arg(const struct ttload *t, uint32_t id, const char *name);

#endif /* TTSCHED_H */
