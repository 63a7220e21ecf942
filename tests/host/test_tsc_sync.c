/*
 * Host tests for kern/lib/tsc_sync.c.
 *
 * Round trips are simulated on a reference clock: the request leaves at
 * reference time `at`, reaches the other CPU after `out` cycles, and the
 * reply gets back `back` cycles after that. The other CPU's counter reads
 * the reference time plus the true offset, so every test knows the answer
 * and checks the estimate against it, and the estimate's claimed
 * uncertainty against the real error.
 */
#include <stdlib.h>

#include "htest.h"
#include <tsc_sync.h>

/* Adds one simulated round trip to est. */
static void round_trip(struct tsc_sync_est *est, uint64_t at, int64_t offset,
		       uint64_t out, uint64_t back)
{
	tsc_sync_add(est, at, at + out + (uint64_t)offset, at + out + back);
}

/* |got - want| as an unsigned number, without overflow. */
static uint64_t distance(int64_t got, int64_t want)
{
	return got > want ? (uint64_t)got - (uint64_t)want
			  : (uint64_t)want - (uint64_t)got;
}

/* A 31-bit random number from htest's generator (seeded, replayable). */
#define next_random(state)	(ht_rand(state) >> 33)

static int test_init(void)
{
	struct tsc_sync_est est = { 7, 7, 7 };

	tsc_sync_init(&est);
	HT_CHECK(est.offset == 0);
	HT_CHECK(est.uncertainty == UINT64_MAX);
	HT_CHECK(est.samples == 0);
	return 0;
}

/* Equal delays both ways: the midpoint is exact. */
static int test_symmetric_exact(void)
{
	static const int64_t offsets[] = { 0, 1, 12345, 50000000,
					   (int64_t)1 << 40, INT64_MAX / 2 };
	static const uint64_t delays[] = { 0, 1, 100, 7777, 1000000 };

	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		for (size_t j = 0; j < sizeof(delays) / sizeof(delays[0]); j++) {
			struct tsc_sync_est est;

			tsc_sync_init(&est);
			round_trip(&est, 1000000000, offsets[i], delays[j],
				   delays[j]);
			if (est.offset != offsets[i] ||
			    est.uncertainty != delays[j] || est.samples != 1)
				HT_FAIL("offset %lld delay %llu: got %lld +- %llu",
					(long long)offsets[i],
					(unsigned long long)delays[j],
					(long long)est.offset,
					(unsigned long long)est.uncertainty);
		}
	}
	return 0;
}

/* Counters that wrap past 2^64 in the middle of a round trip. */
static int test_wrapping_counters(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	round_trip(&est, UINT64_MAX - 10, 0, 8, 8);
	HT_CHECK(est.samples == 0);	/* t2 wrapped below t0: rejected */
	round_trip(&est, UINT64_MAX - 100, 5, 40, 40);
	HT_CHECK(est.samples == 1);
	HT_CHECK(est.offset == 5 && est.uncertainty == 40);
	/* t1 wraps past zero while t0 and t2 do not. */
	round_trip(&est, UINT64_MAX - 100, 1000, 20, 20);
	HT_CHECK(est.offset == 1000 && est.uncertainty == 20);
	return 0;
}

/* Unequal delays: the estimate is off, but never by more than it says. */
static int test_asymmetric_within_uncertainty(void)
{
	uint64_t state = 42;

	for (int i = 0; i < 100000; i++) {
		struct tsc_sync_est est;
		int64_t offset = (int64_t)next_random(&state) -
				 (int64_t)next_random(&state);
		uint64_t out = next_random(&state) % 5000;
		uint64_t back = next_random(&state) % (i % 2 ? 5 : 50000);

		tsc_sync_init(&est);
		round_trip(&est, next_random(&state) << 20, offset, out, back);
		if (distance(est.offset, offset) > est.uncertainty ||
		    est.uncertainty != (out + back + 1) / 2)
			HT_FAIL("offset %lld out %llu back %llu: got %lld +- %llu",
				(long long)offset, (unsigned long long)out,
				(unsigned long long)back, (long long)est.offset,
				(unsigned long long)est.uncertainty);
	}
	return 0;
}

/* The worst case: all the delay on one side, with an odd round trip. */
static int test_one_sided_delay(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	round_trip(&est, 5000, 100, 0, 7);
	HT_CHECK(est.uncertainty == 4);
	HT_CHECK(distance(est.offset, 100) <= 4);
	tsc_sync_init(&est);
	round_trip(&est, 5000, 100, 7, 0);
	HT_CHECK(est.uncertainty == 4);
	HT_CHECK(distance(est.offset, 100) <= 4);
	return 0;
}

/* The shortest round trip wins, whatever order the samples come in; a
 * later sample no better than the best does not replace it. */
