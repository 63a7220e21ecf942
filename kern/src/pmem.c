/*
 * Physical page allocator: the kernel side of kern/lib/buddy.c.
 *
 * At boot, everything below `boot_free` (the BIOS area, the kernel image,
 * the Multiboot modules) is kept out of the allocator; boot_alloc() bumps
 * `boot_free` for the buddy metadata before the allocator exists. Every
 * available page above it goes to the buddy allocator, which is guarded by
 * one irqsave spinlock, but for the tracer's persistent area
 * (ttrace_persist_range(): a trace kept across a warm reset), which
 * pmem_boot_spares() found above all of that before the tracer took it.
 */
#include <pmem.h>
#include <buddy.h>
#include <multiboot.h>
#include <spinlock.h>
#include <printk.h>
#include <init.h>
#include <string.h>
#include <ksyms.h>
#include <ttrace.h>
#include <arch/mmu.h>

extern char __bss_end[];

static struct buddy phys_buddy;
static struct spinlock pmem_lock = SPINLOCK_INIT("pmem");
static uint64_t max_phys;
static uint64_t boot_free;
static size_t total_pages;
static bool pmem_ready;

/*
 * The kernel's RAM, for pmem_kernel_ram(): the memory map's available
 * regions from the kernel image up (below it: the firmware's memory, the
 * VGA window and option ROMs among it), written once by pmem_init(). A
 * map of more regions than this keeps the first RAM_RANGES: a region left
 * out is only refused to pmem_kernel_ram()'s callers, never misread.
 */
#define RAM_RANGES	16
static struct ram_range {
	uint64_t start, end;
} ram[RAM_RANGES];
static unsigned nram;

#ifdef CONFIG_KMEM_DEBUG
/*
 * The guard windows (docs/debug.md). The kernel reaches memory through
 * its direct map alone, where every page has mapped neighbours, so an
 * overrun of a block lands silently in the next one. With
 * CONFIG_KMEM_DEBUG, multi-page blocks (and kmalloc's page-size ones) are
 * handed out at a second address instead, in a window where only
 * allocated blocks are mapped, one window per order: in order k's window,
 * the slot of the block at pfn P (a multiple of 2^k) starts at page
 * P + P/2^k, so each slot of 2^k pages is followed by one page that no
 * block of that order ever maps, and an overrun (or an underrun) faults at
 * once.
 *
 * One window per order makes a window address mean the same physical page
 * for ever: two blocks of one order at the same slot are at the same pfn.
 * (One window for all orders would map an address to different pages over
 * time, and a stale TLB entry on another CPU would then read or write the
 * wrong page: the first version did, and sysfuzz caught kmalloc's redzone
 * fill landing in a freed page.) So after a free, a stale TLB entry on
 * another CPU is harmless (it can only miss a use after free): unmapping
 * needs no shootdown. The windows' page tables are made at boot (14 MiB
 * for 512 MiB of memory), so mapping allocates nothing and works in any
 * context. Blocks keep their direct-map alias; PADDR() knows window
 * addresses (mmu_window_paddr).
 */
static uintptr_t window_base[BUDDY_NR_ORDERS];
static uintptr_t window_end;	/* 0 until pmem_window_init */

/* Makes the windows' page tables; boot CPU, after mmu_init. A machine
 * whose memory does not fit runs without guard pages. */
void pmem_window_init(void)
{
	uint64_t npages = max_phys / PGSIZE;
	uintptr_t va = KMEM_WINDOW;

	for (unsigned k = 0; k < BUDDY_NR_ORDERS; k++) {
		window_base[k] = va;
		va += ROUNDUP((npages + (npages >> k) + 1) * PGSIZE, LPGSIZE);
	}
	if (va > KMEM_WINDOW_END) {
		printk(KERN_WARN "kmem: %lu MiB of memory: no guard windows\n",
		       max_phys >> 20);
		return;
	}
	for (uintptr_t t = KMEM_WINDOW; t < va; t += LPGSIZE)
		if (!mmu_walk(mmu_kernel_pml4(), t, true))
			panic("kmem: no page tables for the guard windows");
	window_end = va;
	printk(KERN_INFO "kmem: debug checks on; multi-page blocks between "
	       "guard pages at %#lx-%#lx\n", (uintptr_t)KMEM_WINDOW, va);
}

/* The address of the block of 2^order pages at pfn: in its order's
 * window, or in the direct map before the windows exist. */
static void *block_addr(uint64_t pfn, unsigned order)
{
	if (!window_end || order >= BUDDY_NR_ORDERS)
		return KADDR(pfn * PGSIZE);
	uintptr_t va = window_base[order] + (pfn + (pfn >> order)) * PGSIZE;

	mmu_map_kernel(va, pfn * PGSIZE, (uint64_t)1 << order, MMU_MAP_DATA);
	return (void *)va;
}

