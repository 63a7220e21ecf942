/*
 * Binary-buddy page-frame allocator (see buddy.h for the contract).
 *
 * Each page of the span has a small `struct buddy_page` in the caller's
 * metadata array. Only the first page of a block (its head) says anything:
 * FREE or ALLOC plus the block's order. The other pages of a block are TAIL;
 * pages never added are RESERVED. Keeping TAIL apart from RESERVED is what
 * lets buddy_add_free_range() skip pages it already owns.
 *
 * Free blocks of each order sit on a doubly linked list threaded through
 * the heads' metadata by 32-bit page index (half the size of pointers).
 * A bitmask of non-empty lists makes allocation one count-trailing-zeros
 * away from the right list. Freeing merges with the buddy (pfn ^ 2^order)
 * while that buddy is a free block of the same order, so the free lists are
 * always fully coalesced; buddy_check() verifies that and everything else.
 *
 * Double and mismatched frees are caught because a free must name a page
 * whose head state is ALLOC with exactly the given order; tails, free
 * blocks and reserved pages are all rejected. No locks: callers serialise.
 */
#include <buddy.h>
#include <compiler.h>

#define NO_PAGE		UINT32_MAX

enum buddy_state {
	PAGE_RESERVED,	/* never added: not ours to hand out */
	PAGE_TAIL,	/* inside a block, not its first page */
	PAGE_FREE,	/* head of a free block, on free_head[order] */
	PAGE_ALLOC,	/* head of an allocated block */
};

struct buddy_page {
	uint32_t next;		/* free-list links, valid only when FREE */
	uint32_t prev;
	uint8_t state;		/* enum buddy_state */
	uint8_t order;		/* valid only when FREE or ALLOC */
};

static_assert(BUDDY_NR_ORDERS <= 32, "nonempty mask is 32 bits");

static uint64_t order_pages(unsigned order)
{
	return (uint64_t)1 << order;
}

static bool in_span(const struct buddy *b, uint64_t pfn)
{
	return pfn >= b->base_pfn && pfn - b->base_pfn < b->npages;
}

static struct buddy_page *page_at(const struct buddy *b, uint32_t idx)
{
	return &b->pages[idx];
}

/* Makes page idx the head of a free block of this order, at the list head. */
static void list_push(struct buddy *b, uint32_t idx, unsigned order)
{
	struct buddy_page *p = page_at(b, idx);
	uint32_t head = b->free_head[order];

	p->state = PAGE_FREE;
	p->order = order;
	p->prev = NO_PAGE;
	p->next = head;
	if (head != NO_PAGE)
		page_at(b, head)->prev = idx;
	b->free_head[order] = idx;
	b->nonempty |= 1u << order;
}

/* Unlinks free block idx from its list; the caller then rewrites its state. */
static void list_remove(struct buddy *b, uint32_t idx, unsigned order)
{
	struct buddy_page *p = page_at(b, idx);

	if (p->prev != NO_PAGE)
		page_at(b, p->prev)->next = p->next;
	else
		b->free_head[order] = p->next;
	if (p->next != NO_PAGE)
		page_at(b, p->next)->prev = p->prev;
	if (b->free_head[order] == NO_PAGE)
		b->nonempty &= ~(1u << order);
}

/*
 * Puts the block at pfn on the free lists, merging it with its buddy for as
 * long as the buddy is a whole free block of the same order. The block's
 * pages other than the head must already be TAIL; nr_free is the caller's.
 */
static void release_block(struct buddy *b, uint64_t pfn, unsigned order)
{
	while (order < BUDDY_MAX_ORDER) {
		uint64_t mate = pfn ^ order_pages(order);
		struct buddy_page *mp;

		if (!in_span(b, mate))
			break;
		mp = page_at(b, mate - b->base_pfn);
		if (mp->state != PAGE_FREE || mp->order != order)
			break;
		list_remove(b, mate - b->base_pfn, order);
		page_at(b, MAX(pfn, mate) - b->base_pfn)->state = PAGE_TAIL;
		pfn = MIN(pfn, mate);
		order++;
	}
	list_push(b, pfn - b->base_pfn, order);
}

