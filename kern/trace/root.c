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
 * The persistent area (lastboot.c) holds a second record of the same
 * format, written by the same code (ttrace_root_end_of()) with each
 * change of this one: its scalars and metadata are copies in the area,
 * so that the next boot finds everything it names after a reset.
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

static_assert(TTRACE_ROOT_NREGIONS <= TTRACE_ROOT_MAX_REGIONS,
	      "root regions");

/* Odd until the tracer first fills it: a pull before that is told so. */
__attribute__((used, aligned(64))) struct ttrace_kernel_root ttrace_root = {
	.hdr = {
		.magic = TTRACE_ROOT_MAGIC,
		.version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE,
		.generation = 1,
		.max_regions = TTRACE_ROOT_NREGIONS,
		.ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux),
		.event_count = TTRACE_NUM_EVENTS,
	},
};

/* Where the live record's scalars and metadata are: the kernel's own
 * (meta NULL: the live metadata, ttrace_meta_blob_now()). */
static const struct ttrace_root_src live_src = {
	.num_cpus = &num_cpus,
	.tsc_hz = &tsc_freq_hz,
	.tsc_boot = &tsc_at_boot,
	.tsc_offset = tsc_offset,
	.tsc_uncertainty = tsc_offset_uncertainty,
};

static void add(struct ttrace_kernel_root *kr, uint32_t kind, uint32_t cpu,
		const void *va, uint64_t size)
{
	struct ttrace_root_region *r = &kr->regions[kr->hdr.nregions++];

	r->kind = kind;
	r->cpu = cpu;
	r->paddr = PADDR(va);
	r->vaddr = (uintptr_t)va;
	r->size = size;
}

/* Marks kr as being changed: call before trace memory moves. Serialised
 * by the caller (boot CPU at boot, then the ctl mutex). */
void ttrace_root_begin_of(struct ttrace_kernel_root *kr)
{
	WRITE_ONCE(kr->hdr.generation, kr->hdr.generation | 1);
	wmb();
}

/* Marks the live record as being changed (ttrace_root_begin_of()). */
void ttrace_root_begin(void)
{
	ttrace_root_begin_of(&ttrace_root);
}

/* Rewrites kr's table from t's state and src's scalars, then publishes
 * it: CRC, generation even. Rings of CPUs up to the one being started.
 * Same serialisation as ttrace_root_begin_of(). */
void ttrace_root_end_of(struct ttrace_kernel_root *kr, struct ttrace *t,
			const struct ttrace_root_src *src)
{
	uint32_t ncpus = MIN(num_cpus + 1, (uint32_t)CONFIG_MAX_NUM_CPUS);
	uint32_t meta_size;
	const uint8_t *meta = ttrace_meta_blob_now(&meta_size);

	if (src->meta) {		/* a copy of it */
		meta = src->meta;
		meta_size = *src->meta_size;
	}
	kr->hdr.nregions = 0;
	add(kr, TTRACE_ROOT_META, 0, meta, meta_size);
	add(kr, TTRACE_ROOT_NUM_CPUS, 0, src->num_cpus, sizeof(uint32_t));
	add(kr, TTRACE_ROOT_TSC_HZ, 0, src->tsc_hz, sizeof(uint64_t));
	add(kr, TTRACE_ROOT_TSC_BOOT, 0, src->tsc_boot, sizeof(uint64_t));
	add(kr, TTRACE_ROOT_GROUP_MASK, 0, &t->ctl.mask, sizeof(t->ctl.mask));
	add(kr, TTRACE_ROOT_TSC_OFFSET, 0, src->tsc_offset, sizeof(tsc_offset));
	add(kr, TTRACE_ROOT_TSC_UNCERTAINTY, 0, src->tsc_uncertainty,
	    sizeof(tsc_offset_uncertainty));
	if (t->aux_mem) {
		add(kr, TTRACE_ROOT_AUX, 0, &t->aux, sizeof(t->aux));
		add(kr, TTRACE_ROOT_AUX_BUF, 0, t->aux_mem, t->aux.size);
	}
	for (uint32_t c = 0; c < ncpus; c++) {
		const struct trace_ring *r = &t->rings[c];

		add(kr, TTRACE_ROOT_RING, c, r, sizeof(*r));
		add(kr, TTRACE_ROOT_RING_BUF, c, r->entries,
		    (r->mask + 1) * sizeof(struct ttrace_entry));
	}
	kr->hdr.crc = ttrace_root_crc(&kr->hdr);
	wmb();
	WRITE_ONCE(kr->hdr.generation, kr->hdr.generation + 1);
}

/* Publishes the live record from t's state (ttrace_root_end_of()), and
 * the persistent area's record with it (lastboot.c). */
void ttrace_root_end(struct ttrace *t)
{
	ttrace_root_end_of(&ttrace_root, t, &live_src);
	ttrace_lastboot_sync(t);
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
