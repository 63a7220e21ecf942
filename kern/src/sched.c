/*
 * The scheduler (see sched.h).
 *
 * One spinlock, sched_lock, guards the run queue, the wait queues, the
 * timer list and every thread's state. It is held across swtch() and released by whichever thread
 * runs next (sched_finish_switch for a new thread, the tail of schedule() for
 * an old one), so a thread put back on the queue cannot be picked up by
 * another CPU before its registers are saved. Interrupts are off whenever
 * sched_lock is held.
 *
 * Sleepers are found without looking at the others: ksleep() puts a thread
 * on the wait queue its channel hashes to, so kwakeup() walks only the
 * threads on that bucket; ksleep_ticks() puts it on one timer list kept in
 * deadline order, so the tick looks at the expired threads and the first
 * that is not. A sorted list makes an insert linear in the worst case, but
 * it starts from the tail, where a new deadline usually belongs.
 *
 * A thread may be bound to one CPU (kthread_bind: the latency tracers'
 * per-CPU threads): the other CPUs pass over it on the run queue, and
 * making it runnable wakes that CPU if it halts. Binding is rare, so the
 * queue stays one FIFO and a CPU looks past the bound threads not its own.
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
#include <abi/errno.h>
#include <ttrace.h>
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

static struct spinlock sched_lock = SPINLOCK_INIT("sched");
static struct kthread *runq_head, *runq_tail;
static uint32_t runq_len;		/* threads on the run queue */
#define WAITQ_BITS	8
static struct list waitq[1 << WAITQ_BITS];	/* by hash of wchan */
static struct list timers = LIST_INIT(timers);	/* by deadline */
static uint64_t jiffies;			/* CPU 0's timer ticks */
static struct kthread idle_threads[CONFIG_MAX_NUM_CPUS];
static uint64_t idle_cpus;			/* bit per halted CPU */
static uint64_t next_kthread_id = 1;

/* Makes the calling CPU's boot context its idle thread. Each CPU, once,
 * before cpu_idle(). */
void sched_init_cpu(void)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct kthread *idle = &idle_threads[pcpui->coreid];

	idle->id = 0;
	strlcpy(idle->name, "idle", sizeof(idle->name));
	idle->state = KT_RUNNING;
	idle->cpu = (int)pcpui->coreid;
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
	kt->state = KT_RUNNABLE;
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

/* Whether CPU cpu may run kt. */
static bool runs_on(const struct kthread *kt, uint32_t cpu)
{
	return kt->bound_cpu < 0 || kt->bound_cpu == (int)cpu;
}

/* Wakes a halted CPU that may run kt, if there is one but this. */
static void kick_idle_cpu(const struct kthread *kt)
{
	uint64_t idle = READ_ONCE(idle_cpus) & ~(1ull << core_id());

	if (kt->bound_cpu >= 0)
		idle &= 1ull << kt->bound_cpu;
	if (idle)
		arch_send_ipi((uint32_t)__builtin_ctzll(idle), IRQ_RESCHED);
}

/* sched_lock held. */
static void enqueue_locked(struct kthread *kt)
{
	kt->state = KT_RUNNABLE;
	kt->next = NULL;
	if (runq_tail)
		runq_tail->next = kt;
	else
		runq_head = kt;
	runq_tail = kt;
	WRITE_ONCE(runq_len, runq_len + 1);
	kick_idle_cpu(kt);
}

/* The link to the first queued thread CPU cpu may run (*link NULL if
 * none). sched_lock held. */
static struct kthread **runq_first_for(uint32_t cpu)
{
	struct kthread **link = &runq_head;

	while (*link && !runs_on(*link, cpu))
		link = &(*link)->next;
	return link;
}

/* Takes the first thread the calling CPU may run off the queue, or
 * returns NULL. sched_lock held. */
static struct kthread *dequeue_locked(void)
{
	struct kthread **link = runq_first_for(core_id()), *kt = *link,
		       *prev = NULL;

	if (kt) {
		if (link != &runq_head)
			prev = container_of(link, struct kthread, next);
		*link = kt->next;
		if (runq_tail == kt)
			runq_tail = prev;
		kt->next = NULL;
		WRITE_ONCE(runq_len, runq_len - 1);
	}
	return kt;
}

/* Threads waiting on the run queue now (the ttrace counter runq_len). */
uint32_t sched_runq_len(void)
{
	return READ_ONCE(runq_len);
}

void sched_make_runnable(struct kthread *kt)
{
	uint64_t flags = spin_lock_irqsave(&sched_lock);

	ttrace_sched_woken(kt);
	enqueue_locked(kt);
	spin_unlock_irqrestore(&sched_lock, flags);
}

static bool is_idle(const struct kthread *kt)
{
	return kt >= idle_threads && kt < idle_threads + CONFIG_MAX_NUM_CPUS;
}

