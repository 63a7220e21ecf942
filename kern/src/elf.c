/*
 * ELF64 loader: maps every PT_LOAD segment of a static x86_64 executable
 * into a user address space with its own permissions (writable only if
 * PF_W, executable only if PF_X), copies the file bytes and leaves the rest
 * zero. The image is untrusted: elf_check() (kern/lib/elf_check.c) checks
 * every offset and size against the file and the user half before a page
 * is mapped, and anything odd is ENOEXEC.
 */
#include <elf.h>
#include <elf_check.h>
#include <vm.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>

#define USER_BASE	0x1000ull

/* Maps one segment page by page, copying its file bytes. */
static int load_segment(uint64_t *pml4, const struct elf64_phdr *ph,
			const uint8_t *image)
{
	unsigned perm = (ph->flags & ELF_PF_W ? VM_WRITE : 0) |
			(ph->flags & ELF_PF_X ? VM_EXEC : 0);
	uintptr_t start = ROUNDDOWN(ph->vaddr, PGSIZE);
	uintptr_t end = ROUNDUP(ph->vaddr + ph->memsz, PGSIZE);

	for (uintptr_t va = start; va < end; va += PGSIZE) {
		void *page;
		int err = vm_map_zero(pml4, va, perm, &page);

		if (err)
			return err == -EINVAL ? -ENOEXEC : err;
		/* the part of the file that lands on this page */
		uintptr_t lo = MAX(va, ph->vaddr);
		uintptr_t hi = MIN(va + PGSIZE, ph->vaddr + ph->filesz);
		if (lo < hi)
			memcpy((char *)page + (lo - va),
			       image + ph->offset + (lo - ph->vaddr), hi - lo);
	}
	return 0;
}

/* Loads image (len bytes) into pml4; sets *entry and *end (the highest
 * address used). Returns 0, -ENOEXEC for a bad image, or -ENOMEM. On
 * failure the pages already mapped stay in pml4, which the caller frees. */
int elf_load(uint64_t *pml4, const void *image, size_t len, uintptr_t *entry,
	     uintptr_t *end)
{
	struct elf_info info;
	struct elf64_phdr ph;

	if (elf_check(image, len, USER_BASE, USTACK_TOP - USTACK_SIZE, &info))
		return -ENOEXEC;
	for (uint16_t i = 0; i < info.phnum; i++) {
		if (!elf_phdr(image, &info, i, &ph))
			continue;
		int err = load_segment(pml4, &ph, image);
		if (err)
			return err;
	}
	*entry = info.entry;
	*end = info.end;
	return 0;
}
