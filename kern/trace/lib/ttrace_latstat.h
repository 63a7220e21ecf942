/*
 * ttrace_latstat.h: the arithmetic of the timer latency and noise tracers
 * (kern/trace/timerlat.c, docs/latency.md), pure so the host tests it.
 *
 * Latency figures (struct lat_stat) count samples in ns: count, sum, min
 * and max (the log2 histogram is the latency core's, internal.h). A
 * noise tally (struct noise_tally) sums the interruptions of one CPU's
 * spinning loop by cause: noise_gap() takes one gap (two TSC reads of the loop further
 * apart than the threshold) and the records this CPU's ring took inside
 * it, charges every interrupt (irq_enter .. irq_exit) to its vector for
 * its length, the rest of the gap to the thread that ran meanwhile
 * (kthread_run, sched_switch) or, when no record explains it, to "other"
 * (hardware, the hypervisor, anything untraced).
 *
 * The texts are the #ttrace timerlat and osnoise files' rows, one format
 * for the kernel and the tests:
 *
 *	struct lat_stat st;
 *	lat_stat_reset(&st);
 *	lat_stat_add(&st, 2500);
 *	lat_stat_row(&st, 0, &s);	// "  0      1   2500   2500   2500"
 *
 * No locks: the caller serialises each struct's writer and readers.
 */
#ifndef TTRACE_LATSTAT_H
#define TTRACE_LATSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <ttrace_format.h>

struct seqbuf;

struct lat_stat {
	uint64_t count, sum, min, max;	/* ns; all 0 when empty */
};

void lat_stat_reset(struct lat_stat *st);
void lat_stat_add(struct lat_stat *st, uint64_t ns);
uint64_t lat_stat_avg(const struct lat_stat *st);
void lat_stat_header(struct seqbuf *s);
void lat_stat_row(const struct lat_stat *st, uint32_t cpu, struct seqbuf *s);

/* What interrupted a noise loop. */
enum noise_kind {
	NOISE_IRQ,		/* id: the vector */
	NOISE_KTHREAD,		/* id: the kernel thread's id */
	NOISE_PROC,		/* id: the process's pid */
	NOISE_OTHER,		/* no record explains it (id 0) */
};

#define NOISE_MAX_CAUSES	16

struct noise_cause {
	uint32_t kind;		/* enum noise_kind */
	uint64_t id;
	uint64_t count;		/* interruptions it caused */
	uint64_t ns;		/* time it took */
};

struct noise_tally {
	uint64_t runtime_ns;	/* time the loop measured */
	uint64_t noise_ns;	/* sum of the gaps */
	uint64_t max_ns;	/* the longest gap */
	uint64_t gaps;		/* gaps above the threshold */
	uint32_t ncauses;	/* a full table charges new causes to other */
	struct noise_cause cause[NOISE_MAX_CAUSES];
};

/* The event ids noise_gap() reads, and the thread it measures for (its
 * own kthread_run records are not noise). */
struct noise_ids {
	uint32_t irq_enter, irq_exit, kthread_run, sched_switch;
	uint64_t self;
};

void noise_tally_reset(struct noise_tally *t);
void noise_charge(struct noise_tally *t, uint32_t kind, uint64_t id,
		  uint64_t ns);
void noise_gap(struct noise_tally *t, uint64_t t0, uint64_t t1,
	       const struct ttrace_entry *e, size_t n,
	       const struct noise_ids *ids, uint64_t tsc_hz);
void noise_header(struct seqbuf *s);
void noise_row(const struct noise_tally *t, uint32_t cpu, struct seqbuf *s);
void noise_causes(const struct noise_tally *t, uint32_t cpu,
		  struct seqbuf *s);

#endif /* TTRACE_LATSTAT_H */
