/*
 * ttrace: the kernel's tracer, as the rest of the kernel sees it.
 *
 * Tracepoints are the generated emitters, one per line of
 * kern/trace/ttrace.events:
 *
 *	ttrace_irq_enter(vector);	// a 5-byte NOP when off
 *
 * A disarmed site is a static key (ttrace_emit.h): one NOP, no load and no
 * branch; arming the event patches it into a jmp to the recording code.
 *
 * Each CPU records into its own ring of 64-byte entries (kern/trace/
 * lib/ring.c) stamped with rdtsc; names (syscalls, processes, kthreads,
 * boot phases, event metadata, user markers) go to the aux string buffer
 * (kern/trace/lib/aux.c) under an rwlock. Every record carries the context
 * it was made in (ttrace_format.h): the per-CPU type base and context word
 * below are set when the context changes, so the fast path only copies
 * them.
 *
 * This is the tracer's public face: what a kernel file that records
 * events, names things or drives the boot includes. The device and
 * control side (ctl, the files' texts and readers) and the tracer object
 * are private to the tracer, in kern/trace/internal.h; the device that
 * exposes the trace is kern/trace/devttrace.c.
 */
#ifndef TTRACE_H
#define TTRACE_H

#include <compiler.h>
#include <ttrace_format.h>
#include <proc.h>
#include <smp.h>
#define TTRACE_EMIT_INLINE	/* ttrace_emit_inline.h: no call per event */
#define TTRACE_STATIC_KEYS	/* sites are patched NOPs (ttrace_emit.h) */
#include <ttrace_events.h>

/* Boot phases, named in aux (tag boot phase) so a trace is a boot profile
 * (docs/boot-profile.md). Each marks the start of a phase on the CPU that
 * records it, which lasts until that CPU's next phase; the AP phases carry
 * the core id. ENTRY and KMAIN (boot CPU) and AP_TRAMPOLINE and AP_INIT (on
 * the AP) began before they could be recorded: boot_phase_at events carry
 * their start TSC. SHELL_READY (the first console read) ends the boot. */
enum boot_phase {
	BOOT_PHASE_KMAIN,
	BOOT_PHASE_MEMORY,
	BOOT_PHASE_TTRACE,
	BOOT_PHASE_TSC,
	BOOT_PHASE_ACPI,
	BOOT_PHASE_APIC,
	BOOT_PHASE_AP_START,
	BOOT_PHASE_AP_ONLINE,
	BOOT_PHASE_SMP,
	BOOT_PHASE_DEVICES,
	BOOT_PHASE_FIRST_PROCESS,
	BOOT_PHASE_SHELL_READY,
	BOOT_PHASE_ENTRY,
	BOOT_PHASE_AP_SIPI,
	BOOT_PHASE_AP_TRAMPOLINE,
	BOOT_PHASE_AP_INIT,
	BOOT_PHASE_AP_TSC_SYNC,
	BOOT_PHASE_AP_READY,
	BOOT_PHASE_INIT_SPAWN,
	BOOT_PHASE_COUNT,
};

struct kthread;

/* A CPU's context words as a trap found them (ttrace_trap_enter()). */
struct ttrace_trap_saved {
	uint64_t type_base, ctx;
};

#ifdef CONFIG_TTRACE

/* The boot hooks: kmain's first lines, after the page allocator, as each
 * CPU comes up; the panic path; the boot profile and the benchmark. */
void ttrace_early_init(void);
void ttrace_init(void);
void ttrace_cpu_up(uint32_t cpu);
void ttrace_boot_done(void);
void ttrace_panic_dump(void);
/* The persistent area (kern/trace/lastboot.c): the physical range the
 * page allocator must leave alone; false (nothing set) when none. */
bool ttrace_persist_range(uint64_t *start, uint64_t *end);
void ttrace_print_boot_profile(void);
void ttrace_bench(void);
/* Names a thing in aux (tag, ident): what records refer to by number. */
void ttrace_aux_string(unsigned tag, uint64_t ident, const char *str);

/* Sets the context stamped on this CPU's records; their flags (the type
 * word's, interrupts off and need resched) stay: they follow the CPU,
 * kept by arch_irq_*() (arch/arch.h) and ttrace_ctx_need_resched().
 * Interrupts off or the caller otherwise pinned to pcpui's CPU. */
static inline void ttrace_ctx_set(struct per_cpu_info *pcpui, unsigned kind,
				  uint64_t ctx)
{
	pcpui->ttrace_type_base = TTRACE_TYPE(0, kind, 0, pcpui->irq_depth,
					      pcpui->coreid) |
		(pcpui->ttrace_type_base & TTRACE_TYPE_FLAGS_MASK);
	pcpui->ttrace_ctx = ctx;
}

