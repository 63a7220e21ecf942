/*
 * Fuzz target: the checks an executable passes before spawn maps it
 * (kern/lib/elf_check.c), with the kernel's user range. When the image
 * passes, every segment the loader would map is re-read and must lie in
 * the file and the range, and the entry inside the segments: what the
 * loader then relies on without checking again.
 */
#include <stdlib.h>

#include <elf_check.h>

#include "fuzz.h"

#define USER_LO		0x1000ull			/* kern/src/elf.c */
/* USTACK_TOP - USTACK_SIZE (kern/include/vm.h) */
#define USER_HI		(0x00007ffffff00000ull - 65536)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_info info;
	struct elf64_phdr ph;
	uint64_t end = 0;

	if (elf_check(data, size, USER_LO, USER_HI, &info) < 0)
		return 0;
	for (uint16_t i = 0; i < info.phnum; i++) {
		if (!elf_phdr(data, &info, i, &ph))
			continue;
		if (ph.offset > size || ph.filesz > size - ph.offset ||
		    ph.filesz > ph.memsz || ph.vaddr < USER_LO ||
		    ph.vaddr + ph.memsz > USER_HI || ph.vaddr + ph.memsz <
		    ph.vaddr)
			abort();
		if (ph.vaddr + ph.memsz > end)
			end = ph.vaddr + ph.memsz;
	}
	if (end != info.end || info.entry < USER_LO || info.entry >= end)
		abort();
	return 0;
}
