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

/* Returns 2^order physically contiguous pages, or NULL when none are left. */
void *get_cont_pages(unsigned order, unsigned flags)
{
	uint64_t irq = spin_lock_irqsave(&pmem_lock);
	int64_t pfn = buddy_alloc(&phys_buddy, order);

	spin_unlock_irqrestore(&pmem_lock, irq);
	ttrace_page_alloc(order, pfn);
	if (pfn < 0)
		return NULL;
	void *p = KADDR((uint64_t)pfn * PGSIZE);
	if (flags & MEM_ZERO)
		memset(p, 0, (size_t)PGSIZE << order);
	return p;
}

/* Gives back pages from get_cont_pages with the same order; panics on a
 * free the allocator rejects (double free, wrong order). */
void free_cont_pages(void *addr, unsigned order)
{
	uint64_t pfn = PADDR(addr) / PGSIZE;
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
