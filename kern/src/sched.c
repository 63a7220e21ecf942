/*
 * The scheduler (see sched.h and docs/scheduler.md).
 *
 * Each CPU has its own run queue (struct runq): a FIFO of runnable
 * threads behind its own lock, the thread running there, its slice, and
 * whether it should give the CPU up. No lock is shared by all CPUs: a
 * switch takes its own CPU's queue lock, a wakeup the lock of the queue
 * the sleeper waits on (one of WAITQ_BUCKETS hashed buckets, each with
 * its lock) or of the timer queue it sleeps on (timer.c, per CPU), then
 * the run queue locks of the CPU it last ran on and of the CPU it goes
 * to. Lock order: a caller's lock, then a wait or timer queue, then one
 * run queue (two only when an idle CPU pulls work: lowest CPU first).
 *
 * A CPU's run queue lock is held across swtch() and released by whichever
 * thread runs next (sched_finish_switch for a new thread, schedule()'s
 * tail for an old one), so a thread switching out cannot be picked up,
 * woken, or pulled by another CPU before its registers are saved: each of
 * those takes that lock first. Its state changes from SLEEPING only under
 * the lock of the CPU it last ran on (kt->cpu, which does not change while
 * it sleeps). Interrupts are off whenever a run queue lock is held.
 *
 * Placement: a woken thread goes to the CPU it last ran on if that CPU is
 * free (idle, nothing queued), else to a free CPU, else back to its own
 * (a new thread: a free CPU, else the creating one); a bound thread
 * (kthread_bind) always to its CPU. A CPU going idle pulls a waiting
 * thread from the busiest queue, and a CPU whose slice ends with threads
 * waiting kicks a free CPU to do so.
 *
 * Slices: a thread runs SCHED_SLICE_NS before it is preempted, and only
 * if another thread waits on its CPU (on a busy CPU the slice ends are
 * deadlines a slice apart, a periodic tick's: next_deadline()); a thread
 * made runnable there cuts the slice of the running one to
 * SCHED_WAKEUP_GRAN_NS (it runs first
 * once the running thread has had that much: the thread preempted goes
 * last on the queue, and the one made runnable runs in its place). Preemption is need_resched,
 * acted on at the next return to user mode (the kernel itself is not
 * preempted; kernel loops ask sched_should_yield()). The hardware timer is
 * programmed for the slice end only while another thread waits, and for
 * this CPU's earliest timer (timer.c; a halted CPU's earliest that is not
 * deferrable): an idle CPU with no timer due takes no interrupt.
 */
#include <arch_hooks.h>
#include <sched.h>
#include <smp.h>
#include <kmalloc.h>
#include <kmsg.h>
#include <pmem.h>
#include <vm.h>
#include <printk.h>
#include <string.h>
#include <atomic.h>
#include <hash.h>
#include <timer.h>
#include <abi/errno.h>
#include <ttrace.h>
#include <sched_records.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>

void swtch(uintptr_t *old_rsp, uintptr_t new_rsp);
extern char kthread_trampoline[], user_trampoline[];

const char *const kthread_state_names[KT_NSTATES] = {
	[KT_RUNNABLE] = "runnable",
	[KT_RUNNING] = "running",
	[KT_SLEEPING] = "sleeping",
	[KT_DEAD] = "dead",
};

/* One thread per process: its size decides which kmalloc class every
 * process costs and keeps (see FGRAPH_DEPTH, fgraph.h). */
static_assert(sizeof(struct kthread) <= 1024,
	      "struct kthread must stay in kmalloc's 1 KiB class");

#define SCHED_SLICE_NS		10000000u	/* 10 ms */
#define SCHED_WAKEUP_GRAN_NS	1000000u	/* 1 ms */

struct runq {
	struct spinlock lock;
	struct kthread *head, *tail;	/* waiting to run here, FIFO */
	uint32_t len;			/* threads on it */
	bool halting;			/* the idle loop halts: deferrable
					   timers wait */
	struct kthread *curr;		/* running here */
	struct kthread *wakee;		/* made runnable here since the last
					   switch: runs next if curr is
					   preempted */
	uint64_t slice_start, slice_end;	/* curr's, this CPU's TSC */
	uint64_t deadline;		/* curr's slice end before any cut:
					   the busy CPU's periodic tick */
	uint64_t armed;			/* the hardware timer's deadline */
} __aligned(64);

