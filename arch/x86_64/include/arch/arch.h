/*
 * The generic names kernel code uses for architecture services: interrupt
 * flags, the timestamp counter, the current CPU, halting. Everything here is
 * inline and cheap; generic code never includes arch/x86.h itself.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <compiler.h>

#include <arch/pcpu_offsets.h>

/*
 * The interrupt flag. With the tracer built in, each change of it is also
 * a static key (ttrace_key.h) for the irqsoff latency tracer
 * (kern/trace/lat_irqsoff.c, docs/latency.md): one 5-byte NOP while the
 * tracer is off, a jmp to its hook while it is on. The _raw forms have no
 * key: for the syscall path's fast branch (taken only while nothing is
 * on, ttrace_syscall_live()) and the tracer's own code.
 */
#ifdef CONFIG_TTRACE
#include <ttrace_key.h>

/* The hooks, interrupts as their names say (kern/trace/lat_irqsoff.c). */
void ttrace_irqsoff_disable(void);	/* before cli: cli, then opens */
void ttrace_irqsoff_save(uint64_t flags);	/* after cli: opens if IF was */
void ttrace_irqsoff_enable(void);	/* before sti: closes */

#define ARCH_IRQSOFF_KEY(label)						\
	__asm__ goto(TTRACE_SITE_ASM(#label, #label)			\
		     : : "i"(TTRACE_KEY_IRQSOFF) : : label)
#endif

/*
 * The interrupts-off flag of this CPU's trace records (TTRACE_TYPE_IRQS_OFF
 * in per_cpu_info.ttrace_type_base, ttrace_format.h), kept with IF by each
 * change of it below but the _raw ones, whose callers keep it themselves
 * where they record (the syscall glue) or leave it as the code they trace
 * had it (the tracer's own sections): one instruction. The trap entry sets
 * it, the trap exit puts it back (ttrace.h).
 */
static __always_inline void arch_trace_irqs(bool off)
{
#ifdef CONFIG_TTRACE
	if (off)
		__asm__ __volatile__("orq %0, %%gs:%c1" : : "i"(0x400),
				     "i"(PCPU_TTRACE_TYPE_OFFSET) : "memory");
	else
		__asm__ __volatile__("andq %0, %%gs:%c1" : : "i"(~0x400),
				     "i"(PCPU_TTRACE_TYPE_OFFSET) : "memory");
#else
	(void)off;
#endif
}

/* Interrupts are on (IF set) in flags, as arch_irq_save() returns them. */
#define ARCH_IRQ_FLAGS_ON(flags)	(((flags) & (1u << 9)) != 0)

/* The interrupt flag now. */
static __always_inline uint64_t arch_irq_flags(void)
{
	uint64_t flags;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(flags));
	return flags;
}

static __always_inline void arch_irq_disable_raw(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static __always_inline void arch_irq_enable_raw(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

static __always_inline void arch_irq_disable(void)
{
#ifdef CONFIG_TTRACE
	ARCH_IRQSOFF_KEY(traced);
#endif
	arch_irq_disable_raw();
	arch_trace_irqs(true);
	return;
#ifdef CONFIG_TTRACE
traced: __attribute__((cold));
	ttrace_irqsoff_disable();
	arch_trace_irqs(true);
#endif
}

static __always_inline void arch_irq_enable(void)
{
#ifdef CONFIG_TTRACE
	ARCH_IRQSOFF_KEY(traced);
#endif
	arch_trace_irqs(false);
	arch_irq_enable_raw();
	return;
#ifdef CONFIG_TTRACE
traced: __attribute__((cold));
	ttrace_irqsoff_enable();
	arch_trace_irqs(false);
	arch_irq_enable_raw();
#endif
}

/* Disables interrupts and returns the previous state for arch_irq_restore. */
static __always_inline uint64_t arch_irq_save(void)
{
	uint64_t flags;

	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags) :: "memory");
	arch_trace_irqs(true);
#ifdef CONFIG_TTRACE
	ARCH_IRQSOFF_KEY(traced);
#endif
	return flags;
#ifdef CONFIG_TTRACE
traced: __attribute__((cold));
	ttrace_irqsoff_save(flags);
	return flags;
#endif
}

