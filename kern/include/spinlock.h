/*
 * Spinlocks and reader-writer spinlocks.
 *
 *	static struct spinlock lock = SPINLOCK_INIT("name");
 *	uint64_t flags = spin_lock_irqsave(&lock);
 *	...
 *	spin_unlock_irqrestore(&lock, flags);
 *
 * A lock taken from an interrupt handler must be taken with the irqsave
 * variant everywhere else. Contended acquisitions record a ttrace event with
 * the cycles spent waiting. The rwlock (rlock/runlock/wlock/wunlock) lets
 * any number of readers in at once and makes new readers wait once a writer
 * is waiting, so writers cannot starve.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include <compiler.h>
#include <atomic.h>

struct spinlock {
	uint32_t locked;
	uint32_t holder;	/* core id + 1 of the holder, for debugging */
	const char *name;
};

#define SPINLOCK_INIT(n)	{ .locked = 0, .holder = 0, .name = (n) }

void spinlock_init(struct spinlock *l, const char *name);
void spin_lock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
uint64_t spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags);

struct rwlock {
	uint32_t state;		/* RW_WRITER | RW_WAITING | reader count */
	const char *name;
};

#define RWLOCK_INIT(n)	{ .state = 0, .name = (n) }

#define RW_WRITER	0x80000000u
#define RW_WAITING	0x40000000u
#define RW_READERS	0x3fffffffu

void rlock(struct rwlock *l);
bool rtrylock(struct rwlock *l);
void runlock(struct rwlock *l);
void wlock_wait(struct rwlock *l);

/* Takes the lock exclusively if it is free (one compare-exchange, inline:
 * the tracer's aux writer takes it for every name); false if it is not. */
static inline bool wtrylock(struct rwlock *l)
{
	uint32_t free = 0;

	return atomic_cas(&l->state, &free, RW_WRITER);
}

/* Takes the lock exclusively: wtrylock(), else wlock_wait(). */
static inline void wlock(struct rwlock *l)
{
	if (!wtrylock(l))
		wlock_wait(l);
}

static inline void wunlock(struct rwlock *l)
{
	atomic_fetch_and(&l->state, ~RW_WRITER);
}

#endif /* SPINLOCK_H */
