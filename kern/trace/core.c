/*
 * ttrace, kernel side: the tracer object and its lifecycle. The ring and
 * aux logic itself is pure code in lib/ (ring.c, aux.c);
 * this file owns their memory and locks and wires them to CPUs, pages and
 * the TSC. All of it lives in one struct ttrace (internal.h), as
 * Zircon's ktrace state: rings, aux, control state and their locks.
 *
 * Boot: ttrace_early_init() runs a few instructions into kmain, with a
 * small static ring as CPU 0's and a two-entry sink ring as every other
 * CPU's, so that a tracepoint always has a ring to write. ttrace_init()
 * runs right after the page allocator: it allocates CPU 0's ring, replays
 * the early records into it (whole events, continuations included), and
 * writes the event metadata, syscall names and boot phase names to aux.
 * If CPU 0's ring cannot be had, CPU 0 stays on the early ring until a
 * bufsize gives it one (ttrace_early_adopt()).
 * Each other CPU gets its ring from ttrace_cpu_up() just before it is
 * started, so only CPUs that exist cost memory and boot time (make bench
 * counts it). If memory is short it disarms every event and says so; the
 * sinks stay, so nothing crashes.
 *
 * Lifecycle. Ring memory is replaced (bufsize) and the mode changed only by
 * ttrace_suspend()..ttrace_resume(): disarm every event, wait a grace
 * period (a routine kernel message has run on every other CPU: the kernel
 * is not preemptible and tracepoints do not run kernel messages, so no CPU
 * is still inside a tracepoint that started before), then change things
 * under the rings' write lock, which every reader takes for reading, then
 * re-arm. Callers hold the ctl mutex (control.c).
 */
#include <ttrace.h>
#include <ttrace_aux.h>
#include <strnlen_inline.h>
#include <ttrace_ctl.h>
#include <trace_ring.h>
#include <ttrace_file.h>
#include <ttrace_decode.h>
#include <buddy.h>
#include <cmdline.h>
#include <init.h>
#include <kmsg.h>
#include <pmem.h>
#include <printfmt.h>
#include <printk.h>
#include <proc.h>
#include <string.h>
#include <syscall.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

uint8_t ttrace_armed[TTRACE_NUM_EVENTS];
uint8_t ttrace_ctx_live;
static struct ttrace ttrace_static;	/* without a persistent area */
struct ttrace *ttrace_mainp = &ttrace_static;

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
	[BOOT_PHASE_ENTRY] = "entry",
	[BOOT_PHASE_AP_SIPI] = "ap_sipi",
	[BOOT_PHASE_AP_TRAMPOLINE] = "ap_trampoline",
	[BOOT_PHASE_AP_INIT] = "ap_init",
	[BOOT_PHASE_AP_TSC_SYNC] = "ap_tsc_sync",
	[BOOT_PHASE_AP_READY] = "ap_ready",
	[BOOT_PHASE_INIT_SPAWN] = "init_spawn",
};

/* Sets up t (zeroed) without memory: its locks, the early ring, and
 * every CPU's sink and frozen ring as its ring. */
static void ttrace_setup(struct ttrace *t)
{
	t->rings_lock = (struct rwlock)RWLOCK_INIT("ttrace_rings");
	t->aux_lock = (struct rwlock)RWLOCK_INIT("ttrace_aux");
	spinlock_init(&t->ctl_lock, "ttrace_ctl");
	trace_ring_init(&t->early_ring, t->early_entries,
			sizeof(t->early_entries), TRACE_RING_SATURATE);
	for (int i = 0; i < CONFIG_MAX_NUM_CPUS; i++) {
		trace_ring_init(&t->rings[i], t->sink_entries[i],
				sizeof(t->sink_entries[i]), TRACE_RING_OVERWRITE);
		trace_ring_init(&t->frozen_rings[i], t->frozen_entries[i],
				sizeof(t->frozen_entries[i]),
				TRACE_RING_OVERWRITE);
	}
}

/* Arms the default events, points CPU 0 at the early ring and the others
 * at their sinks. BSP, with its per-CPU data installed, before anything is
 * traced. */
