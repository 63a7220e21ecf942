/*
 * User address spaces and user memory access (see vm.h and proc.h).
 *
 * copyin/copyout never touch user virtual addresses: they check every page
 * of the range in the page tables (present, user, writable for copyout,
 * below ULIM) and then copy through the kernel's direct map. A bad pointer
 * therefore costs an EFAULT, never a kernel page fault, and a range that is
 * only partly valid is refused before a byte moves.
 */
#include <vm.h>
#include <proc.h>
#include <pmem.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>

/*
 * Pages held for processes: their address spaces (PML4s, page tables,
 * user pages), their threads' kernel stacks, their syscalls' bounce pages
 * (sysfile.c) and the ELF loader's page are taken and given back only
 * through vm_pages_get() and vm_pages_put(), which count them. That count
 * (vm_pages_held(), /dev/memstat proc_pages) is what a leak check of
 * process creation and exit compares: unlike the free page count, no
 * other user of the page allocator moves it (kmalloc keeping a page for a
 * size class, the tracer's buffers).
 */
static uint64_t held;

/* 2^order contiguous pages (get_cont_pages() flags), counted; NULL when
 * out of memory. Any context. */
void *vm_pages_get(unsigned order, unsigned flags)
{
	void *p = get_cont_pages(order, flags);

	if (p)
		__atomic_fetch_add(&held, 1ull << order, __ATOMIC_RELAXED);
	return p;
}

/* Gives back pages of vm_pages_get() with the same order. */
void vm_pages_put(void *p, unsigned order)
{
	free_cont_pages(p, order);
	__atomic_fetch_sub(&held, 1ull << order, __ATOMIC_RELAXED);
}

/* Pages taken by vm_pages_get() and not given back. */
uint64_t vm_pages_held(void)
{
	return __atomic_load_n(&held, __ATOMIC_RELAXED);
}

/* A zeroed page of an address space: a table or a user page. */
static void *vm_page(void)
{
	return vm_pages_get(0, MEM_ZERO);
}

/* A new address space with the kernel half mapped; NULL when out of memory. */
uint64_t *vm_create(void)
{
	uint64_t *pml4 = vm_page();
	uint64_t *kern = mmu_kernel_pml4();

	if (!pml4)
		return NULL;
	for (int i = 256; i < 512; i++)
		pml4[i] = kern[i];
	return pml4;
}

static void free_level(uint64_t *table, int level)
{
	for (int i = 0; i < 512; i++) {
		if (!(table[i] & PTE_P))
			continue;
		void *next = KADDR(table[i] & PTE_ADDR_MASK);
		if (level > 0)
			free_level(next, level - 1);
		else
			vm_pages_put(next, 0);
	}
	vm_pages_put(table, 0);
}

/* Frees every user page and page table of pml4, and pml4 itself. The
 * caller must not be running on it. */
void vm_free(uint64_t *pml4)
{
	for (int i = 0; i < 256; i++)
		if (pml4[i] & PTE_P)
			free_level(KADDR(pml4[i] & PTE_ADDR_MASK), 2);
	vm_pages_put(pml4, 0);
}

/* Maps a zeroed page at user address va with perm (VM_*); returns 0 and its
 * kernel address in *kva, -ENOMEM, or -EINVAL when va is taken or not user. */
int vm_map_zero(uint64_t *pml4, uintptr_t __user va, unsigned perm, void **kva)
{
	uint64_t pte = PTE_U;
	uint64_t *slot;
	void *page;

	if (va >= ULIM || (va & (PGSIZE - 1)))
		return -EINVAL;
	slot = mmu_walk_alloc(pml4, va, vm_page);
	if (!slot)
		return -ENOMEM;
	if (*slot & PTE_P)
		return -EINVAL;
	page = vm_page();
	if (!page)
		return -ENOMEM;
	if (perm & VM_WRITE)
		pte |= PTE_W;
	if (!(perm & VM_EXEC))
		pte |= PTE_NX;
	*slot = PADDR(page) | pte | PTE_P;
	if (kva)
		*kva = page;
	return 0;
}

static uint64_t *user_pte(uint64_t *pml4, uintptr_t __user va, bool write)
{
	uint64_t *pte;

	if (va >= ULIM)
		return NULL;
	pte = mmu_walk(pml4, va, false);
	if (!pte || !(*pte & PTE_P) || !(*pte & PTE_U))
		return NULL;
	if (write && !(*pte & PTE_W))
		return NULL;
	return pte;
}

/* True when every page of [va, va+n) is mapped for user access (and
 * writable if write). */
bool vm_user_range_ok(uint64_t *pml4, uintptr_t __user va, size_t n, bool write)
{
	if (n == 0)
		return true;
	if (va + n < va || va + n > ULIM)
		return false;
	for (uintptr_t p = ROUNDDOWN(va, PGSIZE); p < va + n; p += PGSIZE)
		if (!user_pte(pml4, p, write))
			return false;
	return true;
}

/* Kernel address of user address va, which must be mapped. */
void *vm_user_kaddr(uint64_t *pml4, uintptr_t __user va)
{
	uint64_t *pte = mmu_walk(pml4, va, false);

	return (char *)KADDR(*pte & PTE_ADDR_MASK) + (va & (PGSIZE - 1));
}

/* Copies n bytes between kernel memory k and user memory u, a page at a
 * time through the direct map. The range is already checked. */
static void copy_user(uint64_t *pml4, void *k, uintptr_t __user u, size_t n,
		      bool out)
{
	while (n) {
		size_t chunk = MIN(n, PGSIZE - (u & (PGSIZE - 1)));
		void *ua = vm_user_kaddr(pml4, u);

		if (out)
			memcpy(ua, k, chunk);
		else
			memcpy(k, ua, chunk);
		k = (char *)k + chunk;
		u += chunk;
		n -= chunk;
	}
}

int copyin(void *dst, const void __user *usrc, size_t n)
{
	struct proc *p = current_proc();

	if (!p || !vm_user_range_ok(p->pml4, (uintptr_t)usrc, n, false))
		return -EFAULT;
	copy_user(p->pml4, dst, (uintptr_t)usrc, n, false);
	return 0;
}

int copyout(void __user *udst, const void *src, size_t n)
{
	struct proc *p = current_proc();

	if (!p || !vm_user_range_ok(p->pml4, (uintptr_t)udst, n, true))
		return -EFAULT;
	copy_user(p->pml4, (void *)src, (uintptr_t)udst, n, true);
	return 0;
}

long copyinstr(char *dst, const char __user *usrc, size_t max)
{
	struct proc *p = current_proc();
	uintptr_t u = (uintptr_t)usrc;

	for (size_t i = 0; i < max; i++, u++) {
		if (!p || !user_pte(p->pml4, u, false))
			return -EFAULT;
		dst[i] = *(const char *)vm_user_kaddr(p->pml4, u);
		if (!dst[i])
			return (long)i;
	}
	return -ENAMETOOLONG;
}
