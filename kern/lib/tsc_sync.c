/*
 * The TSC offset estimator (the method is described in tsc_sync.h).
 *
 * All arithmetic is on unsigned 64-bit stamps, so counters near the top of
 * their range wrap as the hardware's do; an offset is a difference of two
 * stamps taken as signed, which is right while the CPUs are within 2^63
 * cycles (a century at 3 GHz) of each other. Nothing here divides a 128-bit
 * number, so the kernel needs no compiler runtime for it.
 */
#include <tsc_sync.h>
#include <cmdline.h>

#define NS_PER_SEC	1000000000ull

/* Starts an estimate with no samples: offset 0, uncertainty UINT64_MAX. */
void tsc_sync_init(struct tsc_sync_est *est)
{
	est->offset = 0;
	est->uncertainty = UINT64_MAX;
	est->samples = 0;
}

/*
 * Adds the round trip (t0, t1, t2): t0 and t2 from the reference CPU before
 * the request and after the reply, t1 from the other CPU in between. Keeps
 * it as the estimate when its round trip is shorter than every earlier
 * one's; ignores it when t2 < t0. No locking: the caller owns est.
 */
void tsc_sync_add(struct tsc_sync_est *est, uint64_t t0, uint64_t t1,
		  uint64_t t2)
{
	uint64_t rtt, half_up;

	if (t2 < t0)
		return;
	est->samples++;
	rtt = t2 - t0;
	/* Rounded up: with an odd round trip the midpoint below is half a
	 * cycle early, and the bound must still hold. */
	half_up = rtt / 2 + (rtt & 1);
	if (half_up >= est->uncertainty)
		return;
	est->offset = (int64_t)(t1 - (t0 + rtt / 2));
	est->uncertainty = half_up;
}

/*
 * The offset to subtract from the other CPU's stamps: the estimate, or 0
 * when 0 is within its uncertainty (|offset| <= uncertainty). Subtracting
 * an offset the TSCs may not have shifts every record of that CPU against
 * the others by up to the error: under a loaded emulator a cpu 1 "offset"
 * of 1,233,740 cycles +- 4,801,010 (TSCs truly equal) reordered a thread's
 * calls across its migration by 0.6 ms (the ttrace_graph nesting check).
 */
int64_t tsc_sync_applied(const struct tsc_sync_est *est)
{
	uint64_t magnitude = est->offset < 0 ? -(uint64_t)est->offset
					     : (uint64_t)est->offset;

	return magnitude <= est->uncertainty ? 0 : est->offset;
}

/*
 * Returns true only when the offset is certainly beyond bound_cycles either
 * way: |offset| - uncertainty > bound_cycles. False with no samples.
 */
bool tsc_sync_exceeds(const struct tsc_sync_est *est, uint64_t bound_cycles)
{
	uint64_t magnitude = est->offset < 0 ? -(uint64_t)est->offset
					     : (uint64_t)est->offset;

	if (magnitude <= est->uncertainty)
		return false;
	return magnitude - est->uncertainty > bound_cycles;
}

/*
 * Returns ns nanoseconds as cycles of a counter running at freq_hz, rounded
 * up (a bound made larger, never smaller). Exact while freq_hz is below
 * 18 GHz and the result fits in 64 bits.
 */
uint64_t tsc_sync_ns_to_cycles(uint64_t ns, uint64_t freq_hz)
{
	return ns / NS_PER_SEC * freq_hz +
	       (ns % NS_PER_SEC * freq_hz + NS_PER_SEC - 1) / NS_PER_SEC;
}

/*
 * Parses a `tsc.skew` value, "CPU:CYCLES": CPU a core id, CYCLES a number in
 * the command line's syntax (decimal, 0x-hex, K/M/G suffix) with an optional
 * leading '-'. Returns true and sets *cpu and *cycles, or returns false and
 * leaves them alone when val is malformed or a part is out of range.
 */
bool tsc_sync_parse_skew(const char *val, uint32_t *cpu, int64_t *cycles)
{
	char cpu_text[24];
	size_t n = 0;
	uint64_t core, magnitude;
	bool negative;

	while (val[n] && val[n] != ':') {
		if (n + 1 >= sizeof(cpu_text))
			return false;
		cpu_text[n] = val[n];
		n++;
	}
	cpu_text[n] = 0;
	if (val[n] != ':' || !cmdline_parse_u64(cpu_text, &core) ||
	    core > UINT32_MAX)
		return false;
	val += n + 1;
	negative = *val == '-';
	if (!cmdline_parse_u64(val + negative, &magnitude) ||
	    magnitude > INT64_MAX)
		return false;
	*cpu = (uint32_t)core;
	*cycles = negative ? -(int64_t)magnitude : (int64_t)magnitude;
	return true;
}