void ttrace_early_init(void)
{
	struct ttrace *t = ttrace_mainp = ttrace_lastboot_claim(&ttrace_static);
	struct per_cpu_info *pcpui = this_cpu();

	ttrace_setup(t);
	for (int i = 0; i < CONFIG_MAX_NUM_CPUS; i++)
		per_cpu_info[i].ttrace_ring = &t->rings[i];
	pcpui->ttrace_ring = &t->early_ring;
	ttrace_ctx_set(pcpui, TTRACE_CTX_BOOT, 0);
	arch_trace_irqs(true);		/* the boot runs with them off */
	fprobe_init();
	ttrace_ctl_init(&t->ctl, ttrace_meta_now(), t->enabled,
			ttrace_armed);
	t->ctl.probed = t->probed;
	ttrace_ctx_live = ttrace_ctl_any_on(&t->ctl);	/* no syscall yet */
	ttrace_patch_sync(TEXT_PATCH_ALONE);	/* no other CPU is up */
	ttrace_root_update(t);
}

/* The buddy order of a power-of-two size in bytes (at least a page). */
unsigned ttrace_order_for(size_t bytes)
{
	unsigned order = 0;

	while (((size_t)PGSIZE << order) < bytes && order < BUDDY_MAX_ORDER)
		order++;
	return order;
}

/* Names a thing in t's aux (ttrace_aux_blob()). */
static void aux_string(struct ttrace *t, unsigned tag, uint64_t ident,
		       const char *str)
{
	ttrace_aux_blob(t, tag, ident, str,
			strnlen(str, TTRACE_AUX_MAX_STRLEN));
}

/* Disarms every event for good (until rings exist): tracing is off. */
static void ttrace_off(struct ttrace *t, const char *why)
{
	t->off_reason = why;
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	ttrace_ctx_live = 0;	/* for good: no context needs keeping */
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	printk(KERN_ERR "ttrace: %s; tracing is off\n", why);
}

/*
 * Freezes tracing at once, from any context (the stop probe): the mask to
 * 0, every event without a probe disarmed, and every CPU's writes sent to
 * a small ring of its own that nobody reads, so a site whose text still
 * jumps to the recording code (static keys are re-patched only under the
 * ctl mutex) records nothing more. A writer already inside a ring finishes
 * there. The next rearm under the ctl mutex thaws it (ttrace_thaw).
 */
void ttrace_freeze(struct ttrace *t)
{
	uint64_t mask = ttrace_mask_setmask(&t->ctl.mask, 0, ~0ULL);

	if (mask)	/* a second freeze keeps the first's */
		__atomic_store_n(&t->frozen_mask, mask, __ATOMIC_RELAXED);
	for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++)
		if (!__atomic_load_n(&ttrace_probes[id], __ATOMIC_RELAXED))
			__atomic_store_n(&ttrace_armed[id], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->frozen, true, __ATOMIC_RELEASE);
	for (uint32_t c = 0; c < num_cpus; c++)
		__atomic_store_n(&per_cpu_info[c].ttrace_ring, &t->frozen_rings[c],
				 __ATOMIC_RELEASE);
}

/*
 * Undoes ttrace_freeze() from any context without a lock (the traceon
 * trigger, tracefs_trig.c): the mask the freeze emptied back unless ctl
 * set one since, the armed bytes it cleared back, every CPU on its own
 * ring. A ring resize cannot run meanwhile: it disarms every site, the
 * probes' too, and waits a grace period before it touches a ring. A ctl
 * holder's rearm meanwhile thaws too and sets every armed byte after.
 */
