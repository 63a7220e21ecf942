/*
 * tsc_sync: how far another CPU's timestamp counter is from the reference
 * CPU's, estimated from round trips over shared memory, NTP style (as Linux's
 * arch/x86/kernel/tsc_sync.c does it, with the arithmetic of an NTP exchange).
 *
 * One round trip gives three stamps: t0, the reference CPU's TSC just before
 * it posts a request; t1, the other CPU's TSC when it sees the request; t2,
 * the reference CPU's TSC when it sees the reply. The other CPU read t1 at
 * some moment between t0 and t2 on the reference clock, so its offset (other
 * minus reference, signed cycles) lies in [t1 - t2, t1 - t0]. We take the
 * midpoint, offset = t1 - (t0 + t2) / 2, which is wrong by at most half the
 * round trip, (t2 - t0) / 2 rounded up: the uncertainty. The bound holds
 * however the delays split between the two directions, so the sample with
 * the shortest round trip is the tightest and the one kept. A sample with
 * t2 < t0 cannot come from one clock going forwards and is rejected.
 *
 * tsc_sync_exceeds() says the offset is beyond a bound only when every
 * offset the uncertainty allows is: a slow, noisy measurement (an emulator
 * whose vCPUs take turns) widens the uncertainty instead of raising a false
 * alarm.
 *
 *	struct tsc_sync_est est;
 *	tsc_sync_init(&est);
 *	for (int i = 0; i < 32; i++) {
 *		... t0 = my TSC; ask; t1 = its TSC; t2 = my TSC on the reply ...
 *		tsc_sync_add(&est, t0, t1, t2);
 *	}
 *	if (tsc_sync_exceeds(&est, tsc_sync_ns_to_cycles(TSC_SYNC_BOUND_NS, hz)))
 *		... warn: est.offset cycles, +- est.uncertainty ...
 *
 * tsc_sync_applied() is the offset to subtract from the other CPU's stamps:
 * 0 when 0 is within the uncertainty, since shifting a CPU's records by an
 * offset the TSCs may not have misorders them against the others.
 *
 * tsc_sync_parse_skew() reads the `tsc.skew=CPU:CYCLES` boot option, which
 * skews one CPU's TSC on purpose so tests can see a disagreement.
 */
#ifndef TSC_SYNC_H
#define TSC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How far two CPUs' TSCs may disagree before the kernel warns, in ns. Linux
 * calls any backwards step it observes between CPUs unsynchronised; we
 * tolerate a small fixed bound instead, because records from different CPUs
 * closer together than about a microsecond are not causally ordered by the
 * trace anyway (handing anything from one CPU to another, a lock, a wakeup,
 * an IPI, takes longer than that), while the events whose order matters on
 * one machine are further apart. 1000 ns is also well above what an exact
 * TSC shows once the round trip's own cost is allowed for.
 */
#define TSC_SYNC_BOUND_NS	1000

struct tsc_sync_est {
	int64_t offset;		/* other CPU's TSC minus the reference's */
	uint64_t uncertainty;	/* |true offset - offset| <= this; UINT64_MAX
				   until a sample is accepted */
	uint32_t samples;	/* samples accepted (not rejected) so far */
};

void tsc_sync_init(struct tsc_sync_est *est);
void tsc_sync_add(struct tsc_sync_est *est, uint64_t t0, uint64_t t1,
		  uint64_t t2);
bool tsc_sync_exceeds(const struct tsc_sync_est *est, uint64_t bound_cycles);
int64_t tsc_sync_applied(const struct tsc_sync_est *est);
uint64_t tsc_sync_ns_to_cycles(uint64_t ns, uint64_t freq_hz);
bool tsc_sync_parse_skew(const char *val, uint32_t *cpu, int64_t *cycles);

#endif /* TSC_SYNC_H */
