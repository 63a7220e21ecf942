/*
 * ELF64 loader: maps every PT_LOAD segment of a static x86_64 executable
 * into a user address space with its own permissions (writable only if
 * PF_W, executable only if PF_X), reads the file bytes straight into the
 * pages it maps and leaves the rest zero. Only the first page of the file
 * is read into a buffer of its own (the headers), so loading needs no
 * physically contiguous memory however big the program: after a spawn
 * bomb, memory is plentiful but fragmented (kmalloc keeps pages in its
 * free lists), and a 260 KiB usertests needed 64 contiguous pages. The
 * file is untrusted: elf_check_head() (kern/lib/elf_check.c) checks every
 * offset and size against the file and the user half before a page is
 * mapped, and anything odd is ENOEXEC.
 */
#include <elf.h>
#include <elf_check.h>
#include <ns.h>
#include <pmem.h>
#include <vm.h>
#include <abi/errno.h>
#include <arch/mmu.h>

#define USER_BASE	0x1000ull

/* Reads exactly n bytes of c at off into buf: 0, -errno, or -ENOEXEC when
 * the file ends first (it shrank since its size was read). */
static long read_exact(struct chan *c, void *buf, size_t n, uint64_t off)
{
	long r = chan_read_full(c, buf, n, off);

	return r < 0 ? r : (size_t)r < n ? -ENOEXEC : 0;
}

/* Maps one segment page by page, reading its file bytes from c. */
static int load_segment(uint64_t *pml4, const struct elf64_phdr *ph,
			struct chan *c)
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
		if (lo < hi && (err = (int)read_exact(c, (char *)page + (lo - va),
				hi - lo, ph->offset + (lo - ph->vaddr))))
			return err;
	}
	return 0;
}

/* Loads the size-byte executable open on c into pml4; sets *entry and
 * *end (the highest address used). Returns 0, -ENOEXEC for a bad file
 * (its program headers must lie in its first page), -ENOMEM or a read's
 * error. On failure the pages already mapped stay in pml4, which the
 * caller frees. */
int elf_load(uint64_t *pml4, struct chan *c, uint64_t size, uintptr_t *entry,
	     uintptr_t *end)
{
	size_t avail = (size_t)MIN(size, (uint64_t)PGSIZE);
	void *head = vm_pages_get(0, 0);
	struct elf_info info;
	struct elf64_phdr ph;
	long err;

	if (!head)
		return -ENOMEM;
	err = read_exact(c, head, avail, 0);
	if (!err && elf_check_head(head, avail, size, USER_BASE,
				   USTACK_TOP - USTACK_SIZE, &info))
		err = -ENOEXEC;
	for (uint16_t i = 0; !err && i < info.phnum; i++)
		if (elf_phdr(head, &info, i, &ph))
			err = load_segment(pml4, &ph, c);
	vm_pages_put(head, 0);
	if (err)
		return (int)err;
	*entry = info.entry;
	*end = info.end;
	return 0;
}