#define WAITQ_BITS	8
struct waitq {
	struct spinlock lock;
	struct list q;			/* threads sleeping on chans that
					   hash here */
} __aligned(64);

static struct runq runqs[CONFIG_MAX_NUM_CPUS] = {
	[0 ... CONFIG_MAX_NUM_CPUS - 1] = { .lock = SPINLOCK_INIT("runq") },
};
static struct waitq waitqs[1 << WAITQ_BITS] = {
	[0 ... (1 << WAITQ_BITS) - 1] = { .lock = SPINLOCK_INIT("waitq") },
};
static struct kthread idle_threads[CONFIG_MAX_NUM_CPUS];
static uint64_t next_kthread_id = 1;

static struct runq *this_rq(void)
{
	return &runqs[core_id()];
}

static uint32_t rq_cpu(const struct runq *rq)
{
	return (uint32_t)(rq - runqs);
}

/* need_resched: the running thread should yield. It is the resched byte
 * of the CPU's work word (smp.h), which the return to user mode tests
 * with its kernel messages in one load. rq is this CPU's. */
static bool need_resched(const struct runq *rq)
{
	return per_cpu_info[rq_cpu(rq)].work.resched;
}

static void set_need_resched(struct runq *rq, bool on)
{
	WRITE_ONCE(per_cpu_info[rq_cpu(rq)].work.resched, on);
	ttrace_ctx_need_resched(on);
}

/* Makes the calling CPU's boot context its idle thread. Each CPU, once,
 * before cpu_idle(). */
void sched_init_cpu(void)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct kthread *idle = &idle_threads[pcpui->coreid];
	struct runq *rq = &runqs[pcpui->coreid];

	idle->id = 0;
	idle->trace_pid = TTRACE_IDLE_PID(pcpui->coreid);
	idle->prio = KTHREAD_PRIO;
	idle->trace_flags = KT_TRACED;
	strlcpy(idle->name, "idle", sizeof(idle->name));
	idle->state = KT_RUNNING;
	idle->cpu = (int)pcpui->coreid;
	WRITE_ONCE(rq->curr, idle);
	pcpui->cur_kthread = idle;
	pcpui->cur_proc = NULL;
}

/* Returns a thread with a fresh kernel stack, not yet runnable, or NULL. */
struct kthread *kthread_alloc(void)
{
	struct kthread *kt = kzmalloc(sizeof(*kt));

	if (!kt)
		return NULL;
	/* Zeroed, so no stale bytes, and for the emulator: QEMU's TCG keeps
	 * its translations of a page that was user text until every byte
	 * of code on it is overwritten, and until then takes a slow path on
	 * each store to the page. A stack is written only near its top, so
	 * it never got there: the drain thread ran 10 times slower on a
	 * stack of tracestress's freed text (docs/benchmarks.md). */
	kt->kstack = (uintptr_t)vm_pages_get(2, MEM_ZERO);
	if (!kt->kstack) {
		kfree(kt);
		return NULL;
	}
	kt->id = atomic_fetch_add(&next_kthread_id, 1);
	kt->trace_pid = TTRACE_KTHREAD_PID(kt->id);	/* a process's: its pid */
	kt->prio = KTHREAD_PRIO;
	kt->state = KT_RUNNABLE;
	kt->trace_flags = KT_TRACED;
	kt->trace_comm = kt->trace_pid;
	kt->trace_parent = current_kthread() ? current_kthread()->trace_pid : 0;
	kt->bound_cpu = -1;
	return kt;
}

/* Frees a thread that never ran or is dead (see sched_wait_dead). */
void kthread_free(struct kthread *kt)
{
	vm_pages_put((void *)kt->kstack, 2);
	kfree(kt);
}

/* Lays out the frame swtch() pops: callee-saved registers (r12, r13
 * given) and the return address entry, ending at top, which must be
 * 16-byte aligned. */
static void push_switch_frame(struct kthread *kt, uintptr_t top,
			      void *entry, uint64_t r12, uint64_t r13)
{
	uint64_t *sp = (uint64_t *)top - 7;

	memset(sp, 0, 7 * sizeof(*sp));
	sp[2] = r13;
	sp[3] = r12;
	sp[6] = (uintptr_t)entry;
	kt->saved_rsp = (uintptr_t)sp;
}

