/*
 * Per-CPU timer queues (see timer.h). A queue is a list sorted by
 * deadline; its lock is taken by its own CPU (adding, expiring) and by
 * whoever cancels one of its timers, which may run elsewhere (a thread
 * woken early takes its sleep timer off the queue of the CPU it slept
 * on). The earliest deadline (and the earliest of a timer that is not
 * deferrable) is also kept in a word of its own, so the scheduler
 * programs the hardware timer without taking the lock.
 */
#include <timer.h>
#include <smp.h>
#include <spinlock.h>
#include <arch/arch.h>
#include <arch/tsc.h>

struct timerq {
	struct spinlock lock;
	struct list q;			/* by deadline */
	uint64_t next;			/* the first deadline, or 0 */
	uint64_t next_firm;		/* the first not deferrable, or 0 */
} __aligned(64);

static struct timerq timerqs[CONFIG_MAX_NUM_CPUS] = {
	[0 ... CONFIG_MAX_NUM_CPUS - 1] = { .lock = SPINLOCK_INIT("timerq") },
};

/* This CPU's queue, locked (its list made on first use). Interrupts
 * off. */
static struct timerq *timerq_lock(void)
{
	struct timerq *tq = &timerqs[core_id()];

	spin_lock(&tq->lock);
	if (!tq->q.next)
		list_init(&tq->q);
	return tq;
}

/* Keeps tq->next the first deadline, tq->next_firm the first of a timer
 * that is not deferrable (a walk past the deferrable ones: a debug
 * kernel's one scan timer). tq locked. */
static void update_next(struct timerq *tq)
{
	struct list *l = tq->q.next;

	WRITE_ONCE(tq->next, l == &tq->q ? 0 :
		   container_of(l, struct ktimer, link)->deadline);
	while (l != &tq->q && container_of(l, struct ktimer, link)->deferrable)
		l = l->next;
	WRITE_ONCE(tq->next_firm, l == &tq->q ? 0 :
		   container_of(l, struct ktimer, link)->deadline);
}

/* Puts t on tq after every timer due no later. tq locked. */
static void insert_locked(struct timerq *tq, struct ktimer *t)
{
	struct list *pos = tq->q.prev;

	while (pos != &tq->q &&
	       container_of(pos, struct ktimer, link)->deadline > t->deadline)
		pos = pos->prev;
	list_add_after(pos, &t->link);
	update_next(tq);
}

/* Arms t (on no queue) on this CPU's queue for deadline. Interrupts off;
 * the scheduler reprograms the hardware timer at its next switch or
 * interrupt (sched_timer_changed() to do it at once). */
void ktimer_add(struct ktimer *t, uint64_t deadline)
{
	struct timerq *tq = timerq_lock();

	t->deadline = deadline;
	t->cpu = core_id();
	insert_locked(tq, t);
	spin_unlock(&tq->lock);
}

/* Arms t (on no queue) on CPU cpu's queue for deadline (the TSCs are
 * synchronised), from any CPU; that CPU reprograms its hardware timer at
 * its next switch or interrupt (an IRQ_RESCHED to do it at once). */
void ktimer_add_on(struct ktimer *t, uint32_t cpu, uint64_t deadline)
{
	struct timerq *tq = &timerqs[cpu];
	uint64_t flags = spin_lock_irqsave(&tq->lock);

	if (!tq->q.next)
		list_init(&tq->q);
	t->deadline = deadline;
	t->cpu = cpu;
	insert_locked(tq, t);
	spin_unlock_irqrestore(&tq->lock, flags);
}

/* Takes t off its queue if it is still on it, from any CPU. Once it
 * returns, t's function does not run (it runs under the queue's lock). */
void ktimer_cancel(struct ktimer *t)
{
	struct timerq *tq = &timerqs[READ_ONCE(t->cpu)];
	uint64_t flags = spin_lock_irqsave(&tq->lock);

	if (list_linked(&t->link)) {
		list_del(&t->link);
		update_next(tq);
	}
	spin_unlock_irqrestore(&tq->lock, flags);
}

/* Runs this CPU's timers due at now, each off the queue before its
 * function runs (and back on if it asks). The timer interrupt. */
void timer_expire(uint64_t now)
{
	struct timerq *tq = timerq_lock();
	struct ktimer *t;

	while (!list_empty(&tq->q) &&
	       (t = container_of(tq->q.next, struct ktimer, link))->deadline <=
	       now) {
		uint64_t again;

		list_del(&t->link);
		update_next(tq);
		again = t->fn(t, now);
		if (again) {
			t->deadline = again;
			insert_locked(tq, t);
		}
	}
	spin_unlock(&tq->lock);
}

/* This CPU's earliest timer deadline (firm: of a timer that is not
 * deferrable), or 0 if it has none. */
uint64_t timer_next(bool firm)
{
	struct timerq *tq = &timerqs[core_id()];

	return firm ? READ_ONCE(tq->next_firm) : READ_ONCE(tq->next);
}

/* ns nanoseconds in TSC ticks (to the microsecond beyond 6000 s). */
uint64_t ns_to_tsc(uint64_t ns)
{
	uint64_t khz = tsc_freq_hz / 1000;

	if (ns > UINT64_MAX / khz)
		return ns / 1000000 * khz;
	return ns * khz / 1000000;
}
