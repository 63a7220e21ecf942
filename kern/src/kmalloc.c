/*
 * kmalloc (see kmalloc.h). Each block carries a header holding its order:
 * size classes are 2^4..2^11 bytes including the header; anything larger
 * takes whole pages (the header records the page order instead). Freed
 * small blocks go on a per-class free list; pages are never given back
 * from a class, which keeps kfree O(1) and is fine for a kernel's steady
 * working set.
 *
 * CONFIG_KMEM_DEBUG (docs/debug.md), as Linux's SLUB debug and KFENCE:
 *   - the header grows to 48 bytes (size asked for, allocating caller, a
 *     16-byte redzone just before the block) and every small block has at
 *     least 16 redzone bytes after it, up to its class size;
 *   - kfree checks both redzones, and kmem_debug_scan() (each CPU's timer
 *     every 10 ms) checks a few slab pages' every block, live or free, so an
 *     overrun of a block nobody frees is found too;
 *   - a freed block is filled with POISON_BYTE, its header kept (marked
 *     free, with the freeing caller); kmalloc checks the poison before it
 *     hands the block out again: a write after free is found there;
 *   - page-size blocks end at the end of their last page, in the page
 *     allocator's guarded window (pmem_get_guarded): the page after is
 *     unmapped, so an overrun past the rounding faults at once.
 * A finding panics, naming the block's size and allocating caller. All
 * header and redzone writes happen under kmalloc_lock, so the scan never
 * sees a block half set up.
 */
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <printk.h>
#include <ksyms.h>
#include <sched.h>
#include <smp.h>
#include <timer.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#define MIN_SHIFT	4
#define MAX_SHIFT	11
#define NCLASSES	(MAX_SHIFT - MIN_SHIFT + 1)
#define KMALLOC_MAGIC	0x6b6d616cu
#define PAGE_CLASS	0x80u		/* header flag: a page allocation */

struct kmalloc_hdr {
	uint32_t magic;
	uint32_t order;		/* size class shift, or page order|PAGE_CLASS */
#ifdef CONFIG_KMEM_DEBUG
	uint32_t size;		/* bytes asked for */
	uint32_t pad;
	uintptr_t caller;	/* who allocated it */
	uintptr_t free_caller;	/* who freed it, while free */
	struct kmalloc_hdr *next_free;	/* the free list's link */
	uint8_t redzone[8];	/* REDZONE_BYTE: catches underruns */
#else
	uint64_t pad;
#endif
};

static_assert(sizeof(struct kmalloc_hdr) % 16 == 0, "blocks 16-aligned");

static struct spinlock kmalloc_lock = SPINLOCK_INIT("kmalloc");
static struct kmalloc_hdr *free_lists[NCLASSES];

/* Where a free block keeps its free list's link. */
static struct kmalloc_hdr **free_link(struct kmalloc_hdr *h)
{
#ifdef CONFIG_KMEM_DEBUG
	return &h->next_free;		/* the header stays readable */
#else
	return (struct kmalloc_hdr **)h;	/* over magic and order */
#endif
}

static unsigned class_shift(size_t total)
{
	unsigned s = MIN_SHIFT;

	while (((size_t)1 << s) < total)
		s++;
	return s;
}

#ifdef CONFIG_KMEM_DEBUG
#define KMEM_TAIL_MIN	16		/* redzone bytes at least after a block */
#define KFREE_MAGIC	0x6b667265u	/* a free block's header */
#define REDZONE_BYTE	0xcc
#define POISON_BYTE	0x6b
#define SCAN_PAGES	4		/* slab pages checked per timer tick */

/* The slab pages, for the scan: page-sized chunks of (page, class). */
struct slab_index {
	struct slab_index *next;
	uint64_t n;
	struct {
		char *page;
		uint64_t class;
	} ent[(PGSIZE - 16) / 16];
};

static_assert(sizeof(struct slab_index) <= PGSIZE, "a page");

static struct slab_index *slab_first, *slab_last;	/* kmalloc_lock */
static struct slab_index *scan_chunk;			/* kmalloc_lock */
static uint64_t scan_next;

static uint8_t *block_obj(struct kmalloc_hdr *h)
{
	return (uint8_t *)(h + 1);
}

/* The end of the redzone after the block: its class size, or for a page
 * block the size rounded to 16 (the block ends there, on its last page's
 * end). */