/* kt's pid in sched_switch records: its process's, TTRACE_IDLE_PID for a
 * CPU's idle thread and for an untraced one (the trace drain: its time
 * shows as its CPU's idle time, so the switches still chain), 0 for
 * another kernel thread. */
static uint64_t trace_pid(const struct kthread *kt)
{
	if (is_idle(kt) || kt->untraced)
		return TTRACE_IDLE_PID(kt->cpu);
	return kt->proc ? (uint64_t)kt->proc->pid : 0;
}

/* Records the switch from prev to next, an untraced thread as its CPU's
 * idle thread: none between the two. */
static void trace_switch(const struct kthread *prev,
			 const struct kthread *next)
{
	uint64_t from = trace_pid(prev), to = trace_pid(next);

	if (from != to || !(prev->untraced || next->untraced))
		ttrace_sched_switch(from, to, prev->untraced ? KT_RUNNING :
					      prev->state);
}

/* Loads next's address space and kernel stack and switches to it.
 * sched_lock held, interrupts off. */
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
	if (!next->proc && !is_idle(next) && !next->untraced)
		ttrace_kthread_run(next->id);
	trace_switch(prev, next);
	ttrace_sched_runs(next);
	swtch(&prev->saved_rsp, next->saved_rsp);
}

/* Picks the next thread and runs it; the current one has already set its
 * state (RUNNING means it only yields). sched_lock held, interrupts off. */
static void schedule_locked(void)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct kthread *prev = pcpui->cur_kthread;
	struct kthread *next;

	if (prev->state == KT_RUNNING && !is_idle(prev))
		enqueue_locked(prev);
	next = dequeue_locked();
	if (!next)
		next = &idle_threads[pcpui->coreid];
	next->state = KT_RUNNING;
	next->cpu = (int)pcpui->coreid;
	if (next != prev)
		switch_to_locked(prev, next);
}

/* Gives up the CPU: the caller stays runnable, or not, as its state says.
 * Any context but interrupt handlers; no spinlock but none may be held. */
void schedule(void)
{
	uint64_t flags = arch_irq_save();

	spin_lock(&sched_lock);
	schedule_locked();
	spin_unlock(&sched_lock);
	arch_irq_restore(flags);
}

void yield(void)
{
	schedule();
}

/* First thing a new thread does: drop the lock its creator's schedule()
 * took, and take interrupts. */
void sched_finish_switch(void)
{
	spin_unlock(&sched_lock);
	arch_irq_enable();
}

static bool is_killed(const struct kthread *kt)
{
	return kt->proc && READ_ONCE(kt->proc->killed);
}

/* Blocks kt, the current thread, already on a wait queue or the timer
 * list, until a wakeup. Returns 0, or -EINTR if its process is killed.
 * sched_lock held, interrupts off. */
static int block_locked(struct kthread *kt)
{
	kt->state = KT_SLEEPING;
	if (!kt->untraced)
		ttrace_kthread_block(kt->id);
	schedule_locked();
	return is_killed(kt) ? -EINTR : 0;
}

/* The wait queue for chan. sched_lock held. */
static struct list *waitq_of(const void *chan)
{
	return list_bucket(waitq, hash_ptr(chan, WAITQ_BITS));
}

int ksleep(const void *chan, struct spinlock *lk)
{
	struct kthread *kt = current_kthread();
	uint64_t flags = arch_irq_save();
	int ret = -EINTR;

	spin_lock(&sched_lock);
	if (lk)
		spin_unlock(lk);
	if (!is_killed(kt)) {
		kt->wchan = chan;
		list_add_tail(waitq_of(chan), &kt->wait_link);
		ret = block_locked(kt);
		kt->wchan = NULL;
	}
	spin_unlock(&sched_lock);
	arch_irq_restore(flags);
	if (lk)
		spin_lock(lk);
	return ret;
}

/* Makes sleeping kt runnable, taking it off its wait queue and the timer
 * list. sched_lock held. */
static void wake_locked(struct kthread *kt)
{
	list_del(&kt->wait_link);
	list_del(&kt->timer_link);
	if (!kt->untraced)
		ttrace_kthread_wake(kt->id);
	ttrace_sched_woken(kt);
	enqueue_locked(kt);
}

