/*
 * buddy: a binary-buddy allocator of page frames, with no knowledge of what a
 * page is. It hands out page frame numbers (pfns); the caller maps them.
 *
 * One `struct buddy` manages the span [base_pfn, base_pfn + npages). Blocks
 * of order k are 2^k pages aligned to 2^k in *absolute* pfn terms, so an
 * order-9 block is a 2 MiB-aligned 2 MiB run whatever base_pfn is. The
 * caller supplies the per-page metadata array (buddy_meta_size() bytes, 4-byte
 * aligned); nothing is allocated here, so tests build private instances on
 * the host and the kernel places the array in early boot memory.
 *
 * Only pages handed in with buddy_add_free_range() are ever returned; the
 * rest of the span (holes in the firmware memory map, the kernel image, the
 * metadata itself) stays reserved. Every operation except init, add and
 * check is O(BUDDY_MAX_ORDER).
 *
 * There is no lock inside: the caller serialises all calls on one instance.
 *
 *	static struct buddy pm;
 *	buddy_init(&pm, 0, npages, meta);	// meta: buddy_meta_size(npages)
 *	buddy_add_free_range(&pm, 0x100, 0x7fe0); // once per usable range
 *	int64_t pfn = buddy_alloc(&pm, 0);	// -1 when out of memory
 *	if (buddy_free(&pm, pfn, 0) < 0)
 *		panic("bad free");
 */
#ifndef BUDDY_H
#define BUDDY_H

#include <stddef.h>
#include <stdint.h>

/* Largest block order: 2^11 pages, 8 MiB with 4 KiB pages. */
#define BUDDY_MAX_ORDER		11
#define BUDDY_NR_ORDERS		(BUDDY_MAX_ORDER + 1)
/* Metadata links are 32-bit page indices, one value kept as "none". */
#define BUDDY_MAX_PAGES		((size_t)UINT32_MAX - 1)

/* Per-page metadata; defined in buddy.c, callers only size it. */
struct buddy_page;

/* All fields are private to buddy.c; the struct is public only so callers
 * can embed it. */
struct buddy {
	uint64_t base_pfn;
	size_t npages;
	struct buddy_page *pages;
	uint32_t free_head[BUDDY_NR_ORDERS];	/* page index, or none */
	uint32_t nonempty;	/* bit k set iff free_head[k] is a block */
	size_t nr_free;		/* free pages, all orders */
};

size_t buddy_meta_size(size_t npages);
void buddy_init(struct buddy *b, uint64_t base_pfn, size_t npages,
		void *meta);
void buddy_add_free_range(struct buddy *b, uint64_t start_pfn,
			  uint64_t end_pfn);
int64_t buddy_alloc(struct buddy *b, unsigned order);
int buddy_free(struct buddy *b, uint64_t pfn, unsigned order);
size_t buddy_nr_free(const struct buddy *b);
int buddy_check(const struct buddy *b);

#endif /* BUDDY_H */