/* The scheduler sets or clears this CPU's need_resched. */
static inline void ttrace_ctx_need_resched(bool on)
{
	struct per_cpu_info *pcpui = this_cpu();

	if (on)
		pcpui->ttrace_type_base |= TTRACE_TYPE_NEED_RESCHED;
	else
		pcpui->ttrace_type_base &= ~(uint64_t)TTRACE_TYPE_NEED_RESCHED;
}

void ttrace_ctx_switch(struct per_cpu_info *pcpui, const struct kthread *kt);

/*
 * Whether syscalls must keep this CPU's context words (ttrace_ctx_syscall()
 * on entry, ttrace_ctx_user() on exit): while any event is on. A static
 * key, as an event's site is: a 5-byte NOP, patched to a jmp to `live`
 * while ttrace_ctx_live is set (kern/trace/patch.c), so with nothing on a
 * syscall pays one instruction. kern/trace/control.c sets it, patches, and
 * waits a grace period before arming anything, so no record carries a
 * context a syscall did not set.
 */
extern uint8_t ttrace_ctx_live;

static __always_inline bool ttrace_syscall_live(void)
{
	__asm__ goto(TTRACE_SITE_ASM("live", "live")
		     : : "i"(TTRACE_KEY_CTX_LIVE) : : live);
	return false;
live: __attribute__((cold));
	return true;
}

/*
 * The trap hooks, called by the arch's trap dispatch on pcpui's CPU with
 * interrupts off, once it has raised irq_depth: the trap's records carry
 * its context, an exception from user mode the process's (trap kind, pid
 * word (pid, vector)), anything else an interrupt's (the vector). Returns
 * the words ttrace_trap_exit() puts back as the trap returns, before
 * irq_depth is lowered. Inline: every interrupt runs them.
 */
static __always_inline struct ttrace_trap_saved ttrace_trap_enter(
	struct per_cpu_info *pcpui, uint64_t vector, bool user_exception)
{
	struct ttrace_trap_saved saved = { pcpui->ttrace_type_base,
					   pcpui->ttrace_ctx };
	const struct proc *p = user_exception ? current_proc() : NULL;

	if (p)
		ttrace_ctx_set(pcpui, TTRACE_CTX_TRAP,
			       TTRACE_CTX_PIDWORD(p->pid, vector));
	else
		ttrace_ctx_set(pcpui, TTRACE_CTX_IRQ, vector);
	pcpui->ttrace_type_base |= TTRACE_TYPE_IRQS_OFF;	/* the gate's */
	return saved;
}

/* need resched as the trap left it (a timer's slice end sets it). */
static __always_inline void ttrace_trap_exit(struct per_cpu_info *pcpui,
					     struct ttrace_trap_saved saved)
{
	pcpui->ttrace_type_base = (saved.type_base &
				   ~(uint64_t)TTRACE_TYPE_NEED_RESCHED) |
		(pcpui->ttrace_type_base & TTRACE_TYPE_NEED_RESCHED);
	pcpui->ttrace_ctx = saved.ctx;
}

/*
 * The irqsoff tracer's trap hooks (kern/trace/lat_irqsoff.c), behind its
 * key (arch/arch.h): a trap taken where interrupts were on (rflags)
 * opens a section at its entry and closes it at its return, both at the
 * interrupted rip. Called by the arch's trap dispatch, interrupts off,
 * after the text patcher's breakpoint check.
 */
void ttrace_irqsoff_open(uintptr_t pc);
void ttrace_irqsoff_close(uintptr_t pc);

static __always_inline void ttrace_irqsoff_trap_enter(uint64_t rflags,
						      uintptr_t rip)
{
	ARCH_IRQSOFF_KEY(traced);
	return;
traced: __attribute__((cold));
	if (ARCH_IRQ_FLAGS_ON(rflags))
		ttrace_irqsoff_open(rip);
}

static __always_inline void ttrace_irqsoff_trap_exit(uint64_t rflags,
						     uintptr_t rip)
{
	ARCH_IRQSOFF_KEY(traced);
	return;
traced: __attribute__((cold));
	if (ARCH_IRQ_FLAGS_ON(rflags))
		ttrace_irqsoff_close(rip);
}

/* The last thing before the return to user mode (trap(), syscall_trap()),
 * whose iretq turns interrupts on: closes the section open on this CPU,
 * as arch_irq_enable() would, though the thread opened none (a sleeper
 * whose switch ran it did). Interrupts off. */
static __always_inline void ttrace_irqsoff_user_return(void)
{
	ARCH_IRQSOFF_KEY(traced);
	return;
traced: __attribute__((cold));
	ttrace_irqsoff_enable();
}

