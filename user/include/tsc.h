/*
 * The time stamp counter: user space's only clock, good for guest-time
 * ratios (its frequency is in the boot log, "tsc: N MHz").
 *
 *	uint64_t t0 = rdtsc();
 *	work();
 *	uint64_t cycles = rdtsc() - t0;
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#endif /* TSC_H */
