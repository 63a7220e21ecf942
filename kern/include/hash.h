/*
 * Hashes for the kernel's hash tables (wait queues, pids, /tmp names):
 * multiplicative (Fibonacci) hashing of a word, FNV-1a for strings. Each
 * returns bits bits, for a table of 1 << bits buckets.
 *
 *	struct list *bucket = &table[hash_ptr(chan, 8)];
 */
#ifndef HASH_H
#define HASH_H

#include <stdint.h>

#define HASH_GOLDEN	0x9e3779b97f4a7c15ull

/* bits (1..63) bits of word x. */
static inline uint32_t hash_word(uint64_t x, unsigned bits)
{
	return (uint32_t)((x * HASH_GOLDEN) >> (64 - bits));
}

static inline uint32_t hash_ptr(const void *p, unsigned bits)
{
	return hash_word((uintptr_t)p, bits);
}

/* bits bits of the NUL-terminated s mixed with seed. */
static inline uint32_t hash_str(const char *s, uint64_t seed, unsigned bits)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return hash_word(h, bits);
}

#endif /* HASH_H */
