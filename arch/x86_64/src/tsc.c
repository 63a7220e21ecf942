/*
 * TSC frequency. CPUID leaf 0x15 (crystal ratio) or 0x16 (base MHz) give it
 * where the CPU reports them; otherwise we count TSC ticks across a 10 ms
 * one-shot of PIT channel 2 (its gate and output are on port 0x61, so no
 * interrupt is needed), best of three runs to shrug off a preempted vCPU.
 * Invariant TSC (CPUID 0x80000007 EDX bit 8) is checked and reported: the
 * tracer's timestamps are only comparable across CPUs and time with it.
 */
#include <abi/insn_mark.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <arch/arch.h>
#include <printk.h>

uint64_t tsc_freq_hz;
uint64_t tsc_at_boot;

#define PIT_HZ		1193182
#define PIT_CH2		0x42
#define PIT_CMD		0x43
#define PIT_GATE	0x61

static uint64_t tsc_from_cpuid(const char **how)
{
	uint32_t max, a, b, c, d;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max >= 0x15) {
		cpuid(0x15, 0, &a, &b, &c, &d);
		if (a && b && c) {
			*how = "CPUID 0x15";
			return (uint64_t)c * b / a;
		}
	}
	if (max >= 0x16) {
		cpuid(0x16, 0, &a, &b, &c, &d);
		if (a) {
			*how = "CPUID 0x16";
			return (uint64_t)a * 1000000;
		}
	}
	return 0;
}

static uint64_t pit_measure(void)
{
	uint16_t count = PIT_HZ / 100;		/* 10 ms */

	outb(PIT_GATE, (inb(PIT_GATE) & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(PIT_CMD, 0xb0);			/* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	INSN_MARK(INSN_MARK_SPIN);	/* make bench: a time-based spin */
	uint64_t start = rdtsc();
	while (!(inb(PIT_GATE) & 0x20))
		;
	INSN_MARK(INSN_MARK_SPIN_END);
	return (rdtsc() - start) * 100;
}

static uint64_t tsc_from_pit(void)
{
	uint64_t best = ~0ull;

	for (int i = 0; i < 3; i++) {
		uint64_t f = pit_measure();

		if (f < best)
			best = f;
	}
	return best;
}

static bool tsc_invariant(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a < 0x80000007)
		return false;
	cpuid(0x80000007, 0, &a, &b, &c, &d);
	return d & (1u << 8);
}

/* Finds the TSC frequency and prints it. Boot CPU, early. */
void tsc_init(void)
{
	const char *how = "PIT calibration";

	tsc_freq_hz = tsc_from_cpuid(&how);
	if (!tsc_freq_hz)
		tsc_freq_hz = tsc_from_pit();
	printk(KERN_INFO "tsc: %lu.%06lu MHz (%s), %s, %s\n",
	       tsc_freq_hz / 1000000, tsc_freq_hz % 1000000, how,
	       tsc_invariant() ? "invariant" : "NOT invariant",
	       "trace stamps use rdtsc");
}

/* Busy-waits usec microseconds. */
void udelay(uint64_t usec)
{
	uint64_t end = rdtsc() + tsc_freq_hz / 1000000 * usec;

	INSN_MARK(INSN_MARK_SPIN);	/* make bench: a time-based spin */
	while (rdtsc() < end)
		__asm__ __volatile__("pause");
	INSN_MARK(INSN_MARK_SPIN_END);
}

uint64_t tsc_to_ns(uint64_t ticks)
{
	return ticks / tsc_freq_hz * 1000000000 +
	       ticks % tsc_freq_hz * 1000000000 / tsc_freq_hz;
}
