/*
 * elf_check: validation of an untrusted ELF64 executable image, shared by
 * the kernel's loader and the host tests and fuzzer (kern/include/
 * elf_check.h says what is checked). Every offset and size is compared
 * with the file length and the allowed address range before it is added
 * to anything, so no sum can wrap; the whole image is checked before the
 * loader maps a page of it.
 */
#include <elf_check.h>
#include <string.h>
#include <abi/errno.h>

#define EI_NIDENT	16
#define ET_EXEC		2
#define EM_X86_64	62
#define PT_LOAD		1

struct elf64_ehdr {
	unsigned char ident[EI_NIDENT];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

/* True if eh (from an image of len >= sizeof(*eh) bytes) is a 64-bit
 * little-endian x86_64 executable whose program headers lie in the file. */
static bool header_ok(const struct elf64_ehdr *eh, size_t len)
{
	return !memcmp(eh->ident, "\177ELF", 4) &&
	       eh->ident[4] == 2 && eh->ident[5] == 1 &&	/* 64-bit, LE */
	       eh->type == ET_EXEC && eh->machine == EM_X86_64 &&
	       eh->phentsize == sizeof(struct elf64_phdr) && eh->phnum > 0 &&
	       eh->phoff < len &&
	       eh->phnum <= (len - eh->phoff) / sizeof(struct elf64_phdr);
}

/* True if ph's file bytes lie in the len-byte file and its memory in
 * [lo, hi) without wrapping. */
static bool segment_ok(const struct elf64_phdr *ph, size_t len, uint64_t lo,
		       uint64_t hi)
{
	return ph->filesz <= ph->memsz && ph->offset <= len &&
	       ph->filesz <= len - ph->offset && ph->vaddr >= lo &&
	       ph->memsz < hi && ph->vaddr < hi - ph->memsz;
}

/*
 * Copies program header i of an image that passed elf_check() into *ph.
 * Returns true if it is a PT_LOAD segment with memory (one to map).
 */
bool elf_phdr(const void *image, const struct elf_info *info, uint16_t i,
	      struct elf64_phdr *ph)
{
	memcpy(ph, (const uint8_t *)image + info->phoff + (uint64_t)i *
	       sizeof(*ph), sizeof(*ph));
	return ph->type == PT_LOAD && ph->memsz != 0;
}

/*
 * Checks the len-byte image for a loader that maps it into [lo, hi)
 * (lo > 0). Fills *info and returns 0, or returns -ENOEXEC for a bad image
 * (also one with no segment to load or an entry outside the segments).
 */
int elf_check(const void *image, size_t len, uint64_t lo, uint64_t hi,
	      struct elf_info *info)
{
	return elf_check_head(image, len, len, lo, hi, info);
}

/*
 * elf_check() of a len-byte file of which only the first avail bytes are
 * at image (a loader that reads the rest in pieces): the program headers
 * must lie in those bytes, the segments in the file.
 */
int elf_check_head(const void *image, size_t avail, size_t len, uint64_t lo,
		   uint64_t hi, struct elf_info *info)
{
	struct elf64_ehdr eh;
	struct elf64_phdr ph;

	if (avail > len || avail < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, image, sizeof(eh));
	if (!header_ok(&eh, avail))
		return -ENOEXEC;
	info->phoff = eh.phoff;
	info->phnum = eh.phnum;
	info->entry = eh.entry;
	info->end = 0;
	info->nload = 0;
	for (uint16_t i = 0; i < eh.phnum; i++) {
		if (!elf_phdr(image, info, i, &ph))
			continue;
		if (!segment_ok(&ph, len, lo, hi))
			return -ENOEXEC;
		if (ph.vaddr + ph.memsz > info->end)
			info->end = ph.vaddr + ph.memsz;
		info->nload++;
	}
	if (!info->nload || eh.entry < lo || eh.entry >= info->end)
		return -ENOEXEC;
	return 0;
}
