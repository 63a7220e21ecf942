/*
 * ttlttng: ns per LTTng-UST event on this host, for make bench
 * (scripts/bench.py starts a session with ttbench:event enabled first).
 * 1000 batches of 1000 events of five 64-bit words; per-event ns of each
 * batch (CLOCK_MONOTONIC) minus an empty loop's; min, median, max.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "ttlttng_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH	1000
#define BATCHES	1000

static double samples[BATCHES];

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void measure(int traced)
{
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (uint64_t i = 0; i < BATCH; i++) {
			if (traced)
				lttng_ust_tracepoint(ttbench, event, i, 1, 2, 3, 4);
			__asm__ __volatile__("" : : "r"(i) : "memory");
		}
		samples[b] = (now_ns() - t0) / BATCH;
	}
	qsort(samples, BATCHES, sizeof(samples[0]), cmp);
}

int main(void)
{
	double empty;

	measure(0);
	empty = samples[BATCHES / 2];
	measure(1);
	printf("registered %d\n",
	       lttng_ust_tracepoint_enabled(ttbench, event) ? 1 : 0);
	printf("ns_per_event %.2f %.2f %.2f\n", samples[0] - empty,
	       samples[BATCHES / 2] - empty, samples[BATCHES - 1] - empty);
	return 0;
}