void ttrace_unfreeze(struct ttrace *t)
{
	uint64_t zero = 0, mask = __atomic_load_n(&t->frozen_mask,
						  __ATOMIC_RELAXED);

	if (!__atomic_load_n(&t->frozen, __ATOMIC_ACQUIRE))
		return;
	__atomic_compare_exchange_n(&t->ctl.mask, &zero, mask, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	mask = __atomic_load_n(&t->ctl.mask, __ATOMIC_RELAXED);
	for (uint32_t id = 0; id < t->ctl.meta->nevents; id++)
		if (ttrace_ctl_wants(&t->ctl, mask, id))
			__atomic_store_n(&ttrace_armed[id], 1, __ATOMIC_RELAXED);
	ttrace_thaw(t);
}

/* Undoes ttrace_freeze(): every CPU writes its own ring again. ctl mutex
 * held (rearm), so no resize runs meanwhile, or ttrace_unfreeze()'s
 * context. */
void ttrace_thaw(struct ttrace *t)
{
	if (!__atomic_load_n(&t->frozen, __ATOMIC_ACQUIRE))
		return;
	for (uint32_t c = 0; c < num_cpus; c++)
		__atomic_store_n(&per_cpu_info[c].ttrace_ring, &t->rings[c],
				 __ATOMIC_RELEASE);
	__atomic_store_n(&t->frozen, false, __ATOMIC_RELEASE);
}

/* Whether cpu's ring is still its sink (no memory of its own). */
bool ttrace_ring_is_sink(const struct ttrace *t, uint32_t cpu)
{
	return t->rings[cpu].entries == t->sink_entries[cpu];
}

/* Gives cpu a ring of 2^t->ring_order pages in place of its sink; returns
 * false when memory is short. Nobody writes cpu's ring meanwhile. */
static bool ring_alloc(struct ttrace *t, uint32_t cpu)
{
	void *mem = ttrace_mem_alloc(t, t->ring_order);

	if (!mem)
		return false;
	trace_ring_init(&t->rings[cpu], mem, (size_t)PGSIZE << t->ring_order,
			(enum trace_ring_mode)t->rings[0].mode);
	return true;
}

/*
 * Moves CPU 0 onto its own ring if it still writes the early ring (its
 * ring could not be had at boot) and its ring has memory now: the early
 * records are replayed into it (whole events, their own timestamps), the
 * slots the early ring refused are added to its dropped, and CPU 0 writes
 * it from then on. Nobody writes either ring meanwhile: the boot CPU at
 * init, or between ttrace_suspend() and ttrace_resume().
 */
void ttrace_early_adopt(struct ttrace *t)
{
	if (per_cpu_info[0].ttrace_ring != &t->early_ring ||
	    ttrace_ring_is_sink(t, 0))
		return;
	trace_ring_replay(&t->rings[0], &t->early_ring, t->early_copy,
			  TTRACE_EARLY_ENTRIES);
	t->rings[0].dropped += t->early_ring.dropped;
	__atomic_store_n(&per_cpu_info[0].ttrace_ring, &t->rings[0],
			 __ATOMIC_RELEASE);
}

static bool rings_init(struct ttrace *t)
{
	uint64_t kb = CONFIG_TTRACE_PER_CPU_BUFFER_KB;

	cmdline_get_u64(boot_cmdline, "ttrace.bufsize", &kb);
	t->ring_order = ttrace_order_for(kb * 1024);
	t->rings[0].mode = TRACE_RING_OVERWRITE;
	/* CPU 0's descriptor, named by the root record since early init,
	 * moves off its sink: bracketed, so a host reading meanwhile (make
	 * live) sees the record changing, not a torn descriptor */
	ttrace_root_begin();
	if (!ring_alloc(t, 0)) {
		ttrace_root_end(t);
		return false;
	}
	ttrace_root_end(t);
	ttrace_early_adopt(t);
	return true;
}

/* Names cpu's idle thread "idle/N" (its sched_switch pid,
 * TTRACE_IDLE_PID). */
static void name_idle(struct ttrace *t, uint32_t cpu)
{
	char name[16];

	fmt_snprintf(name, sizeof(name), "idle/%u", cpu);
	aux_string(t, TTRACE_AUX_PROC_NAME, TTRACE_IDLE_PID(cpu), name);
}

static void record_names(struct ttrace *t)
{
	uint32_t meta_size;
	const uint8_t *meta = ttrace_meta_blob_now(&meta_size);

	ttrace_aux_blob(t, TTRACE_AUX_EVENT_META, 0, meta, meta_size);
	for (uint64_t i = 0; i < NR_SYSCALLS; i++)
		if (syscall_table[i].name)
			aux_string(t, TTRACE_AUX_SYSCALL_NAME, i,
					  syscall_table[i].name);
	for (uint64_t i = 0; i < BOOT_PHASE_COUNT; i++)
		aux_string(t, TTRACE_AUX_BOOT_PHASE, i,
			   ttrace_boot_phase_names[i]);
	for (uint64_t i = 0; i < KT_NSTATES; i++)
		aux_string(t, TTRACE_AUX_STATE_NAME, i, kthread_state_names[i]);
	name_idle(t, 0);	/* the other CPUs' when they come up */
}

/* ttrace.mask=all|none|default on the command line: every group and event
 * on (every site patched live, function sites included), none, or the
 * groups ttrace.events marks on (as without the option; for a test that
 * checks those events' records under `TTRACE_MASK=all make test`). */
static void boot_mask(void)
{
	char what[8];
	const char *cmd = NULL, *why;

	if (!cmdline_get(boot_cmdline, "ttrace.mask", what, sizeof(what)) ||
	    !strcmp(what, "default"))
		return;
	if (!strcmp(what, "all"))
		cmd = "enable *";
	else if (!strcmp(what, "none"))
		cmd = "setmask 0 0xffffffffffffffff";
	if (!cmd)
		printk(KERN_ERR "ttrace: ttrace.mask=%s is not all, none or default; "
		       "ignored\n", what);
	else if (ttrace_control(cmd, strlen(cmd), &why))
		printk(KERN_ERR "ttrace: ttrace.mask=%s: %s\n", what, why);
}

/* Gives t an aux buffer of 2^order pages; false when memory is short. */
static bool aux_alloc(struct ttrace *t, unsigned order)
{
	t->aux_mem = ttrace_mem_alloc(t, order);
	if (!t->aux_mem)
		return false;
	t->aux_order = order;
	ttrace_aux_init(&t->aux, t->aux_mem, (size_t)PGSIZE << order);
	return true;
}

/* Allocates CPU 0's ring and the aux buffer. Boot CPU, right after
 * pmem_init, interrupts off. On failure tracing is off. */
void ttrace_init(void)
{
	struct ttrace *t = &ttrace_main;
	unsigned aux_order = ttrace_order_for(CONFIG_TTRACE_AUX_BUFFER_KB * 1024);

	arch_crc32_init();		/* before the first CRC */
	ttrace_lastboot_take();		/* before the pool is handed out */
	if (!aux_alloc(t, aux_order)) {
		ttrace_off(t, "out of memory for the aux buffer");
		return;
	}
	record_names(t);		/* for the records of a later bufsize too */
	if (!rings_init(t)) {
		ttrace_off(t, "out of memory for the rings (ttrace.bufsize)");
		return;
	}
	boot_mask();
	printk(KERN_INFO "ttrace: CPU rings of %lu KiB (%lu entries), each "
	       "allocated as its CPU comes up; aux %lu KiB\n",
	       ((size_t)PGSIZE << t->ring_order) / 1024,
	       ((size_t)PGSIZE << t->ring_order) / sizeof(struct ttrace_entry),
	       ((size_t)PGSIZE << aux_order) / 1024);
}

/* Gives cpu its ring before it starts (a no-op if it has one: a CPU that
 * failed to start leaves its ring to the next one given its id). Without
 * memory tracing is off, the CPU keeps its sink and boot goes on. Boot
 * CPU, before starting cpu. */
void ttrace_cpu_up(uint32_t cpu)
{
	struct ttrace *t = &ttrace_main;

	name_idle(t, cpu);
	if (t->off_reason || !ttrace_ring_is_sink(t, cpu))
		return;
	if (ring_alloc(t, cpu))
		ttrace_root_update(t);
	else
		ttrace_off(t, "out of memory for the rings (ttrace.bufsize)");
}

/*
 * A private tracer, as Zircon's tests build one: rings of 2^ring_order
 * pages for every online CPU and aux of 2^aux_order pages, from pages
 * only, so that ttrace_delete() gives every page back. No tracepoint
 * writes it and nothing is armed for it (its ctl state is empty); its
 * owner writes its rings with ttrace_record_to() and its aux with
 * ttrace_aux_blob(), and reads it with ttrace_reader_open(). Returns
 * NULL when memory is short. Process context.
 */
struct ttrace *ttrace_new(unsigned ring_order, unsigned aux_order)
{
	struct ttrace *t = get_cont_pages(ttrace_order_for(sizeof(*t)), 0);

	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	ttrace_setup(t);
	t->ring_order = ring_order;
	if (!aux_alloc(t, aux_order)) {
		ttrace_delete(t);
		return NULL;
	}
	for (uint32_t c = 0; c < num_cpus; c++)
		if (!ring_alloc(t, c)) {
			ttrace_delete(t);
			return NULL;
		}
	return t;
}

/* Frees a tracer from ttrace_new() (NULL is fine), its rings and aux. */
void ttrace_delete(struct ttrace *t)
{
	if (!t)
		return;
	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++)
		if (!ttrace_ring_is_sink(t, c))
			free_cont_pages(t->rings[c].entries, t->ring_order);
	if (t->aux_mem)
		free_cont_pages(t->aux_mem, t->aux_order);
	free_cont_pages(t, ttrace_order_for(sizeof(*t)));
}

