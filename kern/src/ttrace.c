/*
 * ttrace, kernel side: rings and aux buffer memory, boot-time start, names,
 * contexts and the version header. The ring and aux logic itself is pure
 * code in kern/lib (trace_ring.c, ttrace_aux.c); this file only wires it to
 * CPUs, pages, locks and the TSC.
 *
 * Boot: ttrace_early_init() runs a few instructions into kmain, with a
 * small static ring as CPU 0's, so the first boot phases are recorded.
 * ttrace_init() runs right after the page allocator is up and before SMP
 * bring-up, when num_cpus is not known yet: it allocates a ring for every
 * possible CPU, moves the early records into CPU 0's ring, and writes the
 * event metadata, syscall names and boot phase names to aux.
 * ttrace_cleanup() gives the rings of absent CPUs back once all are online.
 */
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <trace_ring.h>
#include <buddy.h>
#include <cmdline.h>
#include <init.h>
#include <pmem.h>
#include <printk.h>
#include <proc.h>
#include <spinlock.h>
#include <string.h>
#include <syscall.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#define EARLY_ENTRIES	128

uint8_t ttrace_armed[TTRACE_NUM_EVENTS];
static uint8_t ttrace_enabled[TTRACE_NUM_EVENTS];
struct ttrace_ctl_state ttrace_ctl;

static struct ttrace_entry early_entries[EARLY_ENTRIES];
static struct trace_ring early_ring;
static struct trace_ring rings[CONFIG_MAX_NUM_CPUS];
static unsigned ring_order;			/* pages per ring: 2^order */

static struct ttrace_aux aux;
static struct rwlock aux_lock = RWLOCK_INIT("ttrace_aux");
static void *aux_mem;
static unsigned aux_order;

const char *const ttrace_boot_phase_names[BOOT_PHASE_COUNT] = {
	[BOOT_PHASE_KMAIN] = "kmain",
	[BOOT_PHASE_MEMORY] = "memory",
	[BOOT_PHASE_TTRACE] = "ttrace",
	[BOOT_PHASE_TSC] = "tsc",
	[BOOT_PHASE_ACPI] = "acpi",
	[BOOT_PHASE_APIC] = "apic",
	[BOOT_PHASE_AP_START] = "ap_start",
	[BOOT_PHASE_AP_ONLINE] = "ap_online",
	[BOOT_PHASE_SMP] = "smp",
	[BOOT_PHASE_DEVICES] = "devices",
	[BOOT_PHASE_FIRST_PROCESS] = "first_process",
	[BOOT_PHASE_SHELL_READY] = "shell_ready",
};

/* Arms the default events and points CPU 0 at the early ring. BSP, with
 * its per-CPU data installed, before anything is traced. */
void ttrace_early_init(void)
{
	struct per_cpu_info *pcpui = this_cpu();

	trace_ring_init(&early_ring, early_entries, sizeof(early_entries),
			TRACE_RING_SATURATE);
	pcpui->ttrace_ring = &early_ring;
	ttrace_ctx_set(pcpui, TTRACE_CTX_BOOT, 0);
	ttrace_ctl_init(&ttrace_ctl, &ttrace_meta_builtin, ttrace_enabled,
			ttrace_armed);
}

static unsigned order_for(size_t bytes)
{
	unsigned order = 0;

	while (((size_t)PGSIZE << order) < bytes && order < BUDDY_MAX_ORDER)
		order++;
	return order;
}

/* Copies the early ring's records into r, oldest first. */
static void merge_early(struct trace_ring *r)
{
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_entry e;

	while (trace_ring_copy_valid(&early_ring, &e, 1, &cur) == 1) {
		cur.from = cur.next;
		trace_ring_write(r, e.timestamp, e.type & ~TTRACE_TYPE_LAP_MASK,
				 e.context, e.data[0], e.data[1], e.data[2],
				 e.data[3], e.data[4]);
	}
}

static bool rings_init(void)
{
	uint64_t kb = CONFIG_TTRACE_PER_CPU_BUFFER_KB;

	cmdline_get_u64(boot_cmdline, "ttrace.bufsize", &kb);
	ring_order = order_for(kb * 1024);
	for (int i = 0; i < CONFIG_MAX_NUM_CPUS; i++) {
		void *mem = get_cont_pages(ring_order, 0);

		if (!mem)
			return false;
		trace_ring_init(&rings[i], mem, (size_t)PGSIZE << ring_order,
				TRACE_RING_OVERWRITE);
	}
	merge_early(&rings[0]);
	for (int i = 0; i < CONFIG_MAX_NUM_CPUS; i++)
		per_cpu_info[i].ttrace_ring = &rings[i];
	return true;
}

