/*
 * C string and memory functions for the kernel and the user libc.
 *
 * Plain C, no arch code. The bulk operations (memcpy, memmove, memset,
 * memcmp) move a machine word at a time once the destination is aligned;
 * the word types below carry may_alias, so reading bytes as words is not a
 * strict-aliasing violation, and the source type is aligned(1), so an
 * unaligned source is a well-defined (and, on x86, cheap) unaligned load.
 * Small sizes and tails go byte by byte.
 *
 * The str* functions stay byte-at-a-time on purpose: reading a whole word
 * that straddles a string's terminator is harmless to the hardware but an
 * out-of-bounds read to AddressSanitizer, which checks this file on the host.
 * The one exception is strnlen, which every aux name the tracer writes
 * passes through: it loads aligned words (an aligned word never crosses a
 * page, so it cannot fault where the string's last byte does not), and is
 * exempt from AddressSanitizer; the host test puts strings against an
 * unmapped page instead.
 *
 * The pragma below matters. Without it GCC (at -O2, when not freestanding)
 * recognises the byte loops as "a memset" or "a strlen" and replaces them
 * with calls to those functions, which inside memset itself is infinite
 * recursion, and on the host would quietly test glibc instead of us.
 */
#pragma GCC optimize("no-tree-loop-distribute-patterns")

#include <compiler.h>
#include <parse_num.h>
#include <string.h>
#include <strnlen_inline.h>

#define WORD_SIZE	sizeof(unsigned long)

/* An aligned word inside a byte buffer. */
typedef unsigned long __attribute__((may_alias)) str_word;
/* A word inside a byte buffer at any alignment. */
typedef unsigned long __attribute__((may_alias, aligned(1))) str_uword;

static bool word_aligned(const void *p)
{
	return ((uintptr_t)p & (WORD_SIZE - 1)) == 0;
}

/* Copies upwards; safe for overlap when d is below s (each word is loaded
 * before the store that could clobber it). */
static void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	if (n >= 2 * WORD_SIZE) {
		for (; !word_aligned(d); n--)
			*d++ = *s++;
		/* a cache line a turn, all loaded before any store (so
		 * still safe for d below s): half the instructions */
		for (; n >= 8 * WORD_SIZE; n -= 8 * WORD_SIZE) {
			const str_uword *sw = (const str_uword *)s;
			str_word *dw = (str_word *)d;
			unsigned long w0 = sw[0], w1 = sw[1], w2 = sw[2],
				      w3 = sw[3], w4 = sw[4], w5 = sw[5],
				      w6 = sw[6], w7 = sw[7];

			dw[0] = w0, dw[1] = w1, dw[2] = w2, dw[3] = w3;
			dw[4] = w4, dw[5] = w5, dw[6] = w6, dw[7] = w7;
			d += 8 * WORD_SIZE;
			s += 8 * WORD_SIZE;
		}
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(str_word *)d = *(const str_uword *)s;
			d += WORD_SIZE;
			s += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = *s++;
}

/* Copies downwards from the ends; safe for overlap when d is above s. */
static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	d += n;
	s += n;
	if (n >= 2 * WORD_SIZE) {
		for (; !word_aligned(d); n--)
			*--d = *--s;
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			d -= WORD_SIZE;
			s -= WORD_SIZE;
			*(str_word *)d = *(const str_uword *)s;
		}
	}
	while (n--)
		*--d = *--s;
}

/* Copies n bytes from src to dst, which must not overlap. Returns dst. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

/* Copies n bytes from src to dst; the areas may overlap. Returns dst. */
void *memmove(void *dst, const void *src, size_t n)
{
	/* Unsigned wrap-around: true when dst is below src or past its end. */
	if ((uintptr_t)dst - (uintptr_t)src >= n)
		copy_forward(dst, src, n);
	else
		copy_backward(dst, src, n);
	return dst;
}