/* Creates a ktask that will run fn(arg); make it runnable to start it. */
struct kthread *kthread_create(const char *name, void (*fn)(void *), void *arg)
{
	struct kthread *kt = kthread_alloc();

	if (!kt)
		return NULL;
	strlcpy(kt->name, name, sizeof(kt->name));
	push_switch_frame(kt, kt->kstack + KSTACK_SIZE, kthread_trampoline,
			  (uintptr_t)fn, (uintptr_t)arg);
	ttrace_name_kthread(kt->id, kt->name);
	ttrace_aux_string(TTRACE_AUX_PROC_NAME, kt->trace_pid, kt->name);
	ttrace_kthread_create(kt->id);
	return kt;
}

/* Sets kt up to enter user mode with the registers in tf when it first
 * runs. */
void kthread_prepare_user(struct kthread *kt, struct trapframe *tf)
{
	uintptr_t top = kt->kstack + KSTACK_SIZE;
	struct trapframe *ktf = (struct trapframe *)(top - sizeof(*tf));

	*ktf = *tf;
	push_switch_frame(kt, (uintptr_t)ktf, user_trampoline, (uintptr_t)ktf, 0);
}

/* Binds kt, not yet runnable, to CPU cpu (< num_cpus): only that CPU
 * will run it. */
void kthread_bind(struct kthread *kt, uint32_t cpu)
{
	kt->bound_cpu = (int)cpu;
}

/* Makes kt, not yet runnable, untraced: the scheduler records nothing
 * of it, its time shows as its CPU's idle time (the trace drain). */
void kthread_untrace(struct kthread *kt)
{
	kt->trace_flags &= (uint8_t)~KT_TRACED;
}

/* Gives kt, a new process's thread, not yet runnable, its process's
 * pid; it starts under the name of the thread that made it, its
 * parent's (task_newtask's comm, as Linux's fork copies it). */
void kthread_set_proc_pid(struct kthread *kt, uint32_t pid)
{
	kt->trace_pid = pid;
	kt->trace_comm = kt->trace_parent;
}

/* Whether CPU cpu may run kt. */
static bool runs_on(const struct kthread *kt, uint32_t cpu)
{
	return kt->bound_cpu < 0 || kt->bound_cpu == (int)cpu;
}

static bool is_idle(const struct kthread *kt)
{
	return kt >= idle_threads && kt < idle_threads + CONFIG_MAX_NUM_CPUS;
}

/* Whether rq's CPU runs something: a thread, or its boot (kmain and
 * the ktests run on the idle thread before it enters cpu_idle()). */
static bool runs_work(const struct runq *rq)
{
	struct kthread *curr = READ_ONCE(rq->curr);

	return curr && (!is_idle(curr) ||
			!READ_ONCE(per_cpu_info[rq_cpu(rq)].idling));
}

/* Whether CPU cpu is in its idle loop with nothing queued (unlocked: a
 * hint for placement). */
static bool cpu_free(uint32_t cpu)
{
	struct runq *rq = &runqs[cpu];

	return READ_ONCE(rq->curr) && !runs_work(rq) &&
	       READ_ONCE(rq->len) == 0;
}

/* Where kt should run, prefer being its last CPU (a new thread: this
 * one): kt's bound CPU, else prefer if it is free, else a free CPU, else
 * prefer. */
static uint32_t select_cpu(const struct kthread *kt, uint32_t prefer)
{
	if (kt->bound_cpu >= 0)
		return (uint32_t)kt->bound_cpu;
	for (uint32_t i = 0; i < num_cpus; i++) {
		uint32_t c = (prefer + i) % num_cpus;

		if (cpu_free(c))
			return c;
	}
	return prefer;
}

/* Puts kt last on rq's queue, runnable there. rq locked. */
static void runq_push(struct runq *rq, struct kthread *kt)
{
	kt->state = KT_RUNNABLE;
	kt->cpu = (int)rq_cpu(rq);
	kt->next = NULL;
	if (rq->tail)
		rq->tail->next = kt;
	else
		rq->head = kt;
	rq->tail = kt;
	WRITE_ONCE(rq->len, rq->len + 1);
}

