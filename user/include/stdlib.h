/*
 * stdlib.h: memory allocation, exit and number conversion.
 *
 * malloc and friends allocate from a fixed 1 MiB heap in .bss (there is no
 * brk or mmap system call); the allocator is a first-fit, address-ordered
 * free list that coalesces freed neighbours (user/lib/arena.c). Only
 * programs that call malloc carry the heap.
 *
 * strtol and strtoul are the kernel string library's (kern/lib/string.c,
 * declared in its string.h too); unlike ISO C they do not set errno on
 * overflow, only saturate.
 */
#ifndef ULIB_STDLIB_H
#define ULIB_STDLIB_H

#include <stddef.h>
#include <compiler.h>

#define EXIT_SUCCESS	0
#define EXIT_FAILURE	1

/* Return a 16-byte-aligned block of at least n bytes (calloc: nmemb * size
 * zeroed bytes), or NULL with errno ENOMEM. malloc(0) returns a unique
 * pointer. */
void *malloc(size_t n);
void *calloc(size_t nmemb, size_t size);

/* Resizes p (NULL: like malloc) to n bytes, keeping its contents up to the
 * smaller size. Returns the new block, or NULL with errno ENOMEM, in which
 * case p is left alone. */
void *realloc(void *p, size_t n);

/* Releases p (from malloc/calloc/realloc; NULL is ignored). A pointer that
 * was never allocated or is already free ends the process with status 127
 * and a message, since the heap can no longer be trusted. */
void free(void *p);

/* Flushes stdout and ends the process with status (0..255). */
__noreturn void exit(int status);

/* Returns the decimal integer at the start of s (0 if none). */
int atoi(const char *s);

/* Convert the number at the start of s in base (0: C prefixes), storing
 * the end of the digits in *end if end is not NULL. */
long strtol(const char *restrict s, char **restrict end, int base);
unsigned long strtoul(const char *restrict s, char **restrict end, int base);

#endif /* ULIB_STDLIB_H */