static bool in_window(const void *addr)
{
	return (uintptr_t)addr >= KMEM_WINDOW && (uintptr_t)addr < window_end;
}

/*
 * Page poison: a freed page is filled with PAGE_POISON but for its first
 * word, the freeing caller, and marked in `poisoned`; the allocator checks
 * a marked page's poison before it hands the page out again, so a write
 * after free is found there. Pages never freed are not marked (the boot
 * does not poison all memory).
 */
#define PAGE_POISON	0xaa

static uint64_t *poisoned;	/* a bit per pfn; atomic: pages' owners */

static uint64_t *poison_word(uint64_t pfn, uint64_t *bit)
{
	*bit = 1ull << (pfn % 64);
	return &poisoned[pfn / 64];
}

/* Poisons the 2^order pages at pfn, being freed by caller (who owns them
 * until buddy_free). */
static void poison_block(uint64_t pfn, unsigned order, uintptr_t caller)
{
	for (uint64_t i = 0; i < ((uint64_t)1 << order); i++) {
		uintptr_t *page = KADDR((pfn + i) * PGSIZE);
		uint64_t bit, *w = poison_word(pfn + i, &bit);

		page[0] = caller;
		memset(&page[1], PAGE_POISON, PGSIZE - sizeof(page[0]));
		__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
	}
}

/* Checks the poison of the 2^order pages at pfn, just allocated; panics
 * on a written one. */
static void check_block(uint64_t pfn, unsigned order)
{
	for (uint64_t i = 0; i < ((uint64_t)1 << order); i++) {
		uintptr_t *page = KADDR((pfn + i) * PGSIZE), off = 0;
		uint64_t bit, *w = poison_word(pfn + i, &bit);
		const uint8_t *bad;
		const char *name;

		if (!(__atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED) & bit))
			continue;
		bad = memchr_inv(&page[1], PAGE_POISON,
				 PGSIZE - sizeof(page[0]));
		if (!bad)
			continue;
		name = ksym_lookup(page[0], &off);
		panic("kmem: write after free in page %#lx freed by %s+%#lx: "
		      "byte at offset %ld is %#x, found by get_cont_pages",
		      (pfn + i) * PGSIZE, name ? name : "?", off,
		      (long)(bad - (uint8_t *)page), *bad);
	}
}

/* Makes the poison bitmap for npages; pmem_init, before the buddy. */
static void poison_init(size_t npages)
{
	size_t bytes = ROUNDUP(npages, 64) / 8;

	poisoned = boot_alloc(bytes, 8);
	memset(poisoned, 0, bytes);
}

#else
static void poison_block(uint64_t pfn, unsigned order, uintptr_t caller)
{
	(void)pfn;
	(void)order;
	(void)caller;
}

static void check_block(uint64_t pfn, unsigned order)
{
	(void)pfn;
	(void)order;
}

static void poison_init(size_t npages)
{
	(void)npages;
}
#endif /* CONFIG_KMEM_DEBUG */

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

/* Bytes pmem_init() takes with boot_alloc() for a machine of npages
 * pages, alignment included: the buddy's metadata and the poison bitmap. */
static size_t boot_meta_bytes(size_t npages)
{
	size_t poison = 0;

#ifdef CONFIG_KMEM_DEBUG
	poison = ROUNDUP(npages, 64) / 8 + 8;
#endif
	return PGSIZE + buddy_meta_size(npages) + poison;
}

/* The end of the memory map's available memory (no printing). */
static uint64_t mmap_max_phys(const struct multiboot_info *mbi)
{
	uintptr_t p = (uintptr_t)KADDR(mbi->mmap_addr);
	uintptr_t end = p + mbi->mmap_length;
	uint64_t max = 0;

	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)p;

		if (e->type == MB_MMAP_AVAILABLE && e->addr + e->len > max)
			max = e->addr + e->len;
		p += e->size + sizeof(e->size);
	}
	return max;
}

/*
 * Whether physical memory [start, end) lies in one available region of
 * mbi's memory map, above everything the boot puts in memory before the
 * allocator exists (the kernel image, the modules, the allocator's
 * metadata), so that it may be kept out of the allocator and its contents
 * survive the boot. Boot CPU, before pmem_init(), boot_modules_end set.
 */
bool pmem_boot_spares(const struct multiboot_info *mbi, uint64_t start,
		      uint64_t end)
{
	uintptr_t p = (uintptr_t)KADDR(mbi->mmap_addr);
	uintptr_t stop = p + mbi->mmap_length;

	if (!(mbi->flags & MB_INFO_MMAP) || end <= start ||
	    start < MAX(PADDR(__bss_end), boot_modules_end) +
		    boot_meta_bytes(mmap_max_phys(mbi) / PGSIZE))
		return false;
	while (p < stop) {
		const struct multiboot_mmap_entry *e = (const void *)p;

		if (e->type == MB_MMAP_AVAILABLE && e->addr <= start &&
		    end <= e->addr + e->len)
			return true;
		p += e->size + sizeof(e->size);
	}
	return false;
}

