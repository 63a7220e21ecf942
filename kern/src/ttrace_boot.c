/*
 * The boot profile: the boot phase events of CPU 0's ring, in order, with
 * the time each phase started and how long it lasted (until the next phase
 * began). `ttrace.bootprof` on the command line prints it once the kernel
 * is up; the host tools print the same from a saved trace.
 */
#include <ttrace.h>
#include <trace_ring.h>
#include <printk.h>
#include <pmem.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#define MAX_PHASES	(BOOT_PHASE_COUNT + 2 * CONFIG_MAX_NUM_CPUS)

static const char *phase_name(uint64_t id)
{
	return id < BOOT_PHASE_COUNT ? ttrace_boot_phase_names[id] : "?";
}

/* Collects CPU 0's boot phase records; returns how many. */
static size_t collect(struct ttrace_entry *out, size_t max)
{
	static struct ttrace_entry e[64];
	struct trace_ring_cursor cur = { 0 };
	struct trace_ring_run run;
	size_t n = 0;
	uint32_t k;

	while (n < max && (k = trace_ring_read(ttrace_ring_of(0), &cur,
					       UINT64_MAX, e, ARRAY_SIZE(e),
					       &run))) {
		if (k == TRACE_RUN_BUSY)
			trace_ring_give_up(&cur, &run);
		if (k != TRACE_RUN_RECORDS)
			continue;
		for (size_t i = 0; i < run.count && n < max;
		     i += 1 + TTRACE_TYPE_NCONT(e[i].type))
			if (TTRACE_TYPE_ID(e[i].type) == TTRACE_EV_BOOT_PHASE)
				out[n++] = e[i];
	}
	return n;
}

/* Prints the boot profile: one line per phase. Any kernel context. */
void ttrace_print_boot_profile(void)
{
	static struct ttrace_entry ph[MAX_PHASES];
	size_t n = collect(ph, MAX_PHASES);

	printk("boot profile: %zu phases\n", n);
	for (size_t i = 0; i < n; i++) {
		uint64_t start = tsc_to_ns(ph[i].timestamp - tsc_at_boot) / 1000;
		uint64_t end = i + 1 < n ? ph[i + 1].timestamp : arch_read_tsc();

		printk("boot phase %-13s %2lu at %8lu us took %8lu us\n",
		       phase_name(ph[i].data[0]), ph[i].data[1], start,
		       tsc_to_ns(end - ph[i].timestamp) / 1000);
	}
}
