/*
 * kmalloc (see kmalloc.h). Each block carries a 16-byte header holding its
 * order: size classes are 2^4..2^11 bytes including the header; anything
 * larger takes whole pages (the header records the page order instead).
 * Freed small blocks go on a per-class free list; pages are never given back
 * from a class, which keeps kfree O(1) and is fine for a kernel's steady
 * working set.
 */
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <printk.h>
#include <arch/mmu.h>

#define MIN_SHIFT	4
#define MAX_SHIFT	11
#define NCLASSES	(MAX_SHIFT - MIN_SHIFT + 1)
#define KMALLOC_MAGIC	0x6b6d616cu
#define PAGE_CLASS	0x80u		/* header flag: a page allocation */

struct kmalloc_hdr {
	uint32_t magic;
	uint32_t order;		/* size class shift, or page order|PAGE_CLASS */
	uint64_t pad;
};

struct free_block {
	struct free_block *next;
};

static struct spinlock kmalloc_lock = SPINLOCK_INIT("kmalloc");
static struct free_block *free_lists[NCLASSES];

static unsigned class_shift(size_t total)
{
	unsigned s = MIN_SHIFT;

	while (((size_t)1 << s) < total)
		s++;
	return s;
}

/* Splits a fresh page into blocks of class c. kmalloc_lock held. */
static bool refill(unsigned c)
{
	char *page = get_cont_pages(0, 0);
	size_t bsize = (size_t)1 << (c + MIN_SHIFT);

	if (!page)
		return false;
	for (size_t off = 0; off < PGSIZE; off += bsize) {
		struct free_block *b = (struct free_block *)(page + off);

		b->next = free_lists[c];
		free_lists[c] = b;
	}
	return true;
}

static void *alloc_pages(size_t total)
{
	unsigned order = 0;

	while (((size_t)PGSIZE << order) < total)
		order++;
	struct kmalloc_hdr *h = get_cont_pages(order, 0);
	if (!h)
		return NULL;
	h->magic = KMALLOC_MAGIC;
	h->order = order | PAGE_CLASS;
	return h + 1;
}

/* Returns size bytes of uninitialised memory, or NULL. */
void *kmalloc(size_t size)
{
	size_t total = size + sizeof(struct kmalloc_hdr);

	if (total > ((size_t)1 << MAX_SHIFT))
		return alloc_pages(total);
	unsigned c = class_shift(total) - MIN_SHIFT;
	uint64_t flags = spin_lock_irqsave(&kmalloc_lock);
	if (!free_lists[c] && !refill(c)) {
		spin_unlock_irqrestore(&kmalloc_lock, flags);
		return NULL;
	}
	struct kmalloc_hdr *h = (struct kmalloc_hdr *)free_lists[c];
	free_lists[c] = free_lists[c]->next;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
	h->magic = KMALLOC_MAGIC;
	h->order = c + MIN_SHIFT;
	return h + 1;
}

void *kzmalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* Frees a block from kmalloc; NULL is ignored; a corrupt header panics. */
void kfree(void *p)
{
	if (!p)
		return;
	struct kmalloc_hdr *h = (struct kmalloc_hdr *)p - 1;
	if (h->magic != KMALLOC_MAGIC)
		panic("kfree(%p): bad block (magic %x)", p, h->magic);
	h->magic = 0;
	if (h->order & PAGE_CLASS) {
		free_cont_pages(h, h->order & ~PAGE_CLASS);
		return;
	}
	unsigned c = h->order - MIN_SHIFT;
	struct free_block *b = (struct free_block *)h;
	uint64_t flags = spin_lock_irqsave(&kmalloc_lock);
	b->next = free_lists[c];
	free_lists[c] = b;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}
