/*
 * arena: first-fit free-list allocator over caller-supplied memory (design
 * in arena.h). Pure C with no system calls, so the host tests build it as
 * is. Free-list order is by address, which makes merging a freed block with
 * its neighbours a local operation at its insertion point.
 */
#include "arena.h"
#include <stdint.h>
#include <string.h>

#define ARENA_ALIGN	16
#define HDR		sizeof(struct arena_block)
#define MIN_BLOCK	(HDR + ARENA_ALIGN)	/* header plus smallest payload */

_Static_assert(sizeof(struct arena_block) % ARENA_ALIGN == 0,
	       "headers keep payloads aligned");

void arena_init(struct arena *a, void *mem, size_t size)
{
	struct arena_block *b = mem;

	size -= size % ARENA_ALIGN;
	a->base = mem;
	a->size = size;
	a->free = NULL;
	if (size >= MIN_BLOCK) {
		b->next = NULL;
		b->size = size;
		a->free = b;
	}
}

/* Returns the block size that serves a request of n bytes, or 0 if no
 * block could ever be that large. */
static size_t block_size(size_t n)
{
	if (n > SIZE_MAX - MIN_BLOCK)
		return 0;
	if (n < ARENA_ALIGN)
		n = ARENA_ALIGN;
	return HDR + (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
}

/* Marks b as in use by a (see arena.h) and returns its payload. */
static void *block_take(struct arena *a, struct arena_block *b)
{
	b->next = (struct arena_block *)a;
	return b + 1;
}

void *arena_alloc(struct arena *a, size_t n)
{
	size_t need = block_size(n);

	if (need == 0)
		return NULL;
	for (struct arena_block **link = &a->free; *link;
	     link = &(*link)->next) {
		struct arena_block *b = *link;

		if (b->size < need)
			continue;
		if (b->size - need < MIN_BLOCK) {
			*link = b->next;
			return block_take(a, b);
		}
		/* Split off the tail: the free block keeps its place. */
		b->size -= need;
		b = (struct arena_block *)((char *)b + b->size);
		b->size = need;
		return block_take(a, b);
	}
	return NULL;
}

/* Returns the in-use block whose payload is p, or NULL if p is not one. */
static struct arena_block *block_of(const struct arena *a, void *p)
{
	uintptr_t lo = (uintptr_t)a->base, hi = lo + a->size;
	uintptr_t up = (uintptr_t)p;
	struct arena_block *b;

	if (up < lo + HDR || up >= hi || (up - lo) % ARENA_ALIGN != 0)
		return NULL;
	b = (struct arena_block *)p - 1;
	if (b->next != (const struct arena_block *)a || b->size < MIN_BLOCK ||
	    b->size % ARENA_ALIGN != 0 || b->size > hi - (uintptr_t)b)
		return NULL;
	return b;
}

/* Returns true if block a ends exactly where block b starts. */
static int adjacent(const struct arena_block *a, const struct arena_block *b)
{
	return (uintptr_t)a + a->size == (uintptr_t)b;
}

int arena_free(struct arena *a, void *p)
{
	struct arena_block *b, *prev = NULL, *next = a->free;

	if (p == NULL)
		return 0;
	b = block_of(a, p);
	if (b == NULL)
		return -1;
	while (next && (uintptr_t)next < (uintptr_t)b) {
		prev = next;
		next = next->next;
	}
	b->next = next;
	if (next && adjacent(b, next)) {
		b->size += next->size;
		b->next = next->next;
	}
	if (prev == NULL) {
		a->free = b;
	} else if (adjacent(prev, b)) {
		prev->size += b->size;
		prev->next = b->next;
	} else {
		prev->next = b;
	}
	return 0;
}

void *arena_realloc(struct arena *a, void *p, size_t n)
{
	struct arena_block *b;
	size_t need = block_size(n);
	void *q;

	if (p == NULL)
		return arena_alloc(a, n);
	b = block_of(a, p);
	if (b == NULL || need == 0)
		return NULL;
	if (b->size >= need)
		return p;
	q = arena_alloc(a, n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, b->size - HDR);
	arena_free(a, p);
	return q;
}

int arena_check(const struct arena *a, size_t *bytes, size_t *blocks)
{
	uintptr_t lo = (uintptr_t)a->base, hi = lo + a->size, end = 0;
	size_t nbytes = 0, nblocks = 0;

	for (const struct arena_block *b = a->free; b; b = b->next) {
		uintptr_t ub = (uintptr_t)b;

		if (ub < lo || ub >= hi || (ub - lo) % ARENA_ALIGN != 0 ||
		    b->size < MIN_BLOCK || b->size % ARENA_ALIGN != 0 ||
		    b->size > hi - ub)
			return -1;
		/* Sorted, disjoint and never touching: ub > previous end. */
		if (nblocks > 0 && ub <= end)
			return -1;
		end = ub + b->size;
		nbytes += b->size;
		nblocks++;
	}
	*bytes = nbytes;
	*blocks = nblocks;
	return 0;
}
