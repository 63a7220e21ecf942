/*
 * The tracer benchmark, run by `bench` on the command line (make bench).
 *
 * Instruction counts, under any accelerator: each operation runs BATCH
 * times between two marker instructions (abi/insn_mark.h), once per
 * figure; under QEMU with plugins/ttinsn.so the marks carry exact guest
 * instruction counts, from which scripts/bench.py subtracts an empty loop
 * of the same length. Elsewhere the marks are NOPs.
 *
 * Cycles, only where they mean something (KVM or bare metal; not under
 * TCG, which emulates the TSC): each figure over BATCHES batches of BATCH
 * operations with interrupts off; a batch's TSC delta divided by BATCH is
 * one sample, the cost of an empty loop iteration is subtracted, and the
 * minimum and median samples are reported beside the target.
 */
#include <ttrace.h>
#include <printk.h>
#include <string.h>
#include <smp.h>
#include <atomic.h>
#include <init.h>
#include <cmdline.h>
#include <proc.h>
#include <sched.h>
#include <sched_records.h>
#include <arch/arch.h>
#include <arch/tsc.h>
#include <abi/insn_mark.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <vm.h>

#include <ttrace_probe_spec.h>

#include "internal.h"

#define BATCH	1000
#define BATCHES	1000		/* 1M operations per figure */

static uint64_t samples[CONFIG_MAX_NUM_CPUS][BATCHES];

enum bench_op { OP_EMPTY, OP_ENABLED, OP_DISABLED, OP_CONT, OP_AUX,
		OP_CALL, OP_CALL_SITE, OP_FILTER, OP_COUNT, OP_IRQSAVE,
		OP_STACKTRACE };

static struct spinlock bench_lock = SPINLOCK_INIT("bench");

/* Two identical leaf functions, one with a function-graph site (this file
 * is built with fentry sites) and one without. */
static __attribute__((noinline)) notrace void leaf_notrace(uint64_t i)
{
	__asm__ __volatile__("" : : "r"(i) : "memory");
}

static __attribute__((noinline)) void bench_leaf(uint64_t i)
{
	__asm__ __volatile__("" : : "r"(i) : "memory");
}

static const char aux32[] = "0123456789abcdef0123456789abcdef";