/* Takes the first thread CPU cpu may run off rq's queue, or returns NULL.
 * rq locked. */
static struct kthread *runq_take(struct runq *rq, uint32_t cpu)
{
	struct kthread **link = &rq->head, *kt, *prev = NULL;

	while (*link && !runs_on(*link, cpu)) {
		prev = *link;
		link = &(*link)->next;
	}
	kt = *link;
	if (kt) {
		*link = kt->next;
		if (rq->tail == kt)
			rq->tail = prev;
		kt->next = NULL;
		WRITE_ONCE(rq->len, rq->len - 1);
	}
	return kt;
}

/* Takes kt off rq's queue if it is on it; returns whether it was. rq
 * locked. */
static bool runq_remove(struct runq *rq, struct kthread *kt)
{
	struct kthread **link = &rq->head, *prev = NULL;

	while (*link && *link != kt) {
		prev = *link;
		link = &(*link)->next;
	}
	if (!*link)
		return false;
	*link = kt->next;
	if (rq->tail == kt)
		rq->tail = prev;
	kt->next = NULL;
	WRITE_ONCE(rq->len, rq->len - 1);
	return true;
}

/* Threads waiting on the run queues now (the ttrace counter runq_len). */
uint32_t sched_runq_len(void)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < num_cpus; c++)
		n += READ_ONCE(runqs[c].len);
	return n;
}

/* Sends IRQ_RESCHED to a free CPU, if there is one, so that it pulls a
 * thread waiting here (pull_work()): a CPU that halts looks for work only
 * when woken. */
static void kick_free_cpu(void)
{
	for (uint32_t c = 0; c < num_cpus; c++)
		if (cpu_free(c)) {
			arch_send_ipi(c, IRQ_RESCHED);
			return;
		}
}

/* This CPU's look at its run queue: the running thread's slice has ended
 * with another thread waiting (need_resched; a free CPU is kicked to pull
 * one of the waiting, in case the running thread is a kernel loop that
 * does not yield soon), and the hardware timer is
 * set for this CPU's next timer or the slice end, whichever comes first
 * (nothing if neither). rq is this CPU's, locked, interrupts off. */
static void rq_update_locked(struct runq *rq, uint64_t now)
{
	uint64_t next = timer_next(rq->halting);
	bool busy = runs_work(rq) && rq->len;

	if (busy && now >= rq->slice_end && !need_resched(rq)) {
		set_need_resched(rq, true);
		kick_free_cpu();
	}
	if (busy && !need_resched(rq) && (!next || rq->slice_end < next))
		next = rq->slice_end;
	if (next != rq->armed) {
		rq->armed = next;
		arch_timer_set(next);
	}
}

/*
 * Makes kt runnable on rq's CPU: the one place a thread becomes runnable,
 * new (sched_make_runnable) or woken (wake_sleeper). The running thread's
 * slice is cut to SCHED_WAKEUP_GRAN_NS from its start; that CPU is sent
 * IRQ_RESCHED if it is another one (to run kt if idle, else to act on the
 * shorter slice). Records sched_waking, in the waker's context, and
 * sched_wakeup once kt is queued (sched_wakeup_new for a new thread),
 * if traced: a constant, the caller's branch on kthread_untraced(), so
 * that the records' sites need no test of their own (the trace drain's
 * wakeups are not recorded). rq locked, interrupts off.
 */
static __always_inline void sched_wake(struct runq *rq, struct kthread *kt,
				       bool new, bool traced)
{
	uint64_t cpu = rq_cpu(rq);

	if (traced && !new)
		sched_rec_waking(kt, cpu);
	ttrace_sched_woken(kt);
	runq_push(rq, kt);
	rq->wakee = kt;
	if (traced && new)
		sched_rec_wakeup_new(kt, cpu);
	else if (traced)
		sched_rec_wakeup(kt, cpu);
	if (runs_work(rq))
		rq->slice_end = MIN(rq->slice_end, rq->slice_start +
				    ns_to_tsc(SCHED_WAKEUP_GRAN_NS));
	if (cpu != core_id())
		arch_send_ipi((uint32_t)cpu, IRQ_RESCHED);
	else
		rq_update_locked(rq, arch_read_tsc());
}

