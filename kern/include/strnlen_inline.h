/*
 * strnlen_inline: strnlen's body, for the one caller that cannot afford a
 * call (the tracer's aux names, kern/trace/core.c) and for strnlen itself
 * (kern/lib/string.c, which says why it may read whole words).
 */
#ifndef STRNLEN_INLINE_H
#define STRNLEN_INLINE_H

#include <compiler.h>

/* The bytes of a little-endian word that are zero, each as its top bit
 * (exact up to the first zero byte, which is all strnlen needs). */
static __always_inline unsigned long strnlen_zero_bytes(unsigned long w)
{
	const unsigned long ones = ~0UL / 0xff;

	return (w - ones) & ~w & (ones << 7);
}

/*
 * Returns the length of s, but at most maxlen. Byte by byte up to an
 * aligned address, then a word at a time: a word is read only when it
 * holds a byte s[i], i < maxlen, with no terminator before it, so never a
 * word past the one holding the terminator or s[maxlen - 1] (an aligned
 * word never crosses a page, so it cannot fault where that byte does not).
 */
__attribute__((no_sanitize_address))
static __always_inline size_t strnlen_inline(const char *s, size_t maxlen)
{
	typedef unsigned long __attribute__((may_alias)) word;
	const size_t wsize = sizeof(word);
	unsigned long z;
	size_t n = 0;

	for (; (uintptr_t)(s + n) & (wsize - 1); n++)
		if (n == maxlen || !s[n])
			return n;
	/* two words a turn while both hold bytes below maxlen */
	for (; n + wsize < maxlen; n += 2 * wsize) {
		if ((z = strnlen_zero_bytes(*(const word *)(s + n))))
			goto found;
		if ((z = strnlen_zero_bytes(*(const word *)(s + n + wsize)))) {
			n += wsize;
			goto found;
		}
	}
	if (n >= maxlen || !(z = strnlen_zero_bytes(*(const word *)(s + n))))
		return maxlen;
found:
	return MIN(n + (size_t)__builtin_ctzl(z) / 8, maxlen);
}

#endif /* STRNLEN_INLINE_H */
