/* Loading ELF64 executables into a user address space. */
#ifndef ELF_H
#define ELF_H

#include <compiler.h>

struct chan;
int elf_load(uint64_t *pml4, struct chan *c, uint64_t size, uintptr_t *entry,
	     uintptr_t *end);

#endif /* ELF_H */
