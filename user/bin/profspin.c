/*
 * profspin: a program of known profile for the profiler's tests
 * (tests/seams_prof30h.py): ROUNDS rounds (100 by default) of spinning
 * 7 units of time in f1, then 3 in f2, so its on-CPU samples are 70% in
 * f1 and 30% in f2 whatever the machine's speed.
 *
 *	profspin [ROUNDS]
 *
 * A unit is UNIT time-stamp-counter ticks (1 ms at 2 GHz): time, not
 * instructions, since the sampler samples time and an emulator's speed
 * varies with its host's load. Each function spins in its own loop (no
 * call below it), so a sample in it has it as the leaf; each keeps a
 * local in memory, so that it has a frame: GCC gives none to a function
 * that needs no stack, even with -fno-omit-frame-pointer, and the
 * frame-pointer walk then loses its caller (docs/profiling.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tsc.h>

#define UNIT	2000000ull

static volatile uint64_t sink;

static __attribute__((noinline, noclone)) void f1(void)
{
	volatile uint64_t end = rdtsc() + 7 * UNIT;

	while (rdtsc() < end)
		sink++;
}

static __attribute__((noinline, noclone)) void f2(void)
{
	volatile uint64_t end = rdtsc() + 3 * UNIT;

	while (rdtsc() < end)
		sink += 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	if (rounds <= 0) {
		fprintf(stderr, "usage: profspin [ROUNDS]\n");
		return 1;
	}
	for (int i = 0; i < rounds; i++) {
		f1();
		f2();
	}
	printf("profspin: %d rounds\n", rounds);
	return 0;
}