/*
 * aux_blob()'s general case, out of line: reserves with
 * ttrace_aux_reserve() (evicting, wrapping, or refusing a record too big
 * or one that would overwrite a record in flight, counted in aux.dropped),
 * releases the write lock, fills and publishes, and restores the interrupt
 * flag to flags. Precondition: the aux write lock is held, interrupts are
 * off and flags is what arch_irq_save_raw() returned.
 */
static void __attribute__((noinline)) aux_blob_locked(struct ttrace *t,
						      unsigned tag,
						      uint64_t ident,
						      const void *p, size_t n,
						      uint64_t flags)
{
	uint64_t pos;
	int err;

	err = ttrace_aux_reserve(&t->aux, tag, core_id(), n, &pos);
	wunlock(&t->aux_lock);
	if (!err) {
		ttrace_aux_fill(&t->aux, pos, arch_trace_clock(), ident, p, n);
		ttrace_aux_publish(&t->aux, pos);
	}
	arch_irq_restore_raw(flags);
}

/* aux_blob_locked() once the contended write lock is ours. Precondition:
 * interrupts off, flags as there. */
static void __attribute__((noinline)) aux_blob_wait(struct ttrace *t,
						    unsigned tag,
						    uint64_t ident,
						    const void *p, size_t n,
						    uint64_t flags)
{
	wlock_wait(&t->aux_lock);
	aux_blob_locked(t, tag, ident, p, n, flags);
}

