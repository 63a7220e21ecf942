/*
 * ttmodel: one host model of what a trace means, computed once from a
 * loaded trace (tools/load/ttload.h) and read by every decoder and exporter
 * (stats, json, uftrace, ctf), so they cannot tell different stories
 * about the same records. The rules are docs/exports.md's "One model".
 *
 * It pairs enters and exits into spans on three kinds of track:
 *	a CPU's track	what the CPU ran: a process's run between context
 *			switches, interrupts, exceptions, and kernel
 *			functions (function-graph) outside a process
 *	a thread's track (one per pid) its syscalls, each ONE span from
 *			enter to exit across the context switches of a
 *			blocking call, and the kernel functions it ran
 *	a CPU's boot track	the boot phases recorded on that CPU, placed
 *			and ended as the boot profile does (ttboot.c)
 * Spans of one track nest properly and come in start order (parents
 * before their children). A span ends with its own end event (DONE), or
 * is closed without it: CLIPPED when an enclosing span ended first (an
 * exit below it, a context switch), UNFINISHED when a declared loss or
 * the end of the trace cut it. A cut span ends at the loss's start time
 * (the last event before the loss on that CPU), never across the gap.
 * An exit whose enter is not open (it came before the trace or into a
 * loss) is dropped and counted; nothing is made up for it.
 *
 * Losses: each CPU's declared LOSS runs, with the time range they fell
 * in (its last event before, its first event after); the records its
 * ring overwrote before the trace was read are the file's first LOSS run
 * of the CPU (docs/trace-file.md), so first on its track (before_trace).
 * A file without it (written before runs began at the ring's start)
 * shows no such loss: nothing is guessed from the STATS counters.
 *
 * Usage:
 *	struct ttmodel m;
 *	if (ttmodel_build(&m, &t) < 0)
 *		oom();
 *	for (uint32_t i = 0; i < m.ntracks; i++)
 *		for (uint64_t k = 0; k < m.tracks[i].nspans; k++)
 *			show(&m.tracks[i], &m.tracks[i].spans[k]);
 *	ttmodel_free(&m);
 */
#ifndef TTMODEL_H
#define TTMODEL_H

#include <stdbool.h>

#include <ttrace_decode.h>

#include "ttload.h"

#define TTMODEL_MAX_DEPTH	64	/* open spans per track */

enum ttmodel_kind {
	TTMODEL_BOOT,			/* ident: boot phase id */
	TTMODEL_RUN,			/* ident: pid */
	TTMODEL_SYSCALL,		/* ident: syscall number */
	TTMODEL_IRQ,			/* ident: vector */
	TTMODEL_EXCEPTION,		/* ident: vector */
	TTMODEL_FUNC,			/* ident: function address */
	TTMODEL_NKINDS,
};

/* What each kind of span is called, the one table of it every export
 * reads: ttmodel_kinds[kind]. */
struct ttmodel_kind_info {
	const char *name;		/* "syscall": uftrace's "syscall:NAME",
					   JSON's category, stats' kind */
	const char *ident;		/* what ident is, for a span no aux
					   record names: JSON's "pid 3" */
	unsigned tag;			/* the aux tag that names its spans */
};

extern const struct ttmodel_kind_info ttmodel_kinds[TTMODEL_NKINDS];

/* How a span ended. */
enum ttmodel_end {
	TTMODEL_DONE,			/* its end event (exit, switch, next
					   boot phase) */
	TTMODEL_CLIPPED,		/* an enclosing span ended first */
	TTMODEL_UNFINISHED,		/* cut by a declared loss or the end
					   of the trace */
};

enum ttmodel_track_kind { TTMODEL_CPU, TTMODEL_THREAD, TTMODEL_BOOTS };

struct ttmodel_span {
	uint64_t start, end;		/* timestamps (CPU 0's clock) */
	uint64_t ident;
	uint32_t kind;			/* enum ttmodel_kind */
	uint32_t how;			/* enum ttmodel_end */
	uint32_t cpu;			/* where it started */
	uint32_t pid;			/* the process, 0 if none */
	uint32_t depth;			/* 0: outermost on its track */
};

/* A declared loss on a CPU: count slots lost between the CPU's events at
 * start and end (start == end == the first event's time for the loss
 * before the trace; both the last event's for one after it). */
struct ttmodel_loss {
	uint64_t start, end;
	uint64_t count;
	uint32_t reason;		/* enum ttrace_loss_reason */
	bool before_trace;		/* overwritten (or not copied) before
					   the CPU's first record in the
					   trace */
};

struct ttmodel_track {
	uint32_t kind;			/* enum ttmodel_track_kind */
	uint32_t id;			/* cpu, or pid */
	struct ttmodel_span *spans;	/* in start order */
	uint64_t nspans, cap;
	uint32_t stack[TTMODEL_MAX_DEPTH]; /* open spans: indices + 1 */
	uint32_t depth;
	int32_t running_on;		/* THREAD: its cpu, or -1 */
	uint64_t last_ts;		/* THREAD: its last event's time */
};

/* What could not be paired, for the summary lines. */
struct ttmodel_counts {
	uint64_t unmatched_exits;	/* exits with no open enter: dropped */
	uint64_t clipped;
	uint64_t unfinished;
	uint64_t too_deep;		/* enters beyond TTMODEL_MAX_DEPTH */
};

struct ttmodel_cpu {
	uint32_t track, boot_track;	/* indices into tracks */
	struct ttmodel_loss *losses;	/* in time order */
	uint64_t nlosses, cap;
	uint64_t events;
	uint64_t last_ts;
};

struct ttmodel {
	const struct ttload *t;
	struct ttmodel_track *tracks;	/* cpus, boot tracks, then threads
					   in order of first appearance */
	uint32_t ntracks, cap;
	struct ttmodel_cpu *cpus;	/* version.num_cpus */
	uint32_t *pid_slots;		/* pid -> 1 + thread track index */
	uint32_t pid_bits;
	uint32_t role[11];		/* event id of each role (ttmodel.c) */
	struct ttmodel_counts counts;
	bool oom;
};

int ttmodel_build(struct ttmodel *m, const struct ttload *t);
void ttmodel_free(struct ttmodel *m);
bool ttmodel_is_span_event(const struct ttmodel *m, uint32_t id);
size_t ttmodel_span_name(const struct ttmodel *m, const struct ttmodel_span *s,
			 const char **str);

uint64_t ttmodel_boot_start(const struct ttload *t, uint32_t cpu,
			    const struct ttrace_event_view *ev, bool at);
int64_t ttmodel_ns(const struct ttload *t, uint64_t ts);
uint64_t ttmodel_span_ns(const struct ttload *t, uint64_t start, uint64_t end);

#endif /* TTMODEL_H */
