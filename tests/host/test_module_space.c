/*
 * Host tests of the probe modules' address space (kern/trace/lib/module_space.c):
 * a load and unload loop gets the same run every time, the space fills
 * exactly and then refuses without wrapping, freed holes are reused first
 * fit, and random allocations and frees match a page-by-page model.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "htest.h"

#include <module_space.h>

/* The kernel's module area: 0xffffffffc0000000 .. 0xfffffffffff00000. */
#define AREA_PAGES	((0xfffffffffff00000ull - 0xffffffffc0000000ull) / 4096)

static uint64_t bits[MODULE_SPACE_WORDS(AREA_PAGES)];

static struct module_space fresh(size_t pages)
{
	memset(bits, 0, sizeof(bits));
	return (struct module_space){ pages, bits };
}

/* 600 loads of a 1+1025-page module, each unloaded: always page 0. */
static int test_reuse(void)
{
	struct module_space s = fresh(AREA_PAGES);

	for (int i = 0; i < 600; i++) {
		long first = module_space_alloc(&s, 1026);

		if (first != 0)
			HT_FAIL("load %d: page %ld", i + 1, first);
		module_space_free(&s, (size_t)first, 1026);
	}
	return 0;
}

/* Fills the area with 1026-page runs: exactly AREA_PAGES / 1026 fit, then
 * each request fails, however large (nothing wraps). */
static int test_full(void)
{
	struct module_space s = fresh(AREA_PAGES);
	size_t n = 0;
	long first;

	while ((first = module_space_alloc(&s, 1026)) >= 0) {
		HT_CHECK((size_t)first == n * 1026);
		n++;
	}
	HT_CHECK(n == AREA_PAGES / 1026);
	HT_CHECK(module_space_alloc(&s, AREA_PAGES % 1026 + 1) < 0);
	HT_CHECK(module_space_alloc(&s, AREA_PAGES % 1026) ==
		 (long)(n * 1026));
	HT_CHECK(module_space_alloc(&s, 1) < 0);
	HT_CHECK(module_space_alloc(&s, SIZE_MAX) < 0);
	HT_CHECK(module_space_alloc(&s, SIZE_MAX / 4096 + 2) < 0);
	HT_CHECK(module_space_alloc(&s, 0) < 0);
	module_space_free(&s, 5 * 1026, 1026);
	HT_CHECK(module_space_alloc(&s, 1027) < 0);
	HT_CHECK(module_space_alloc(&s, 1026) == 5 * 1026);
	return 0;
}

/* A hole is reused by the first request that fits it. */
static int test_first_fit(void)
{
	struct module_space s = fresh(1000);

	HT_CHECK(module_space_alloc(&s, 100) == 0);
	HT_CHECK(module_space_alloc(&s, 70) == 100);
	HT_CHECK(module_space_alloc(&s, 100) == 170);
	module_space_free(&s, 100, 70);
	HT_CHECK(module_space_alloc(&s, 71) == 270);
	HT_CHECK(module_space_alloc(&s, 3) == 100);
	HT_CHECK(module_space_alloc(&s, 67) == 103);
	HT_CHECK(module_space_alloc(&s, 1) == 341);
	HT_CHECK(module_space_alloc(&s, 1000 - 342) == 342);
	HT_CHECK(module_space_alloc(&s, 1) < 0);
	return 0;
}

/* The first run of n free pages in model[0..pages), or -1. */
static long model_alloc(bool *model, size_t pages, size_t n)
{
	for (size_t p = 0; n && p + n <= pages; p++) {
		size_t k = 0;

		while (k < n && !model[p + k])
			k++;
		if (k == n) {
			memset(model + p, 1, n);
			return (long)p;
		}
	}
	return -1;
}

/* 40000 random allocations (1..300 pages) and frees over 5000 pages, against
 * the page-by-page model. */
static int test_model(void)
{
	enum { PAGES = 5000, LIVE = 64 };
	static bool model[PAGES];
	struct { long first; size_t n; } live[LIVE] = { { 0, 0 } };
	struct module_space s = fresh(PAGES);
	uint64_t seed = 0x6d6f64756c65ull;

	memset(model, 0, sizeof(model));
	for (int i = 0; i < 40000; i++) {
		unsigned slot = (unsigned)(ht_rand(&seed) % LIVE);

		if (live[slot].n) {
			module_space_free(&s, (size_t)live[slot].first,
					  live[slot].n);
			memset(model + live[slot].first, 0, live[slot].n);
			live[slot].n = 0;
		} else {
			size_t n = 1 + ht_rand(&seed) % 300;
			long got = module_space_alloc(&s, n);
			long want = model_alloc(model, PAGES, n);

			if (got != want)
				HT_FAIL("step %d: %zu pages at %ld, model %ld", i,
					n, got, want);
			if (got >= 0)
				live[slot].first = got, live[slot].n = n;
		}
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_reuse, "module_space_reuse" },
	{ test_full, "module_space_full" },
	{ test_first_fit, "module_space_first_fit" },
	{ test_model, "module_space_model" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