/* Gives [s, t) (page frames) to the buddy allocator. */
static void add_free(uint64_t s, uint64_t t)
{
	if (s >= t)
		return;
	buddy_add_free_range(&phys_buddy, s, t);
	total_pages += t - s;
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
		p += e->size + sizeof(e->size);
	}
}

/* Notes available region e in ram[], from KERN_PHYS up. */
static void note_ram(const struct multiboot_mmap_entry *e)
{
	uint64_t s = MAX(e->addr, (uint64_t)KERN_PHYS);

	if (s < e->addr + e->len && nram < RAM_RANGES)
		ram[nram++] = (struct ram_range){ s, e->addr + e->len };
}

/* Gives every available page above the boot's to the allocator; notes
 * the kernel's RAM. */
static void add_free_regions(const struct multiboot_info *mbi)
{
	uintptr_t p = (uintptr_t)KADDR(mbi->mmap_addr);
	uintptr_t end = p + mbi->mmap_length;
	uint64_t floor = ROUNDUP(boot_free, PGSIZE), keep_s = 0, keep_t = 0;

	ttrace_persist_range(&keep_s, &keep_t);

	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)p;
		uint64_t s = ROUNDUP(e->addr, PGSIZE);
		uint64_t t = ROUNDDOWN(e->addr + e->len, PGSIZE);

		if (e->type == MB_MMAP_AVAILABLE)
			note_ram(e);
		if (e->type == MB_MMAP_AVAILABLE && s < floor)
			s = floor;
		if (e->type == MB_MMAP_AVAILABLE && s < t) {	/* minus the area */
			add_free(s / PGSIZE, MIN(t, MAX(s, keep_s)) / PGSIZE);
			add_free(MAX(s, MIN(t, keep_t)) / PGSIZE, t / PGSIZE);
		}
		p += e->size + sizeof(e->size);
	}
}

/* Whether physical address pa is the kernel's RAM: the image, the boot
 * modules, the allocator's metadata and pages, the tracer's persistent
 * area; never device memory (the MMIO hole below 4 GiB, a PCI BAR), the
 * firmware's or a hole. For a reader that must not touch anything else
 * (a probe's str, kern/trace/fprobe.c): lock-free, any context, notrace
 * (a probe's own path). */
notrace bool pmem_kernel_ram(uint64_t pa)
{
	for (unsigned i = 0; i < nram; i++)
		if (pa >= ram[i].start && pa < ram[i].end)
			return true;
	return false;
}

/* Builds the allocator from the Multiboot memory map. Boot CPU only. */
void pmem_init(const struct multiboot_info *mbi)
{
	if (!(mbi->flags & MB_INFO_MMAP))
		panic("no Multiboot memory map");
	scan_mmap(mbi);
	max_phys = mmap_max_phys(mbi);
	boot_free = MAX(PADDR(__bss_end), boot_modules_end);
	size_t npages = max_phys / PGSIZE;
	void *meta = boot_alloc(buddy_meta_size(npages), PGSIZE);
	memset(meta, 0, buddy_meta_size(npages));
	poison_init(npages);
	assert(boot_free <= MAX(PADDR(__bss_end), boot_modules_end) +
	       boot_meta_bytes(npages));	/* pmem_boot_spares() knew it */
	buddy_init(&phys_buddy, 0, npages, meta);
	add_free_regions(mbi);
	pmem_ready = true;
	printk(KERN_INFO "mem: %lu MiB usable, %lu pages free\n",
	       total_pages * PGSIZE >> 20, pmem_nr_free_pages());
}

/* The first pfn of a free block of 2^order pages, now the caller's, or
 * -1 when none is left. */
static int64_t take_block(unsigned order)
{
	uint64_t irq = spin_lock_irqsave(&pmem_lock);
	int64_t pfn = buddy_alloc(&phys_buddy, order);

	spin_unlock_irqrestore(&pmem_lock, irq);
	ttrace_page_alloc(order, pfn);
	if (pfn >= 0)
		check_block((uint64_t)pfn, order);
	return pfn;
}

#ifdef CONFIG_KMEM_DEBUG
/* 2^order contiguous pages between guard pages, order 0 too (kmalloc's
 * page-size blocks); NULL when none are left. Any context. */
void *pmem_get_guarded(unsigned order)
{
	int64_t pfn = take_block(order);

	return pfn < 0 ? NULL : block_addr((uint64_t)pfn, order);
}
#endif

/* Returns 2^order physically contiguous pages, or NULL when none are left.
 * With CONFIG_KMEM_DEBUG a block of more than a page is mapped between
 * guard pages (pmem_window_init). */
void *get_cont_pages(unsigned order, unsigned flags)
{
	int64_t pfn = take_block(order);

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
	poison_block(pfn, order, (uintptr_t)__builtin_return_address(0));
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
