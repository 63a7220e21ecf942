/*
 * ttrace_latstat.h: the arithmetic of the timer latency and noise tracers
 * (kern/trace/timerlat.c, docs/latency.md), pure so the host tests it.
 *
 * A latency histogram (struct lat_hist) counts samples in ns: count, sum,
 * min, max and log2 buckets, bucket b holding [2^b, 2^(b+1)) ns (bucket 0
 * also 0 ns, the last everything above). A noise tally (struct
 * noise_tally) sums the interruptions of one CPU's spinning loop by
 * cause: noise_gap() takes one gap (two TSC reads of the loop further
 * apart than the threshold) and the records this CPU's ring took inside
 * it, charges every interrupt (irq_enter .. irq_exit) to its vector for
 * its length, the rest of the gap to the thread that ran meanwhile
 * (kthread_run, sched_switch) or, when no record explains it, to "other"
 * (hardware, the hypervisor, anything untraced).
 *
 * The texts are the #ttrace timerlat and osnoise files' rows, one format
 * for the kernel and the tests:
 *
 *	struct lat_hist h;
 *	lat_hist_reset(&h);
 *	lat_hist_add(&h, 2500);
 *	lat_hist_row(&h, 0, &s);	// "  0      1   2500   2500   2500"
 *
 * No locks: each histogram and tally has one writer (its CPU's thread);
 * readers may see a sample half added, which a summary tolerates.
 */
#ifndef TTRACE_LATSTAT_H
#define TTRACE_LATSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <ttrace_format.h>

struct seqbuf;

#define LAT_HIST_BUCKETS	40	/* 2^39 ns: 9 minutes and above */

struct lat_hist {
	uint64_t count, sum, min, max;	/* ns; all 0 when empty */
	uint64_t bucket[LAT_HIST_BUCKETS];
};

void lat_hist_reset(struct lat_hist *h);
unsigned lat_hist_bucket(uint64_t ns);
void lat_hist_add(struct lat_hist *h, uint64_t ns);
uint64_t lat_hist_avg(const struct lat_hist *h);
void lat_hist_header(struct seqbuf *s);
void lat_hist_row(const struct lat_hist *h, uint32_t cpu, struct seqbuf *s);
void lat_hist_buckets(const struct lat_hist *h, uint32_t cpu,
		      struct seqbuf *s);

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
