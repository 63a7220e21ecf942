/*
 * string: the C string and memory functions for the freestanding kernel and
 * the user libc, plus the strto* number parsers (which C puts in stdlib.h;
 * they live here to keep the freestanding header set small, and a libc
 * stdlib.h may simply redeclare them).
 *
 * Semantics are C11's, with the BSD strlcpy/strlcat. The one difference:
 * there is no errno, so strtoul and friends report overflow only through
 * their saturated result (ULONG_MAX, LONG_MAX or LONG_MIN), as C specifies
 * for the value, and an invalid base only by consuming nothing.
 *
 * The compiler may emit calls to memcpy, memmove, memset and memcmp on its
 * own (struct copies, large initialisers), so these must always be linked.
 * Host code gets glibc's <string.h> instead (kern/include comes last on the
 * host include path); tests/host/test_string.c includes this header and
 * kern/lib/string.c by path with every name given a t_ prefix, and compares
 * them against glibc.
 */
#ifndef STRING_H
#define STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
void *memchr_inv(const void *s, int c, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t maxlen);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
char *strcpy(char *restrict dst, const char *restrict src);
char *strncpy(char *restrict dst, const char *restrict src, size_t n);
size_t strlcpy(char *restrict dst, const char *restrict src, size_t size);
size_t strlcat(char *restrict dst, const char *restrict src, size_t size);

unsigned long strtoul(const char *restrict s, char **restrict end, int base);
unsigned long long strtoull(const char *restrict s, char **restrict end,
			    int base);
long strtol(const char *restrict s, char **restrict end, int base);

#endif /* STRING_H */
