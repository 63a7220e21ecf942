/*
 * profile.c: the sampling profiler (docs/profiling.md; its records are
 * docs/trace-format.md section 8).
 *
 * Sampling: each CPU has a one-shot timer of its own (a ktimer of
 * kern/src/timer.c, armed again at each expiry for the next period), so
 * while the profiler is off nothing of it is on the tick path: no timer
 * is queued. The timer's function runs in the timer interrupt and finds
 * the context it interrupted through the frame record trap_common links
 * (CALL_WITH_FRAME: the interrupted rbp and rip just below the trap
 * frame, the caller of trap()'s frame), then writes a profile_sample:
 * the thread, the mode, the interval the sample stands for (the TSC
 * ticks since the CPU's sample before: under an emulator the timer comes
 * late, and the host weighs each sample by its own interval, as perf's
 * frequency mode does), the kernel chain from the interrupted pc and
 * frame (stack.c's walk: bounded, every frame checked before it is read),
 * and after it the user chain (a ustack record) from the thread's trap
 * frame at the top of its kernel stack, read through its page tables
 * with ustr's checks (walk_user(): no hostile rbp faults, no kernel
 * address is taken).
 *
 * Off-CPU and scheduling stacks: the scheduler's hooks (ttrace.h,
 * ttrace_sched_runs() and ttrace_sched_woken()) sit behind the static
 * key TTRACE_KEY_WAKEUP, which the wakeup tracer shares: the switch and
 * wakeup paths have no instruction more while neither wants them. At a
 * switch the thread leaving writes profile_switch (where: its kernel
 * stack is still the one in use) and, with offcpu, the time it left;
 * the thread arriving writes profile_offcpu, how long it was away. With
 * sched, every wakeup writes the waker's stack (profile_wakeup).
 *
 * Control: ctl `profile on [HZ] [kernel|user|all] [offcpu] [sched]` /
 * `profile off`, under the ctl mutex; the command line's
 * ttrace.profile=HZ turns it on as the boot CPU's timer starts.
 */
#include <ttrace.h>
#include <cmdline.h>
#include <init.h>
#include <printfmt.h>
#include <printk.h>
#include <proc.h>
#include <sched.h>
#include <seqbuf.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <timer.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/x86.h>

#include "internal.h"

extern const char trap_called[];	/* trap()'s return address */

/* What is on: written under the ctl mutex, read by the hooks. opts is 0
 * while off. */
static struct {
	uint32_t hz;
	uint32_t opts;			/* TTRACE_PROFILE_* */
	uint64_t period;		/* TSC ticks */
	uint64_t since;			/* the trace clock at the last on: an
					   older off_tsc times nothing */
	const void *holder;		/* the ctl file whose `profile on ...
					   held` runs it (NULL: none) */
} prof;

/* A CPU's sampling timer and counts (written by that CPU's timer). */
static struct prof_cpu {
	struct ktimer timer;
	uint64_t samples;		/* taken */
	uint64_t late;			/* periods missed: the timer came
					   later than the next period */
	uint64_t no_frame;		/* the interrupted frame not found */
	uint64_t last;			/* the trace clock at its last sample
					   (at profile on: the start): the
					   start of the next one's interval */
} __aligned(64) cpus[CONFIG_MAX_NUM_CPUS];

/* kt's pid in profile records: as sched_switch's (sched.c trace_pid()). */
static __always_inline uint64_t pid_of(const struct kthread *kt, uint32_t cpu)
{
	if (kt->proc)
		return (uint64_t)kt->proc->pid;
	return kt->id ? 0 : TTRACE_IDLE_PID(cpu);
}

/* The user chain from the trap frame utf after the record just written,
 * read through page tables pml4 (NULL: none, an exiting process's). */
static __always_inline void user_chain(struct trace_ring *r,
				       const uint64_t *pml4,
				       const struct trapframe *utf)
{
	if (pml4)
		ttrace_profile_ustack(r, pml4, utf->rip, utf->rbp);
}