/*
 * Appends a record of n payload bytes to aux: any record, and any context.
 * The write lock is held with interrupts off only to reserve the space.
 * Inline and without a call in the common case: the lock is free and the
 * record fits without wrapping round the buffer's end or evicting
 * (ttrace_aux_reserve_linear()). Anything else is a tail call to
 * aux_blob_wait() or aux_blob_locked(), which go on from where this is, so
 * that this keeps no callee-saved register (a name's cost is a few dozen
 * instructions, its frame included).
 */
static __always_inline void aux_blob(struct ttrace *t, unsigned tag,
				     uint64_t ident, const void *p, size_t n)
{
	uint64_t flags, *w;

	if (!t->aux_mem)
		return;
	flags = arch_irq_save_raw();	/* the tracer's own: not timed */
	if (!wtrylock(&t->aux_lock)) {
		aux_blob_wait(t, tag, ident, p, n, flags);
		return;
	}
	if (!ttrace_aux_reserve_linear(&t->aux, tag, core_id(), n, &w)) {
		aux_blob_locked(t, tag, ident, p, n, flags);
		return;
	}
	wunlock(&t->aux_lock);
	ttrace_aux_fill_linear(w, arch_trace_clock(), ident, p, n);
	ttrace_aux_publish_word(w);
	arch_irq_restore_raw(flags);
}

/* aux_blob() for the rest of the tracer (internal.h). */
void ttrace_aux_blob(struct ttrace *t, unsigned tag, uint64_t ident,
		     const void *p, size_t n)
{
	aux_blob(t, tag, ident, p, n);
}

/* See internal.h: aux_blob() that never waits, for a probe's hit. */
bool ttrace_aux_blob_try(struct ttrace *t, unsigned tag, uint64_t ident,
			 const void *p, size_t n)
{
	uint64_t flags;

	if (!t->aux_mem)
		return true;	/* no aux: nothing is ever written */
	flags = arch_irq_save_raw();
	if (!wtrylock(&t->aux_lock)) {
		arch_irq_restore_raw(flags);
		return false;
	}
	aux_blob_locked(t, tag, ident, p, n, flags);
	return true;
}

/* The string's scan is inline too (no call on the common path). */
void ttrace_aux_string(unsigned tag, uint64_t ident, const char *str)
{
	aux_blob(&ttrace_main, tag, ident, str,
		 strnlen_inline(str, TTRACE_AUX_MAX_STRLEN));
}

/* Sets the context for the thread about to run on pcpui's CPU (the idle
 * one's for an untraced thread: the trace drain's time is its CPU's idle
 * time, kern/trace/drain.c). Its run queue locked, interrupts off. */
