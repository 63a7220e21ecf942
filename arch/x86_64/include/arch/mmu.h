/*
 * x86_64 memory layout and page-table bits.
 *
 *   0x0000000000000000 - 0x00007fffffffffff  user space (lower half)
 *   0xffff800000000000 - ...                 KERNBASE: all of physical memory,
 *                                            mapped 1:1 (2 MiB pages, NX)
 *   0xffff804000000000 - 0xffff807fffffffff  KMEM_WINDOW: CONFIG_KMEM_DEBUG's
 *                                            guard-page windows (pmem.c)
 *   0xffffffff80000000 - ...                 KERN_LOAD: the kernel image,
 *                                            linked here (-mcmodel=kernel),
 *                                            loaded at physical 1 MiB
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#define PGSHIFT		12
#define PGSIZE		4096
#define LPGSIZE		(2 * 1024 * 1024)
#define KERNBASE	0xffff800000000000
#define KERN_LOAD	0xffffffff80000000
#define KERN_PHYS	0x100000
#define ULIM		0x0000800000000000
/* CONFIG_KMEM_DEBUG's guard windows (kern/src/pmem.c): the upper half of
 * the direct map's PML4 slot, above any direct map this kernel makes. */
#define KMEM_WINDOW	0xffff804000000000
#define KMEM_WINDOW_END	0xffff808000000000

#define PTE_P		(1ull << 0)
#define PTE_W		(1ull << 1)
#define PTE_U		(1ull << 2)
#define PTE_PWT		(1ull << 3)
#define PTE_PCD		(1ull << 4)
#define PTE_A		(1ull << 5)
#define PTE_D		(1ull << 6)
#define PTE_PS		(1ull << 7)
#define PTE_G		(1ull << 8)
#define PTE_NX		(1ull << 63)
#define PTE_ADDR_MASK	0x000ffffffffff000ull

#define CR0_PE		(1u << 0)
#define CR0_MP		(1u << 1)
#define CR0_ET		(1u << 4)
#define CR0_NE		(1u << 5)
#define CR0_WP		(1u << 16)
#define CR0_NW		(1u << 29)
#define CR0_CD		(1u << 30)
#define CR0_PG		(1u << 31)
#define CR4_PAE		(1u << 5)
#define CR4_PGE		(1u << 7)
#define CR4_OSFXSR	(1u << 9)	/* SSE usable (arch/x86_64/src/simd.c) */

#define MSR_EFER	0xc0000080
#define EFER_SCE	(1u << 0)
#define EFER_LME	(1u << 8)
#define EFER_NXE	(1u << 11)

#ifndef __ASSEMBLER__
#include <stdint.h>

typedef uint64_t physaddr_t;

/* Kernel virtual address of physical address pa (direct map). */
#define KADDR(pa)	((void *)((uintptr_t)(pa) + KERNBASE))
physaddr_t mmu_window_paddr(uintptr_t va);

/* Physical address of a direct-map or kernel-image address (or, with
 * CONFIG_KMEM_DEBUG, a mapped guard-window one). */
static inline physaddr_t PADDR(const void *va)
{
	uintptr_t v = (uintptr_t)va;

#ifdef CONFIG_KMEM_DEBUG
	if (v >= KMEM_WINDOW && v < KMEM_WINDOW_END)
		return mmu_window_paddr(v);
#endif
	return v >= KERN_LOAD ? v - KERN_LOAD : v - KERNBASE;
}
#endif



#ifndef __ASSEMBLER__
#include <stdbool.h>
void mmu_init(void);
uint64_t *mmu_walk(uint64_t *pml4, uintptr_t va, bool create);
uint64_t *mmu_walk_alloc(uint64_t *pml4, uintptr_t va,
			 void *(*alloc_table)(void));
uint64_t mmu_kernel_table_pages(void);
int mmu_map(uint64_t *pml4, uintptr_t va, physaddr_t pa, uint64_t perm);
uint64_t *mmu_kernel_pml4(void);
enum { MMU_MAP_EXEC = 1, MMU_MAP_DATA = 2 };
int mmu_map_kernel(uintptr_t va, physaddr_t pa, uint64_t n, unsigned how);
void mmu_unmap_kernel(uintptr_t va, uint64_t n);
void mmu_flush_tlb_all(void);
void mmu_switch_to(uint64_t *pml4);
int mmu_map_phys(uint64_t pa, uint64_t size);
#endif
#endif /* ARCH_MMU_H */
