/*
 * profnap: a program of known off-CPU profile for the profiler's tests
 * (tests/seams_prof30h.py): three times, g sleeps 50 ms and h computes
 * (COMPUTE turns of a loop), so its off-CPU time is 150 ms in g's stack
 * (nanosleep below it) and its on-CPU samples are in h.
 *
 *	profnap
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define NAP_NS		50000000ull
#define COMPUTE		1000000

static volatile uint64_t sink;

/* The caller of the libc wrapper (nanosleep): the walk of the user stack
 * sees it because the wrapper, a leaf, has a frame of its own
 * (docs/profiling.md, "Leaf frames"); the test wants main;g;nap;nanosleep. */
static __attribute__((noinline, noclone)) void nap(void)
{
	if (nanosleep(NAP_NS) < 0)
		warn("nanosleep");
}

static __attribute__((noinline, noclone)) void g(void)
{
	volatile int frame = 0;	/* a frame: profspin.c */

	nap();
	(void)frame;
}

static __attribute__((noinline, noclone)) void h(void)
{
	for (volatile int i = 0; i < COMPUTE; i++)	/* a frame: profspin.c */
		sink++;
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		g();
		h();
	}
	printf("profnap: done\n");
	return 0;
}
