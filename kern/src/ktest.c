/*
 * The in-kernel test runner (see ktest.h) and its one helper for tests that
 * must hammer something from every CPU at once.
 */
#include <ktest.h>
#include <printk.h>
#include <printfmt.h>
#include <string.h>
#include <kmsg.h>
#include <smp.h>
#include <atomic.h>
#include <arch/arch.h>

extern const struct ktest *const __ktests_start[], *const __ktests_end[];

static char fail_why[256];

/* Records why the running test failed; KT_ASSERT calls it. */
void ktest_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(fail_why, sizeof(fail_why), fmt, ap);
	va_end(ap);
}

/* Runs every test whose name starts with prefix; returns the failures. */
int ktests_run(const char *prefix)
{
	int passed = 0, failed = 0;
	size_t plen = strlen(prefix);

	printk("BEGIN KTESTS\n");
	for (const struct ktest *const *tp = __ktests_start; tp < __ktests_end;
	     tp++) {
		const struct ktest *t = *tp;

		if (strncmp(t->name, prefix, plen))
			continue;
		fail_why[0] = 0;
		if (t->fn()) {
			printk("PASSED [%s]\n", t->name);
			passed++;
		} else {
			printk("FAILED [%s] %s\n", t->name, fail_why);
			failed++;
		}
	}
	printk("END KTESTS: %d passed, %d failed\n", passed, failed);
	return failed;
}

struct all_cpus_call {
	void (*fn)(void *);
	void *arg;
	uint32_t started, done;
};

static void all_cpus_trampoline(void *p)
{
	struct all_cpus_call *c = p;

	/* wait for everyone so the work really overlaps */
	atomic_add(&c->started, 1);
	while (atomic_read(&c->started) < num_cpus)
		arch_pause();
	c->fn(c->arg);
	atomic_add(&c->done, 1);
}

/* Runs fn(arg) on every online CPU at the same time, this one included, and
 * returns when all have finished. Caller: a kernel context on any CPU with
 * interrupts enabled; the other CPUs must be idle. */
void ktest_on_all_cpus(void (*fn)(void *), void *arg)
{
	struct all_cpus_call c = { .fn = fn, .arg = arg };
	uint32_t me = core_id();

	for (uint32_t i = 0; i < num_cpus; i++)
		if (i != me)
			send_kernel_message(i, all_cpus_trampoline, &c);
	all_cpus_trampoline(&c);
	while (atomic_read(&c.done) < num_cpus)
		arch_pause();
}