void ttrace_ctx_switch(struct per_cpu_info *pcpui, const struct kthread *kt)
{
	if (kt->id == 0 || kthread_untraced(kt))
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
struct aux_rlocked {
	struct ttrace *t;
	uint64_t flags;
};

static void aux_rlock(void *arg)
{
	struct aux_rlocked *l = arg;

	l->flags = arch_irq_save_raw();
	rlock(&l->t->aux_lock);
}

static void aux_runlock(void *arg)
{
	struct aux_rlocked *l = arg;

	runlock(&l->t->aux_lock);
	arch_irq_restore_raw(l->flags);
}

/* Copies a consistent snapshot of t's aux to out (view.data == out);
 * returns 0 or -1 (no aux, or out too small). */
int ttrace_aux_read(struct ttrace *t, void *out, size_t size,
		    struct ttrace_aux_view *view)
{
	struct aux_rlocked l = { .t = t };
	const struct ttrace_aux_lock lock = { aux_rlock, aux_runlock, &l };

	if (!t->aux_mem)
		return -1;
	return ttrace_aux_snapshot(&t->aux, &lock, out, size, view);
}

/* t's aux bounds now (ttrace_aux_bounds()), under its read lock. */
static void aux_bounds(struct ttrace *t, uint64_t *first, uint64_t *last)
{
	struct aux_rlocked l = { .t = t };

	aux_rlock(&l);
	ttrace_aux_bounds(&t->aux, first, last);
	aux_runlock(&l);
}

/* Aux bytes in use, its size, and records it refused. */
void ttrace_aux_usage(struct ttrace *t, uint64_t *bytes, uint64_t *size,
		      uint64_t *dropped)
{
	uint64_t first, last;

	aux_bounds(t, &first, &last);
	*bytes = last - first;
	*size = t->aux.size;
	*dropped = t->aux.dropped;
}

/* The aux buffer itself, for the panic dump, which reads it without locks
 * once every other CPU has stopped. */
const struct ttrace_aux *ttrace_aux_unlocked(struct ttrace *t)
{
	return t->aux_mem ? &t->aux : NULL;
}

/* The ring of core, or NULL when that CPU is absent. For the panic dump
 * and tests on a quiet tracer; readers use ttrace_ring_read(). */
struct trace_ring *ttrace_ring_of(struct ttrace *t, uint32_t core)
{
	return core < num_cpus ? &t->rings[core] : NULL;
}

/* Fills the version header describing t's trace now. */
void ttrace_version_of(struct ttrace *t, struct ttrace_version *v)
{
	uint64_t first, last;

	aux_bounds(t, &first, &last);
	rlock(&t->rings_lock);
	ttrace_fill_version_bounds(t, v, first, last);
	runlock(&t->rings_lock);
}

void ttrace_fill_version(struct ttrace_version *v)
{
	ttrace_version_of(&ttrace_main, v);
}

/* The same, with the aux bounds given (the panic dump takes no locks). */
void ttrace_fill_version_bounds(const struct ttrace *t,
				struct ttrace_version *v, uint64_t aux_first,
				uint64_t aux_last)
{
	ttrace_version_init(v);
	v->num_cpus = num_cpus;
	v->entries_per_cpu = t->rings[0].mask + 1;
	v->tsc_hz = tsc_freq_hz;
	v->tsc_boot = tsc_at_boot;
	v->aux_size = t->aux.mask + 1;
	v->aux_mask = t->aux.mask;
	v->aux_first = aux_first;
	v->aux_last = aux_last;
	v->event_count = TTRACE_NUM_EVENTS;
	v->ring_mode = t->rings[0].mode;
	v->group_mask = __atomic_load_n(&t->ctl.mask, __ATOMIC_RELAXED);
	v->tsc_now = arch_read_tsc();
	ttrace_meta_blob_now(&v->meta_size);
}

/* Fills t[0..num_cpus) with each CPU's TSC offset from CPU 0's and its
 * uncertainty (as measured at boot); returns the bytes filled. */
size_t ttrace_tsc_offsets(struct ttrace_file_tsc *t)
{
	for (uint32_t c = 0; c < num_cpus; c++) {
		t[c].offset = tsc_offset[c];
		t[c].uncertainty = tsc_offset_uncertainty[c];
	}
	return num_cpus * sizeof(*t);
}