/* Makes kt, new (kthread_create or proc_spawn), runnable: it starts
 * (task_newtask, with the pid of the thread that made it), unless it is
 * untraced (the trace drain: no record of it at all). */
void sched_make_runnable(struct kthread *kt)
{
	uint64_t flags = arch_irq_save();
	struct runq *rq = &runqs[select_cpu(kt, core_id())];

	if (kthread_untraced(kt)) {
		spin_lock(&rq->lock);
		sched_wake(rq, kt, true, false);
	} else {
		sched_rec_newtask(kt);
		spin_lock(&rq->lock);
		sched_wake(rq, kt, true, true);
	}
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
}

/* Locks the run queue of kt's CPU (the one it runs or last ran on) and
 * returns it. Interrupts off. */
static struct runq *lock_rq_of(struct kthread *kt)
{
	for (;;) {
		int cpu = READ_ONCE(kt->cpu);
		struct runq *rq = &runqs[cpu];

		spin_lock(&rq->lock);
		if (READ_ONCE(kt->cpu) == cpu)
			return rq;
		spin_unlock(&rq->lock);
	}
}

/* Makes kt runnable if it sleeps (whatever on: its wait queue and timer
 * are its own to leave once it runs), on the CPU select_cpu() picks.
 * Interrupts off. */
static void wake_sleeper(struct kthread *kt)
{
	struct runq *rq = lock_rq_of(kt);
	uint32_t cpu;
	bool traced;

	if (kt->state != KT_SLEEPING) {
		spin_unlock(&rq->lock);
		return;
	}
	traced = !kthread_untraced(kt);
	if (traced)
		ttrace_kthread_wake(kt->id);
	cpu = select_cpu(kt, (uint32_t)kt->cpu);
	if (cpu != rq_cpu(rq)) {
		/* Claimed (no other waker acts on a RUNNABLE thread) and off
		 * every run queue: none may run it until it is on cpu's. */
		kt->state = KT_RUNNABLE;
		spin_unlock(&rq->lock);
		rq = &runqs[cpu];
		spin_lock(&rq->lock);
	}
	if (traced)
		sched_wake(rq, kt, false, true);
	else
		sched_wake(rq, kt, false, false);
	spin_unlock(&rq->lock);
}

/* Loads next's address space and kernel stack and switches to it.
 * This CPU's run queue locked, interrupts off. */
static void switch_to_locked(struct kthread *prev, struct kthread *next)
{
	struct per_cpu_info *pcpui = this_cpu();

	pcpui->cur_kthread = next;
	pcpui->cur_proc = next->proc;
	/* From here on the function-graph tracer uses next's shadow stack
	 * (cur_kthread), so records say next's context from here on too. */
	ttrace_ctx_switch(pcpui, next);
	if (next->proc || prev->proc)
		mmu_switch_to(next->proc ? next->proc->pml4 : NULL);
	if (!is_idle(next))
		arch_set_kernel_stack(next->kstack + KSTACK_SIZE);
	if (!next->proc && !is_idle(next) && !kthread_untraced(next))
		ttrace_kthread_run(next->id);
	sched_rec_switch(prev, next);
	ttrace_sched_runs(prev, next);
	swtch(&prev->saved_rsp, next->saved_rsp);
}

/* The end of the slice that starts at now on rq, this CPU's (locked),
 * after prev's (its state as the switch begins). When prev's slice ran to
 * its deadline, uncut, and ended by the timer (need_resched), the next
 * ends SCHED_SLICE_NS after that deadline, or a whole number of slices
 * later if that is not at least SCHED_WAKEUP_GRAN_NS away (the timer came
 * that late: no slice is shorter than a wakeup's cut): a periodic tick's
 * deadlines, which the timer's lateness does not move (Linux's
 * tick_sched_timer forwards from its last expiry, not from now). Else
 * (the CPU was idle, prev blocked or yielded, or a wakeup cut its slice)
 * one slice from now. */
static uint64_t next_deadline(const struct runq *rq,
			      const struct kthread *prev, uint64_t now)
{
	uint64_t slice = ns_to_tsc(SCHED_SLICE_NS);
	uint64_t end = rq->deadline;

	if (prev->state != KT_RUNNING || is_idle(prev) || !need_resched(rq) ||
	    rq->slice_end != end || now < end)
		return now + slice;
	return end + ((now + ns_to_tsc(SCHED_WAKEUP_GRAN_NS) - end) / slice +
		      1) * slice;
}

