/*
 * Lock tests: every CPU hammers one spinlock and one rwlock at once while
 * checking an invariant only mutual exclusion keeps.
 */
#include <ktest.h>
#include <spinlock.h>
#include <smp.h>
#include <atomic.h>

#define ITERS	50000

static struct spinlock hammer_lock = SPINLOCK_INIT("ktest");
static uint64_t counter;		/* plain: only the lock protects it */
static uint32_t inside;
static uint32_t violations;

static void spin_hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERS; i++) {
		uint64_t flags = spin_lock_irqsave(&hammer_lock);

		if (atomic_fetch_add(&inside, 1) != 0)
			atomic_add(&violations, 1);
		counter = READ_ONCE(counter) + 1;
		atomic_add(&inside, -1u);
		spin_unlock_irqrestore(&hammer_lock, flags);
	}
}

static bool test_spinlock_hammer(void)
{
	counter = 0;
	violations = 0;
	smp_run_on_all(spin_hammer, NULL);
	KT_ASSERT(violations == 0, "%u times two CPUs were inside", violations);
	KT_ASSERT(counter == (uint64_t)ITERS * num_cpus,
		  "counter %lu, expected %lu", counter, (uint64_t)ITERS * num_cpus);
	return true;
}
KTEST_REG(spinlock_hammer, test_spinlock_hammer);

static struct rwlock hammer_rw = RWLOCK_INIT("ktest");
static int64_t rw_a, rw_b;		/* invariant: rw_a == -rw_b */
static uint32_t rw_writers_inside, rw_bad;

static void rw_hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERS / 4; i++) {
		if ((uint32_t)i % 8 == core_id() % 8) {
			wlock(&hammer_rw);
			if (atomic_fetch_add(&rw_writers_inside, 1) != 0)
				atomic_add(&rw_bad, 1);
			rw_a = READ_ONCE(rw_a) + 1;
			cmb();
			rw_b = READ_ONCE(rw_b) - 1;
			atomic_add(&rw_writers_inside, -1u);
			wunlock(&hammer_rw);
		} else {
			rlock(&hammer_rw);
			if (READ_ONCE(rw_a) != -READ_ONCE(rw_b) ||
			    atomic_read(&rw_writers_inside))
				atomic_add(&rw_bad, 1);
			runlock(&hammer_rw);
		}
	}
}

static bool test_rwlock_hammer(void)
{
	rw_a = rw_b = 0;
	rw_bad = 0;
	smp_run_on_all(rw_hammer, NULL);
	KT_ASSERT(rw_bad == 0, "%u invariant violations", rw_bad);
	KT_ASSERT(rw_a == -rw_b && rw_a > 0, "a %ld b %ld", rw_a, rw_b);
	KT_ASSERT(hammer_rw.state == 0, "lock state %x after", hammer_rw.state);
	return true;
}
KTEST_REG(rwlock_hammer, test_rwlock_hammer);
