/*
 * Kernel page tables. mmu_init() replaces the boot tables (one identity- and
 * high-mapped GiB, all writable and executable) with:
 *   - KERNBASE: all physical memory and the 32-bit MMIO hole, 2 MiB pages,
 *     writable, no-execute; the MMIO hole (3-4 GiB) uncached; the 2 MiB
 *     around the kernel text in 4 KiB pages, the text's read-only (only
 *     the text patcher writes text, with CR0.WP off: text_poke.c);
 *   - KERN_LOAD: the kernel image in 4 KiB pages, text read-only and
 *     executable, rodata read-only no-execute, data and bss writable
 *     no-execute.
 * The upper-half PML4 entries made here are shared by every address space.
 */
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/x86.h>
#include <pmem.h>
#include <printk.h>
#include <string.h>

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[];

static uint64_t *kern_pml4;
static uint64_t kern_tables;	/* page-table pages below kern_pml4 made */

static unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (PGSHIFT + 9 * level)) & 511;
}

/* Returns the entry for va in the table of the given level (3 = PML4) below
 * table, allocating intermediate tables (zeroed pages) with alloc_table
 * when it is not NULL; NULL if absent or out of memory. */
static uint64_t *walk_to(uint64_t *table, uintptr_t va, int level,
			 void *(*alloc_table)(void))
{
	const bool kernel = table == kern_pml4;

	for (int l = 3; l > level; l--) {
		uint64_t *e = &table[pt_index(va, l)];

		if (!(*e & PTE_P)) {
			if (!alloc_table)
				return NULL;
			void *page = alloc_table();
			if (!page)
				return NULL;
			if (kernel)
				__atomic_fetch_add(&kern_tables, 1, __ATOMIC_RELAXED);
			*e = PADDR(page) | PTE_P | PTE_W | PTE_U;
		}
		if (*e & PTE_PS)
			return NULL;
		table = KADDR(*e & PTE_ADDR_MASK);
	}
	return &table[pt_index(va, level)];
}

/* Page-table pages the kernel's own tables have grown by since boot (they
 * are kept: a module load may need a new one, and the count tells it from
 * a leak). */
uint64_t mmu_kernel_table_pages(void)
{
	return __atomic_load_n(&kern_tables, __ATOMIC_RELAXED);
}

/* The 4 KiB page-table entry for va in pml4 (see walk_to). */
uint64_t *mmu_walk(uint64_t *pml4, uintptr_t va, bool create)
{
	return walk_to(pml4, va, 0, create ? kpage_alloc : NULL);
}

/* mmu_walk() making missing tables with alloc_table (zeroed pages), for a
 * caller that counts the pages it holds (vm.c). */
uint64_t *mmu_walk_alloc(uint64_t *pml4, uintptr_t va,
			 void *(*alloc_table)(void))
{
	return walk_to(pml4, va, 0, alloc_table);
}

/* Maps one 4 KiB page; returns 0 or -1 when out of memory. */
int mmu_map(uint64_t *pml4, uintptr_t va, physaddr_t pa, uint64_t perm)
{
	uint64_t *pte = mmu_walk(pml4, va, true);

	if (!pte)
		return -1;
	*pte = pa | perm | PTE_P;
	return 0;
}

/*
 * Maps n pages of physical memory from pa at va in the shared kernel half
 * (the module area): executable and read-only (MMU_MAP_EXEC) or writable
 * and no-execute. Returns 0, or -1 when a page table cannot be had (what
 * was mapped stays; mmu_unmap_kernel() it). Process context, or any
 * where the page tables exist already (the guard window's).
 */
int mmu_map_kernel(uintptr_t va, physaddr_t pa, uint64_t n, unsigned how)
{
	uint64_t perm = how == MMU_MAP_EXEC ? PTE_G : PTE_G | PTE_W | PTE_NX;

	for (size_t i = 0; i < n; i++)
		if (mmu_map(kern_pml4, va + i * PGSIZE, pa + i * PGSIZE, perm))
			return -1;
	return 0;
}

/* Unmaps n pages at va mapped by mmu_map_kernel(). Only this CPU's TLB is
 * flushed: a caller that maps these addresses again to other pages first
 * has every other CPU run mmu_flush_tlb_all() (kern/trace/module.c); the
 * guard window maps an address again only to the same physical page. */
void mmu_unmap_kernel(uintptr_t va, uint64_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *pte = mmu_walk(kern_pml4, va + i * PGSIZE, false);

		if (pte)
			*pte = 0;
		invlpg((void *)(va + i * PGSIZE));
	}
}