static __always_inline void arch_irq_restore(uint64_t flags)
{
	if (ARCH_IRQ_FLAGS_ON(flags))
		arch_irq_enable();
}

/* The same without the irqsoff key (the tracer's own code). */
static __always_inline uint64_t arch_irq_save_raw(void)
{
	uint64_t flags;

	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags) :: "memory");
	return flags;
}

static __always_inline void arch_irq_restore_raw(uint64_t flags)
{
	if (ARCH_IRQ_FLAGS_ON(flags))
		arch_irq_enable_raw();
}

static inline void arch_pause(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* Halts until the next interrupt; enables interrupts atomically with hlt so a
 * wakeup IPI cannot slip in between. */
static __always_inline void arch_idle(void)
{
#ifdef CONFIG_TTRACE
	ARCH_IRQSOFF_KEY(traced);
#endif
	arch_trace_irqs(false);
	__asm__ __volatile__("sti; hlt" ::: "memory");
	return;
#ifdef CONFIG_TTRACE
traced: __attribute__((cold));
	ttrace_irqsoff_enable();
	arch_trace_irqs(false);
	__asm__ __volatile__("sti; hlt" ::: "memory");
#endif
}

static inline uint64_t arch_read_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* Set at boot when the CPU has RDTSCP (some hypervisors hide it). */
extern bool arch_has_rdtscp;

/*
 * The trace clock: plain rdtsc, as Linux's trace clocks (docs/benchmarks.md
 * says why it is enough). The outputs are 64-bit because rdtsc clears the
 * upper halves of rax and rdx, so the stamp is rdtsc, shl, or: no
 * zero-extension and no check for rdtscp.
 */
static __always_inline uint64_t arch_trace_clock(void)
{
	uint64_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
}

/* A per-CPU 64-bit word, read GS-relative in one instruction: off is its
 * offset in struct per_cpu_info. Volatile: never cached across calls. */
#define arch_pcpu_read_u64(off) ({					\
	uint64_t v_;							\
	__asm__ __volatile__("movq %%gs:%c1, %0" : "=r"(v_) : "i"(off));	\
	v_;								\
})

/* The current CPU's core id: one GS-relative load. */
static inline uint32_t core_id(void)
{
	uint32_t id;

	__asm__ __volatile__("movl %%gs:8, %0" : "=r"(id));
	return id;
}

/* The current CPU's struct per_cpu_info. */
static inline void *arch_this_cpu(void)
{
	void *p;

	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(p));
	return p;
}

/* The address of the last page fault. */
static inline uintptr_t arch_fault_address(void)
{
	uintptr_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

/* Frame pointer of the caller, for backtraces. */
static inline uintptr_t arch_frame_pointer(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

const char *arch_hypervisor(void);
void arch_hostout_init(void);
/* The trace file CRC-32C by the crc32 instruction, if the CPU has it
 * (crc32.c). */
void arch_crc32_init(void);
/* A section that may use SSE, interrupts off (simd.c). */
bool arch_simd_begin(void);
void arch_simd_end(void);
bool arch_hostout_present(void);
bool arch_hostout_write(const void *buf, size_t n);
void *arch_hostout_place(size_t n);
__attribute__((noreturn)) void arch_halt_forever(void);
void arch_send_ipi(uint32_t coreid, uint8_t vector);
void arch_timer_set(uint64_t tsc_deadline);
void arch_send_ipi_others(uint8_t vector);
__attribute__((noreturn)) void arch_exit_qemu(int status);
/* Resets the machine (warm: memory keeps its contents). */
__attribute__((noreturn)) void arch_reset(void);
void arch_poweroff(int status) __attribute__((noreturn));

#endif /* ARCH_ARCH_H */
