/*
 * Host tests for kern/lib/buddy.c.
 *
 * Each test builds a private allocator over a made-up pfn span (metadata from
 * malloc) and keeps a shadow map of the pages it holds, so any overlap,
 * misalignment, or page handed out from a hole is caught when allocated.
 * buddy_check() is run after every phase to verify the internal invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <buddy.h>

/* A private allocator plus the test's view of who holds which page. */
struct fixture {
	struct buddy b;
	uint64_t base;
	size_t npages;
	void *meta;
	uint8_t *held;		/* 1 per page the test currently holds */
	uint8_t *usable;	/* 1 per page added with add_free_range */
};

/* One allocated block, for tests that free later. */
struct block {
	int64_t pfn;
	unsigned order;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void fx_init(struct fixture *f, uint64_t base, size_t npages)
{
	f->base = base;
	f->npages = npages;
	f->meta = malloc(buddy_meta_size(npages));
	f->held = calloc(npages, 1);
	f->usable = calloc(npages, 1);
	buddy_init(&f->b, base, npages, f->meta);
}

static void fx_add(struct fixture *f, uint64_t start, uint64_t end)
{
	uint64_t lo = start > f->base ? start : f->base;
	uint64_t hi = end < f->base + f->npages ? end : f->base + f->npages;

	for (uint64_t p = lo; p < hi; p++)
		f->usable[p - f->base] = 1;
	buddy_add_free_range(&f->b, start, end);
}

static void fx_fini(struct fixture *f)
{
	free(f->meta);
	free(f->held);
	free(f->usable);
}

/* Allocates one block and claims it in the shadow map. Returns its pfn, -1
 * when the allocator has no such block, or -2 if the block is bad. */
static int64_t fx_alloc(struct fixture *f, unsigned order)
{
	int64_t pfn = buddy_alloc(&f->b, order);
	uint64_t n = (uint64_t)1 << order;

	if (pfn < 0)
		return -1;
	if (((uint64_t)pfn & (n - 1)) || (uint64_t)pfn < f->base ||
	    (uint64_t)pfn - f->base + n > f->npages)
		return -2;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx = (uint64_t)pfn - f->base + i;

		if (f->held[idx] || !f->usable[idx])
			return -2;
		f->held[idx] = 1;
	}
	return pfn;
}

/* Frees a block through the allocator and releases it in the shadow map. */
static int fx_free(struct fixture *f, struct block blk)
{
	for (uint64_t i = 0; i < ((uint64_t)1 << blk.order); i++)
		f->held[(uint64_t)blk.pfn - f->base + i] = 0;
	return buddy_free(&f->b, (uint64_t)blk.pfn, blk.order);
}

static size_t count_usable(const struct fixture *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->npages; i++)
		n += f->usable[i];
	return n;
}

/* Allocates order-max blocks until none is left; returns how many. */
static size_t drain_max_order(struct fixture *f)
{
	size_t n = 0;

	while (fx_alloc(f, BUDDY_MAX_ORDER) >= 0)
		n++;
	return n;
}

