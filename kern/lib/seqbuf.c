/*
 * seqbuf: the bounded text buffer (seqbuf.h). The appends that are one
 * short copy live in the header, inline, for the decoder's line format;
 * here are those that format, filter or rewrite. Each writes at most
 * seqbuf_room() bytes and the NUL after them, and counts all it was
 * given, so a producer never computes an offset into the buffer itself.
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

size_t seqbuf_get_buf(struct seqbuf *s, char **dst)
{
	*dst = s->buf + seqbuf_used(s);
	return s->size ? s->size - seqbuf_used(s) : 0;
}

void seqbuf_vprintf(struct seqbuf *s, const char *fmt, va_list ap)
{
	char *dst;
	size_t room = seqbuf_get_buf(s, &dst);
	int n = fmt_vsnprintf(dst, room, fmt, ap);

	seqbuf_commit(s, n >= 0 ? (size_t)n : SIZE_MAX);	/* -1: too long */
}

void seqbuf_printf(struct seqbuf *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	seqbuf_vprintf(s, fmt, ap);
	va_end(ap);
}

/* Copies the k bytes at p to d when all are printable, a word at a time
 * (the last word, or two halves below 8 bytes, overlapping what is
 * before); returns false, with d partly written, when one is not. */
static bool copy_printable(char *d, const char *p, size_t k)
{
	uint64_t w;
	uint32_t x, y;
	size_t i = 0;

	if (k < 4)
		return false;
	if (k < 8) {
		memcpy(&x, p, 4);
		memcpy(&y, p + k - 4, 4);
		if (!seqbuf_word_printable(x | (uint64_t)y << 32))
			return false;
		memcpy(d, &x, 4);
		memcpy(d + k - 4, &y, 4);
		return true;
	}
	for (;; i += 8) {
		if (i + 8 > k)
			i = k - 8;	/* the last word */
		memcpy(&w, p + i, 8);
		if (!seqbuf_word_printable(w))
			return false;
		memcpy(d + i, &w, 8);
		if (i + 8 == k)
			return true;
	}
}

/* seqbuf_printable() past its inline case. */
void seqbuf_printable_slow(struct seqbuf *s, const char *p, size_t n)
{
	char *d = s->buf + seqbuf_used(s);
	size_t k = MIN(n, seqbuf_room(s));

	if (!copy_printable(d, p, k))	/* names mostly are */
		for (size_t i = 0; i < k; i++)
			d[i] = p[i] >= 0x20 && p[i] <= 0x7e ? p[i] : '?';
	seqbuf_commit(s, n);
}

void seqbuf_mark_cut(struct seqbuf *s)
{
	size_t used = seqbuf_used(s);
	size_t k = MIN(used, sizeof(SEQBUF_CUT) - 1);

	if (seqbuf_overflowed(s) && k)	/* the mark's start if it is longer */
		memcpy(s->buf + used - k, SEQBUF_CUT, k);
}