/* Picks the next thread of rq, this CPU's, and runs it with a new slice;
 * the current one has already set its state (RUNNING means it only
 * yields: it goes last on the queue). rq locked, interrupts off; on
 * return the caller may run on another CPU, whose queue is then locked
 * (this_rq()). */
static void schedule_locked(struct runq *rq)
{
	struct kthread *prev = rq->curr;
	struct kthread *next;
	uint64_t now = arch_read_tsc();
	uint64_t deadline = next_deadline(rq, prev, now);

	if (prev->state == KT_RUNNING && !is_idle(prev)) {
		runq_push(rq, prev);	/* preempted, or it yields */
		next = rq->wakee && runq_remove(rq, rq->wakee) ? rq->wakee :
		       runq_take(rq, rq_cpu(rq));
	} else {
		next = runq_take(rq, rq_cpu(rq));
	}
	rq->wakee = NULL;
	if (!next)
		next = &idle_threads[rq_cpu(rq)];
	next->state = KT_RUNNING;
	next->cpu = (int)rq_cpu(rq);
	WRITE_ONCE(rq->curr, next);
	set_need_resched(rq, false);
	rq->slice_start = now;
	rq->slice_end = rq->deadline = deadline;
	rq_update_locked(rq, now);
	if (next != prev)
		switch_to_locked(prev, next);
}

/* Gives up the CPU: the caller stays runnable, or not, as its state says.
 * Any context but interrupt handlers; no spinlock but none may be held. */
void schedule(void)
{
	uint64_t flags = arch_irq_save();

	spin_lock(&this_rq()->lock);
	schedule_locked(this_rq());
	spin_unlock(&this_rq()->lock);
	arch_irq_restore(flags);
}

void yield(void)
{
	schedule();
}

/* First thing a new thread does: drop the lock its creator's schedule()
 * took, and take interrupts; a process's thread starts its program here
 * (task_rename: its name from its parent's to its program's). */
void sched_finish_switch(void)
{
	sched_rec_rename(current_kthread());
	spin_unlock(&this_rq()->lock);
	arch_irq_enable();
}

static bool is_killed(const struct kthread *kt)
{
	return kt->proc && READ_ONCE(kt->proc->killed);
}

/* Blocks kt, the current thread, already on a wait queue (kt->wchan) or
 * a timer, until a wakeup; at once, unblocked, if its process is killed
 * (kill sets killed before it takes this lock to wake it). caller: the
 * code that sleeps (sched_blocked_reason). Returns 0, or -EINTR if the
 * process is killed. rq, this CPU's, locked, interrupts off; on return
 * this_rq() is (kt may run on another CPU by then). */
static int block_locked(struct runq *rq, struct kthread *kt,
			const void *caller)
{
	if (is_killed(kt))
		return -EINTR;
	kt->state = KT_SLEEPING;
	if (!kthread_untraced(kt)) {
		ttrace_kthread_block(kt->id);
		sched_rec_blocked(kt, caller);
	}
	schedule_locked(rq);
	return is_killed(kt) ? -EINTR : 0;
}

/* The wait queue for chan; its lock taken, interrupts off. */
static struct waitq *waitq_lock(const void *chan)
{
	struct waitq *wq = &waitqs[hash_ptr(chan, WAITQ_BITS)];

	spin_lock(&wq->lock);
	if (!wq->q.next)
		list_init(&wq->q);	/* first use */
	return wq;
}

int ksleep(const void *chan, struct spinlock *lk)
{
	struct kthread *kt = current_kthread();
	uint64_t flags = arch_irq_save();
	struct waitq *wq = waitq_lock(chan);
	struct runq *rq;
	int ret;

	if (lk)
		spin_unlock(lk);
	kt->wchan = chan;
	list_add_tail(&wq->q, &kt->wait_link);
	rq = this_rq();
	spin_lock(&rq->lock);
	spin_unlock(&wq->lock);
	ret = block_locked(rq, kt, __builtin_return_address(0));
	spin_unlock(&this_rq()->lock);
	spin_lock(&wq->lock);
	list_del(&kt->wait_link);
	kt->wchan = NULL;
	spin_unlock(&wq->lock);
	arch_irq_restore(flags);
	if (lk)
		spin_lock(lk);
	return ret;
}

