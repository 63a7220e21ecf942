/*
 * htest: the host unit-test harness for kern/lib and tools/.
 *
 * A test file defines its tests as functions returning 0 on success or
 * calling HT_FAIL(...) (which records the reason and returns 1), lists them
 * in a table, and hands the table to ht_main():
 *
 *	static int test_wrap(void) { HT_CHECK(x == 1); return 0; }
 *	static const struct ht_test tests[] = { {test_wrap, "ring_wrap"}, {0} };
 *	int main(int argc, char **argv) { return ht_main(tests, argc, argv); }
 *
 * `test_x PATTERN` runs only the tests whose name contains PATTERN (what
 * `make test T=PATTERN` passes). ht_rand() is the one random generator of
 * the tests: seeded by the caller, so a failure can be replayed.
 *
 * Each result is one line, "PASSED [name]" or "FAILED [name] why", the same
 * shape the in-kernel tests print, so one script counts both.
 */
#ifndef HTEST_H
#define HTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ht_test {
	int (*fn)(void);
	const char *name;
};

static char ht_why[512];

#define HT_FAIL(...)                                                       \
	do {                                                               \
		snprintf(ht_why, sizeof(ht_why), __VA_ARGS__);             \
		return 1;                                                  \
	} while (0)

#define HT_CHECK(cond)                                                     \
	do {                                                               \
		if (!(cond))                                               \
			HT_FAIL("%s:%d: %s", __FILE__, __LINE__, #cond);   \
	} while (0)

/* The next value of the xorshift64 generator whose state is *state
 * (nonzero; it stays nonzero). */
static inline uint64_t ht_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Runs every test in the table (ended by a NULL fn) whose name contains
 * argv[1], or all if there is no argv[1]; returns 0 when all passed, 1
 * otherwise, so it can be main's return value. */
/* A growing byte buffer and a writer callback appending to it (a trace
 * file written in memory); the test frees p. */
struct ht_membuf {
	uint8_t *p;
	size_t len, cap;
};

static inline int ht_mem_out(void *arg, const void *buf, uint64_t len)
{
	struct ht_membuf *m = arg;

	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->p = realloc(m->p, m->cap);
		if (!m->p)
			return -1;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

static inline int ht_main(const struct ht_test *tests, int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int failed = 0;

	for (const struct ht_test *t = tests; t->fn; t++) {
		if (only && !strstr(t->name, only))
			continue;
		ht_why[0] = 0;
		if (t->fn() == 0) {
			printf("PASSED [%s]\n", t->name);
		} else {
			printf("FAILED [%s] %s\n", t->name, ht_why);
			failed = 1;
		}
		fflush(stdout);
	}
	return failed;
}

#endif /* HTEST_H */