static int test_min_round_trip_wins(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	round_trip(&est, 1000, 400, 500, 500);		/* rtt 1000 */
	round_trip(&est, 9000, 40, 30, 70);		/* rtt 100: best */
	round_trip(&est, 20000, -900, 250, 250);	/* rtt 500 */
	round_trip(&est, 30000, 777, 50, 50);		/* rtt 100: a tie */
	HT_CHECK(est.samples == 4);
	HT_CHECK(est.uncertainty == 50);
	HT_CHECK(est.offset == 40 + (30 - 70) / 2);
	round_trip(&est, 40000, 3, 2, 2);		/* rtt 4: better */
	HT_CHECK(est.offset == 3 && est.uncertainty == 2 && est.samples == 5);
	return 0;
}

static int test_negative_offsets(void)
{
	static const int64_t offsets[] = { -1, -2, -1000, -50000000,
					   -((int64_t)1 << 40), INT64_MIN / 2 };

	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		struct tsc_sync_est est;

		tsc_sync_init(&est);
		/* The other CPU's counter may be behind the start of ours. */
		round_trip(&est, 1000, offsets[i], 60, 60);
		if (est.offset != offsets[i] || est.uncertainty != 60)
			HT_FAIL("offset %lld: got %lld +- %llu",
				(long long)offsets[i], (long long)est.offset,
				(unsigned long long)est.uncertainty);
	}
	return 0;
}

/* t2 < t0 is no round trip on a clock that goes forwards. */
static int test_rejects_backwards(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	tsc_sync_add(&est, 1000, 1500, 999);
	HT_CHECK(est.samples == 0 && est.uncertainty == UINT64_MAX);
	HT_CHECK(est.offset == 0);
	tsc_sync_add(&est, 1000, 1600, 1200);
	HT_CHECK(est.samples == 1 && est.offset == 500 &&
		 est.uncertainty == 100);
	/* Would be the tightest sample ever if it were accepted. */
	tsc_sync_add(&est, 5000, 0, 4999);
	tsc_sync_add(&est, 5000, 0, 0);
	HT_CHECK(est.samples == 1 && est.offset == 500 &&
		 est.uncertainty == 100);
	/* t2 == t0 is a (perfect) round trip. */
	tsc_sync_add(&est, 7000, 7003, 7000);
	HT_CHECK(est.samples == 2 && est.offset == 3 && est.uncertainty == 0);
	return 0;
}

/* Builds an estimate directly: exceeds() reads only these fields. */
static struct tsc_sync_est made(int64_t offset, uint64_t uncertainty)
{
	struct tsc_sync_est est = { offset, uncertainty, 1 };

	return est;
}

/* 0 is applied when 0 is within the uncertainty, the estimate otherwise
 * (bug: a loaded emulator's +- 4.8M-cycle estimate of 1.2M cycles was
 * subtracted from equal TSCs, misordering records across CPUs). */
static int test_applied(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	/* equal TSCs, a slow way out: the estimate of the bug */
	round_trip(&est, 1000000000, 0, 6034750, 3567270);
	HT_CHECK(est.offset == 1233740 && est.uncertainty == 4801010);
	HT_CHECK(tsc_sync_applied(&est) == 0);
	est.offset = -(int64_t)est.uncertainty;
	HT_CHECK(tsc_sync_applied(&est) == 0);
	tsc_sync_init(&est);
	round_trip(&est, 1000000000, -50000, 300, 300);
	HT_CHECK(tsc_sync_applied(&est) == -50000);
	tsc_sync_init(&est);
	round_trip(&est, 1000000000, 50000, 300, 300);
	HT_CHECK(tsc_sync_applied(&est) == 50000);
	return 0;
}

static int test_exceeds(void)
{
	struct tsc_sync_est est;

	tsc_sync_init(&est);
	HT_CHECK(!tsc_sync_exceeds(&est, 0));
	/* Big uncertainty: a noisy emulator's measurement never warns. */
	est = made(5000, 10000);
	HT_CHECK(!tsc_sync_exceeds(&est, 1000));
	est = made(-5000000, 5000000);
	HT_CHECK(!tsc_sync_exceeds(&est, 0));
	est = made(INT64_MIN, UINT64_MAX);
	HT_CHECK(!tsc_sync_exceeds(&est, 0));
	/* A clear skew warns, either way. */
	est = made(50000000, 300);
	HT_CHECK(tsc_sync_exceeds(&est, 2096));
	est = made(-50000000, 300);
	HT_CHECK(tsc_sync_exceeds(&est, 2096));
	est = made(INT64_MIN, 0);
	HT_CHECK(tsc_sync_exceeds(&est, (uint64_t)INT64_MAX));
	/* The edge: only strictly beyond the bound. */
	est = made(1500, 500);
	HT_CHECK(!tsc_sync_exceeds(&est, 1000));
	est = made(1501, 500);
	HT_CHECK(tsc_sync_exceeds(&est, 1000));
	est = made(-1501, 500);
	HT_CHECK(tsc_sync_exceeds(&est, 1000));
	est = made(-1500, 500);
	HT_CHECK(!tsc_sync_exceeds(&est, 1000));
	return 0;
}