/* Wakes every thread sleeping on chan: O(threads on its bucket). */
void kwakeup(const void *chan)
{
	uint64_t flags = arch_irq_save();
	struct waitq *wq = waitq_lock(chan);
	struct list *l = wq->q.next;

	while (l != &wq->q) {
		struct kthread *kt = container_of(l, struct kthread, wait_link);

		l = l->next;
		if (kt->wchan == chan) {
			list_del(&kt->wait_link);
			wake_sleeper(kt);
		}
	}
	spin_unlock(&wq->lock);
	arch_irq_restore(flags);
}

/* Wakes kt if it sleeps, whatever on (used by kill). */
void sched_wake_thread(struct kthread *kt)
{
	uint64_t flags = arch_irq_save();

	wake_sleeper(kt);
	arch_irq_restore(flags);
}

/* The sleep timer of a thread in ksleep_until(): the TSC it fired at,
 * then the wakeup. */
static uint64_t sleep_timer_fired(struct ktimer *t, uint64_t now)
{
	struct kthread *kt = container_of(t, struct kthread, timer);

	kt->tick_tsc = now;
	wake_sleeper(kt);
	return 0;
}

/* The timer interrupt: runs this CPU's timers that are due, ends the
 * running thread's slice if it is over and another waits, sets the next
 * interrupt. Interrupts off. */
void sched_tick(void)
{
	uint64_t now = arch_read_tsc();
	struct runq *rq = this_rq();

	timer_expire(now);
	spin_lock(&rq->lock);
	rq->armed = 0;		/* a one-shot that fired is disarmed */
	rq_update_locked(rq, now);
	spin_unlock(&rq->lock);
}

/* IRQ_RESCHED: another CPU queued a thread here or cut the slice; the
 * idle loop runs it, or the running thread is asked to yield, or the
 * timer is set for the new slice end. Interrupts off. */
void sched_resched_ipi(void)
{
	struct runq *rq = this_rq();

	spin_lock(&rq->lock);
	rq_update_locked(rq, arch_read_tsc());
	spin_unlock(&rq->lock);
}

/* Called after ktimer_add() outside a sleep: reprograms the hardware
 * timer now. Interrupts off. */
void sched_timer_changed(void)
{
	sched_resched_ipi();
}

/*
 * Sleeps until this CPU's TSC reaches deadline (returns at once if it
 * has): blocks once, woken by its timer on this CPU. Returns 0 or
 * -EINTR; *tick_tsc (if not NULL) is then the TSC at which the timer
 * interrupt found the deadline come and woke the thread (the moment the
 * timer fired, for the latency of the wakeup after it), or 0 if no timer
 * woke it (the deadline had passed, or a kill did). Process context.
 * caller: the code that sleeps (ksleep_until's or ksleep_ns's caller).
 */
static int sleep_until(uint64_t deadline, uint64_t *tick_tsc,
		       const void *caller)
{
	struct kthread *kt = current_kthread();
	uint64_t flags = arch_irq_save();
	struct runq *rq;
	int ret = is_killed(kt) ? -EINTR : 0;

	kt->tick_tsc = 0;
	if (ret == 0 && arch_read_tsc() < deadline) {
		kt->timer.fn = sleep_timer_fired;
		ktimer_add(&kt->timer, deadline);
		rq = this_rq();
		spin_lock(&rq->lock);
		ret = block_locked(rq, kt, caller);
		spin_unlock(&this_rq()->lock);
		ktimer_cancel(&kt->timer);
	}
	arch_irq_restore(flags);
	if (tick_tsc)
		*tick_tsc = kt->tick_tsc;
	return ret;
}

int ksleep_until(uint64_t deadline, uint64_t *tick_tsc)
{
	return sleep_until(deadline, tick_tsc, __builtin_return_address(0));
}

/* Sleeps for at least ns nanoseconds; returns 0 or -EINTR. */
int ksleep_ns(uint64_t ns)
{
	return sleep_until(arch_read_tsc() + ns_to_tsc(ns), NULL,
			   __builtin_return_address(0));
}