/*
 * Records a sample of the context tf interrupted on this CPU: its thread,
 * the mode, the interval it stands for (the trace clock's ticks since this
 * CPU's sample before it, or since profile on: a timer that comes late
 * makes a sample that weighs more), the kernel and user chains as the
 * options ask (stack.c's ttrace_profile_sample_of()). The timer interrupt
 * (and the benchmark).
 */
notrace void ttrace_prof_sample(const struct trapframe *tf)
{
	struct per_cpu_info *pcpui = this_cpu();
	const struct kthread *kt = pcpui->cur_kthread;
	struct prof_cpu *pc = &cpus[pcpui->coreid];

	if (!kt) {			/* before the CPU's scheduler */
		pc->last = arch_trace_clock();
		return;
	}
	ttrace_profile_sample_of(tf, kt, READ_ONCE(prof.opts),
				 pid_of(kt, pcpui->coreid),
				 (tf->cs & 3) ? TTRACE_PROF_MODE_USER :
				 sched_cpu_idling(pcpui) ?
				 TTRACE_PROF_MODE_IDLE : TTRACE_PROF_MODE_KERNEL,
				 &pc->last);
}

/* The trap frame of the interrupt the caller runs in: the caller of
 * trap()'s frame (trap_called its return address) is the record
 * CALL_WITH_FRAME pushed just below the frame. A few frames up this
 * stack at most (the timer function, timer_expire(), sched_tick(),
 * timer_irq(), trap()); NULL if not found. */
static notrace const struct trapframe *interrupted_frame(void)
{
	const uintptr_t *f = __builtin_frame_address(0);

	for (int i = 0; i < 8; i++) {
		uintptr_t up = f[0];

		if (f[1] == (uintptr_t)trap_called)
			return (const struct trapframe *)(up + 16);
		if (up <= (uintptr_t)f || up - (uintptr_t)f >= KSTACK_SIZE ||
		    (up & 7))
			return NULL;
		f = (const uintptr_t *)up;
	}
	return NULL;
}

/* A CPU's sampling timer: a sample, and the next period's deadline. Its
 * CPU's timer interrupt. */
static notrace uint64_t sample_timer(struct ktimer *t, uint64_t now)
{
	struct prof_cpu *pc = container_of(t, struct prof_cpu, timer);
	const struct trapframe *tf = interrupted_frame();
	uint64_t period = READ_ONCE(prof.period);
	uint64_t next = t->deadline + period;

	if (!READ_ONCE(prof.opts))
		return 0;		/* being turned off */
	if (tf) {
		ttrace_prof_sample(tf);
		pc->samples++;
	} else {
		pc->no_frame++;
	}
	if (next > now)
		return next;
	pc->late += (now - next) / period + 1;
	return now + period;
}

/* See ttrace.h. A thread that is no idle one leaves: where (its kernel
 * stack is still this one), and when; the one that comes: how long it
 * was off CPU. */
notrace void ttrace_prof_switch(struct kthread *prev, struct kthread *next)
{
	uint32_t opts = READ_ONCE(prof.opts);
	struct per_cpu_info *pcpui = this_cpu();
	struct trace_ring *r = pcpui->ttrace_ring;
	const uintptr_t *f = __builtin_frame_address(0);
	uint64_t now = arch_trace_clock(), h[3];

	if (!(opts & (TTRACE_PROFILE_OFFCPU | TTRACE_PROFILE_SCHED)))
		return;			/* the wakeup tracer's key */
	if (prev->id && !kthread_untraced(prev)) {
		h[0] = pid_of(prev, pcpui->coreid);
		h[1] = TTRACE_PROF_MODE_KERNEL;
		h[2] = prev->state;
		if (ttrace_profile_record(r, TTRACE_EV_PROFILE_SWITCH, h, prev,
					  opts & TTRACE_PROFILE_KERNEL ?
					  f[1] : 0, f[0]) &&
		    (opts & TTRACE_PROFILE_USER) && prev->proc &&
		    prev->state != KT_DEAD)	/* its tables: not loaded */
			user_chain(r, prev->proc->pml4,
				   ttrace_user_frame(prev));
		if (opts & TTRACE_PROFILE_OFFCPU)
			prev->off_tsc = now;
	}
	if ((opts & TTRACE_PROFILE_OFFCPU) && next->off_tsc) {
		uint64_t off = now > next->off_tsc ? now - next->off_tsc : 0;

		if (next->off_tsc >= READ_ONCE(prof.since))
			ttrace_record(TTRACE_EV_PROFILE_OFFCPU,
				      pid_of(next, pcpui->coreid), next->id,
				      ttrace_ticks_to_ns(off, tsc_freq_hz), 0, 0);
		next->off_tsc = 0;
	}
}

