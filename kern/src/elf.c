/*
 * ELF64 loader: maps every PT_LOAD segment of a static x86_64 executable
 * into a user address space with its own permissions (writable only if
 * PF_W, executable only if PF_X), copies the file bytes and leaves the rest
 * zero. The image is untrusted: every offset and size is checked against
 * the file and the user half before use, and anything odd is ENOEXEC.
 */
#include <elf.h>
#include <vm.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>

#define EI_NIDENT	16
#define ET_EXEC		2
#define EM_X86_64	62
#define PT_LOAD		1
#define PF_X		1
#define PF_W		2
#define USER_BASE	0x1000ull

struct elf64_ehdr {
	unsigned char ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

static bool header_ok(const struct elf64_ehdr *eh, size_t len)
{
	return len >= sizeof(*eh) && !memcmp(eh->ident, "\177ELF", 4) &&
	       eh->ident[4] == 2 && eh->ident[5] == 1 &&	/* 64-bit, LE */
	       eh->type == ET_EXEC && eh->machine == EM_X86_64 &&
	       eh->phentsize == sizeof(struct elf64_phdr) && eh->phnum > 0 &&
	       eh->phoff < len &&
	       eh->phnum <= (len - eh->phoff) / sizeof(struct elf64_phdr);
}

static bool segment_ok(const struct elf64_phdr *ph, size_t len)
{
	return ph->filesz <= ph->memsz && ph->offset <= len &&
	       ph->filesz <= len - ph->offset && ph->vaddr >= USER_BASE &&
	       ph->memsz < USTACK_TOP - USTACK_SIZE &&
	       ph->vaddr < USTACK_TOP - USTACK_SIZE - ph->memsz;
}

/* Maps one segment page by page, copying its file bytes. */
static int load_segment(uint64_t *pml4, const struct elf64_phdr *ph,
			const uint8_t *image)
{
	unsigned perm = (ph->flags & PF_W ? VM_WRITE : 0) |
			(ph->flags & PF_X ? VM_EXEC : 0);
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
	const struct elf64_ehdr *eh = image;
	const struct elf64_phdr *ph;
	int loaded = 0;

	if (!header_ok(eh, len))
		return -ENOEXEC;
	ph = (const struct elf64_phdr *)((const uint8_t *)image + eh->phoff);
	*end = 0;
	for (int i = 0; i < eh->phnum; i++) {
		if (ph[i].type != PT_LOAD || ph[i].memsz == 0)
			continue;
		if (!segment_ok(&ph[i], len))
			return -ENOEXEC;
		int err = load_segment(pml4, &ph[i], image);
		if (err)
			return err;
		*end = MAX(*end, ph[i].vaddr + ph[i].memsz);
		loaded++;
	}
	if (!loaded || eh->entry < USER_BASE || eh->entry >= *end)
		return -ENOEXEC;
	*entry = eh->entry;
	return 0;
}