/* Fisher-Yates, so frees happen in an order unrelated to allocation. */
static void shuffle(struct block *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = ht_rand(&rng_state) % i;
		struct block t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* Allocates blocks of one order until exhausted, takes the leftovers as
 * single pages, then frees everything. */
static int exhaust_order(unsigned order)
{
	enum { NPAGES = 4999 };
	struct block *got = malloc(NPAGES * sizeof(*got));
	struct fixture f;
	size_t n = 0, nblocks;
	int64_t pfn;

	/* An odd base, so absolute alignment leaves ragged edges. */
	fx_init(&f, 0x1003, NPAGES);
	fx_add(&f, 0, UINT64_MAX);
	HT_CHECK(buddy_nr_free(&f.b) == NPAGES);
	while ((pfn = fx_alloc(&f, order)) >= 0)
		got[n++] = (struct block){ pfn, order };
	HT_CHECK(pfn == -1);
	nblocks = n;
	/* Exactly the aligned order-sized runs that fit in the span. */
	HT_CHECK(nblocks == ((0x1003 + NPAGES) >> order) -
			    ((0x1003 + (1u << order) - 1) >> order));
	HT_CHECK(buddy_nr_free(&f.b) == NPAGES - (nblocks << order));
	HT_CHECK(buddy_check(&f.b) == 0);
	while ((pfn = fx_alloc(&f, 0)) >= 0)
		got[n++] = (struct block){ pfn, 0 };
	HT_CHECK(pfn == -1);
	HT_CHECK((nblocks << order) + (n - nblocks) == NPAGES);
	HT_CHECK(buddy_nr_free(&f.b) == 0);
	shuffle(got, n);
	for (size_t i = 0; i < n; i++)
		HT_CHECK(fx_free(&f, got[i]) == 0);
	HT_CHECK(buddy_nr_free(&f.b) == NPAGES);
	HT_CHECK(buddy_check(&f.b) == 0);
	free(got);
	fx_fini(&f);
	return 0;
}

static int test_exhaust_every_order(void)
{
	char why[256];

	for (unsigned order = 0; order <= BUDDY_MAX_ORDER; order++) {
		if (exhaust_order(order)) {
			memcpy(why, ht_why, sizeof(why) - 1);
			why[sizeof(why) - 1] = 0;
			HT_FAIL("order %u: %s", order, why);
		}
	}
	return 0;
}

/* Pages freed one by one in random order must merge back to max blocks. */
static int test_coalesce_to_max_order(void)
{
	enum { NMAX = 4, NPAGES = NMAX << BUDDY_MAX_ORDER };
	struct block *got = malloc(NPAGES * sizeof(*got));
	struct fixture f;

	fx_init(&f, 3 << BUDDY_MAX_ORDER, NPAGES);
	fx_add(&f, 3 << BUDDY_MAX_ORDER, 7 << BUDDY_MAX_ORDER);
	for (size_t i = 0; i < NPAGES; i++) {
		got[i] = (struct block){ fx_alloc(&f, 0), 0 };
		HT_CHECK(got[i].pfn >= 0);
	}
	HT_CHECK(buddy_alloc(&f.b, 0) == -1);
	shuffle(got, NPAGES);
	for (size_t i = 0; i < NPAGES; i++)
		HT_CHECK(fx_free(&f, got[i]) == 0);
	HT_CHECK(buddy_check(&f.b) == 0);
	HT_CHECK(drain_max_order(&f) == NMAX);
	HT_CHECK(buddy_nr_free(&f.b) == 0);
	free(got);
	fx_fini(&f);
	return 0;
}

/* Adjacent ranges added separately merge into blocks spanning both. */
static int test_adjacent_ranges_merge(void)
{
	struct fixture f;

	fx_init(&f, 0, 2 << BUDDY_MAX_ORDER);
	fx_add(&f, 0, 3);
	fx_add(&f, 5, 2 << BUDDY_MAX_ORDER);
	HT_CHECK(buddy_check(&f.b) == 0);
	HT_CHECK(drain_max_order(&f) == 1);
	fx_add(&f, 3, 5);
	HT_CHECK(buddy_check(&f.b) == 0);
	HT_CHECK(drain_max_order(&f) == 1);
	HT_CHECK(buddy_nr_free(&f.b) == 0);
	fx_fini(&f);
	return 0;
}

/* Holes are never handed out; overlapping adds do not double-count. */
static int test_holes_and_overlaps(void)
{
	struct fixture f;
	size_t n = 0;
	int64_t pfn;

	fx_init(&f, 100, 1000);
	fx_add(&f, 100, 200);
	fx_add(&f, 250, 251);
	fx_add(&f, 300, 700);
	fx_add(&f, 900, 5000);	/* clipped to the span's end, 1100 */
	fx_add(&f, 0, 90);	/* wholly below the span */
	fx_add(&f, 150, 260);	/* overlaps [100,200) and 250 */
	fx_add(&f, 400, 300);	/* empty */
	HT_CHECK(count_usable(&f) == 100 + 60 + 400 + 200);
	HT_CHECK(buddy_nr_free(&f.b) == count_usable(&f));
	HT_CHECK(buddy_check(&f.b) == 0);
	/* fx_alloc fails with -2 on any page from a hole. */
	while ((pfn = fx_alloc(&f, 0)) >= 0)
		n++;
	HT_CHECK(pfn == -1);
	HT_CHECK(n == count_usable(&f));
	fx_fini(&f);
	return 0;
}

/* Re-adding pages that are allocated or free changes nothing. */
static int test_readd_is_harmless(void)
{
	struct fixture f;
	int64_t a;

	fx_init(&f, 0, 64);
	fx_add(&f, 0, 64);
	a = fx_alloc(&f, 3);
	HT_CHECK(a >= 0);
	fx_add(&f, 0, 64);
	HT_CHECK(buddy_nr_free(&f.b) == 56);
	HT_CHECK(buddy_check(&f.b) == 0);
	HT_CHECK(fx_free(&f, (struct block){ a, 3 }) == 0);
	HT_CHECK(buddy_nr_free(&f.b) == 64);
	HT_CHECK(buddy_check(&f.b) == 0);
	fx_fini(&f);
	return 0;
}

/* Every kind of bad free is refused and leaves the allocator intact. */
static int test_invalid_free_rejected(void)
{
	struct fixture f;
	int64_t a, c;

	fx_init(&f, 64, 192);
	fx_add(&f, 64, 240);	/* pfns 240..255 never added */
	a = buddy_alloc(&f.b, 2);
	c = buddy_alloc(&f.b, 0);
	HT_CHECK(a >= 0 && c >= 0);
	HT_CHECK(buddy_free(&f.b, 0, 0) == -1);		/* below span */
	HT_CHECK(buddy_free(&f.b, 256, 0) == -1);	/* above span */
	HT_CHECK(buddy_free(&f.b, 250, 0) == -1);	/* never added */
	HT_CHECK(buddy_free(&f.b, a, BUDDY_MAX_ORDER + 1) == -1);
	HT_CHECK(buddy_free(&f.b, a, 1) == -1);		/* wrong order */
	HT_CHECK(buddy_free(&f.b, a, 3) == -1);
	HT_CHECK(buddy_free(&f.b, a + 1, 0) == -1);	/* tail page */
	HT_CHECK(buddy_free(&f.b, a + 2, 1) == -1);	/* misaligned part */
	HT_CHECK(buddy_free(&f.b, c ^ 1, 0) == -1);	/* free, never alloc'd */
	HT_CHECK(buddy_nr_free(&f.b) == 176 - 5);
	HT_CHECK(buddy_check(&f.b) == 0);
	HT_CHECK(buddy_free(&f.b, a, 2) == 0);
	HT_CHECK(buddy_free(&f.b, a, 2) == -1);		/* double free */
	HT_CHECK(buddy_free(&f.b, c, 0) == 0);
	HT_CHECK(buddy_free(&f.b, c, 0) == -1);
	HT_CHECK(buddy_nr_free(&f.b) == 176);
	HT_CHECK(buddy_check(&f.b) == 0);
	fx_fini(&f);
	return 0;
}

/* Orders past the maximum and empty allocators both yield -1. */
static int test_alloc_limits(void)
{
	struct fixture f;

	fx_init(&f, 0, 4 << BUDDY_MAX_ORDER);
	HT_CHECK(buddy_alloc(&f.b, 0) == -1);		/* nothing added */
	fx_add(&f, 0, 4 << BUDDY_MAX_ORDER);
	HT_CHECK(buddy_alloc(&f.b, BUDDY_MAX_ORDER + 1) == -1);
	HT_CHECK(buddy_alloc(&f.b, 40) == -1);
	HT_CHECK(fx_alloc(&f, BUDDY_MAX_ORDER) >= 0);
	HT_CHECK(buddy_nr_free(&f.b) == 3 << BUDDY_MAX_ORDER);
	fx_fini(&f);
	return 0;
}

/* buddy_check itself must notice damage, or the other tests prove little. */
static int test_check_detects_damage(void)
{
	struct fixture f;

	fx_init(&f, 0, 128);
	fx_add(&f, 0, 128);
	HT_CHECK(buddy_check(&f.b) == 0);
	f.b.nr_free++;
	HT_CHECK(buddy_check(&f.b) == -1);
	f.b.nr_free--;
	f.b.nonempty ^= 1;
	HT_CHECK(buddy_check(&f.b) == -1);
	fx_fini(&f);
	return 0;
}

/* One random step: allocate a random order or free a random live block. */
static int stress_step(struct fixture *f, struct block *live, size_t *nlive)
{
	if (*nlive && (ht_rand(&rng_state) % 100 < 45 || *nlive == 4096)) {
		size_t i = ht_rand(&rng_state) % *nlive;

		if (fx_free(f, live[i]) != 0)
			HT_FAIL("free of live block %ld/%u refused",
				(long)live[i].pfn, live[i].order);
		live[i] = live[--*nlive];
	} else {
		unsigned order = __builtin_ctzll(ht_rand(&rng_state) | (1ull << 40)) %
				 (BUDDY_MAX_ORDER + 1);
		int64_t pfn = fx_alloc(f, order);

		if (pfn == -2)
			HT_FAIL("bad or overlapping block at order %u", order);
		if (pfn >= 0)
			live[(*nlive)++] = (struct block){ pfn, order };
	}
	return 0;
}

/* Random alloc/free against the shadow map, with periodic full checks. */
static int test_random_stress(void)
{
	enum { NPAGES = 6000, STEPS = 200000 };
	struct block *live = malloc(4096 * sizeof(*live));
	struct fixture f;
	size_t nlive = 0, held = 0;

	fx_init(&f, 12345, NPAGES);
	fx_add(&f, 12345, 12345 + 2500);
	fx_add(&f, 12345 + 2600, 12345 + NPAGES);
	for (int step = 0; step < STEPS; step++) {
		if (stress_step(&f, live, &nlive))
			return 1;
		if (step % 4999 == 0)
			HT_CHECK(buddy_check(&f.b) == 0);
	}
	for (size_t i = 0; i < nlive; i++)
		held += (size_t)1 << live[i].order;
	HT_CHECK(buddy_nr_free(&f.b) == count_usable(&f) - held);
	while (nlive)
		HT_CHECK(fx_free(&f, live[--nlive]) == 0);
	HT_CHECK(buddy_nr_free(&f.b) == count_usable(&f));
	HT_CHECK(buddy_check(&f.b) == 0);
	free(live);
	fx_fini(&f);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_exhaust_every_order, "buddy_exhaust_every_order" },
	{ test_coalesce_to_max_order, "buddy_coalesce_to_max_order" },
	{ test_adjacent_ranges_merge, "buddy_adjacent_ranges_merge" },
	{ test_holes_and_overlaps, "buddy_holes_and_overlaps" },
	{ test_readd_is_harmless, "buddy_readd_is_harmless" },
	{ test_invalid_free_rejected, "buddy_invalid_free_rejected" },
	{ test_alloc_limits, "buddy_alloc_limits" },
	{ test_check_detects_damage, "buddy_check_detects_damage" },
	{ test_random_stress, "buddy_random_stress" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