/* See ttrace.h. With sched: the waker's stack, the thread running here
 * or (mode interrupt) an interrupt handler over it. */
notrace void ttrace_profile_woken(struct kthread *kt)
{
	uint32_t opts = READ_ONCE(prof.opts);
	struct per_cpu_info *pcpui = this_cpu();
	const struct kthread *cur = pcpui->cur_kthread;
	const uintptr_t *f = __builtin_frame_address(0);
	bool irq = pcpui->irq_depth;
	uint64_t h[3];

	if (!(opts & TTRACE_PROFILE_SCHED) || !cur)
		return;
	h[0] = pid_of(cur, pcpui->coreid);
	h[1] = irq ? TTRACE_PROF_MODE_IRQ : TTRACE_PROF_MODE_KERNEL;
	h[2] = kt->id;
	if (ttrace_profile_record(pcpui->ttrace_ring, TTRACE_EV_PROFILE_WAKEUP,
				  h, cur, opts & TTRACE_PROFILE_KERNEL ? f[1] : 0,
				  f[0]) &&
	    (opts & TTRACE_PROFILE_USER) && !irq && cur->proc)
		user_chain(pcpui->ttrace_ring, ttrace_loaded_tables(),
			   ttrace_user_frame(cur));
}

/* Names again in aux every live process's program, as its spawn did
 * (tag proc, ident TTRACE_EXEC_IDENT(pid)): the host's names of its user
 * pcs, should aux have wrapped since. */
static void name_programs_now(void)
{
	char path[PATH_MAX];

	for (int pid = proc_pid_after(0); pid; pid = proc_pid_after(pid)) {
		uint64_t flags = spin_lock_irqsave(&proc_lock);
		struct proc *p = proc_find_locked(pid);
		bool alive = p && p->state == PROC_ALIVE;

		if (alive)
			strlcpy(path, p->path, sizeof(path));
		spin_unlock_irqrestore(&proc_lock, flags);
		if (alive)
			ttrace_aux_string(TTRACE_AUX_PROC_NAME,
					  TTRACE_EXEC_IDENT(pid), path);
	}
}

/* Whether the scheduler's hooks must be live for the profiler (patch.c:
 * the key TTRACE_KEY_WAKEUP's sites). */
bool ttrace_profile_sched_live(void)
{
	return READ_ONCE(prof.opts) &
	       (TTRACE_PROFILE_OFFCPU | TTRACE_PROFILE_SCHED);
}

/* Arms every online CPU's sampling timer for its first period, from now:
 * the start of each CPU's first interval (another CPU's clock may differ
 * from this one's, but its timer expires only when its own clock reaches
 * a period past now, so that interval is never negative); each CPU
 * reprograms its hardware timer at once (this one here, the others at
 * their IRQ_RESCHED). */
static void timers_start(void)
{
	uint64_t start = arch_trace_clock(), flags;

	for (uint32_t c = 0; c < num_cpus; c++) {
		WRITE_ONCE(cpus[c].last, start);
		cpus[c].timer.fn = sample_timer;
		ktimer_add_on(&cpus[c].timer, c, start + prof.period);
	}
	flags = arch_irq_save();
	sched_timer_changed();
	for (uint32_t c = 0; c < num_cpus; c++)
		if (c != core_id())
			arch_send_ipi(c, IRQ_RESCHED);
	arch_irq_restore(flags);
}

/* Turns the profiler off: no timer queued (a sample running now ends
 * before ktimer_cancel() returns), the scheduler's hooks back to NOPs
 * unless the wakeup tracer has them. ctl mutex held (or the boot). */
