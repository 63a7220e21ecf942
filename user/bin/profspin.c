/*
 * profspin: a program of known profile for the profiler's tests
 * (tests/seams_prof30h.py): ROUNDS rounds (100 by default) of spinning
 * 7 units in f1, then 3 in f2, so its on-CPU samples are 70% in f1 and
 * 30% in f2.
 *
 *	profspin [ROUNDS]
 *
 * A unit is UNIT turns of the same loop in both: instructions, not time
 * stamps, since a thread may move between CPUs whose time-stamp counters
 * differ by millions of ticks under an emulator; the emulator's speed
 * varies with its host's load, but alike for both over interleaved
 * rounds. Each function spins in its own loop (no call below it), so a
 * sample in it has it as the leaf; each keeps a local in memory, so that
 * it has a frame: GCC gives none to a function that needs no stack, even
 * with -fno-omit-frame-pointer, and the frame-pointer walk then loses its
 * caller (docs/profiling.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT	150000

static volatile uint64_t sink;

static __attribute__((noinline, noclone)) void f1(void)
{
	for (volatile int i = 0; i < 7 * UNIT; i++)
		sink++;
}

static __attribute__((noinline, noclone)) void f2(void)
{
	for (volatile int i = 0; i < 3 * UNIT; i++)
		sink++;
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
