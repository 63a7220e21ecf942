/*
 * Spinlocks and reader-writer spinlocks (see spinlock.h).
 *
 * The spinlock is test-and-test-and-set: waiters spin on a plain load so the
 * line stays shared until the holder releases it. The uncontended path is one
 * xchg; only a failed first attempt reads the TSC, so tracing contention costs
 * nothing when there is none.
 */
#include <spinlock.h>
#include <atomic.h>
#include <arch/arch.h>
#include <ttrace.h>

void spinlock_init(struct spinlock *l, const char *name)
{
	l->locked = 0;
	l->holder = 0;
	l->name = name;
}

/* Spins until the lock is ours. The caller must not hold it already. */
void spin_lock(struct spinlock *l)
{
	if (likely(!atomic_swap(&l->locked, 1)))
		goto out;
	uint64_t start = arch_read_tsc();
	do {
		while (READ_ONCE(l->locked))
			arch_pause();
	} while (atomic_swap(&l->locked, 1));
	ttrace_spin_contended(l, arch_read_tsc() - start);
out:
	l->holder = core_id() + 1;
}

/* Takes the lock if it is free; returns whether it did. For code that must
 * not wait, such as an interrupt handler that may have interrupted the
 * holder. */
bool spin_trylock(struct spinlock *l)
{
	if (atomic_swap(&l->locked, 1))
		return false;
	l->holder = core_id() + 1;
	return true;
}

/* Releases a lock the caller holds. */
void spin_unlock(struct spinlock *l)
{
	l->holder = 0;
	atomic_set(&l->locked, 0);
}

/* Disables interrupts, takes the lock, and returns the previous interrupt
 * state for spin_unlock_irqrestore(). */
uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

/* Takes a read reference; waits while a writer holds or waits for the lock.
 * The rwlock functions are notrace: the tracer's rings and aux take them
 * on every read and in a probe's hit (docs/probes.md, "What cannot be
 * probed"). */
notrace void rlock(struct rwlock *l)
{
	uint32_t s = READ_ONCE(l->state);
	uint64_t start = 0;

	for (;;) {
		if (!(s & (RW_WRITER | RW_WAITING)) &&
		    atomic_cas(&l->state, &s, s + 1))
			break;
		if (!start)
			start = arch_read_tsc();
		arch_pause();
		s = READ_ONCE(l->state);
	}
	if (start)
		ttrace_rwlock_contended(l, arch_read_tsc() - start, false);
}

/* Takes a read reference if no writer holds or waits for the lock;
 * returns whether it did. For code that must not wait, such as the
 * latency tracers' hooks with interrupts off (a writer may be waiting
 * for this CPU). notrace: those hooks must not re-enter the tracer. */
notrace bool rtrylock(struct rwlock *l)
{
	uint32_t s = READ_ONCE(l->state);

	do {
		if (s & (RW_WRITER | RW_WAITING))
			return false;
	} while (!atomic_cas(&l->state, &s, s + 1));
	return true;
}

notrace void runlock(struct rwlock *l)
{
	atomic_add(&l->state, -1u);
}

/* wlock() when the lock was not free: announces itself with RW_WAITING so
 * new readers hold off, then waits for the readers in flight to leave. */
notrace void wlock_wait(struct rwlock *l)
{
	uint32_t s = READ_ONCE(l->state);
	uint64_t start = 0;

	for (;;) {
		if (!(s & ~RW_WAITING) &&
		    atomic_cas(&l->state, &s, RW_WRITER))
			break;
		if (!start)
			start = arch_read_tsc();
		if (!(s & RW_WAITING))
			atomic_fetch_or(&l->state, RW_WAITING);
		arch_pause();
		s = READ_ONCE(l->state);
	}
	if (start)
		ttrace_rwlock_contended(l, arch_read_tsc() - start, true);
}