static void profile_stop(void)
{
	bool hooks = ttrace_profile_sched_live();

	WRITE_ONCE(prof.opts, 0);
	WRITE_ONCE(prof.hz, 0);
	for (uint32_t c = 0; c < num_cpus; c++)
		ktimer_cancel(&cpus[c].timer);
	if (hooks)
		ttrace_patch_sync(TEXT_PATCH_LIVE);
}

/* Turns it on at hz with opts (TTRACE_PROFILE_*), first naming every
 * live process's program and (kernel chains) every kernel symbol. ctl
 * mutex held (or the boot). */
static void profile_start(uint32_t hz, uint32_t opts)
{
	WRITE_ONCE(prof.period, MAX(tsc_freq_hz / hz, 1));
	WRITE_ONCE(prof.since, arch_trace_clock());
	WRITE_ONCE(prof.hz, hz);
	WRITE_ONCE(prof.opts, opts);
	name_programs_now();
	if (opts & TTRACE_PROFILE_KERNEL)
		ttrace_stack_name_ksyms();	/* the chains' pcs */
	if (ttrace_profile_sched_live())
		ttrace_patch_sync(TEXT_PATCH_LIVE);
	timers_start();
}

/* ctl `profile on|off` (cmd parsed), written to file (NULL: a kernel
 * caller's): off, then on as asked (a running profile takes the new rate
 * and options); `held`: until file's last close. Returns NULL or why
 * nothing changed. ctl mutex held, process context. */
const char *ttrace_profile_control(struct ttrace *t,
				   const struct ttrace_ctl_cmd *cmd,
				   const void *file)
{
	if (t->off_reason)
		return t->off_reason;
	profile_stop();
	if (cmd->mode)
		profile_start((uint32_t)cmd->value, (uint32_t)cmd->mask);
	WRITE_ONCE(prof.holder, cmd->mode == TTRACE_PROFILE_HELD ? file :
		   NULL);
	return NULL;
}

/* See internal.h. */
void ttrace_profile_close(const void *file)
{
	static const struct ttrace_ctl_cmd off = { .op = TTRACE_CTL_PROFILE };
	struct ttrace *t = &ttrace_main;

	if (READ_ONCE(prof.holder) != file)
		return;			/* not the holder: no wait */
	ttrace_ctl_mutex_enter(t);
	if (file == prof.holder)
		ttrace_profile_control(t, &off, NULL);
	ttrace_ctl_mutex_exit(t);
}

/* See ttrace.h: ttrace.profile=HZ samples every CPU (kernel and user
 * chains) from the moment the boot CPU's timer starts. */
void ttrace_profile_boot(void)
{
	char text[48];
	const char *why;
	uint64_t hz;

	if (!cmdline_get_u64(boot_cmdline, "ttrace.profile", &hz))
		return;
	fmt_snprintf(text, sizeof(text), "profile on %lu", (unsigned long)hz);
	if (ttrace_control(text, strlen(text), &why))
		printk(KERN_ERR "ttrace: ttrace.profile=%lu: %s\n",
		       (unsigned long)hz, why);
}

/* The stats file's line: on or off, the rate and options, and the
 * samples every CPU took, the periods they missed and the samples they
 * could not take. */
void ttrace_profile_stats_text(struct seqbuf *s)
{
	uint64_t samples = 0, late = 0, no_frame = 0;
	uint32_t opts = READ_ONCE(prof.opts);

	for (uint32_t c = 0; c < num_cpus; c++) {
		samples += READ_ONCE(cpus[c].samples);
		late += READ_ONCE(cpus[c].late);
		no_frame += READ_ONCE(cpus[c].no_frame);
	}
	seqbuf_printf(s, "profile %s hz %u%s%s%s%s samples %lu late %lu "
		      "no_frame %lu\n", opts ? "on" : "off",
		      READ_ONCE(prof.hz),
		      opts & TTRACE_PROFILE_KERNEL ? " kernel" : "",
		      opts & TTRACE_PROFILE_USER ? " user" : "",
		      opts & TTRACE_PROFILE_OFFCPU ? " offcpu" : "",
		      opts & TTRACE_PROFILE_SCHED ? " sched" : "",
		      samples, late, no_frame);
}