/* Forgets every translation this CPU's TLB holds, the global ones (the
 * kernel half's, module pages among them) too: CR4.PGE off and on. */
void mmu_flush_tlb_all(void)
{
	uint64_t flags = arch_irq_save(), cr4 = rcr4();

	lcr4(cr4 & ~(uint64_t)CR4_PGE);
	lcr4(cr4);
	arch_irq_restore(flags);
}

/* The physical address behind va, a mapped page of the kernel's tables
 * (the guard window's, for PADDR). */
physaddr_t mmu_window_paddr(uintptr_t va)
{
	uint64_t *pte = mmu_walk(kern_pml4, va, false);

	if (!pte || !(*pte & PTE_P))
		panic("PADDR(%#lx): not mapped", va);
	return (*pte & PTE_ADDR_MASK) | (va & (PGSIZE - 1));
}

uint64_t *mmu_kernel_pml4(void)
{
	return kern_pml4;
}

/* Makes physical range [pa, pa+size) reachable at KADDR(pa), write-back,
 * for device memory that is really RAM (ivshmem) above what map_direct
 * covered. Returns 0 or -1 when out of memory. Boot CPU. */
int mmu_map_phys(uint64_t pa, uint64_t size)
{
	for (uint64_t p = ROUNDDOWN(pa, LPGSIZE); p < pa + size; p += LPGSIZE) {
		uint64_t *pde = walk_to(kern_pml4, KERNBASE + p, 1, kpage_alloc);

		if (!pde)
			return -1;
		*pde = p | PTE_P | PTE_W | PTE_PS | PTE_G | PTE_NX;
		invlpg(KADDR(p));
	}
	return 0;
}

/* Loads the address space pml4 (NULL: the kernel's alone) on this CPU. */
void mmu_switch_to(uint64_t *pml4)
{
	lcr3(PADDR(pml4 ? pml4 : kern_pml4));
}

/* Maps the 2 MiB at physical pa2m in the direct map with 4 KiB pages, the
 * kernel text's read-only: text is written only by the text patcher
 * (text_poke.c), never through this alias. */
static void map_direct_small(uint64_t pa2m)
{
	for (uint64_t pa = pa2m; pa < pa2m + LPGSIZE; pa += PGSIZE) {
		bool text = pa >= PADDR(__text_start) && pa < PADDR(__text_end);

		if (mmu_map(kern_pml4, (uintptr_t)KADDR(pa), pa,
			    (text ? 0 : PTE_W) | PTE_G | PTE_NX))
			panic("mmu: out of memory for the direct map");
	}
}

static void map_direct(void)
{
	uint64_t end = ROUNDUP(MAX(pmem_max_phys(), 0x100000000ull), LPGSIZE);

	for (uint64_t pa = 0; pa < end; pa += LPGSIZE) {
		uint64_t *pde = walk_to(kern_pml4, KERNBASE + pa, 1, kpage_alloc);
		uint64_t attr = PTE_P | PTE_W | PTE_PS | PTE_G | PTE_NX;

		if (pa < PADDR(__text_end) && pa + LPGSIZE > PADDR(__text_start)) {
			map_direct_small(pa);
			continue;
		}
		if (!pde)
			panic("mmu: out of memory for the direct map");
		if (pa >= 0xc0000000ull && pa < 0x100000000ull)
			attr |= PTE_PCD | PTE_PWT;
		*pde = pa | attr;
	}
}

static void map_image(const char *start, const char *end, uint64_t perm)
{
	for (uintptr_t va = (uintptr_t)start; va < (uintptr_t)end; va += PGSIZE)
		if (mmu_map(kern_pml4, va, PADDR((void *)va), perm | PTE_G))
			panic("mmu: out of memory mapping the kernel");
}

/* Builds and loads the kernel page tables. Boot CPU, after pmem_init. */
void mmu_init(void)
{
	kern_pml4 = kpage_alloc();
	if (!kern_pml4)
		panic("mmu: no page for the PML4");
	map_direct();
	map_image(__text_start, __text_end, 0);
	map_image(__rodata_start, __rodata_end, PTE_NX);
	map_image(__data_start, __bss_end, PTE_W | PTE_NX);
	lcr3(PADDR(kern_pml4));
	printk(KERN_INFO "mmu: kernel text %p-%p read-only, data no-execute\n",
	       __text_start, __text_end);
}
