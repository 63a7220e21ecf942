/*
 * malloc, calloc, realloc, free: the arena allocator (arena.c) over a
 * static heap. ttrace has no brk or mmap system call, so the heap is a
 * fixed HEAP_SIZE array in .bss: the kernel maps it zero-filled with the
 * rest of the program's bss, and only programs that call malloc link it.
 */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include "arena.h"

#define HEAP_SIZE	(1024 * 1024)

static char heap[HEAP_SIZE] __aligned(16);
static struct arena heap_arena;
static int heap_ready;

/* Returns the heap's arena, setting it up on first use. */
static struct arena *heap_get(void)
{
	if (!heap_ready) {
		arena_init(&heap_arena, heap, sizeof(heap));
		heap_ready = 1;
	}
	return &heap_arena;
}

void *malloc(size_t n)
{
	void *p = arena_alloc(heap_get(), n);

	if (p == NULL)
		errno = ENOMEM;
	return p;
}

void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = arena_realloc(heap_get(), p, n);

	if (q == NULL)
		errno = ENOMEM;
	return q;
}

void free(void *p)
{
	if (arena_free(heap_get(), p) < 0) {
		fprintf(stderr, "%s: free of bad pointer %p\n", progname, p);
		_exit(127);
	}
}
