/*
 * The root record (kern/trace/lib/ttrace_root.h): where a host finds the
 * trace in this machine's physical memory when the machine cannot help,
 * hung with interrupts off on every CPU (scripts/pull, docs/pull.md).
 *
 * It lives in .data under the symbol `ttrace_root`, so the host finds it
 * through the kernel's ELF symbol table, and names the physical address of
 * everything a trace file needs. It changes only when trace memory moves,
 * and each change is bracketed by ttrace_root_begin()/ttrace_root_end()
 * (generation odd in between, CRC-32 recomputed at the end), so a host
 * that catches it half-way knows. Tracepoints never touch it: what moves
 * every event (ring heads, aux counters) is read by the host from the
 * descriptors the record points at.
 *
 * Also here: the ctl command `hang`, which stops every CPU for good with
 * interrupts off, so that `make test` can pull a trace from a guest that
 * truly cannot help.
 */
#include <ttrace.h>
#include <ttrace_root.h>
#include <printk.h>
#include <smp.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

/* How long `hang` waits for the other CPUs to stop: long, because a test
 * reads the trace only once they have, on a host that may be busy. */
#define HANG_STOP_WAIT_US	10000000

/* Fixed regions (meta, 4 scalars, 2 TSC arrays, aux, aux buffer), then
 * two per CPU. */
#define ROOT_FIXED	9
#define ROOT_REGIONS	(ROOT_FIXED + 2 * CONFIG_MAX_NUM_CPUS)

struct kernel_root {
	struct ttrace_root hdr;
	struct ttrace_root_region regions[ROOT_REGIONS];
};

static_assert(ROOT_REGIONS <= TTRACE_ROOT_MAX_REGIONS, "root regions");

/* Odd until the tracer first fills it: a pull before that is told so. */
__attribute__((used, aligned(64))) struct kernel_root ttrace_root = {
	.hdr = {
		.magic = TTRACE_ROOT_MAGIC,
		.version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE,
		.generation = 1,
		.max_regions = ROOT_REGIONS,
		.ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux),
		.event_count = TTRACE_NUM_EVENTS,
	},
};

static void add(uint32_t kind, uint32_t cpu, const void *va, uint64_t size)
{
	struct ttrace_root_region *r =
		&ttrace_root.regions[ttrace_root.hdr.nregions++];

	r->kind = kind;
	r->cpu = cpu;
	r->paddr = PADDR(va);
	r->vaddr = (uintptr_t)va;
	r->size = size;
}

/* Marks the record as being changed: call before trace memory moves.
 * Serialised by the caller (boot CPU at boot, then the ctl mutex). */
void ttrace_root_begin(void)
{
	struct ttrace_root *h = &ttrace_root.hdr;

	WRITE_ONCE(h->generation, h->generation | 1);
	wmb();
}

/* Rewrites the table from t's state (ttrace_main's), then publishes it:
 * CRC, generation even. Rings of CPUs up to the one being started. Same
 * serialisation as ttrace_root_begin(). */
void ttrace_root_end(struct ttrace *t)
{
	struct ttrace_root *h = &ttrace_root.hdr;
	uint32_t ncpus = MIN(num_cpus + 1, (uint32_t)CONFIG_MAX_NUM_CPUS);
	uint32_t meta_size;
	const uint8_t *meta = ttrace_meta_blob_now(&meta_size);

	h->nregions = 0;
	add(TTRACE_ROOT_META, 0, meta, meta_size);
	add(TTRACE_ROOT_NUM_CPUS, 0, &num_cpus, sizeof(num_cpus));
	add(TTRACE_ROOT_TSC_HZ, 0, &tsc_freq_hz, sizeof(tsc_freq_hz));
	add(TTRACE_ROOT_TSC_BOOT, 0, &tsc_at_boot, sizeof(tsc_at_boot));
	add(TTRACE_ROOT_GROUP_MASK, 0, &t->ctl.mask, sizeof(t->ctl.mask));
	add(TTRACE_ROOT_TSC_OFFSET, 0, tsc_offset, sizeof(tsc_offset));
	add(TTRACE_ROOT_TSC_UNCERTAINTY, 0, tsc_offset_uncertainty,
	    sizeof(tsc_offset_uncertainty));
	if (t->aux_mem) {
		add(TTRACE_ROOT_AUX, 0, &t->aux, sizeof(t->aux));
		add(TTRACE_ROOT_AUX_BUF, 0, t->aux_mem, t->aux.size);
	}
	for (uint32_t c = 0; c < ncpus; c++) {
		const struct trace_ring *r = &t->rings[c];

		add(TTRACE_ROOT_RING, c, r, sizeof(*r));
		add(TTRACE_ROOT_RING_BUF, c, r->entries,
		    (r->mask + 1) * sizeof(struct ttrace_entry));
	}
	h->crc = ttrace_root_crc(h);
	wmb();
	WRITE_ONCE(h->generation, h->generation + 1);
}

/* ttrace_root_begin() and _end() around nothing: after memory moved. */
void ttrace_root_update(struct ttrace *t)
{
	ttrace_root_begin();
	ttrace_root_end(t);
}

/* The ctl command `hang`: stops every CPU for good with interrupts off
 * (the others through the panic IPI), then says on the console how many
 * stopped, so a host that reads the trace after that line finds each
 * other CPU's entry into the IPI. For testing `make pull`; the machine must
 * be ended from outside. Process context. */
void ttrace_hang(void)
{
	uint32_t running;

	arch_irq_disable();
	running = smp_stop_others(HANG_STOP_WAIT_US);
	printk(KERN_EMERG "ttrace: hang: %u of %u other CPUs stopped, "
	       "interrupts off (make pull reads the trace)\n",
	       num_cpus - 1 - running, num_cpus - 1);
	arch_halt_forever();
}
