/*
 * module_space.h: the probe modules' address space
 * (module_space.c), a fixed run of pages handed out first fit and given
 * back, one bit per page in a bitmap the caller provides. It deals in page
 * numbers only; kern/trace/module.c turns them into addresses, and makes
 * every CPU forget a run's old translations before it frees it for reuse.
 * Pure: host-tested.
 *
 *	static uint64_t used[MODULE_SPACE_WORDS(PAGES)];
 *	struct module_space s = { PAGES, used };
 *	long first = module_space_alloc(&s, n);	// -1: no free run of n
 *	module_space_free(&s, first, n);
 */
#ifndef MODULE_SPACE_H
#define MODULE_SPACE_H

#include <compiler.h>

#define MODULE_SPACE_WORDS(pages)	(((pages) + 63) / 64)

struct module_space {
	size_t pages;		/* pages 0 .. pages - 1 */
	uint64_t *used;		/* bit p of word p / 64: page p is taken */
};

long module_space_alloc(struct module_space *s, size_t n);
void module_space_free(struct module_space *s, size_t first, size_t n);

#endif /* MODULE_SPACE_H */
