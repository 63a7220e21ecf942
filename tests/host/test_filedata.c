/*
 * Host tests for kern/lib/filedata.c: contents at page boundaries, holes,
 * truncation, and the budget (short writes, -ENOSPC, everything credited
 * back on free). The pool's allocators count live pages and arrays, so a
 * leak shows up as a nonzero count at the end of a test; pages come from
 * malloc with garbage in them, so a page that was not zeroed shows up as
 * wrong bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <filedata.h>

static long live_pages, live_arrays, fail_pages_after = -1;

static void *t_page_alloc(void)
{
	char *p;

	if (fail_pages_after == 0)
		return NULL;
	if (fail_pages_after > 0)
		fail_pages_after--;
	p = malloc(FILEDATA_PAGE);
	memset(p, 0xa5, FILEDATA_PAGE);
	live_pages++;
	return p;
}

static void t_page_free(void *p)
{
	live_pages--;
	free(p);
}

static void *t_mem_alloc(size_t n)
{
	live_arrays++;
	return malloc(n);
}

static void t_mem_free(void *p)
{
	live_arrays--;
	free(p);
}

static struct filedata_pool new_pool(uint64_t limit)
{
	live_pages = live_arrays = 0;
	fail_pages_after = -1;
	return (struct filedata_pool){ t_page_alloc, t_page_free, t_mem_alloc,
				       t_mem_free, .limit = limit };
}

/* Fills buf with n bytes of a pattern that depends on the offset. */
static void pattern(unsigned char *buf, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)((off + i) * 7 + (off + i) / 4096);
}

static int test_rw(void)
{
	static unsigned char data[5 * 4096 + 123], back[sizeof(data)];
	struct filedata_pool pool = new_pool(1 << 20);
	struct filedata f = { 0 };

	pattern(data, sizeof(data), 0);
	HT_CHECK(filedata_write(&pool, &f, data, sizeof(data), 0) ==
		 sizeof(data));
	HT_CHECK(f.size == sizeof(data) && live_pages == 6);
	for (size_t off = 0; off < sizeof(data); off += 4093) {
		size_t n = MIN(sizeof(data) - off, (size_t)5000);

		HT_CHECK(filedata_read(&f, back, 5000, off) == n);
		HT_CHECK(memcmp(back, data + off, n) == 0);
	}
	HT_CHECK(filedata_read(&f, back, 10, sizeof(data)) == 0);
	HT_CHECK(filedata_read(&f, back, 10, 1ull << 40) == 0);
	HT_CHECK(filedata_write(&pool, &f, data, 0, 0) == 0);
	/* Overwrite across a page boundary. */
	HT_CHECK(filedata_write(&pool, &f, "XYZ", 3, 4095) == 3);
	HT_CHECK(filedata_read(&f, back, 3, 4095) == 3);
	HT_CHECK(memcmp(back, "XYZ", 3) == 0 && f.size == sizeof(data));
	filedata_free(&pool, &f);
	HT_CHECK(pool.used == 0 && live_pages == 0 && live_arrays == 0);
	HT_CHECK(f.size == 0 && f.nslots == 0);
	return 0;
}

static int test_holes(void)
{
	struct filedata_pool pool = new_pool(1 << 20);
	struct filedata f = { 0 };
	unsigned char buf[300];

	HT_CHECK(filedata_write(&pool, &f, "ab", 2, 0) == 2);
	HT_CHECK(filedata_write(&pool, &f, "z", 1, 200) == 1);
	HT_CHECK(f.size == 201);
	HT_CHECK(filedata_read(&f, buf, sizeof(buf), 0) == 201);
	for (int i = 2; i < 200; i++)
		HT_CHECK(buf[i] == 0);
	/* A far write allocates only the page it lands on. */
	HT_CHECK(filedata_write(&pool, &f, "q", 1, 100 * 4096 + 5) == 1);
	HT_CHECK(live_pages == 2 && f.size == 100 * 4096 + 6);
	HT_CHECK(filedata_read(&f, buf, 10, 50 * 4096) == 10);
	for (int i = 0; i < 10; i++)
		HT_CHECK(buf[i] == 0);
	filedata_free(&pool, &f);
	HT_CHECK(pool.used == 0 && live_pages == 0 && live_arrays == 0);
	return 0;
}