/* Sets n bytes at dst to (unsigned char)c. Returns dst. */
void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned long pattern = (unsigned char)c * (~0UL / 0xff);

	if (n >= 2 * WORD_SIZE) {
		for (; !word_aligned(d); n--)
			*d++ = (unsigned char)c;
		/* a cache line a turn: big clears cost a quarter of the
		 * instructions of a word loop */
		for (; n >= 8 * WORD_SIZE; n -= 8 * WORD_SIZE) {
			str_word *w = (str_word *)d;

			w[0] = w[1] = w[2] = w[3] = pattern;
			w[4] = w[5] = w[6] = w[7] = pattern;
			d += 8 * WORD_SIZE;
		}
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(str_word *)d = pattern;
			d += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

/* Compares n bytes as unsigned chars. Returns <0, 0 or >0 as a is below,
 * equal to or above b at the first difference. */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	/* Skip equal words; the byte loop then finds the differing byte. */
	for (; n >= WORD_SIZE; n -= WORD_SIZE) {
		if (*(const str_uword *)p != *(const str_uword *)q)
			break;
		p += WORD_SIZE;
		q += WORD_SIZE;
	}
	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

/* Returns the first of the n bytes at s equal to (unsigned char)c, or NULL. */
void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

/* Returns the first of the n bytes at s that is not (unsigned char)c, or
 * NULL (Linux's memchr_inv): checks poison and redzones a word at a time. */
void *memchr_inv(const void *s, int c, size_t n)
{
	const unsigned char *p = s, b = (unsigned char)c;
	const unsigned long pat = b * (~0UL / 0xff);

	for (; n && !word_aligned(p); n--, p++)
		if (*p != b)
			return (void *)p;
	/* a cache line a turn, as memset: the debug kernel checks every
	 * freed page this way */
	for (; n >= 8 * WORD_SIZE; n -= 8 * WORD_SIZE, p += 8 * WORD_SIZE) {
		const str_word *w = (const str_word *)p;

		if ((w[0] ^ pat) | (w[1] ^ pat) | (w[2] ^ pat) | (w[3] ^ pat) |
		    (w[4] ^ pat) | (w[5] ^ pat) | (w[6] ^ pat) | (w[7] ^ pat))
			break;
	}
	for (; n >= WORD_SIZE && *(const str_word *)p == pat;
	     n -= WORD_SIZE, p += WORD_SIZE)
		;
	for (; n; n--, p++)
		if (*p != b)
			return (void *)p;
	return NULL;
}

/* Returns the length of s. */
size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

/* Returns the length of s, but at most maxlen (strnlen_inline.h). */
__attribute__((no_sanitize_address))
size_t strnlen(const char *s, size_t maxlen)
{
	return strnlen_inline(s, maxlen);
}

/* Compares strings as unsigned chars; returns <0, 0 or >0. */
int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const void *)a, *q = (const void *)b;

	while (*p && *p == *q) {
		p++;
		q++;
	}
	return *p - *q;
}

/* strcmp over at most the first n characters. */
int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const void *)a, *q = (const void *)b;

	for (; n; n--, p++, q++)
		if (*p != *q || !*p)
			return *p - *q;
	return 0;
}

/* Returns the first (char)c in s, or NULL; c == 0 finds the terminator. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

/* Returns the last (char)c in s, or NULL; c == 0 finds the terminator. */
char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

/* Returns the first occurrence of needle in haystack, or NULL; an empty
 * needle matches at haystack. Quadratic in the worst case. */
char *strstr(const char *haystack, const char *needle)
{
	size_t len = strlen(needle);

	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, len) == 0)
			return (char *)haystack;
	return len ? NULL : (char *)haystack;
}

