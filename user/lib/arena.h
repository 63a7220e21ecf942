/*
 * arena: a general-purpose allocator over one caller-supplied block of
 * memory. libc's malloc (malloc.c) runs it over a static heap; the host
 * tests run it over arenas of their own. It knows nothing of system calls.
 *
 * Design: every block, free or in use, starts with a 16-byte header holding
 * its total size. Free blocks are kept on a singly linked list sorted by
 * address; allocation is first fit, splitting off the tail of a larger
 * block; freeing inserts the block in order and merges it with a free
 * neighbour on either side, so no two free blocks are ever adjacent. A
 * block in use has its header's next field set to the arena itself, which
 * lets arena_free recognise pointers it never handed out and double frees.
 *
 *	struct arena a;
 *	static char mem[65536] __aligned(16);
 *	arena_init(&a, mem, sizeof(mem));
 *	void *p = arena_alloc(&a, 100);
 *	arena_free(&a, p);
 */
#ifndef ULIB_ARENA_H
#define ULIB_ARENA_H

#include <stddef.h>

struct arena_block {
	struct arena_block *next;	/* next free block, or the arena if in use */
	size_t size;			/* bytes including this header */
};

struct arena {
	struct arena_block *free;	/* free blocks in address order */
	char *base;
	size_t size;
};

/* Makes the 16-byte-aligned memory [mem, mem + size) one free block. */
void arena_init(struct arena *a, void *mem, size_t size);

/* Returns a 16-byte-aligned block of at least n bytes, or NULL if no free
 * block is large enough. arena_alloc(a, 0) returns a unique block. */
void *arena_alloc(struct arena *a, size_t n);

/* Returns p's block to the arena (NULL is ignored). Returns 0, or -1 if p
 * is not a block in use from this arena, which is then left untouched. */
int arena_free(struct arena *a, void *p);

/* Resizes p like realloc: returns p itself if its block is big enough, else
 * a new block holding p's contents, with p freed; NULL if there is no room
 * (p is kept) or p is not a block in use (see arena_free). */
void *arena_realloc(struct arena *a, void *p, size_t n);

/* Checks the free list: in bounds, sorted, no overlaps, no adjacent free
 * blocks. Returns 0 with the free byte and block counts in *bytes and
 * *blocks, or -1 if the arena is corrupt. */
int arena_check(const struct arena *a, size_t *bytes, size_t *blocks);

#endif /* ULIB_ARENA_H */