static void record_names(void)
{
	ttrace_aux_blob(TTRACE_AUX_EVENT_META, 0, ttrace_meta_blob,
			ttrace_meta_blob_size);
	for (uint64_t i = 0; i < NR_SYSCALLS; i++)
		if (syscall_table[i].name)
			ttrace_aux_string(TTRACE_AUX_SYSCALL_NAME, i,
					  syscall_table[i].name);
	for (uint64_t i = 0; i < BOOT_PHASE_COUNT; i++)
		ttrace_aux_string(TTRACE_AUX_BOOT_PHASE, i, ttrace_boot_phase_names[i]);
}

/* Allocates the rings of every possible CPU and the aux buffer. Boot CPU,
 * right after pmem_init, interrupts off. */
void ttrace_init(void)
{
	aux_order = order_for(CONFIG_TTRACE_AUX_BUFFER_KB * 1024);
	aux_mem = get_cont_pages(aux_order, 0);
	if (!aux_mem || !rings_init()) {
		printk(KERN_ERR "ttrace: out of memory; tracing stays in the "
		       "early buffer\n");
		return;
	}
	ttrace_aux_init(&aux, aux_mem, (size_t)PGSIZE << aux_order);
	record_names();
	printk(KERN_INFO "ttrace: %u CPU rings of %lu KiB (%lu entries), aux "
	       "%lu KiB\n", CONFIG_MAX_NUM_CPUS,
	       ((size_t)PGSIZE << ring_order) / 1024,
	       ((size_t)PGSIZE << ring_order) / sizeof(struct ttrace_entry),
	       ((size_t)PGSIZE << aux_order) / 1024);
}

/* Frees the rings of CPUs that did not come up. Boot CPU, after SMP. */
void ttrace_cleanup(void)
{
	for (uint32_t i = num_cpus; i < CONFIG_MAX_NUM_CPUS; i++) {
		if (!rings[i].entries)
			continue;
		per_cpu_info[i].ttrace_ring = NULL;
		free_cont_pages(rings[i].entries, ring_order);
		memset(&rings[i], 0, sizeof(rings[i]));
	}
}

void ttrace_emit_ext(uint32_t id, const uint64_t *args, uint32_t nargs)
{
	uint64_t ts = arch_read_tscp();
	struct per_cpu_info *pcpui = this_cpu();

	trace_ring_write_ext(pcpui->ttrace_ring, ts, pcpui->ttrace_type_base | id,
			     pcpui->ttrace_ctx, args, nargs);
}

/* Appends a record of n payload bytes to aux. Any context: the write lock
 * is held with interrupts off only to reserve the space. A record that
 * cannot be placed (too big, or it would overwrite one in flight) is
 * counted in aux.dropped by the reserve. */
void ttrace_aux_blob(unsigned tag, uint64_t ident, const void *p, size_t n)
{
	uint64_t flags, pos;
	int err;

	if (!aux_mem)
		return;
	flags = arch_irq_save();
	wlock(&aux_lock);
	err = ttrace_aux_reserve(&aux, tag, core_id(), n, &pos);
	wunlock(&aux_lock);
	if (!err) {
		ttrace_aux_fill(&aux, pos, arch_read_tscp(), ident, p, n);
		ttrace_aux_publish(&aux, pos);
	}
	arch_irq_restore(flags);
}

void ttrace_aux_string(unsigned tag, uint64_t ident, const char *str)
{
	ttrace_aux_blob(tag, ident, str, strnlen(str, TTRACE_AUX_MAX_STRLEN));
}

/* Sets the context for the thread about to run on pcpui's CPU. sched_lock
 * held, interrupts off. */
void ttrace_ctx_switch(struct per_cpu_info *pcpui, const struct kthread *kt)
{
	if (kt->id == 0)
		ttrace_ctx_set(pcpui, TTRACE_CTX_IDLE, 0);
	else if (!kt->proc)
		ttrace_ctx_set(pcpui, TTRACE_CTX_KTASK, kt->id);
	else if (kt->syscall_nr)
		ttrace_ctx_syscall(pcpui, kt->proc->pid, kt->syscall_nr - 1);
	else
		ttrace_ctx_user(pcpui, kt->proc->pid);
}

