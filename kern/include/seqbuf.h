/*
 * seqbuf: the bounded text buffer every kernel text producer writes
 * through (after Linux's seq_buf): the #ttrace files' texts, cpuN's lines,
 * the decoder's line format, listings and error messages.
 *
 * The struct owns its capacity. Every append copies what fits of its text
 * and counts all of it, so nothing can write past the buffer, the held
 * text is always NUL terminated and a prefix of what was appended, and
 * the producer learns afterwards whether its text fit (snprintf's rule:
 * len is what it needed). A text that did not fit is cut visibly:
 * seqbuf_mark_cut() makes its held text end with SEQBUF_CUT, "[...]"
 * and a newline (docs/ttrace-device.md).
 *
 *	char page[4096];
 *	struct seqbuf s;
 *
 *	seqbuf_init(&s, page, sizeof(page));
 *	seqbuf_printf(&s, "cpu%u written %lu\n", cpu, written);
 *	seqbuf_mark_cut(&s);
 *	copy_out(page, seqbuf_used(&s));
 *
 * A function with snprintf's (buf, size) shape writes in place:
 *
 *	char *dst;
 *	size_t room = seqbuf_get_buf(&s, &dst);
 *	seqbuf_commit(&s, report(dst, room));
 *
 * No locks: the caller serialises its own buffer.
 */
#ifndef SEQBUF_H
#define SEQBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <compiler.h>

#define SEQBUF_CUT	"[...]\n"	/* ends a text that was cut */

struct seqbuf {
	char *buf;
	size_t size;	/* capacity, the NUL included (0: holds nothing) */
	size_t len;	/* bytes appended, those that did not fit too */
};

/* Makes s an empty buffer over buf (size bytes; 0, with any buf, even
 * NULL, is allowed). */
static inline void seqbuf_init(struct seqbuf *s, char *buf, size_t size)
{
	s->buf = buf;
	s->size = size;
	s->len = 0;
	if (size)
		buf[0] = 0;
}

/* The bytes s holds (without the NUL). */
static inline size_t seqbuf_used(const struct seqbuf *s)
{
	return s->size ? MIN(s->len, s->size - 1) : 0;
}

/* The bytes that still fit in s. */
static inline size_t seqbuf_room(const struct seqbuf *s)
{
	return s->size ? s->size - 1 - seqbuf_used(s) : 0;
}

/* Whether some of what was appended did not fit. */
static inline bool seqbuf_overflowed(const struct seqbuf *s)
{
	return s->len > seqbuf_used(s);
}

/* Counts n more bytes that a write into the buffer's tail needed (at most
 * seqbuf_room() of them were written there) and ends the held text. */
static __always_inline void seqbuf_commit(struct seqbuf *s, size_t n)
{
	s->len = s->len + n < s->len ? SIZE_MAX : s->len + n;
	if (s->size)
		s->buf[seqbuf_used(s)] = 0;
}

/* Copies n <= 16 bytes with two overlapping moves (byte by byte below
 * four): the pieces of a decoded line are short, and a call of memcpy
 * for each cost more than the copy. */
static __always_inline void seqbuf_copy_short(char *d, const char *p,
					      size_t n)
{
	uint64_t a, b;
	uint32_t x, y;

	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, p, 4);
		memcpy(&y, p + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = p[i];
	}
}

/* Appends the n bytes at p (what fits of them). */
static __always_inline void seqbuf_write(struct seqbuf *s, const char *p,
					 size_t n)
{
	size_t k;

	/* the usual case: all of it fits (no sum: len may be saturated) */
	if (likely(s->len < s->size && n < s->size - s->len)) {
		if (n <= 16)
			seqbuf_copy_short(s->buf + s->len, p, n);
		else
			memcpy(s->buf + s->len, p, n);
		s->len += n;
		s->buf[s->len] = 0;
		return;
	}
	k = MIN(n, seqbuf_room(s));
	if (k)		/* buf may be NULL when size is 0 */
		memcpy(s->buf + seqbuf_used(s), p, k);
	seqbuf_commit(s, n);
}

static __always_inline void seqbuf_putc(struct seqbuf *s, char c)
{
	seqbuf_write(s, &c, 1);
}

static __always_inline void seqbuf_puts(struct seqbuf *s, const char *str)
{
	seqbuf_write(s, str, strlen(str));
}

/* Where a (buf, size) writer with snprintf's rules writes next into s:
 * sets *dst and returns the size it may use, the NUL included (0 only when
 * s holds nothing at all). Follow with seqbuf_commit(s, what it needed). */
size_t seqbuf_get_buf(struct seqbuf *s, char **dst);
/* Appends fmt's output (printfmt.h), what fits of it. */
void seqbuf_printf(struct seqbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void seqbuf_vprintf(struct seqbuf *s, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Whether each byte of w is printable ASCII, 0x20..0x7e: none is below
 * 0x20 and none above 0x7e (each test exact on whether any byte is). */
static __always_inline bool seqbuf_word_printable(uint64_t w)
{
	const uint64_t ones = ~0ULL / 0xff, highs = ones << 7;
	uint64_t below = (w - 0x20 * ones) & ~w & highs;
	uint64_t above = ((w + (0x7f - 0x7e) * ones) | w) & highs;

	return !(below | above);
}

void seqbuf_printable_slow(struct seqbuf *s, const char *p, size_t n);

/* seqbuf_printable(), and with fits true for a caller that knows the n
 * bytes fit: then the inline case neither checks the room nor ends the
 * held text (the caller ends it). */
static __always_inline void seqbuf_printable_in(struct seqbuf *s,
						const char *p, size_t n,
						bool fits)
{
	char *d = s->buf + s->len;
	uint64_t a, b;
	uint32_t x, y;

	if (n < 4 || n > 16 ||
	    (!fits && (s->len >= s->size || n >= s->size - s->len))) {
		seqbuf_printable_slow(s, p, n);
		return;
	}
	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
	} else {
		memcpy(&x, p, 4);
		memcpy(&y, p + n - 4, 4);
		a = b = x | (uint64_t)y << 32;
	}
	if (!seqbuf_word_printable(a) || !seqbuf_word_printable(b)) {
		seqbuf_printable_slow(s, p, n);
		return;
	}
	if (n >= 8) {
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else {
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	}
	s->len += n;
	if (!fits)
		s->buf[s->len] = 0;
}

/* Appends the n bytes at p with each one that is not printable ASCII as
 * '?'. Inline for 4 to 16 printable bytes that fit (the decoder's names,
 * two per line), by two overlapping words; the rest out of line. */
static __always_inline void seqbuf_printable(struct seqbuf *s, const char *p,
					     size_t n)
{
	seqbuf_printable_in(s, p, n, false);
}

/* When s overflowed, makes its held text end with SEQBUF_CUT (as much of
 * it as fits when s holds fewer bytes), so a reader sees the cut. */
void seqbuf_mark_cut(struct seqbuf *s);

#endif /* SEQBUF_H */
