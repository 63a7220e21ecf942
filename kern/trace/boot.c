/*
 * The boot profile, kernel side: the boot phase events of CPU 0's ring, in
 * order, with the time each phase started (since power-on: the TSC counts
 * from reset) and how long it lasted (until the next phase began).
 * `ttrace.bootprof` on the command line prints it once the kernel is up.
 * The full profile, every CPU's phases, the firmware's share and each AP's
 * bring-up latency, is `ttdecode boot` on a saved trace (tools/export/ttboot.c,
 * docs/boot-profile.md).
 */
#include <ttrace.h>
#include <trace_ring.h>
#include <printk.h>
#include <pmem.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

/* CPU 0 records 3 phases per AP (start, SIPI, online) */
#define MAX_PHASES	(BOOT_PHASE_COUNT + 3 * CONFIG_MAX_NUM_CPUS)

static const char *phase_name(uint64_t id)
{
	return id < BOOT_PHASE_COUNT ? ttrace_boot_phase_names[id] : "?";
}

/* One phase: its id, argument and start TSC. */
struct phase {
	uint64_t id, arg, start;
};

struct phases {
	struct phase *out;
	size_t n, max;
};

/* Keeps e if it is a boot phase record; false once out is full. A
 * boot_phase_at record's phase began at the TSC it carries. */
static bool keep_phase(const struct ttrace_entry *e, void *arg)
{
	struct phases *p = arg;
	uint32_t id = TTRACE_TYPE_ID(e->type);

	if (id == TTRACE_EV_BOOT_PHASE)
		p->out[p->n++] = (struct phase){ e->data[0], e->data[1],
						 e->timestamp };
	else if (id == TTRACE_EV_BOOT_PHASE_AT)
		p->out[p->n++] = (struct phase){ e->data[0], e->data[2],
						 e->data[1] };
	return p->n < p->max;
}

/* Collects CPU 0's boot phases from t; returns how many. */
static size_t collect(struct ttrace *t, struct phase *out, size_t max)
{
	static struct ttrace_entry e[64];
	struct phases p = { out, 0, max };

	trace_ring_each_event(ttrace_ring_of(t, 0), e, ARRAY_SIZE(e), keep_phase,
			      &p);
	return p.n;
}

/* Prints the boot profile: one line per phase. Any kernel context. */
void ttrace_print_boot_profile(void)
{
	static struct phase ph[MAX_PHASES];
	size_t n = collect(&ttrace_main, ph, MAX_PHASES);

	printk("boot profile: %zu phases\n", n);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = i + 1 < n ? ph[i + 1].start : arch_read_tsc();

		printk("boot phase %-13s %2lu at %8lu us took %8lu us\n",
		       phase_name(ph[i].id), ph[i].arg,
		       tsc_to_ns(ph[i].start) / 1000,
		       tsc_to_ns(end - ph[i].start) / 1000);
	}
}