/* The aux read lock, taken with interrupts off: a writer interrupting a
 * reader on the same CPU would otherwise wait for it forever. */
static void aux_rlock(void *arg)
{
	*(uint64_t *)arg = arch_irq_save();
	rlock(&aux_lock);
}

static void aux_runlock(void *arg)
{
	runlock(&aux_lock);
	arch_irq_restore(*(uint64_t *)arg);
}

/* Copies a consistent snapshot of aux into out (see ttrace_aux_snapshot);
 * returns 0 or a negative ttrace_aux error. */
int ttrace_aux_read(void *out, size_t size, struct ttrace_aux_view *view)
{
	uint64_t flags;
	const struct ttrace_aux_lock lock = { aux_rlock, aux_runlock, &flags };

	if (!aux_mem)
		return -1;
	return ttrace_aux_snapshot(&aux, &lock, out, size, view);
}

/* Aux bytes in use, its size, and records it refused. */
void ttrace_aux_usage(uint64_t *bytes, uint64_t *size, uint64_t *dropped)
{
	uint64_t flags, first, last;

	aux_rlock(&flags);
	ttrace_aux_bounds(&aux, &first, &last);
	aux_runlock(&flags);
	*bytes = last - first;
	*size = aux.size;
	*dropped = aux.dropped;
}

/* Replaces every online CPU's ring by one of kb KiB (rounded up to pages
 * and a power of two). Tracing must be off (all events disarmed). Returns
 * false, keeping the old rings, when memory is short. ctl_lock held. */
bool ttrace_resize_rings(uint64_t kb)
{
	unsigned order = order_for(kb * 1024);
	void *mem[CONFIG_MAX_NUM_CPUS];

	for (uint32_t c = 0; c < num_cpus; c++) {
		mem[c] = get_cont_pages(order, 0);
		if (!mem[c]) {
			while (c--)
				free_cont_pages(mem[c], order);
			return false;
		}
	}
	for (uint32_t c = 0; c < num_cpus; c++) {
		free_cont_pages(rings[c].entries, ring_order);
		trace_ring_init(&rings[c], mem[c], (size_t)PGSIZE << order,
				rings[c].mode);
	}
	ring_order = order;
	return true;
}

/* The aux buffer itself, for the panic dump, which reads it without locks
 * once every other CPU has stopped. */
const struct ttrace_aux *ttrace_aux_unlocked(void)
{
	return aux_mem ? &aux : NULL;
}

/* The ring of core, or NULL when that CPU is absent. */
struct trace_ring *ttrace_ring_of(uint32_t core)
{
	return core < num_cpus ? per_cpu_info[core].ttrace_ring : NULL;
}

/* Fills the version header describing the live trace. */
void ttrace_fill_version(struct ttrace_version *v)
{
	uint64_t flags, first, last;

	aux_rlock(&flags);
	ttrace_aux_bounds(&aux, &first, &last);
	aux_runlock(&flags);
	ttrace_fill_version_bounds(v, first, last);
}

/* The same, with the aux bounds given (the panic dump takes no locks). */
void ttrace_fill_version_bounds(struct ttrace_version *v, uint64_t aux_first,
				uint64_t aux_last)
{
	memset(v, 0, sizeof(*v));
	v->magic = TTRACE_MAGIC;
	v->header_version = TTRACE_HEADER_VERSION;
	v->aux_version = TTRACE_AUX_VERSION;
	v->percpu_version = TTRACE_PERCPU_VERSION;
	v->header_size = sizeof(*v);
	v->num_cpus = num_cpus;
	v->entry_size = sizeof(struct ttrace_entry);
	v->entries_per_cpu = rings[0].mask + 1;
	v->tsc_hz = tsc_freq_hz;
	v->tsc_boot = tsc_at_boot;
	v->aux_size = aux.mask + 1;
	v->aux_mask = aux.mask;
	v->aux_first = aux_first;
	v->aux_last = aux_last;
	v->event_count = TTRACE_NUM_EVENTS;
	v->ring_mode = rings[0].mode;
	v->group_mask = __atomic_load_n(&ttrace_ctl.mask, __ATOMIC_RELAXED);
	v->tsc_now = arch_read_tsc();
	v->meta_size = ttrace_meta_blob_size;
}
