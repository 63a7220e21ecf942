/*
 * The in-kernel test runner (see ktest.h).
 */
#include <ktest.h>
#include <printk.h>
#include <printfmt.h>
#include <string.h>

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
