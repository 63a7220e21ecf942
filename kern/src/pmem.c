/*
 * Physical page allocator: the kernel side of kern/lib/buddy.c.
 *
 * At boot, everything below `boot_free` (the BIOS area, the kernel image,
 * the Multiboot modules) is kept out of the allocator; boot_alloc() bumps
 * `boot_free` for the buddy metadata before the allocator exists. Every
 * available page above it goes to the buddy allocator, which is guarded by
 * one irqsave spinlock.
 */
#include <pmem.h>
#include <buddy.h>
#include <multiboot.h>
#include <spinlock.h>
#include <printk.h>
#include <init.h>
#include <string.h>
#include <ttrace.h>
#include <arch/mmu.h>

extern char __bss_end[];

static struct buddy phys_buddy;
static struct spinlock pmem_lock = SPINLOCK_INIT("pmem");
static uint64_t max_phys;
static uint64_t boot_free;
static size_t total_pages;
static bool pmem_ready;

/* Bump-allocates size bytes of physical memory before pmem_init finishes;
 * returns a direct-map address. Boot only, single CPU. */
void *boot_alloc(size_t size, size_t align)
{
	assert(!pmem_ready);
	boot_free = ROUNDUP(boot_free, align);
	void *p = KADDR(boot_free);
	boot_free += size;
	return p;
}

static void scan_mmap(const struct multiboot_info *mbi)
{
	uintptr_t p = (uintptr_t)KADDR(mbi->mmap_addr);
	uintptr_t end = p + mbi->mmap_length;

	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)p;

		printk(KERN_INFO "mem: %016lx-%016lx %s\n", e->addr,
		       e->addr + e->len, e->type == MB_MMAP_AVAILABLE ?
		       "available" : "reserved");
		if (e->type == MB_MMAP_AVAILABLE && e->addr + e->len > max_phys)
			max_phys = e->addr + e->len;
		p += e->size + sizeof(e->size);
	}
}

static void add_free_regions(const struct multiboot_info *mbi)
{
	uintptr_t p = (uintptr_t)KADDR(mbi->mmap_addr);
	uintptr_t end = p + mbi->mmap_length;
	uint64_t floor = ROUNDUP(boot_free, PGSIZE);

	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)p;
		uint64_t s = ROUNDUP(e->addr, PGSIZE);
		uint64_t t = ROUNDDOWN(e->addr + e->len, PGSIZE);

		if (e->type == MB_MMAP_AVAILABLE && s < floor)
			s = floor;
		if (e->type == MB_MMAP_AVAILABLE && s < t) {
			buddy_add_free_range(&phys_buddy, s / PGSIZE, t / PGSIZE);
			total_pages += (t - s) / PGSIZE;
		}
		p += e->size + sizeof(e->size);
	}
}

/* Builds the allocator from the Multiboot memory map. Boot CPU only. */
void pmem_init(const struct multiboot_info *mbi)
{
	if (!(mbi->flags & MB_INFO_MMAP))
		panic("no Multiboot memory map");
	scan_mmap(mbi);
	boot_free = MAX(PADDR(__bss_end), boot_modules_end);
	size_t npages = max_phys / PGSIZE;
	void *meta = boot_alloc(buddy_meta_size(npages), PGSIZE);
	memset(meta, 0, buddy_meta_size(npages));
	buddy_init(&phys_buddy, 0, npages, meta);
	add_free_regions(mbi);
	pmem_ready = true;
	printk(KERN_INFO "mem: %lu MiB usable, %lu pages free\n",
	       total_pages * PGSIZE >> 20, pmem_nr_free_pages());
}

#ifdef CONFIG_KMEM_DEBUG
/*
 * The guard window (docs/debug.md). The kernel reaches memory through its
 * direct map alone, where every page has mapped neighbours, so an overrun
 * of a block lands silently in the next one. With CONFIG_KMEM_DEBUG,
 * multi-page blocks (and kmalloc's page-size ones) are handed out at a
 * second address instead, in a window where only allocated blocks are
 * mapped: physical page P of a block is mapped at KMEM_WINDOW + 2P pages.
 * Doubling the address leaves at least one unmapped page before and after
 * every block, whatever its neighbours (a block of 2^k pages at P takes
 * window pages [2P, 2P + 2^k); the next block starts at 2(P + 2^k) or
 * later), so an overrun faults at once. And since a window address always
 * means the same physical page, a stale TLB entry on another CPU after a
 * free is harmless (it can only miss a use after free): no shootdown.
 * The page tables of the whole window are made at boot, so mapping
 * allocates nothing and works in any context. Blocks keep their direct-map
 * alias; PADDR() knows window addresses (mmu_window_paddr).
 */
