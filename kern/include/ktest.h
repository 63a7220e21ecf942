/*
 * In-kernel tests, registered through a linker section as in Akaros:
 *
 *	static bool test_foo(void)
 *	{
 *		KT_ASSERT(1 + 1 == 2, "arithmetic is broken");
 *		return true;
 *	}
 *	KTEST_REG(foo, test_foo);
 *
 * `ktests` on the command line runs them all after boot (ktests=NAME runs the
 * ones whose name starts with NAME), printing each result as
 * "PASSED [name]" or "FAILED [name] why" between "BEGIN KTESTS" and
 * "END KTESTS", then powers off with status 0 when all passed.
 */
#ifndef KTEST_H
#define KTEST_H

#include <compiler.h>

struct ktest {
	const char *name;
	bool (*fn)(void);
};

/* The section holds pointers, not the structs: the compiler may pad
 * structs to a larger alignment than the array walk would expect. */
#define KTEST_REG(n, f)                                                    \
	static const struct ktest __ktest_##n = { .name = #n, .fn = f };    \
	static const struct ktest *const __ktest_ptr_##n                    \
		__section(".ktests") __attribute__((used)) = &__ktest_##n

void ktest_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define KT_ASSERT(cond, ...)                                               \
	do {                                                               \
		if (!(cond)) {                                             \
			ktest_fail(__VA_ARGS__);                           \
			return false;                                      \
		}                                                          \
	} while (0)

int ktests_run(const char *prefix);

#endif /* KTEST_H */
