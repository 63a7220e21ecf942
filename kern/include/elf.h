/* Loading ELF64 executables into a user address space. */
#ifndef ELF_H
#define ELF_H

#include <compiler.h>

int elf_load(uint64_t *pml4, const void *image, size_t len, uintptr_t *entry,
	     uintptr_t *end);

#endif /* ELF_H */