static uintptr_t window_end;	/* KMEM_WINDOW until pmem_window_init */

/* Makes the window's page tables; boot CPU, after mmu_init. A machine
 * whose memory does not fit the window runs without guard pages. */
void pmem_window_init(void)
{
	uint64_t size = ROUNDUP(2 * max_phys, LPGSIZE);

	if (size > KMEM_WINDOW_END - KMEM_WINDOW) {
		printk(KERN_WARN "kmem: %lu MiB of memory: no guard window\n",
		       max_phys >> 20);
		return;
	}
	for (uintptr_t va = KMEM_WINDOW; va < KMEM_WINDOW + size; va += LPGSIZE)
		if (!mmu_walk(mmu_kernel_pml4(), va, true))
			panic("kmem: no page tables for the guard window");
	window_end = KMEM_WINDOW + size;
	printk(KERN_INFO "kmem: debug checks on; multi-page blocks between "
	       "guard pages at %#lx-%#lx\n", (uintptr_t)KMEM_WINDOW, window_end);
}

/* The address of the block of 2^order pages at pfn: in the window, or in
 * the direct map before the window exists. */
static void *block_addr(uint64_t pfn, unsigned order)
{
	uintptr_t va = KMEM_WINDOW + 2 * pfn * PGSIZE;

	if (va + ((uintptr_t)PGSIZE << order) > window_end)
		return KADDR(pfn * PGSIZE);
	mmu_map_kernel(va, pfn * PGSIZE, (uint64_t)1 << order, MMU_MAP_DATA);
	return (void *)va;
}

static bool in_window(const void *addr)
{
	return (uintptr_t)addr >= KMEM_WINDOW && (uintptr_t)addr < window_end;
}

/* 2^order contiguous pages between guard pages, order 0 too (kmalloc's
 * page-size blocks); NULL when none are left. Any context. */
void *pmem_get_guarded(unsigned order)
{
	uint64_t irq = spin_lock_irqsave(&pmem_lock);
	int64_t pfn = buddy_alloc(&phys_buddy, order);

	spin_unlock_irqrestore(&pmem_lock, irq);
	ttrace_page_alloc(order, pfn);
	return pfn < 0 ? NULL : block_addr((uint64_t)pfn, order);
}
#endif /* CONFIG_KMEM_DEBUG */

/* Returns 2^order physically contiguous pages, or NULL when none are left.
 * With CONFIG_KMEM_DEBUG a block of more than a page is mapped between
 * guard pages (pmem_window_init). */
void *get_cont_pages(unsigned order, unsigned flags)
{
	uint64_t irq = spin_lock_irqsave(&pmem_lock);
	int64_t pfn = buddy_alloc(&phys_buddy, order);

	spin_unlock_irqrestore(&pmem_lock, irq);
	ttrace_page_alloc(order, pfn);
	if (pfn < 0)
		return NULL;
#ifdef CONFIG_KMEM_DEBUG
	void *p = order ? block_addr((uint64_t)pfn, order) :
		KADDR((uint64_t)pfn * PGSIZE);
#else
	void *p = KADDR((uint64_t)pfn * PGSIZE);
#endif
	if (flags & MEM_ZERO)
		memset(p, 0, (size_t)PGSIZE << order);
	return p;
}

/* Gives back pages from get_cont_pages (or pmem_get_guarded) with the same
 * order; panics on a free the allocator rejects (double free, wrong
 * order). */
void free_cont_pages(void *addr, unsigned order)
{
	uint64_t pfn = PADDR(addr) / PGSIZE;
#ifdef CONFIG_KMEM_DEBUG
	if (in_window(addr))
		mmu_unmap_kernel((uintptr_t)addr, (uint64_t)1 << order);
#endif
	uint64_t irq = spin_lock_irqsave(&pmem_lock);
	int err = buddy_free(&phys_buddy, pfn, order);

	spin_unlock_irqrestore(&pmem_lock, irq);
	if (err)
		panic("free_cont_pages(%p, %u): bad free", addr, order);
	ttrace_page_free(pfn, order);
}

void *kpage_alloc(void)
{
	return get_cont_pages(0, MEM_ZERO);
}

void kpage_free(void *addr)
{
	free_cont_pages(addr, 0);
}

size_t pmem_nr_free_pages(void)
{
	return buddy_nr_free(&phys_buddy);
}

size_t pmem_nr_total_pages(void)
{
	return total_pages;
}

uint64_t pmem_max_phys(void)
{
	return max_phys;
}