static int test_truncate(void)
{
	struct filedata_pool pool = new_pool(1 << 20);
	struct filedata f = { 0 };
	unsigned char data[3 * 4096], buf[3 * 4096];

	memset(data, 'x', sizeof(data));
	HT_CHECK(filedata_write(&pool, &f, data, sizeof(data), 0) ==
		 sizeof(data));
	HT_CHECK(filedata_truncate(&pool, &f, 10) == 0);
	HT_CHECK(f.size == 10 && live_pages == 1);
	/* Growing again shows zeros, not the old bytes. */
	HT_CHECK(filedata_truncate(&pool, &f, 50) == 0 && f.size == 50);
	HT_CHECK(filedata_read(&f, buf, sizeof(buf), 0) == 50);
	HT_CHECK(memcmp(buf, data, 10) == 0);
	for (int i = 10; i < 50; i++)
		HT_CHECK(buf[i] == 0);
	HT_CHECK(filedata_write(&pool, &f, "E", 1, 150) == 1);
	HT_CHECK(filedata_read(&f, buf, sizeof(buf), 0) == 151);
	for (int i = 10; i < 150; i++)
		HT_CHECK(buf[i] == 0);
	HT_CHECK(filedata_truncate(&pool, &f, 0) == 0 && live_pages == 0);
	HT_CHECK(filedata_truncate(&pool, &f, (1 << 20) + 1) == -27);
	HT_CHECK(filedata_truncate(&pool, &f, 1 << 20) == 0);
	filedata_free(&pool, &f);
	HT_CHECK(pool.used == 0 && live_pages == 0 && live_arrays == 0);
	return 0;
}

/* Two files share a 64 KiB budget: writes go short, then fail, and
 * freeing one file lets the other grow again. */
static int test_budget(void)
{
	static unsigned char chunk[40 * 1024];
	struct filedata_pool pool = new_pool(64 * 1024);
	struct filedata a = { 0 }, b = { 0 };
	long n;

	HT_CHECK(filedata_write(&pool, &a, chunk, sizeof(chunk), 0) ==
		 sizeof(chunk));
	n = filedata_write(&pool, &b, chunk, sizeof(chunk), 0);
	HT_CHECK(n > 0 && n < (long)sizeof(chunk) && n % 4096 == 0);
	HT_CHECK(filedata_write(&pool, &b, chunk, sizeof(chunk), (size_t)n) ==
		 -28);
	HT_CHECK(pool.used <= pool.limit);
	HT_CHECK(filedata_charge(&pool, pool.limit) == -28);
	filedata_free(&pool, &a);
	HT_CHECK(filedata_write(&pool, &b, chunk, sizeof(chunk), (size_t)n) ==
		 sizeof(chunk));
	HT_CHECK(filedata_write(&pool, &b, chunk, 1, 64 * 1024) == -27);
	filedata_free(&pool, &b);
	HT_CHECK(pool.used == 0 && live_pages == 0 && live_arrays == 0);
	HT_CHECK(filedata_charge(&pool, 100) == 0 && pool.used == 100);
	filedata_uncharge(&pool, 100);
	HT_CHECK(pool.used == 0);
	return 0;
}

static int test_alloc_failure(void)
{
	static unsigned char chunk[3 * 4096];
	struct filedata_pool pool = new_pool(1 << 20);
	struct filedata f = { 0 };

	fail_pages_after = 1;
	HT_CHECK(filedata_write(&pool, &f, chunk, sizeof(chunk), 0) == 4096);
	HT_CHECK(filedata_write(&pool, &f, chunk, sizeof(chunk), 4096) ==
		 -12);
	HT_CHECK(f.size == 4096);
	filedata_free(&pool, &f);
	HT_CHECK(pool.used == 0 && live_pages == 0 && live_arrays == 0);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_rw, "filedata_rw" },
	{ test_holes, "filedata_holes" },
	{ test_truncate, "filedata_truncate" },
	{ test_budget, "filedata_budget" },
	{ test_alloc_failure, "filedata_alloc_failure" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
