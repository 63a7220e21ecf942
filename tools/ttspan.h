/*
 * ttspan: the time-ordered events of a trace (ttmerge) turned into what
 * timeline viewers and statistics want: per CPU, properly nested slices
 * (a process's run between context switches, syscalls, interrupts,
 * exceptions, boot phases), the other events as points, and the declared
 * losses, each CPU's items handed out in start-time order.
 *
 * Pairing is a stack per CPU. An enter pushes a slice; an exit closes the
 * nearest open slice of its kind and key (syscall number, vector), first
 * closing ("clipping") anything opened above it; an exit with no such
 * slice is dropped and counted. A context switch clips the open syscalls
 * of the process leaving (a blocking syscall) and resumes them as a new
 * piece when the process runs again, on whatever CPU, so the syscall's
 * latency is still measured from its enter. A declared loss, and the end
 * of the trace, close everything open on the CPU at its last timestamp.
 * So slices on one CPU never overlap partially, whatever the ring lost.
 *
 * Roles come from the event names of the trace's own metadata
 * (syscall_enter/exit, irq_enter/exit, exception, sched_switch,
 * boot_phase); a trace without them just has no slices of that kind.
 * Boot phases are slices on a CPU until its first context switch, each
 * lasting until the next; an exception lasts while the events after it
 * are in the trap context of its vector.
 *
 * Output order: a CPU's items wait in a FIFO until every item that
 * started before them is complete, so a consumer sees each CPU's slices
 * and points with rising start times (memory: the items of the longest
 * open outermost slice).
 *
 * Usage:
 *	struct ttspan sp;
 *	ttspan_init(&sp, &t, &out);	// out: slice, point, loss callbacks
 *	while (ttmerge_next(&m, &it))
 *		it.loss ? ttspan_loss(&sp, it.cpu, it.loss) :
 *			  ttspan_event(&sp, it.cpu, it.ev, it.entry);
 *	ttspan_finish(&sp);		// closes and hands out the rest
 *	ttspan_free(&sp);
 */
#ifndef TTSPAN_H
#define TTSPAN_H

#include <stdbool.h>

#include <ttrace_decode.h>

#include "ttload.h"

#define TTSPAN_MAX_DEPTH	32	/* open slices per CPU */
#define TTSPAN_NROLES		8	/* events that open or close slices */

enum ttspan_kind {
	TTSPAN_BOOT,			/* ident: boot phase id */
	TTSPAN_RUN,			/* ident: pid */
	TTSPAN_SYSCALL,			/* ident: syscall number */
	TTSPAN_IRQ,			/* ident: vector */
	TTSPAN_EXCEPTION,		/* ident: vector */
	TTSPAN_NKINDS,
};

/* Slice flags. */
enum {
	TTSPAN_CLIPPED = 1,		/* closed without its end event */
	TTSPAN_RESUMED = 2,		/* a syscall continued after a switch */
	TTSPAN_DONE = 4,		/* a syscall's last piece: its exit */
};

struct ttspan_slice {
	uint32_t cpu;
	uint32_t kind;			/* enum ttspan_kind */
	uint64_t start, end;		/* timestamps (CPU 0's clock) */
	uint64_t ident;
	uint32_t pid;			/* the process (RUN, SYSCALL,
					   EXCEPTION), else 0 */
	uint32_t depth;			/* 0: outermost on its CPU */
	uint32_t flags;
	uint64_t entered;		/* SYSCALL: when it entered */
};

/* What a consumer gets. ev and the slice are valid during the call. */
struct ttspan_out {
	void (*slice)(void *arg, const struct ttspan_slice *s);
	void (*point)(void *arg, uint32_t cpu,
		      const struct ttrace_event_view *ev);
	void (*loss)(void *arg, uint32_t cpu, uint64_t ts,
		     const struct ttload_loss *l);
	void *arg;
};

/* The counts of what could not be paired. */
struct ttspan_counts {
	uint64_t unmatched_exits;	/* exits with no open enter: dropped */
	uint64_t clipped;		/* slices closed without their end */
	uint64_t too_deep;		/* enters beyond TTSPAN_MAX_DEPTH */
};

struct ttspan_cpu;
struct ttspan_pid;

struct ttspan {
	const struct ttload *t;
	struct ttspan_out out;
	struct ttspan_cpu *cpus;
	struct ttspan_pid *pids;	/* open-addressing table by pid */
	uint32_t pid_bits;
	uint32_t npids;
	uint32_t role[TTSPAN_NROLES];	/* event id of each role, or
					   UINT32_MAX */
	struct ttspan_counts counts;
};

int ttspan_init(struct ttspan *sp, const struct ttload *t,
		const struct ttspan_out *out);
void ttspan_event(struct ttspan *sp, uint32_t cpu,
		  const struct ttrace_event_view *ev,
		  const struct ttrace_entry *entry);
void ttspan_loss(struct ttspan *sp, uint32_t cpu,
		 const struct ttload_loss *l);
void ttspan_finish(struct ttspan *sp);
void ttspan_free(struct ttspan *sp);

#endif /* TTSPAN_H */
