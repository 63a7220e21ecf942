/*
 * RAM file contents in pages under a space budget (see filedata.h).
 *
 * The slot array grows by doubling (at least to 16 slots) so appending
 * costs amortised O(1) copies, and is charged like the pages, so sparse
 * files far past their data cannot use memory the budget does not see.
 */
#include <filedata.h>
#include <string.h>
#include <abi/errno.h>

#define MIN_SLOTS	16

int filedata_charge(struct filedata_pool *pool, uint64_t n)
{
	if (n > pool->limit - pool->used)
		return -ENOSPC;
	pool->used += n;
	return 0;
}

void filedata_uncharge(struct filedata_pool *pool, uint64_t n)
{
	pool->used -= n;
}

/* Makes f have at least need slots. Returns 0, -ENOSPC or -ENOMEM. */
static int grow_slots(struct filedata_pool *pool, struct filedata *f,
		      size_t need)
{
	size_t n = MAX(MAX(need, f->nslots * 2), (size_t)MIN_SLOTS);
	void **slots;

	if (need <= f->nslots)
		return 0;
	if (filedata_charge(pool, n * sizeof(void *)) < 0)
		return -ENOSPC;
	if ((slots = pool->mem_alloc(n * sizeof(void *))) == NULL) {
		filedata_uncharge(pool, n * sizeof(void *));
		return -ENOMEM;
	}
	memset(slots, 0, n * sizeof(void *));
	if (f->nslots) {
		memcpy(slots, f->slots, f->nslots * sizeof(void *));
		pool->mem_free(f->slots);
		filedata_uncharge(pool, f->nslots * sizeof(void *));
	}
	f->slots = slots;
	f->nslots = n;
	return 0;
}

/* Returns the page for slot i, allocating a zeroed one if it has none, or
 * NULL with *err set. */
static char *get_page(struct filedata_pool *pool, struct filedata *f,
		      size_t i, long *err)
{
	char *page = f->slots[i];

	if (page)
		return page;
	if ((*err = filedata_charge(pool, FILEDATA_PAGE)) < 0)
		return NULL;
	if ((page = pool->page_alloc()) == NULL) {
		filedata_uncharge(pool, FILEDATA_PAGE);
		*err = -ENOMEM;
		return NULL;
	}
	memset(page, 0, FILEDATA_PAGE);
	f->slots[i] = page;
	return page;
}

size_t filedata_read(const struct filedata *f, void *buf, size_t n,
		     uint64_t off)
{
	size_t done = 0;

	if (off >= f->size)
		return 0;
	n = (size_t)MIN((uint64_t)n, f->size - off);
	while (done < n) {
		uint64_t pos = off + done;
		size_t i = (size_t)(pos / FILEDATA_PAGE);
		size_t in = (size_t)(pos % FILEDATA_PAGE);
		size_t k = MIN(FILEDATA_PAGE - in, n - done);

		if (i < f->nslots && f->slots[i])
			memcpy((char *)buf + done, (char *)f->slots[i] + in, k);
		else
			memset((char *)buf + done, 0, k);
		done += k;
	}
	return done;
}

long filedata_write(struct filedata_pool *pool, struct filedata *f,
		    const void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	long err = 0;

	if (n == 0)
		return 0;
	if (off >= pool->limit)
		return -EFBIG;
	n = (size_t)MIN((uint64_t)n, pool->limit - off);
	err = grow_slots(pool, f, (size_t)((off + n - 1) / FILEDATA_PAGE + 1));
	while (err == 0 && done < n) {
		uint64_t pos = off + done;
		size_t in = (size_t)(pos % FILEDATA_PAGE);
		size_t k = MIN(FILEDATA_PAGE - in, n - done);
		char *page = get_page(pool, f, (size_t)(pos / FILEDATA_PAGE),
				      &err);

		if (page == NULL)
			break;
		memcpy(page + in, (const char *)buf + done, k);
		done += k;
	}
	if (done == 0)
		return err;
	f->size = MAX(f->size, off + done);
	return (long)done;
}

/* Frees the pages of slots [from, nslots). */
static void free_pages_from(struct filedata_pool *pool, struct filedata *f,
			    size_t from)
{
	for (size_t i = from; i < f->nslots; i++) {
		if (f->slots[i] == NULL)
			continue;
		pool->page_free(f->slots[i]);
		f->slots[i] = NULL;
		filedata_uncharge(pool, FILEDATA_PAGE);
	}
}

int filedata_truncate(struct filedata_pool *pool, struct filedata *f,
		      uint64_t len)
{
	size_t keep = (size_t)((len + FILEDATA_PAGE - 1) / FILEDATA_PAGE);
	size_t i = (size_t)(len / FILEDATA_PAGE);

	if (len > pool->limit)
		return -EFBIG;
	if (len < f->size) {
		free_pages_from(pool, f, keep);
		if (len % FILEDATA_PAGE && i < f->nslots && f->slots[i])
			memset((char *)f->slots[i] + len % FILEDATA_PAGE, 0,
			       FILEDATA_PAGE - len % FILEDATA_PAGE);
	}
	f->size = len;
	return 0;
}

void filedata_free(struct filedata_pool *pool, struct filedata *f)
{
	free_pages_from(pool, f, 0);
	if (f->nslots) {
		pool->mem_free(f->slots);
		filedata_uncharge(pool, f->nslots * sizeof(void *));
	}
	*f = (struct filedata){ 0 };
}
