/* In-kernel tests of the page allocator and kmalloc. */
#include <ktest.h>
#include <pmem.h>
#include <kmalloc.h>
#include <buddy.h>
#include <string.h>
#include <arch/mmu.h>

/* Allocates blocks of one order until memory runs out, chaining them
 * through their first word; frees them all. Returns the count taken. */
static size_t exhaust_order(unsigned order)
{
	void *head = NULL, *p;
	size_t n = 0;

	while ((p = get_cont_pages(order, 0))) {
		*(void **)p = head;
		head = p;
		n++;
	}
	while (head) {
		p = head;
		head = *(void **)p;
		free_cont_pages(p, order);
	}
	return n;
}

static bool test_pmem_exhaust(void)
{
	size_t start = pmem_nr_free_pages();

	for (unsigned order = 0; order <= BUDDY_MAX_ORDER; order++) {
		size_t n = exhaust_order(order);

		KT_ASSERT(pmem_nr_free_pages() == start,
			  "order %u: %zu free after, %zu before", order,
			  pmem_nr_free_pages(), start);
		KT_ASSERT(order > 0 || n == start,
			  "order 0 gave %zu pages of %zu free", n, start);
		KT_ASSERT(n > 0 || order == BUDDY_MAX_ORDER,
			  "order %u: nothing allocated", order);
	}
	return true;
}
KTEST_REG(pmem_exhaust, test_pmem_exhaust);

static bool test_pmem_contiguous(void)
{
	char *p = get_cont_pages(3, MEM_ZERO);

	KT_ASSERT(p, "no order-3 block");
	/* the buddy aligns physical addresses; a guard window address
	 * (CONFIG_KMEM_DEBUG) is only page-aligned */
	KT_ASSERT((PADDR(p) & (8 * PGSIZE - 1)) == 0, "block %p misaligned", p);
	for (size_t i = 0; i < 8 * PGSIZE; i++)
		KT_ASSERT(p[i] == 0, "MEM_ZERO left byte %zu = %d", i, p[i]);
	memset(p, 0xa5, 8 * PGSIZE);
	free_cont_pages(p, 3);
	return true;
}
KTEST_REG(pmem_contiguous, test_pmem_contiguous);

static bool test_kmalloc(void)
{
	enum { N = 512 };
	static unsigned char *blocks[N];
	size_t free0 = pmem_nr_free_pages();

	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			size_t sz = 1 + (i * 37) % 5000;

			blocks[i] = kmalloc(sz);
			KT_ASSERT(blocks[i], "kmalloc(%zu) failed", sz);
			KT_ASSERT(((uintptr_t)blocks[i] & 15) == 0, "unaligned");
			memset(blocks[i], i & 0xff, sz);
		}
		for (int i = 0; i < N; i++) {
			size_t sz = 1 + (i * 37) % 5000;

			for (size_t j = 0; j < sz; j++)
				KT_ASSERT(blocks[i][j] == (i & 0xff),
					  "block %d byte %zu overwritten", i, j);
			kfree(blocks[i]);
		}
	}
	/* the second round reuses what the first freed */
	size_t free1 = pmem_nr_free_pages();
	for (int i = 0; i < N; i++)
		kfree(kmalloc(1 + (i * 37) % 5000));
	KT_ASSERT(pmem_nr_free_pages() == free1, "kmalloc leaked pages");
	KT_ASSERT(free0 - free1 < 512, "kmalloc kept %zu pages", free0 - free1);
	return true;
}
KTEST_REG(kmalloc, test_kmalloc);

#ifdef CONFIG_KMEM_DEBUG
static bool kernel_mapped(const void *va)
{
	uint64_t *pte = mmu_walk(mmu_kernel_pml4(), (uintptr_t)va, false);

	return pte && (*pte & PTE_P);
}

/* The guard window (pmem.c): a multi-page block and a page-size kmalloc
 * block have unmapped pages on both sides, the block's own pages are
 * mapped to its physical pages (the direct map sees what it writes), and
 * a freed block is unmapped. The overrun itself is boot_tests' kmem_guard. */
static bool test_kmem_guard_pages(void)
{
	char *p = get_cont_pages(1, 0);
	char *q = kmalloc(5000);

	KT_ASSERT(p && q, "no memory");
	KT_ASSERT(kernel_mapped(p) && kernel_mapped(p + PGSIZE),
		  "block %p not mapped", p);
	KT_ASSERT(!kernel_mapped(p - PGSIZE) && !kernel_mapped(p + 2 * PGSIZE),
		  "block %p has a mapped neighbour", p);
	p[PGSIZE + 7] = 0x5a;
	KT_ASSERT(*(char *)KADDR(PADDR(p + PGSIZE + 7)) == 0x5a,
		  "PADDR(%p) is not its page", p + PGSIZE + 7);
	KT_ASSERT(!kernel_mapped((void *)ROUNDUP((uintptr_t)q + 5000, PGSIZE)),
		  "kmalloc(5000) at %p: the page after it is mapped", q);
	KT_ASSERT(ROUNDUP((uintptr_t)q + 5000, PGSIZE) - ((uintptr_t)q + 5000)
		  < 16, "kmalloc(5000) at %p does not end its last page", q);
	kfree(q);
	free_cont_pages(p, 1);
	KT_ASSERT(!kernel_mapped(p), "freed block %p still mapped", p);
	return true;
}
KTEST_REG(kmem_guard_pages, test_kmem_guard_pages);
#endif