/* Wakes every thread sleeping on chan: O(threads on its bucket). */
void kwakeup(const void *chan)
{
	uint64_t flags = spin_lock_irqsave(&sched_lock);
	struct list *q = waitq_of(chan), *l = q->next;

	while (l != q) {
		struct kthread *kt = container_of(l, struct kthread, wait_link);

		l = l->next;
		if (kt->wchan == chan)
			wake_locked(kt);
	}
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* Wakes kt if it sleeps, whatever on (used by kill). */
void sched_wake_thread(struct kthread *kt)
{
	uint64_t flags = spin_lock_irqsave(&sched_lock);

	if (kt->state == KT_SLEEPING)
		wake_locked(kt);
	spin_unlock_irqrestore(&sched_lock, flags);
}

/* Puts kt on the timer list, after every thread due no later. sched_lock
 * held. */
static void timer_add_locked(struct kthread *kt, uint64_t deadline)
{
	struct list *pos = timers.prev;

	while (pos != &timers &&
	       container_of(pos, struct kthread, timer_link)->deadline > deadline)
		pos = pos->prev;
	kt->deadline = deadline;
	list_add_after(pos, &kt->timer_link);
}

/* Timer interrupt bookkeeping, every CPU, interrupts off: CPU 0 counts
 * the tick and wakes the timed sleepers whose deadline has come. */
void sched_tick(void)
{
	struct kthread *kt;

	if (core_id() != 0)
		return;
	spin_lock(&sched_lock);
	WRITE_ONCE(jiffies, jiffies + 1);
	while (!list_empty(&timers) &&
	       (kt = container_of(timers.next, struct kthread,
				  timer_link))->deadline <= jiffies) {
		kt->tick_tsc = arch_read_tsc();
		wake_locked(kt);
	}
	spin_unlock(&sched_lock);
}

/* The tick count now (CPU 0's timer ticks since boot). */
uint64_t sched_jiffies(void)
{
	return READ_ONCE(jiffies);
}

/*
 * Sleeps until the tick count reaches deadline (returns at once if it
 * has). Returns 0 or -EINTR; *tick_tsc (if not NULL) is then the TSC at
 * which CPU 0's timer interrupt found the deadline come and woke the
 * thread (the moment the timer fired, for the latency of the wakeup
 * after it), or 0 if no tick woke it (the deadline had passed, or a kill
 * did). Process context.
 */
int ksleep_until(uint64_t deadline, uint64_t *tick_tsc)
{
	struct kthread *kt = current_kthread();
	uint64_t flags = spin_lock_irqsave(&sched_lock);
	int ret = is_killed(kt) ? -EINTR : 0;

	kt->tick_tsc = 0;
	while (ret == 0 && jiffies < deadline) {
		timer_add_locked(kt, deadline);
		ret = block_locked(kt);
	}
	if (tick_tsc)
		*tick_tsc = kt->tick_tsc;
	spin_unlock_irqrestore(&sched_lock, flags);
	return ret;
}

/* Sleeps for at least ticks timer periods; returns 0 or -EINTR. */
int ksleep_ticks(uint64_t ticks)
{
	return ksleep_until(sched_jiffies() + ticks, NULL);
}

/* True when the current thread should let others run: something waits.
 * notrace: asked on every return to user mode (user_trap_return). */
notrace bool sched_should_yield(void)
{
	return READ_ONCE(runq_head) != NULL;
}

/* Ends the current thread; sched_wait_dead() tells its reaper when the
 * stack is no longer in use. */
__noreturn void sched_exit_current(void)
{
	arch_irq_disable();
	spin_lock(&sched_lock);
	current_kthread()->state = KT_DEAD;
	schedule_locked();
	panic("a dead thread ran again");
}

static void reap_ktask(void *arg)
{
	sched_wait_dead(arg);
	kthread_free(arg);
}

/* A ktask returning from its function ends here. */
__noreturn void kthread_exit(void)
{
	struct kthread *kt = current_kthread();

	send_kernel_message_in(0, &kt->reap_msg, reap_ktask, kt);
	sched_exit_current();
}

/* Waits until kt has switched away for the last time. Once its DEAD state
 * is seen under sched_lock, the switch that set it has finished, because
 * the lock is dropped only by the thread switched to. */
void sched_wait_dead(struct kthread *kt)
{
	for (;;) {
		uint64_t flags = spin_lock_irqsave(&sched_lock);
		bool dead = kt->state == KT_DEAD;

		spin_unlock_irqrestore(&sched_lock, flags);
		if (dead)
			return;
		arch_pause();
	}
}

/* The idle loop of every CPU: run kernel messages, run threads, or halt. */
__noreturn void cpu_idle(void)
{
	uint64_t bit = 1ull << core_id();

	ttrace_ctx_set(this_cpu(), TTRACE_CTX_IDLE, 0);
	for (;;) {
		process_routine_kmsgs();
		arch_irq_disable();
		spin_lock(&sched_lock);
		if (*runq_first_for(core_id())) {
			schedule_locked();
			spin_unlock(&sched_lock);
			arch_irq_enable();
			continue;
		}
		atomic_fetch_or(&idle_cpus, bit);
		spin_unlock(&sched_lock);
		if (!kmsg_pending())
			arch_idle();	/* sti; hlt: wakeups cannot slip by */
		atomic_fetch_and(&idle_cpus, ~bit);
		arch_irq_enable();
	}
}
