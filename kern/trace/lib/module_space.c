/*
 * module_space.c: first-fit allocation of page runs over a bitmap (rules
 * in module_space.h). A word of 64 free or 64 taken pages is passed in one
 * step, so a search costs about pages / 64 steps when the space is mostly
 * free or mostly full. Every bound is compared in pages, so nothing wraps.
 */
#include <module_space.h>

static bool taken(const struct module_space *s, size_t p)
{
	return s->used[p / 64] >> (p % 64) & 1;
}

/* The length of the free run at page p, counting no further than n. */
static size_t free_run(const struct module_space *s, size_t p, size_t n)
{
	size_t k = 0;

	while (k < n && p + k < s->pages) {
		size_t q = p + k;

		if (q % 64 == 0 && n - k >= 64 && s->pages - q >= 64 &&
		    !s->used[q / 64])
			k += 64;
		else if (!taken(s, q))
			k++;
		else
			break;
	}
	return k;
}

static void mark(struct module_space *s, size_t first, size_t n, bool take)
{
	for (size_t p = first; p < first + n; p++) {
		uint64_t bit = 1ull << (p % 64);

		s->used[p / 64] = take ? s->used[p / 64] | bit :
			s->used[p / 64] & ~bit;
	}
}

/* Takes the lowest run of n free pages; returns its first page, or -1
 * when there is none (or n is 0). */
long module_space_alloc(struct module_space *s, size_t n)
{
	size_t p = 0;

	if (!n || n > s->pages)
		return -1;
	while (p <= s->pages - n) {
		size_t k;

		if (p % 64 == 0 && s->used[p / 64] == ~0ull) {
			p += 64;
			continue;
		}
		k = free_run(s, p, n);
		if (k == n) {
			mark(s, p, n, true);
			return (long)p;
		}
		p += k + 1;	/* page p + k is taken */
	}
	return -1;
}

/* Gives back pages first .. first + n - 1, taken by module_space_alloc(). */
void module_space_free(struct module_space *s, size_t first, size_t n)
{
	mark(s, first, n, false);
}
