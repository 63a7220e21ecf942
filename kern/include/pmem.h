/*
 * Physical memory: a buddy allocator (kern/lib/buddy.c) over every page the
 * Multiboot memory map calls available, minus the kernel image, the boot
 * modules, the allocator's own metadata and the tracer's persistent area
 * (ttrace_persist_range(), which pmem_boot_spares() vouched for).
 *
 *	void *p = get_cont_pages(2, 0);		// 4 contiguous pages
 *	free_cont_pages(p, 2);
 *
 * Pages are returned as kernel (direct-map) addresses; with
 * CONFIG_KMEM_DEBUG, blocks of more than a page as addresses in a window
 * with unmapped guard pages around them (pmem.c, docs/debug.md), which
 * PADDR() translates all the same; those are only page-aligned (the
 * physical block keeps the buddy's 2^order alignment). All functions take an irqsave lock and
 * may be called from any context.
 */
#ifndef PMEM_H
#define PMEM_H

#include <compiler.h>

struct multiboot_info;

#define MEM_ZERO	(1u << 0)	/* flags: zero the pages */

void pmem_init(const struct multiboot_info *mbi);
void *get_cont_pages(unsigned order, unsigned flags);
void free_cont_pages(void *addr, unsigned order);
void *kpage_alloc(void);
void kpage_free(void *addr);
size_t pmem_nr_free_pages(void);
size_t pmem_nr_total_pages(void);
uint64_t pmem_max_phys(void);
bool pmem_kernel_ram(uint64_t pa);
void *boot_alloc(size_t size, size_t align);
bool pmem_boot_spares(const struct multiboot_info *mbi, uint64_t start,
		      uint64_t end);
#ifdef CONFIG_KMEM_DEBUG
void pmem_window_init(void);
void *pmem_get_guarded(unsigned order);
#else
static inline void pmem_window_init(void)
{
}
#endif

#endif /* PMEM_H */