/* True when this CPU's scheduler asks the running thread to give the CPU
 * up (its slice is over and another thread waits, or a thread made
 * runnable here should run first): user_trap_return() yields then, and so
 * do kernel loops that ask. notrace: asked on every return to user mode. */
notrace bool sched_should_yield(void)
{
	return READ_ONCE(this_cpu()->work.resched);
}

/* Ends the current thread; sched_wait_dead() tells its reaper when the
 * stack is no longer in use. */
__noreturn void sched_exit_current(void)
{
	arch_irq_disable();
	spin_lock(&this_rq()->lock);
	current_kthread()->state = KT_DEAD;
	schedule_locked(this_rq());
	panic("a dead thread ran again");
}

static void reap_ktask(void *arg)
{
	struct kthread *kt = arg;

	sched_wait_dead(kt);
	if (!kthread_untraced(kt))
		ttrace_proc_free(kt->trace_pid, kt->trace_pid);
	kthread_free(kt);
}

/* A ktask returning from its function ends here. */
__noreturn void kthread_exit(void)
{
	struct kthread *kt = current_kthread();

	if (!kthread_untraced(kt))
		ttrace_proc_exit(kt->trace_pid, 0, kt->trace_pid);

	send_kernel_message_in(0, &kt->reap_msg, reap_ktask, kt);
	sched_exit_current();
}

/* Waits until kt has switched away for the last time. Once its DEAD state
 * is seen under its CPU's run queue lock, the switch that set it has
 * finished, because the lock is dropped only by the thread switched to. */
void sched_wait_dead(struct kthread *kt)
{
	for (;;) {
		uint64_t flags = arch_irq_save();
		struct runq *rq = lock_rq_of(kt);
		bool dead = kt->state == KT_DEAD;

		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		if (dead)
			return;
		arch_pause();
	}
}

/* Moves a thread this CPU may run from the longest run queue to this
 * one's (idle: load balancing). A thread queued on a CPU that is still
 * waking from its halt is taken too: whichever CPU locks the queue first
 * runs it, and this one is awake already (a thread woken by one about to
 * block runs on the waker's CPU that way, without waiting for the IPI'd
 * CPU). Returns whether it moved one. Interrupts off, no run queue
 * locked. */
static bool pull_work(uint32_t me)
{
	struct runq *mine = &runqs[me], *from = NULL, *first, *second;
	struct kthread *kt = NULL;
	uint32_t most = 0;

	for (uint32_t c = 0; c < num_cpus; c++) {
		uint32_t n = READ_ONCE(runqs[c].len);

		if (c != me && n > most) {
			most = n;
			from = &runqs[c];
		}
	}
	if (!from)
		return false;
	first = from < mine ? from : mine;
	second = from < mine ? mine : from;
	spin_lock(&first->lock);
	spin_lock(&second->lock);
	if ((kt = runq_take(from, me)))
		runq_push(mine, kt);
	spin_unlock(&second->lock);
	spin_unlock(&first->lock);
	return kt != NULL;
}

/* Marks this CPU as halting (its deferrable timers do not wake it) or
 * not, and sets its timer so. Interrupts off. */
static void set_halting(struct runq *rq, bool halting)
{
	spin_lock(&rq->lock);
	rq->halting = halting;
	rq_update_locked(rq, arch_read_tsc());
	spin_unlock(&rq->lock);
}

/* The idle loop of every CPU: run kernel messages, run threads (its own,
 * else one pulled from a busy CPU), or halt until an interrupt. */
__noreturn void cpu_idle(void)
{
	uint32_t me = core_id();
	struct runq *rq = &runqs[me];

	ttrace_ctx_set(this_cpu(), TTRACE_CTX_IDLE, 0);
	WRITE_ONCE(this_cpu()->idling, true);
	for (;;) {
		process_routine_kmsgs();
		arch_irq_disable();
		if (READ_ONCE(rq->len) || pull_work(me)) {
			spin_lock(&rq->lock);
			schedule_locked(rq);
			spin_unlock(&rq->lock);
		} else if (!kmsg_pending()) {
			set_halting(rq, true);
			ttrace_cpu_idle(1, me);
			arch_idle();	/* sti; hlt: wakeups cannot slip by */
			arch_irq_disable();
			ttrace_cpu_idle(UINT32_MAX, me);
			set_halting(rq, false);
		}
		arch_irq_enable();
	}
}
