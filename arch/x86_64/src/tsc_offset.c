/*
 * TSC agreement: how far each AP's timestamp counter is from CPU 0's,
 * measured once, as the AP comes up. Traces merge per-CPU records by raw
 * TSC, which is only right while the counters agree; this says whether
 * they do, and by how much they may not.
 *
 * The BSP and the new AP play ping-pong on one cache line with interrupts
 * off on both sides, as Linux's tsc_sync does:
 *
 *	BSP: t0 = TSC; request = n	AP: sees request == n; t1 = TSC;
 *					    reply = n
 *	BSP: sees reply == n; t2 = TSC
 *
 * kern/lib/tsc_sync.c turns up to ROUND_TRIPS such samples (as many as
 * MEASURE_BUDGET_US allows) into an offset and an uncertainty (half the
 * shortest round trip). Every stamp is lfence;rdtsc,
 * so it cannot be read before the load that saw the other side's store.
 * Every spin pauses, which is also what lets single-threaded TCG switch to
 * the other vCPU, and every spin has a deadline, so a vCPU the host has
 * descheduled costs a discarded sample, never a hung boot.
 *
 * For tests, tsc.skew=CPU:CYCLES has that AP add CYCLES to its own TSC
 * before the exchange, through IA32_TSC_ADJUST where CPUID lists it, else by
 * writing IA32_TIME_STAMP_COUNTER, so the measurement sees a real skew; the
 * AP reports how far its TSC really moved, so a CPU (or an emulator) that
 * ignores the write shows up as such.
 *
 * The boot CPU drives it from start_ap(): tsc_offset_expect() before the
 * INIT, tsc_offset_measure() once tsc_offset_ap_arrived(). The AP calls
 * tsc_offset_answer() on its way up.
 */
#include <arch/arch.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <atomic.h>
#include <cmdline.h>
#include <init.h>
#include <printk.h>
#include <tsc_sync.h>

#define ROUND_TRIPS		32	/* at most, per AP */
#define MEASURE_BUDGET_US	100000	/* BSP: no new round trip after this */
#define SAMPLE_TIMEOUT_US	10000	/* BSP: one round trip */
#define AP_WAIT_US		1000000	/* AP: the next request */
#define STOP			UINT32_MAX

int64_t tsc_offset[CONFIG_MAX_NUM_CPUS];
uint64_t tsc_offset_uncertainty[CONFIG_MAX_NUM_CPUS];

/* The one cache line the two CPUs share. */
static struct {
	uint32_t ap;		/* BSP: core id of the AP being measured */
	uint32_t arrived;	/* AP: skewed if asked, now answering */
	uint32_t request;	/* BSP: round trip in flight (1..), or STOP */
	uint32_t reply;		/* AP: the last round trip it answered */
	uint64_t t1;		/* AP: its TSC when it saw that request */
	int64_t skew;		/* BSP: cycles the AP adds to its TSC */
	int64_t skew_seen;	/* AP: how far its TSC moved when it did */
	const char *skew_msr;	/* AP: the MSR it wrote, or NULL */
} exch __aligned(ARCH_CL_SIZE);

/* From tsc.skew; CPU 0, the reference, is never skewed. */
static uint32_t skew_cpu;
static int64_t skew_cycles;

static uint64_t usec_to_cycles(uint64_t usec)
{
	return tsc_freq_hz / 1000000 * usec;
}

static bool past(uint64_t deadline)
{
	return (int64_t)(rdtsc() - deadline) > 0;
}

/* Spins until *word == want; returns false if deadline passes first. */
static bool spin_until_equal(const uint32_t *word, uint32_t want,
			     uint64_t deadline)
{
	while (atomic_read(word) != want) {
		if (past(deadline))
			return false;
		arch_pause();
	}
	return true;
}

/* Spins while *word == old, up to deadline; returns the last value read,
 * which is old on a timeout. */
static uint32_t spin_while_equal(const uint32_t *word, uint32_t old,
				 uint64_t deadline)
{
	uint32_t v;

	while ((v = atomic_read(word)) == old && !past(deadline))
		arch_pause();
	return v;
}

/* Reads tsc.skew from the command line, warning about a bad one. Boot CPU,
 * before any AP starts. */
void tsc_offset_init(void)
{
	char val[64];

	if (!cmdline_get(boot_cmdline, "tsc.skew", val, sizeof(val)))
		return;
	if (!tsc_sync_parse_skew(val, &skew_cpu, &skew_cycles) ||
	    skew_cpu == 0) {
		printk(KERN_WARN "tsc: ignoring tsc.skew=%s: want CPU:CYCLES, "
		       "CPU 1 or more\n", val);
		skew_cpu = 0;
	}
}

/* Gets the exchange ready for the AP about to start as coreid. Boot CPU,
 * before the AP's INIT. */
void tsc_offset_expect(uint32_t coreid)
{
	exch.arrived = 0;
	exch.request = 0;
	exch.reply = 0;
	exch.skew = coreid == skew_cpu ? skew_cycles : 0;
	exch.skew_msr = NULL;
	tsc_offset_uncertainty[coreid] = UINT64_MAX;	/* until measured */
	atomic_set(&exch.ap, coreid);
}