static __always_inline void run_op(enum bench_op op, uint64_t i)
{
	switch (op) {
	case OP_EMPTY:	/* i in a register: the loop keeps the others' shape */
		__asm__ __volatile__("" : : "r"(i) : "memory");
		break;
	case OP_ENABLED:
	case OP_DISABLED:
	case OP_FILTER:
	case OP_COUNT:
	case OP_STACKTRACE:
		ttrace_test_seq(i, 0, 0, 0, 0);
		break;
	case OP_CONT:
		ttrace_test_wide(i, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
		break;
	case OP_AUX:
		ttrace_aux_string(TTRACE_AUX_USER_MARKER, i, aux32);
		break;
	case OP_CALL:
		leaf_notrace(i);
		break;
	case OP_CALL_SITE:
		bench_leaf(i);
		break;
	case OP_IRQSAVE:
		spin_unlock_irqrestore(&bench_lock, spin_lock_irqsave(&bench_lock));
		break;
	}
}

static void arm_test_group(bool on)
{
	ttrace_set_mask(on ? 1ull << TTRACE_GROUP_TEST : 0,
			1ull << TTRACE_GROUP_TEST);
}

/* One region of BATCH operations between marks id and id + 1, interrupts
 * off. The marks' ids must be constants, hence the switch. */
static void count_op(enum bench_op op)
{
	uint64_t flags = arch_irq_save();

	switch (op) {
#define REGION(o, id)							\
	case o:								\
		INSN_MARK(id);						\
		for (uint64_t i = 0; i < BATCH; i++)			\
			run_op(o, i);					\
		INSN_MARK(id + 1);					\
		break
	REGION(OP_EMPTY, INSN_MARK_EMPTY);
	REGION(OP_ENABLED, INSN_MARK_ENABLED);
	REGION(OP_DISABLED, INSN_MARK_DISABLED);
	REGION(OP_CONT, INSN_MARK_CONT);
	REGION(OP_AUX, INSN_MARK_AUX);
	REGION(OP_CALL, INSN_MARK_CALL);
	REGION(OP_FILTER, INSN_MARK_PROBE_FILTER);
	REGION(OP_COUNT, INSN_MARK_PROBE_COUNT);
	REGION(OP_STACKTRACE, INSN_MARK_PROBE_STACK);
#undef REGION
	default:
		break;
	}
	arch_irq_restore(flags);
}

/* A call of bench_leaf, whose site is live when graph is set, between
 * marks mark and mark + 1. */
static void count_call_site(bool graph)
{
	uint64_t flags = arch_irq_save();

	if (graph) {
		INSN_MARK(INSN_MARK_CALL_GRAPH);
		for (uint64_t i = 0; i < BATCH; i++)
			run_op(OP_CALL_SITE, i);
		INSN_MARK(INSN_MARK_CALL_GRAPH + 1);
	} else {
		INSN_MARK(INSN_MARK_CALL_OFF);
		for (uint64_t i = 0; i < BATCH; i++)
			run_op(OP_CALL_SITE, i);
		INSN_MARK(INSN_MARK_CALL_OFF + 1);
	}
	arch_irq_restore(flags);
}

/* Function-graph costs: a call with no site, with its site a NOP, and
 * with the graph tracer on for that one function (entry + exit). */
static void count_graph(void)
{
	static const char only[] = "bench_leaf";
	const char *why;

	count_op(OP_CALL);
	count_call_site(false);
	if (ttrace_funcs_control(only, sizeof(only) - 1, &why)) {
		printk("bench: funcs: %s\n", why);
		return;
	}
	ttrace_set_mask(1ull << TTRACE_GROUP_FUNC, 1ull << TTRACE_GROUP_FUNC);
	count_call_site(true);
	ttrace_set_mask(0, 1ull << TTRACE_GROUP_FUNC);
	ttrace_funcs_control("*", 1, &why);
}

/* Writes a ctl command (a built-in probe, docs/probes.md); panics if the
 * kernel refuses it, as the figures would then mean nothing. */
static void bench_ctl(const char *cmd)
{
	const char *why;

	if (ttrace_control(cmd, strlen(cmd), &why))
		panic("bench: %s: %s", cmd, why);
}

/* Function probe costs: the call of bench_leaf with an entry probe of two
 * integer arguments and a return probe on it, both recorded (docs/
 * probes.md, "Function probes"); against INSN_MARK_CALL_OFF's call. */
static void count_fprobe(void)
{
	uint64_t flags;

	bench_ctl("fprobe add bench_fp bench_leaf arg0:u64 arg1:u64");
	bench_ctl("fprobe add bench_fpr bench_leaf%return");
	flags = arch_irq_save();
	INSN_MARK(INSN_MARK_CALL_FPROBE);
	for (uint64_t i = 0; i < BATCH; i++)
		run_op(OP_CALL_SITE, i);
	INSN_MARK(INSN_MARK_CALL_FPROBE + 1);
	arch_irq_restore(flags);
	bench_ctl("fprobe del bench_fp");
	bench_ctl("fprobe del bench_fpr");
}

/* An enabled event's cost with one built-in probe on it (the record kept):
 * a filter whose test passes, or a count. */
static void count_probed(enum bench_op op, const char *cmd)
{
	bench_ctl(cmd);
	count_op(op);
	bench_ctl("unprobe bench");
}

/* An irqsave lock pair, interrupts on before each (so each is one
 * interrupts-off section), with the irqsoff tracer off or on, between
 * its marks. One pair first: the loop's sections, all alike, are then no
 * new maximum (a new one freezes the rings, not the common path). */
static void count_irqsave(void)
{
	INSN_MARK(INSN_MARK_IRQSAVE_OFF);
	for (uint64_t i = 0; i < BATCH; i++)
		run_op(OP_IRQSAVE, i);
	INSN_MARK(INSN_MARK_IRQSAVE_OFF + 1);
	bench_ctl("latency irqsoff on");
	run_op(OP_IRQSAVE, 0);
	INSN_MARK(INSN_MARK_IRQSAVE_ON);
	for (uint64_t i = 0; i < BATCH; i++)
		run_op(OP_IRQSAVE, i);
	INSN_MARK(INSN_MARK_IRQSAVE_ON + 1);
	bench_ctl("latency irqsoff off");
	bench_ctl("latency irqsoff reset");
}

/* Runs fn under n more frames of its own (no tail call: the barrier
 * after the call), so that a walk from fn finds at least n + 1. */
static __attribute__((noinline)) void bench_deep(uint32_t n, void (*fn)(void))
{
	if (n)
		bench_deep(n - 1, fn);
	else
		fn();
	__asm__ __volatile__("" : : : "memory");
}

/* BATCH stack records of the chain from here, TTRACE_STACK_DEPTH frames
 * (run under bench_deep: the chain is at least that deep). */
static void count_stack_walk(void)
{
	struct per_cpu_info *p = this_cpu();
	uint64_t flags = arch_irq_save();

	INSN_MARK(INSN_MARK_STACK);
	for (uint64_t i = 0; i < BATCH; i++)
		ttrace_stack_record(p->ttrace_ring, p->ttrace_type_base,
				    p->ttrace_ctx,
				    (uintptr_t)__builtin_frame_address(0),
				    TTRACE_STACK_DEPTH);
	INSN_MARK(INSN_MARK_STACK + 1);
	arch_irq_restore(flags);
}

static void count_stacktrace_probe(void)
{
	count_op(OP_STACKTRACE);
}

/* Stack trace costs, 16 frames deep: the walk and its record alone, and
 * an enabled event with a stacktrace probe (its record, then the chain's). */
static void count_stacks(void)
{
	bench_deep(TTRACE_STACK_DEPTH, count_stack_walk);
	bench_ctl("probe bench stacktrace test_seq");
	bench_deep(TTRACE_STACK_DEPTH, count_stacktrace_probe);
	bench_ctl("unprobe bench");
}

/* The user stack of the profile sample's benchmark: 17 frames on a page
 * of page tables of its own, each linking to the next. */
#define BENCH_USTACK	0x7f0000000000ull
#define BENCH_UPC	0x401000ull
static uint64_t *bench_pml4;

/* BATCH profile samples of a kernel-mode trap frame whose chain is 16
 * deep (run under bench_deep), kernel chains only; then BATCH of the same
 * each with the 16-frame user chain of bench_pml4's stack (what a sample
 * in a system call writes: ttrace_prof_sample() then the ustack). */
static void count_prof_samples(void)
{
	struct per_cpu_info *p = this_cpu();
	struct trapframe tf = {
		.cs = 8, .rip = (uintptr_t)count_prof_samples,
		.rbp = (uintptr_t)__builtin_frame_address(0),
	};
	uint64_t flags = arch_irq_save();

	INSN_MARK(INSN_MARK_PROF_SAMPLE);
	for (uint64_t i = 0; i < BATCH; i++)
		ttrace_prof_sample(&tf);
	INSN_MARK(INSN_MARK_PROF_SAMPLE + 1);
	INSN_MARK(INSN_MARK_PROF_USER);
	for (uint64_t i = 0; i < BATCH; i++) {
		ttrace_prof_sample(&tf);
		ttrace_profile_ustack(p->ttrace_ring, bench_pml4, BENCH_UPC,
				      BENCH_USTACK);
	}
	INSN_MARK(INSN_MARK_PROF_USER + 1);
	arch_irq_restore(flags);
}

/* The profiler's sample costs (docs/profiling.md, Costs), kernel chains
 * on: the user stack's page mapped in page tables made for it. */
static void count_profile(void)
{
	uint64_t *frames;

	bench_pml4 = vm_create();
	if (!bench_pml4 || vm_map_zero(bench_pml4, BENCH_USTACK, VM_WRITE,
				       (void **)&frames)) {
		printk("bench: no memory for the profile's user stack\n");
		return;
	}
	for (uint32_t k = 0; k <= TTRACE_STACK_DEPTH; k++) {
		frames[2 * k] = BENCH_USTACK + 16 * (k + 1);
		frames[2 * k + 1] = BENCH_UPC + k;
	}
	bench_ctl("profile on 997 all");
	bench_deep(TTRACE_STACK_DEPTH, count_prof_samples);
	bench_ctl("profile off");
	vm_free(bench_pml4);
}

/*
 * The scheduler's records (sched_records.h, the sites sched.c runs),
 * each armed, BATCH times between its marks: a process's thread woken,
 * made runnable new, switched to from another, blocking; a CPU going
 * idle. Their groups (sched, proc) are armed for the regions only.
 */
static struct proc bench_proc = { .pid = 7 };
static struct kthread bench_kts[2] = {
	{ .id = 5, .trace_pid = 7, .prio = KTHREAD_PRIO, .proc = &bench_proc,
	  .state = KT_SLEEPING, .trace_flags = KT_TRACED, .trace_comm = 1,
	  .trace_parent = 1 },
	{ .id = 6, .trace_pid = 8, .prio = KTHREAD_PRIO, .proc = &bench_proc,
	  .state = KT_SLEEPING, .trace_flags = KT_TRACED, .trace_comm = 1,
	  .trace_parent = 1 },
};

#define SCHED_REGION(id, call)						\
	do {								\
		INSN_MARK(id);						\
		for (uint64_t i = 0; i < BATCH; i++) {			\
			__asm__ __volatile__("" : : "r"(i) : "memory");	\
			call;						\
		}							\
		INSN_MARK(id + 1);					\
	} while (0)

static void count_sched_records(void)
{
	const uint64_t groups = 1ull << TTRACE_GROUP_SCHED |
				1ull << TTRACE_GROUP_PROC;
	struct kthread *a = &bench_kts[0], *b = &bench_kts[1];
	uint64_t me = core_id();
	/* block_locked()'s caller, an argument: in a register */
	const void *caller = __builtin_return_address(0);
	uint64_t flags;

	bench_proc.kt = a;
	a->wchan = b->wchan = &bench_kts;
	ttrace_set_mask(groups, groups);
	flags = arch_irq_save();
	SCHED_REGION(INSN_MARK_SCHED_WAKING, sched_rec_waking(a, me));
	SCHED_REGION(INSN_MARK_SCHED_WAKEUP, sched_rec_wakeup(a, me));
	SCHED_REGION(INSN_MARK_SCHED_WAKEUP_NEW, sched_rec_wakeup_new(a, me));
	SCHED_REGION(INSN_MARK_SCHED_SWITCH, sched_rec_switch(a, b));
	SCHED_REGION(INSN_MARK_CPU_IDLE, ttrace_cpu_idle(1, (uint32_t)me));
	SCHED_REGION(INSN_MARK_TASK_NEWTASK, sched_rec_newtask(a));
	SCHED_REGION(INSN_MARK_SCHED_BLOCKED, sched_rec_blocked(a, caller));
	arch_irq_restore(flags);
	ttrace_set_mask(TTRACE_GROUP_MASK_DEFAULT, groups);
	printk("bench: scheduler record regions done (%d operations each)\n",
	       BATCH);
}

/* The instruction-count regions, for make bench's plugin run. */
static void count_all(void)
{
	count_op(OP_EMPTY);
	arm_test_group(true);
	count_op(OP_ENABLED);
	count_op(OP_CONT);
	count_op(OP_AUX);
	count_probed(OP_FILTER, "probe bench filter test_seq seq<0x7fffffffffffffff");
	count_probed(OP_COUNT, "probe bench count test_seq");
	count_stacks();
	count_profile();
	arm_test_group(false);
	count_op(OP_DISABLED);
	count_graph();
	count_fprobe();
	count_irqsave();
	count_sched_records();
	printk("bench: instruction regions done (%d operations each)\n", BATCH);
}

static void sort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Fills this CPU's samples for op: cycles per operation, x100. */
static void measure(enum bench_op op)
{
	uint64_t *s = samples[core_id()];
	uint64_t flags = arch_irq_save();

	for (size_t b = 0; b < BATCHES; b++) {
		uint64_t t0 = arch_read_tsc();

		for (uint64_t i = 0; i < BATCH; i++)
			run_op(op, i);
		s[b] = (arch_read_tsc() - t0) * 100 / BATCH;
	}
	arch_irq_restore(flags);
	sort(s, BATCHES);
}

static void report(const char *what, enum bench_op op, uint64_t empty,
		   const char *target)
{
	measure(op);
	uint64_t *s = samples[core_id()];
	uint64_t min = s[0] > empty ? s[0] - empty : 0;
	uint64_t med = s[BATCHES / 2] > empty ? s[BATCHES / 2] - empty : 0;

	printk("bench: %-34s min %4lu.%02lu median %4lu.%02lu cycles  (target %s)\n",
	       what, min / 100, min % 100, med / 100, med % 100, target);
}

static void aux_all_cpus(void *arg)
{
	(void)arg;
	measure(OP_AUX);
}

/*
 * A wakeup across CPUs (bench=wakeup, at least 2 CPUs): a thread bound to
 * CPU 1 sleeps on a channel; this CPU wakes it WAKEUPS times, each time
 * once it is asleep and CPU 1 has had a millisecond to halt. The call is
 * between marks INSN_MARK_WAKEUP and + 1; the rest of the wakeup is CPU
 * 1's, from its IPI to its swtch() into the thread, which the plugin
 * marks by address (INSN_MARK_WAKEUP_SWITCH): scripts/bench.py adds the
 * two from the marks' per-vCPU counts (docs/benchmarks.md).
 */
#define WAKEUPS	16

static struct {
	struct spinlock lock;
	bool asleep, stop;
	uint32_t woken;
} wk = { .lock = SPINLOCK_INIT("benchwake") };

static void wake_target(void *arg)
{
	(void)arg;
	spin_lock(&wk.lock);
	while (!wk.stop) {
		WRITE_ONCE(wk.asleep, true);
		ksleep(&wk, &wk.lock);
		WRITE_ONCE(wk.asleep, false);
		WRITE_ONCE(wk.woken, wk.woken + 1);
	}
	spin_unlock(&wk.lock);
}

/* Waits until the target sleeps on its channel (it sets asleep under the
 * lock, which ksleep drops only once it is queued there), then gives
 * CPU 1 time to halt. The flag is polled without the lock: under the
 * plugin's round-robin vCPUs a loop that takes and drops it can hold it
 * at every switch, and the target never gets it. */
static void wait_asleep(void)
{
	while (!READ_ONCE(wk.asleep))
		arch_pause();
	spin_lock(&wk.lock);
	spin_unlock(&wk.lock);
	udelay(1000);
}

static void count_wakeup(void)
{
	struct kthread *kt;

	if (num_cpus < 2 || !(kt = kthread_create("benchwake", wake_target,
						  NULL))) {
		printk("bench: wakeup: needs 2 CPUs and a thread\n");
		return;
	}
	kthread_bind(kt, 1);
	sched_make_runnable(kt);
	for (uint32_t i = 0; i <= WAKEUPS; i++) {
		wait_asleep();
		if (i == WAKEUPS)
			WRITE_ONCE(wk.stop, true);
		INSN_MARK(INSN_MARK_WAKEUP);
		kwakeup(&wk);
		INSN_MARK(INSN_MARK_WAKEUP + 1);
		while (READ_ONCE(wk.woken) != i + 1)
			arch_pause();
	}
	printk("bench: wakeup regions done (%d wakeups)\n", WAKEUPS + 1);
}

/* Runs every figure and prints the report (bench=wakeup: only the
 * wakeup's; bench=records: only the scheduler's records, beside the
 * enabled tracepoint they are held to). Boot CPU, other CPUs idle. */
void ttrace_bench(void)
{
	const char *acc = arch_hypervisor();
	char what[16] = "";

	cmdline_get(boot_cmdline, "bench", what, sizeof(what));
	if (!strcmp(what, "wakeup")) {
		count_wakeup();
		return;
	}
	if (!strcmp(what, "records")) {	/* the scheduler's records alone */
		count_op(OP_EMPTY);
		arm_test_group(true);
		count_op(OP_ENABLED);
		arm_test_group(false);
		count_sched_records();
		return;
	}

	printk("bench: ttrace tracepoint costs, %d x %d operations each, "
	       "under %s, stamps from rdtsc\n", BATCHES, BATCH, acc);
	count_all();
	if (!strcmp(acc, "TCG")) {
		printk("bench: TCG emulates the TSC: no cycle figures here; the "
		       "host's (ttbench) and the instruction counts stand\n");
		printk("bench: done\n");
		return;
	}
	measure(OP_EMPTY);
	uint64_t empty = samples[core_id()][0];
	arm_test_group(true);
	report("enabled tracepoint, hot ring", OP_ENABLED, empty, "<= 50");
	report("event with a continuation record", OP_CONT, empty, "<= 90");
	report("32-byte aux string, uncontended", OP_AUX, empty, "<= 250");
	arm_test_group(false);
	report("disabled tracepoint", OP_DISABLED, empty, "<= 1");
	smp_run_on_all(aux_all_cpus, NULL);
	for (uint32_t c = 0; c < num_cpus; c++)
		printk("bench: 32-byte aux string, all %u CPUs: cpu %u min %lu.%02lu "
		       "median %lu.%02lu cycles\n", num_cpus, c,
		       samples[c][0] / 100, samples[c][0] % 100,
		       samples[c][BATCHES / 2] / 100, samples[c][BATCHES / 2] % 100);
	printk("bench: done\n");
}