/* Returns the number of metadata bytes buddy_init() needs for npages. */
size_t buddy_meta_size(size_t npages)
{
	return MIN(npages, BUDDY_MAX_PAGES) * sizeof(struct buddy_page);
}

/*
 * Sets up b to manage pfns [base_pfn, base_pfn + npages), all reserved.
 * meta must hold buddy_meta_size(npages) bytes, 4-byte aligned, and stay
 * alive as long as b. Spans beyond BUDDY_MAX_PAGES are cut to that size.
 */
void buddy_init(struct buddy *b, uint64_t base_pfn, size_t npages, void *meta)
{
	b->base_pfn = base_pfn;
	b->npages = MIN(npages, BUDDY_MAX_PAGES);
	b->pages = meta;
	for (size_t i = 0; i < b->npages; i++)
		b->pages[i] = (struct buddy_page){ NO_PAGE, NO_PAGE,
						   PAGE_RESERVED, 0 };
	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++)
		b->free_head[k] = NO_PAGE;
	b->nonempty = 0;
	b->nr_free = 0;
}

/* Largest order of a block starting at pfn that fits in n pages. */
static unsigned fit_order(uint64_t pfn, uint64_t n)
{
	unsigned order = 0;

	while (order < BUDDY_MAX_ORDER && !(pfn & order_pages(order)) &&
	       order_pages(order + 1) <= n)
		order++;
	return order;
}

/* Frees [pfn, end), all RESERVED until now, as maximal aligned blocks. */
static void add_run(struct buddy *b, uint64_t pfn, uint64_t end)
{
	while (pfn < end) {
		unsigned order = fit_order(pfn, end - pfn);
		uint64_t idx = pfn - b->base_pfn;

		for (uint64_t i = 1; i < order_pages(order); i++)
			page_at(b, idx + i)->state = PAGE_TAIL;
		b->nr_free += order_pages(order);
		release_block(b, pfn, order);
		pfn += order_pages(order);
	}
}

static bool is_reserved(const struct buddy *b, uint64_t pfn)
{
	return page_at(b, pfn - b->base_pfn)->state == PAGE_RESERVED;
}

/*
 * Hands the usable pfns [start_pfn, end_pfn) to the allocator. Parts outside
 * the span are ignored, as are pages added before, so overlapping calls are
 * harmless. May be called any number of times, also after allocations.
 * Caller serialises all calls on b.
 */
void buddy_add_free_range(struct buddy *b, uint64_t start_pfn,
			  uint64_t end_pfn)
{
	uint64_t pfn = MAX(start_pfn, b->base_pfn);
	uint64_t end = MIN(end_pfn, b->base_pfn + b->npages);

	while (pfn < end) {
		uint64_t run_end = pfn;

		while (run_end < end && is_reserved(b, run_end))
			run_end++;
		if (run_end == pfn) {
			pfn++;
			continue;
		}
		add_run(b, pfn, run_end);
		pfn = run_end;
	}
}

/*
 * Allocates 2^order contiguous pages aligned to 2^order pfns, splitting the
 * smallest free block that is large enough. Returns the first pfn, or -1
 * when order > BUDDY_MAX_ORDER or no block is free. Caller serialises.
 */
int64_t buddy_alloc(struct buddy *b, unsigned order)
{
	uint32_t avail;
	unsigned k;
	uint32_t idx;

	if (order > BUDDY_MAX_ORDER)
		return -1;
	avail = b->nonempty & ~((1u << order) - 1);
	if (!avail)
		return -1;
	k = __builtin_ctz(avail);
	idx = b->free_head[k];
	list_remove(b, idx, k);
	while (k > order) {
		k--;
		list_push(b, idx + order_pages(k), k);
	}
	page_at(b, idx)->state = PAGE_ALLOC;
	page_at(b, idx)->order = order;
	b->nr_free -= order_pages(order);
	return (int64_t)(b->base_pfn + idx);
}