/* Measured end to end: a skewed CPU behind a slow, lopsided link. */
static int test_estimate_then_judge(void)
{
	struct tsc_sync_est est;
	uint64_t state = 7, bound = tsc_sync_ns_to_cycles(TSC_SYNC_BOUND_NS,
							  2000000000);

	tsc_sync_init(&est);
	for (int i = 0; i < 32; i++)
		round_trip(&est, 1000000 * (uint64_t)(i + 1), 50000000,
			   200 + next_random(&state) % 20000,
			   300 + next_random(&state) % 20000);
	HT_CHECK(est.samples == 32);
	HT_CHECK(distance(est.offset, 50000000) <= est.uncertainty);
	HT_CHECK(tsc_sync_exceeds(&est, bound));
	/* The same link with agreeing CPUs: no warning. */
	tsc_sync_init(&est);
	for (int i = 0; i < 32; i++)
		round_trip(&est, 1000000 * (uint64_t)(i + 1), 0,
			   200 + next_random(&state) % 20000,
			   300 + next_random(&state) % 20000);
	HT_CHECK(!tsc_sync_exceeds(&est, bound));
	return 0;
}

static int test_ns_to_cycles(void)
{
	HT_CHECK(tsc_sync_ns_to_cycles(1000, 2000000000) == 2000);
	HT_CHECK(tsc_sync_ns_to_cycles(1000, 2095879800) == 2096);
	HT_CHECK(tsc_sync_ns_to_cycles(1, 1000000000) == 1);
	HT_CHECK(tsc_sync_ns_to_cycles(1, 1000000001) == 2);
	HT_CHECK(tsc_sync_ns_to_cycles(0, 3000000000) == 0);
	HT_CHECK(tsc_sync_ns_to_cycles(1000000000, 3000000000) == 3000000000);
	HT_CHECK(tsc_sync_ns_to_cycles(3600000000000ull, 3000000000) ==
		 10800000000000ull);
	HT_CHECK(tsc_sync_ns_to_cycles(999999999, 17000000000ull) ==
		 16999999983ull);
	return 0;
}

/* Parses val; on failure checks the outputs were left alone. */
static bool parse(const char *val, uint32_t *cpu, int64_t *cycles)
{
	*cpu = 0xdead;
	*cycles = 0xbeef;
	if (tsc_sync_parse_skew(val, cpu, cycles))
		return true;
	if (*cpu != 0xdead || *cycles != 0xbeef)
		*cpu = 0xbad;
	return false;
}

static int test_parse_skew(void)
{
	uint32_t cpu;
	int64_t cycles;

	HT_CHECK(parse("2:50000000", &cpu, &cycles));
	HT_CHECK(cpu == 2 && cycles == 50000000);
	HT_CHECK(parse("3:-4K", &cpu, &cycles));
	HT_CHECK(cpu == 3 && cycles == -4096);
	HT_CHECK(parse("0x1:0x10", &cpu, &cycles));
	HT_CHECK(cpu == 1 && cycles == 16);
	HT_CHECK(parse("15:50M", &cpu, &cycles));
	HT_CHECK(cpu == 15 && cycles == 50 << 20);
	HT_CHECK(parse("1:0", &cpu, &cycles));
	HT_CHECK(cpu == 1 && cycles == 0);
	HT_CHECK(parse("4294967295:9223372036854775807", &cpu, &cycles));
	HT_CHECK(cpu == UINT32_MAX && cycles == INT64_MAX);
	HT_CHECK(parse("1:-9223372036854775807", &cpu, &cycles));
	HT_CHECK(cycles == -INT64_MAX);
	return 0;
}

static int test_parse_skew_rejects(void)
{
	static const char *const bad[] = {
		"", "2", "2:", ":5", "2:+5", "-1:5", "2:5x", "2:--5", "2:-",
		"2 :5", "2: 5", "2:5:6", "a:5", "2:9223372036854775808",
		"2:-9223372036854775808", "4294967296:1", "2:8G8",
		"0000000000000000000000001:5",
	};
	uint32_t cpu;
	int64_t cycles;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &cpu, &cycles))
			HT_FAIL("'%s' accepted as %u:%lld", bad[i], cpu,
				(long long)cycles);
		if (cpu == 0xbad)
			HT_FAIL("'%s' rejected but the outputs changed", bad[i]);
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_init, "tsc_sync_init" },
	{ test_symmetric_exact, "tsc_sync_symmetric_exact" },
	{ test_wrapping_counters, "tsc_sync_wrapping_counters" },
	{ test_asymmetric_within_uncertainty,
	  "tsc_sync_asymmetric_within_uncertainty" },
	{ test_one_sided_delay, "tsc_sync_one_sided_delay" },
	{ test_min_round_trip_wins, "tsc_sync_min_round_trip_wins" },
	{ test_negative_offsets, "tsc_sync_negative_offsets" },
	{ test_rejects_backwards, "tsc_sync_rejects_backwards" },
	{ test_exceeds, "tsc_sync_exceeds" },
	{ test_applied, "tsc_sync_applied" },
	{ test_estimate_then_judge, "tsc_sync_estimate_then_judge" },
	{ test_ns_to_cycles, "tsc_sync_ns_to_cycles" },
	{ test_parse_skew, "tsc_sync_parse_skew" },
	{ test_parse_skew_rejects, "tsc_sync_parse_skew_rejects" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
