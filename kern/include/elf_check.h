/*
 * elf_check: the checks an untrusted ELF64 executable passes before the
 * kernel maps any of it (kern/src/elf.c), pure C so that the host tests
 * and the fuzzer (tests/fuzz/fuzz_elf.c) run the very code the kernel runs.
 *
 * The image must be a static x86_64 ET_EXEC file whose program headers lie
 * inside it, and every PT_LOAD segment with memory must have its file bytes
 * inside the file, no more file bytes than memory, and lie in [lo, hi) of
 * the address space without wrapping; the entry point must lie in
 * [lo, end), end being the highest address a segment uses. Headers are
 * copied out with memcpy, so the image needs no alignment.
 *
 *	struct elf_info info;
 *	struct elf64_phdr ph;
 *	if (elf_check(image, len, USER_LO, USER_HI, &info) < 0)
 *		return -ENOEXEC;
 *	for (uint16_t i = 0; i < info.phnum; i++)
 *		if (elf_phdr(image, &info, i, &ph))
 *			map(&ph);	// a PT_LOAD segment with memory
 */
#ifndef ELF_CHECK_H
#define ELF_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_PF_X	1
#define ELF_PF_W	2

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/* What elf_check() found: where the program headers are, the entry point
 * and the end of the highest segment. */
struct elf_info {
	uint64_t entry;
	uint64_t end;
	uint64_t phoff;
	uint16_t phnum;
	uint16_t nload;		/* PT_LOAD segments with memory */
};

int elf_check(const void *image, size_t len, uint64_t lo, uint64_t hi,
	      struct elf_info *info);
int elf_check_head(const void *image, size_t avail, size_t len, uint64_t lo,
		   uint64_t hi, struct elf_info *info);
bool elf_phdr(const void *image, const struct elf_info *info, uint16_t i,
	      struct elf64_phdr *ph);

#endif /* ELF_CHECK_H */