/* Returns true once the expected AP is answering round trips. Boot CPU. */
bool tsc_offset_ap_arrived(void)
{
	return atomic_read(&exch.arrived);
}

/* One round trip; adds it to est unless the AP did not answer in time. */
static void round_trip(struct tsc_sync_est *est, uint32_t n)
{
	uint64_t t0, t2;

	t0 = rdtsc_ordered();
	atomic_set(&exch.request, n);
	if (!spin_until_equal(&exch.reply, n,
			      t0 + usec_to_cycles(SAMPLE_TIMEOUT_US)))
		return;
	t2 = rdtsc_ordered();
	tsc_sync_add(est, t0, READ_ONCE(exch.t1), t2);
}

static void report(uint32_t coreid, const struct tsc_sync_est *est)
{
	uint64_t bound = tsc_sync_ns_to_cycles(TSC_SYNC_BOUND_NS, tsc_freq_hz);

	if (exch.skew_msr)
		printk(KERN_INFO "tsc: cpu %u tsc.skew asked for %ld cycles; "
		       "writing %s moved its TSC by %ld\n", coreid, exch.skew,
		       exch.skew_msr, exch.skew_seen);
	if (!est->samples) {
		printk(KERN_WARN "tsc: cpu %u offset unknown: no round trip "
		       "completed\n", coreid);
		return;
	}
	printk(KERN_INFO "tsc: cpu %u offset %ld cycles +- %lu (best of %u "
	       "round trip%s)\n", coreid, est->offset, est->uncertainty,
	       est->samples, est->samples == 1 ? "" : "s");
	if (tsc_sync_exceeds(est, bound))
		printk(KERN_WARN "tsc: cpu %u TSC differs from cpu 0 by %ld "
		       "cycles (more than TSC_SYNC_BOUND_NS = %u ns)\n", coreid,
		       est->offset, TSC_SYNC_BOUND_NS);
}

/*
 * Measures the offset of coreid's TSC from this CPU's, stores it in
 * tsc_offset[coreid] and tsc_offset_uncertainty[coreid], prints it (and a
 * warning beyond TSC_SYNC_BOUND_NS), and lets the AP go on. Boot CPU, after
 * tsc_offset_ap_arrived(); disables interrupts for the exchange.
 */
void tsc_offset_measure(uint32_t coreid)
{
	struct tsc_sync_est est;
	uint64_t flags = arch_irq_save();
	uint64_t end = rdtsc() + usec_to_cycles(MEASURE_BUDGET_US);

	tsc_sync_init(&est);
	for (uint32_t n = 1; n <= ROUND_TRIPS && !past(end); n++)
		round_trip(&est, n);
	atomic_set(&exch.request, STOP);
	arch_irq_restore(flags);
	tsc_offset[coreid] = tsc_sync_applied(&est);
	tsc_offset_uncertainty[coreid] = est.uncertainty;
	report(coreid, &est);
}

static bool has_tsc_adjust(void)
{
	uint32_t max, a, b, c, d;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max < 7)
		return false;
	cpuid(7, 0, &a, &b, &c, &d);
	return b & (1u << 1);
}

/*
 * Adds cycles to this CPU's TSC and records in exch how, and how far the
 * TSC really moved across the write: cycles plus the write's own cost where
 * the CPU honours it, just that cost where it does not (QEMU's TCG ignores
 * both MSRs and lists no IA32_TSC_ADJUST).
 */
static void skew_this_cpu(int64_t cycles)
{
	bool adjust = has_tsc_adjust();
	uint64_t before = rdtsc_ordered();

	if (adjust)
		wrmsr(MSR_TSC_ADJUST, rdmsr(MSR_TSC_ADJUST) + (uint64_t)cycles);
	else
		wrmsr(MSR_TSC, rdtsc_ordered() + (uint64_t)cycles);
	exch.skew_seen = (int64_t)(rdtsc_ordered() - before);
	exch.skew_msr = adjust ? "IA32_TSC_ADJUST" : "IA32_TIME_STAMP_COUNTER";
}

/* Answers round trips until the BSP says STOP, another AP is expected, or
 * the BSP goes quiet for AP_WAIT_US. */
static void answer_requests(uint32_t coreid)
{
	uint32_t seen = 0, n;

	for (;;) {
		n = spin_while_equal(&exch.request, seen,
				     rdtsc() + usec_to_cycles(AP_WAIT_US));
		if (n == seen || n == STOP || atomic_read(&exch.ap) != coreid)
			return;
		WRITE_ONCE(exch.t1, rdtsc_ordered());
		atomic_set(&exch.reply, n);
		seen = n;
	}
}

/*
 * The AP's half: applies tsc.skew if it names this CPU, then answers the
 * BSP's round trips. Called once by each AP on its way up, as coreid, with
 * its per-CPU state set; disables interrupts for the exchange.
 */
void tsc_offset_answer(uint32_t coreid)
{
	uint64_t flags = arch_irq_save();

	if (atomic_read(&exch.ap) == coreid) {
		if (exch.skew)
			skew_this_cpu(exch.skew);
		atomic_set(&exch.arrived, 1);
		answer_requests(coreid);
	}
	arch_irq_restore(flags);
}