static uint8_t *block_end(struct kmalloc_hdr *h)
{
	if (h->order & PAGE_CLASS)
		return block_obj(h) + ROUNDUP(h->size, 16);
	return (uint8_t *)h + ((size_t)1 << h->order);
}

/* A page block's first page: the bytes before its header are redzone. */
static uint8_t *page_base(struct kmalloc_hdr *h)
{
	return block_end(h) - ((size_t)PGSIZE << (h->order & ~PAGE_CLASS));
}

static void print_caller(const char *what, uintptr_t pc)
{
	uintptr_t off = 0;
	const char *name = ksym_lookup(pc, &off);

	printk(KERN_EMERG "  %s %s+%#lx (%#lx)\n", what, name ? name : "?",
	       off, pc);
}

/*
 * Reports what was found wrong with block h (bad: the first wrong byte, or
 * NULL) and panics; found_by names the check. The panic line names the
 * size and the allocating caller, the test harness's failure text.
 */
static __noreturn void report(struct kmalloc_hdr *h, const char *what,
			      const uint8_t *bad, const char *found_by)
{
	uintptr_t off = 0;
	const char *name = ksym_lookup(h->caller, &off);

	printk(KERN_EMERG "kmem: %s: %u-byte block at %p, found by %s\n", what,
	       h->size, block_obj(h), found_by);
	if (bad)
		printk(KERN_EMERG "  byte at offset %ld is %#x\n",
		       (long)(bad - block_obj(h)), *bad);
	print_caller("allocated by", h->caller);
	if (h->magic == KFREE_MAGIC)
		print_caller("freed by", h->free_caller);
	panic("kmem: %s in a %u-byte block allocated by %s+%#lx, found by %s",
	      what, h->size, name ? name : "?", off, found_by);
}

/* Checks a live block's redzones; panics on a written one. */
static void check_live(struct kmalloc_hdr *h, const char *found_by)
{
	const uint8_t *bad = memchr_inv(h->redzone, REDZONE_BYTE,
				      sizeof(h->redzone));

	if (!bad && (h->order & PAGE_CLASS))
		bad = memchr_inv(page_base(h), REDZONE_BYTE,
			       (uint8_t *)h - page_base(h));
	if (!bad)
		bad = memchr_inv(block_obj(h) + h->size, REDZONE_BYTE,
			       block_end(h) - block_obj(h) - h->size);
	if (bad)
		report(h, bad < block_obj(h) ? "redzone before the block "
		       "overwritten" : "redzone overwritten", bad, found_by);
}

/* Checks a free block's poison; panics on a written one. */
static void check_free(struct kmalloc_hdr *h, const char *found_by)
{
	const uint8_t *bad = memchr_inv(block_obj(h), POISON_BYTE,
				      block_end(h) - block_obj(h));

	if (bad)
		report(h, "write after free", bad, found_by);
}

/* Poisons free block h, freed by caller. kmalloc_lock held. */
static void make_free(struct kmalloc_hdr *h, uintptr_t caller)
{
	h->magic = KFREE_MAGIC;
	h->free_caller = caller;
	memset(block_obj(h), POISON_BYTE, block_end(h) - block_obj(h));
}

/* Records a new slab page for the scan and poisons its blocks, each with
 * a free header. kmalloc_lock held. A page the index has no room for
 * (no page for a new chunk) is still checked on kmalloc and kfree. */
static void debug_new_page(char *page, unsigned c)
{
	size_t bsize = (size_t)1 << (c + MIN_SHIFT);

	if ((!slab_last || slab_last->n == ARRAY_SIZE(slab_last->ent))) {
		struct slab_index *x = get_cont_pages(0, MEM_ZERO);

		if (x && slab_last)
			slab_last->next = x;
		else if (x)
			slab_first = x;
		if (x)
			slab_last = x;
	}
	if (slab_last && slab_last->n < ARRAY_SIZE(slab_last->ent)) {
		slab_last->ent[slab_last->n].page = page;
		slab_last->ent[slab_last->n++].class = c;
	}
	for (size_t off = 0; off < PGSIZE; off += bsize) {
		struct kmalloc_hdr *h = (struct kmalloc_hdr *)(page + off);

		*h = (struct kmalloc_hdr){ .order = c + MIN_SHIFT };
		memset(h->redzone, REDZONE_BYTE, sizeof(h->redzone));
		make_free(h, 0);
	}
}