/*
 * The scheduler's hooks, behind the key TTRACE_KEY_WAKEUP: a NOP each
 * while neither the wakeup tracer (kern/trace/lat_wakeup.c) nor the
 * profiler's off-CPU or sched option (kern/trace/profile.c) is on. The
 * scheduler calls ttrace_sched_woken() as it makes kt runnable and
 * ttrace_sched_runs() as it switches from prev to next (this CPU's
 * context and address space already next's, the stack still prev's),
 * that run queue's lock held, interrupts off.
 */
void ttrace_wakeup_mark(struct kthread *kt);
void ttrace_wakeup_run(struct kthread *kt);
void ttrace_profile_woken(struct kthread *kt);
void ttrace_prof_switch(struct kthread *prev, struct kthread *next);

static __always_inline void ttrace_sched_woken(struct kthread *kt)
{
	__asm__ goto(TTRACE_SITE_ASM("traced", "traced")
		     : : "i"(TTRACE_KEY_WAKEUP) : : traced);
	return;
traced: __attribute__((cold));
	ttrace_wakeup_mark(kt);
	ttrace_profile_woken(kt);
}

static __always_inline void ttrace_sched_runs(struct kthread *prev,
					      struct kthread *next)
{
	__asm__ goto(TTRACE_SITE_ASM("traced", "traced")
		     : : "i"(TTRACE_KEY_WAKEUP) : : traced);
	return;
traced: __attribute__((cold));
	ttrace_wakeup_run(next);
	ttrace_prof_switch(prev, next);
}

/* The profiler's start at boot (kern/trace/profile.c, ttrace.profile=HZ),
 * once the boot CPU's timer runs, interrupts still off. */
void ttrace_profile_boot(void);

#else /* !CONFIG_TTRACE */

static inline void ttrace_early_init(void) {}
static inline void ttrace_init(void) {}
static inline void ttrace_cpu_up(uint32_t cpu)
{
	(void)cpu;
}
static inline void ttrace_aux_string(unsigned tag, uint64_t ident,
				     const char *str)
{
	(void)tag, (void)ident, (void)str;
}
static inline void ttrace_panic_dump(void) {}
static inline void ttrace_boot_done(void) {}
static inline bool ttrace_persist_range(uint64_t *start, uint64_t *end)
{
	(void)start, (void)end;
	return false;
}
static inline void ttrace_ctx_set(struct per_cpu_info *pcpui, unsigned kind,
				  uint64_t ctx)
{
	(void)pcpui, (void)kind, (void)ctx;
}
static inline void ttrace_ctx_switch(struct per_cpu_info *pcpui,
				     const struct kthread *kt)
{
	(void)pcpui, (void)kt;
}
static inline void ttrace_ctx_need_resched(bool on)
{
	(void)on;
}
static inline bool ttrace_syscall_live(void)
{
	return false;
}
static inline struct ttrace_trap_saved ttrace_trap_enter(
	struct per_cpu_info *pcpui, uint64_t vector, bool user_exception)
{
	(void)pcpui, (void)vector, (void)user_exception;
	return (struct ttrace_trap_saved){ 0, 0 };
}
static inline void ttrace_trap_exit(struct per_cpu_info *pcpui,
				    struct ttrace_trap_saved saved)
{
	(void)pcpui, (void)saved;
}

static inline void ttrace_irqsoff_trap_enter(uint64_t rflags, uintptr_t rip)
{
	(void)rflags, (void)rip;
}
static inline void ttrace_irqsoff_trap_exit(uint64_t rflags, uintptr_t rip)
{
	(void)rflags, (void)rip;
}
static inline void ttrace_irqsoff_user_return(void)
{
}
static inline void ttrace_sched_woken(struct kthread *kt)
{
	(void)kt;
}
static inline void ttrace_sched_runs(struct kthread *prev,
				     struct kthread *next)
{
	(void)prev, (void)next;
}
static inline void ttrace_profile_boot(void) {}

#endif /* CONFIG_TTRACE */

static inline void ttrace_name_kthread(uint64_t id, const char *name)
{
	ttrace_aux_string(TTRACE_AUX_KTHREAD_NAME, id, name);
}

static inline void ttrace_name_proc(int pid, const char *name)
{
	ttrace_aux_string(TTRACE_AUX_PROC_NAME, (uint64_t)pid, name);
}

/* A process's thread enters syscall nr / returns to user mode. */
static inline void ttrace_ctx_syscall(struct per_cpu_info *pcpui, int pid,
				      uint64_t nr)
{
	ttrace_ctx_set(pcpui, TTRACE_CTX_SYSC, TTRACE_CTX_PIDWORD(pid, nr));
}

static inline void ttrace_ctx_user(struct per_cpu_info *pcpui, int pid)
{
	ttrace_ctx_set(pcpui, TTRACE_CTX_TRAP, TTRACE_CTX_PIDWORD(pid, 0));
}

#endif /* TTRACE_H */
