/*
 * filedata: the bytes of a RAM file, kept in pages, charged against a
 * space budget shared by every file of one file system (devtmp's 16 MiB).
 *
 * A file is an array of page pointers (slots); slot i holds bytes
 * [i * FILEDATA_PAGE, (i + 1) * FILEDATA_PAGE). A NULL slot, or one past
 * the array, reads as zeros, so writing far past the end leaves a hole
 * that costs nothing. Invariant: bytes of a page past the file's size are
 * zero, so growing a file (by truncate or by a write past a hole) never
 * shows stale data.
 *
 * The pool holds the allocator callbacks and the budget: pages and the
 * slot arrays are charged as they are allocated and credited as they are
 * freed; callers may charge their own metadata with filedata_charge(). A
 * write that runs out of budget stores what fits and returns that short
 * count; only a write that stores nothing fails, with -ENOSPC.
 *
 *	struct filedata_pool pool = { kpage_alloc, kpage_free, kmalloc, kfree,
 *				      .limit = 16 << 20 };
 *	struct filedata f = { 0 };
 *	filedata_write(&pool, &f, "hello", 5, 0);
 *	filedata_read(&f, buf, sizeof(buf), 0);		// 5
 *	filedata_free(&pool, &f);			// pool.used back to 0
 *
 * No locks: the caller serialises calls on one pool. Pure code, tested on
 * the host in tests/host/test_filedata.c.
 */
#ifndef FILEDATA_H
#define FILEDATA_H

#include <compiler.h>

#define FILEDATA_PAGE	4096

struct filedata_pool {
	void *(*page_alloc)(void);	/* FILEDATA_PAGE bytes, or NULL */
	void (*page_free)(void *page);
	void *(*mem_alloc)(size_t n);	/* for slot arrays, or NULL */
	void (*mem_free)(void *p);
	uint64_t limit;			/* bytes that may be charged */
	uint64_t used;			/* bytes charged now */
};

struct filedata {
	uint64_t size;
	void **slots;
	size_t nslots;
};

/* Charges n bytes to pool. Returns 0, or -ENOSPC (charging nothing) if
 * that would pass the limit. */
int filedata_charge(struct filedata_pool *pool, uint64_t n);

/* Gives back n bytes charged earlier. */
void filedata_uncharge(struct filedata_pool *pool, uint64_t n);

/* Copies up to n bytes at off into buf. Returns the count, 0 at or past
 * the end. */
size_t filedata_read(const struct filedata *f, void *buf, size_t n,
		     uint64_t off);

/*
 * Stores n bytes of buf at off, growing the file as needed. Returns the
 * count stored (short when the budget ran out), -ENOSPC or -ENOMEM when
 * nothing could be stored, -EFBIG when off is at or past the pool's
 * limit (no file can be that big).
 */
long filedata_write(struct filedata_pool *pool, struct filedata *f,
		    const void *buf, size_t n, uint64_t off);

/* Sets the size to len, freeing pages past it or leaving a hole. Returns
 * 0, or -EFBIG when len is past the pool's limit. */
int filedata_truncate(struct filedata_pool *pool, struct filedata *f,
		      uint64_t len);

/* Frees every page and the slot array, crediting the pool; f is left
 * empty. */
void filedata_free(struct filedata_pool *pool, struct filedata *f);

#endif /* FILEDATA_H */