/* Checks free block h before kmalloc hands it to caller for size bytes, and sets up its redzones. kmalloc_lock held. */
static void debug_alloc(struct kmalloc_hdr *h, size_t size, uintptr_t caller)
{
	if (h->magic != KFREE_MAGIC || h->order !=
	    class_shift(size + sizeof(*h) + KMEM_TAIL_MIN))
		report(h, "free block's header overwritten", NULL, "kmalloc");
	check_free(h, "kmalloc");
	h->size = size;
	h->caller = caller;
	h->free_caller = 0;
	memset(block_obj(h) + size, REDZONE_BYTE,
	       block_end(h) - block_obj(h) - size);
}

/* Checks block h's redzones as caller frees it, and poisons it.
 * kmalloc_lock held. */
static void debug_free(struct kmalloc_hdr *h, uintptr_t caller)
{
	check_live(h, "kfree");
	make_free(h, caller);
}

/* kfree of a block whose header is not a live one's. */
static __noreturn void bad_free(struct kmalloc_hdr *h, uintptr_t caller)
{
	if (h->magic == KFREE_MAGIC) {
		print_caller("freed again by", caller);
		report(h, "double free", NULL, "kfree");
	}
	panic("kfree(%p): bad block (magic %x)", h + 1, h->magic);
}

/* A page block of size bytes for caller, ending where its last page ends,
 * between guard pages; the bytes around it are redzone. */
static void *alloc_pages(size_t size, uintptr_t caller)
{
	size_t span = ROUNDUP(size, 16) + sizeof(struct kmalloc_hdr);
	unsigned order = 0;

	while (((size_t)PGSIZE << order) < span)
		order++;
	uint8_t *base = pmem_get_guarded(order);
	if (!base)
		return NULL;
	uint8_t *end = base + ((size_t)PGSIZE << order);
	struct kmalloc_hdr *h = (struct kmalloc_hdr *)(end - span);

	memset(base, REDZONE_BYTE, (uint8_t *)h - base);
	*h = (struct kmalloc_hdr){ .magic = KMALLOC_MAGIC,
				   .order = order | PAGE_CLASS,
				   .size = size, .caller = caller };
	memset(h->redzone, REDZONE_BYTE, sizeof(h->redzone));
	memset(block_obj(h) + size, REDZONE_BYTE, end - block_obj(h) - size);
	return h + 1;
}

static void free_pages(struct kmalloc_hdr *h, uintptr_t caller)
{
	(void)caller;
	check_live(h, "kfree");
	h->magic = 0;
	free_cont_pages(page_base(h), h->order & ~PAGE_CLASS);
}

/* Checks every block of one slab page of class c. kmalloc_lock held. */
static void scan_page(char *page, unsigned c)
{
	size_t bsize = (size_t)1 << (c + MIN_SHIFT);

	for (size_t off = 0; off < PGSIZE; off += bsize) {
		struct kmalloc_hdr *h = (struct kmalloc_hdr *)(page + off);

		if (h->magic == KMALLOC_MAGIC && h->order == c + MIN_SHIFT)
			check_live(h, "the scan");
		else if (h->magic == KFREE_MAGIC && h->order == c + MIN_SHIFT)
			check_free(h, "the scan");
		else
			report(h, "block header overwritten", NULL, "the scan");
	}
}

/*
 * Checks the next SCAN_PAGES slab pages, every block on them, going round
 * all of them in turn: an overrun of a block nobody frees, or a write to a
 * free block nobody takes, is found within (slab pages / SCAN_PAGES)
 * scans of any CPU. Timer interrupt, any CPU.
 */
static void kmem_debug_scan(void)
{
	uint64_t flags = spin_lock_irqsave(&kmalloc_lock);

	for (int n = 0; n < SCAN_PAGES && slab_first; n++) {
		if (!scan_chunk || scan_next >= scan_chunk->n) {
			scan_chunk = scan_chunk && scan_chunk->next ?
				scan_chunk->next : slab_first;
			scan_next = 0;
		}
		if (scan_next < scan_chunk->n) {
			scan_page(scan_chunk->ent[scan_next].page,
				  scan_chunk->ent[scan_next].class);
			scan_next++;
		}
	}
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}

#define SCAN_NS		10000000u	/* 10 ms between a CPU's scans */

static struct ktimer scan_timers[CONFIG_MAX_NUM_CPUS];

static uint64_t scan_timer_fired(struct ktimer *t, uint64_t now)
{
	(void)t;
	kmem_debug_scan();
	return now + ns_to_tsc(SCAN_NS);
}