/*
 * Frees the block of 2^order pages at pfn, which buddy_alloc() returned for
 * the same order, and coalesces it with free neighbours. Returns 0, or -1
 * with nothing changed if pfn is outside the span, not the head of an
 * allocated block, or was allocated with a different order (this also
 * catches double frees and frees of never-added pages). Caller serialises.
 */
int buddy_free(struct buddy *b, uint64_t pfn, unsigned order)
{
	struct buddy_page *p;

	if (order > BUDDY_MAX_ORDER || !in_span(b, pfn))
		return -1;
	p = page_at(b, pfn - b->base_pfn);
	/* An ALLOC head of the right order is aligned by construction. */
	if (p->state != PAGE_ALLOC || p->order != order)
		return -1;
	b->nr_free += order_pages(order);
	release_block(b, pfn, order);
	return 0;
}

/* Returns the number of free pages over all orders (a snapshot unless the
 * caller holds its lock). */
size_t buddy_nr_free(const struct buddy *b)
{
	return b->nr_free;
}

/*
 * Walks the span: every head must be aligned and fit, be followed by exactly
 * its TAIL pages, and a free head must not have a free buddy of its order.
 * Returns the number of free pages seen, or -1 if the layout is broken.
 */
static int64_t check_layout(const struct buddy *b)
{
	int64_t nfree = 0;
	uint64_t i = 0;

	while (i < b->npages) {
		const struct buddy_page *p = page_at(b, i);
		uint64_t size, mate;

		if (p->state == PAGE_RESERVED) {
			i++;
			continue;
		}
		if (p->state == PAGE_TAIL || p->order > BUDDY_MAX_ORDER)
			return -1;
		size = order_pages(p->order);
		if (((b->base_pfn + i) & (size - 1)) || i + size > b->npages)
			return -1;
		for (uint64_t j = 1; j < size; j++)
			if (page_at(b, i + j)->state != PAGE_TAIL)
				return -1;
		mate = (b->base_pfn + i) ^ size;
		if (p->state == PAGE_FREE && p->order < BUDDY_MAX_ORDER &&
		    in_span(b, mate) &&
		    page_at(b, mate - b->base_pfn)->state == PAGE_FREE &&
		    page_at(b, mate - b->base_pfn)->order == p->order)
			return -1;
		if (p->state == PAGE_FREE)
			nfree += size;
		i += size;
	}
	return nfree;
}

/*
 * Walks the free list of one order: well-linked, bounded, FREE heads of that
 * order only. Returns the pages on it, or -1.
 */
static int64_t check_list(const struct buddy *b, unsigned order)
{
	uint32_t prev = NO_PAGE, idx = b->free_head[order];
	uint64_t nblocks = 0;

	if ((idx != NO_PAGE) != !!(b->nonempty & (1u << order)))
		return -1;
	for (; idx != NO_PAGE; prev = idx, idx = page_at(b, idx)->next) {
		const struct buddy_page *p;

		if (idx >= b->npages || ++nblocks > b->npages)
			return -1;
		p = page_at(b, idx);
		if (p->state != PAGE_FREE || p->order != order ||
		    p->prev != prev)
			return -1;
	}
	return nblocks * order_pages(order);
}

/*
 * Verifies every invariant of b in O(npages): block layout, full
 * coalescing, free-list links and the free-page count. Returns 0 if b is
 * consistent, -1 otherwise. Meant for tests and debug self-checks; the
 * caller keeps b still while it runs.
 */
int buddy_check(const struct buddy *b)
{
	int64_t in_layout = check_layout(b), in_lists = 0;

	if (in_layout < 0)
		return -1;
	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++) {
		int64_t n = check_list(b, k);

		if (n < 0)
			return -1;
		in_lists += n;
	}
	if (in_lists != in_layout || (uint64_t)in_layout != b->nr_free)
		return -1;
	return 0;
}
