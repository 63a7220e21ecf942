/*
 * User address spaces. The lower half of each PML4 is the process's own;
 * the upper half is the kernel's, shared (copied from the kernel PML4 at
 * creation, never changed after boot).
 *
 *   0x400000 ...          the ELF image (text, data, bss)
 *   USTACK_TOP - USTACK_SIZE .. USTACK_TOP   the stack, a guard page below
 */
#ifndef VM_H
#define VM_H

#include <compiler.h>

#define USTACK_TOP	0x00007ffffff00000ull
#define USTACK_SIZE	(64 * 1024)

/* Page permissions for vm_map_zero, independent of the page-table bits. */
#define VM_WRITE	(1u << 0)
#define VM_EXEC		(1u << 1)

void *vm_pages_get(unsigned order, unsigned flags);
void vm_pages_put(void *p, unsigned order);
uint64_t vm_pages_held(void);
uint64_t *vm_create(void);
void vm_free(uint64_t *pml4);
int vm_map_zero(uint64_t *pml4, uintptr_t __user va, unsigned perm, void **kva);
bool vm_user_range_ok(uint64_t *pml4, uintptr_t __user va, size_t n, bool write);
void *vm_user_kaddr(uint64_t *pml4, uintptr_t __user va);

#endif /* VM_H */