/* Copies src with its NUL to dst, which must have room. Returns dst. */
char *strcpy(char *restrict dst, const char *restrict src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

/* Copies at most n chars of src to dst and pads the rest of the n with
 * NULs; dst is not terminated if src has n or more chars. Returns dst. */
char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

/* Copies src into dst of size bytes, truncating, and NUL-terminates when
 * size > 0. Returns strlen(src); truncation happened iff that is >= size. */
size_t strlcpy(char *restrict dst, const char *restrict src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = MIN(len, size - 1);

		memcpy(dst, src, n);
		dst[n] = 0;
	}
	return len;
}

/* Appends src to the string in dst of size bytes, truncating, keeping dst
 * terminated. Returns the length the result would have had untruncated
 * (if dst has no NUL within size, that is size + strlen(src)). */
size_t strlcat(char *restrict dst, const char *restrict src, size_t size)
{
	size_t dlen = strnlen(dst, size);

	if (dlen == size)
		return size + strlen(src);
	return dlen + strlcpy(dst + dlen, src, size - dlen);
}

/* The strto* family: one parser, three ways of saturating its result. */

/* A parsed number before it is fitted into the caller's type. */
struct str_num {
	unsigned long long mag;	/* magnitude, valid unless overflow */
	bool neg;		/* a '-' was seen */
	bool overflow;		/* the magnitude exceeded 64 bits */
	const char *end;	/* first unparsed char; the input if none */
};

static bool str_is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Settles the base from a 0x/0 prefix as C specifies; returns where the
 * digits start. "0x" not followed by a hex digit is just the number 0. */
static const char *str_prefix(const char *p, int *base)
{
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		   parse_digit(p[2]) < 16;

	if ((*base == 0 || *base == 16) && hex) {
		*base = 16;
		return p + 2;
	}
	if (*base == 0)
		*base = p[0] == '0' ? 8 : 10;
	return p;
}

/* Parses [space][sign][prefix]digits in base (0 or 2..36) into *num. */
static void str_parse(const char *s, int base, struct str_num *num)
{
	const char *p = s, *digits;

	*num = (struct str_num){ .end = s };
	if (base < 0 || base == 1 || base > 36)
		return;
	while (str_is_space(*p))
		p++;
	if (*p == '+' || *p == '-')
		num->neg = *p++ == '-';
	digits = p = str_prefix(p, &base);
	for (; parse_digit(*p) < (unsigned)base; p++) {
		unsigned d = parse_digit(*p);

		if (num->mag > (~0ULL - d) / base)
			num->overflow = true;
		num->mag = num->mag * base + d;
	}
	if (p != digits)
		num->end = p;
}

/* Parses an unsigned long long as C's strtoull: leading blanks, an optional
 * sign ('-' negates in unsigned arithmetic), digits in base (0 picks 8, 10
 * or 16 from the prefix). Stores the end of the number in *end if end is
 * not NULL. Returns ULLONG_MAX on overflow, 0 if nothing was parsed. */
unsigned long long strtoull(const char *restrict s, char **restrict end,
			    int base)
{
	struct str_num num;

	str_parse(s, base, &num);
	if (end)
		*end = (char *)num.end;
	if (num.overflow)
		return ~0ULL;
	return num.neg ? -num.mag : num.mag;
}

/* strtoull for unsigned long; saturates at ULONG_MAX. */
unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
	struct str_num num;

	str_parse(s, base, &num);
	if (end)
		*end = (char *)num.end;
	if (num.overflow || num.mag > ~0UL)
		return ~0UL;
	return num.neg ? -(unsigned long)num.mag : (unsigned long)num.mag;
}

/* Signed strtoul: saturates at LONG_MAX, or LONG_MIN for negative numbers. */
long strtol(const char *restrict s, char **restrict end, int base)
{
	const unsigned long long long_max = ~0UL >> 1;
	struct str_num num;

	str_parse(s, base, &num);
	if (end)
		*end = (char *)num.end;
	if (num.overflow || num.mag > long_max + num.neg)
		return num.neg ? -(long)long_max - 1 : (long)long_max;
	if (num.neg)
		return num.mag ? -(long)(num.mag - 1) - 1 : 0;
	return (long)num.mag;
}