/* Starts the calling CPU's scans, every SCAN_NS while it runs anything
 * (deferrable: a halted CPU keeps no tick for it). Interrupts off. */
void kmem_debug_start_cpu(void)
{
	struct ktimer *t = &scan_timers[core_id()];

	t->fn = scan_timer_fired;
	t->deferrable = true;
	ktimer_add(t, arch_read_tsc() + ns_to_tsc(SCAN_NS));
	sched_timer_changed();
}
#else
#define KMEM_TAIL_MIN	0

static void debug_new_page(char *page, unsigned c)
{
	(void)page;
	(void)c;
}

static void debug_alloc(struct kmalloc_hdr *h, size_t size, uintptr_t caller)
{
	(void)h;
	(void)size;
	(void)caller;
}

static void debug_free(struct kmalloc_hdr *h, uintptr_t caller)
{
	(void)h;
	(void)caller;
}

static __noreturn void bad_free(struct kmalloc_hdr *h, uintptr_t caller)
{
	(void)caller;
	panic("kfree(%p): bad block (magic %x)", h + 1, h->magic);
}

static void *alloc_pages(size_t size, uintptr_t caller)
{
	size_t total = size + sizeof(struct kmalloc_hdr);
	unsigned order = 0;

	(void)caller;
	while (((size_t)PGSIZE << order) < total)
		order++;
	struct kmalloc_hdr *h = get_cont_pages(order, 0);
	if (!h)
		return NULL;
	h->magic = KMALLOC_MAGIC;
	h->order = order | PAGE_CLASS;
	return h + 1;
}

static void free_pages(struct kmalloc_hdr *h, uintptr_t caller)
{
	(void)caller;
	h->magic = 0;
	free_cont_pages(h, h->order & ~PAGE_CLASS);
}
#endif /* CONFIG_KMEM_DEBUG */

/* Splits a fresh page into blocks of class c. kmalloc_lock held. */
static bool refill(unsigned c)
{
	char *page = get_cont_pages(0, 0);
	size_t bsize = (size_t)1 << (c + MIN_SHIFT);

	if (!page)
		return false;
	debug_new_page(page, c);
	for (size_t off = 0; off < PGSIZE; off += bsize) {
		struct kmalloc_hdr *b = (struct kmalloc_hdr *)(page + off);

		*free_link(b) = free_lists[c];
		free_lists[c] = b;
	}
	return true;
}

/* kmalloc for caller: size bytes of uninitialised memory, or NULL. */
static __always_inline void *alloc(size_t size, uintptr_t caller)
{
	size_t total = size + sizeof(struct kmalloc_hdr) + KMEM_TAIL_MIN;

	if (total > ((size_t)1 << MAX_SHIFT))
		return alloc_pages(size, caller);
	unsigned c = class_shift(total) - MIN_SHIFT;
	uint64_t flags = spin_lock_irqsave(&kmalloc_lock);
	if (!free_lists[c] && !refill(c)) {
		spin_unlock_irqrestore(&kmalloc_lock, flags);
		return NULL;
	}
	struct kmalloc_hdr *h = free_lists[c];
	free_lists[c] = *free_link(h);
	debug_alloc(h, size, caller);
	h->magic = KMALLOC_MAGIC;
	h->order = c + MIN_SHIFT;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
	return h + 1;
}

/* Returns size bytes of uninitialised memory, or NULL. */
void *kmalloc(size_t size)
{
	return alloc(size, (uintptr_t)__builtin_return_address(0));
}

void *kzmalloc(size_t size)
{
	void *p = alloc(size, (uintptr_t)__builtin_return_address(0));

	if (p)
		memset(p, 0, size);
	return p;
}

/* Frees a block from kmalloc; NULL is ignored; a corrupt header panics. */
void kfree(void *p)
{
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	if (!p)
		return;
	struct kmalloc_hdr *h = (struct kmalloc_hdr *)p - 1;
	if (h->magic != KMALLOC_MAGIC)
		bad_free(h, caller);
	if (h->order & PAGE_CLASS) {
		free_pages(h, caller);
		return;
	}
	unsigned c = h->order - MIN_SHIFT;
	uint64_t flags = spin_lock_irqsave(&kmalloc_lock);
	h->magic = 0;
	debug_free(h, caller);
	*free_link(h) = free_lists[c];
	free_lists[c] = h;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}
