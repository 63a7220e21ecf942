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

struct phases {
	struct ttrace_entry *out;
	size_t n, max;
};

/* Keeps e if it is a boot phase record; false once out is full. */
static bool keep_phase(const struct ttrace_entry *e, void *arg)
{
	struct phases *p = arg;

	if (TTRACE_TYPE_ID(e->type) == TTRACE_EV_BOOT_PHASE)
		p->out[p->n++] = *e;
	return p->n < p->max;
}

/* Collects CPU 0's boot phase records; returns how many. */
static size_t collect(struct ttrace_entry *out, size_t max)
{
	static struct ttrace_entry e[64];
	struct phases p = { out, 0, max };

	trace_ring_each_event(ttrace_ring_of(0), e, ARRAY_SIZE(e), keep_phase,
			      &p);
	return p.n;
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
