/*
 * module_elf.h: the pure part of the probe module loader
 * (module_elf.c): checking an ELF64 x86-64 relocatable object, laying out
 * its allocated sections in two regions (code, then the rest), applying its
 * RELA relocations (R_X86_64_64, PC32, PLT32, 32, 32S, each range-checked)
 * and finding its global functions. Every error is a message naming the
 * fault; nothing is written outside the caller's memory.
 *
 *	struct module_layout l;
 *	why = module_elf_check(img, len, &l);	// then allocate
 *	why = module_elf_relocate(img, len, &l, mem, va, data_start, resolve);
 *	module_elf_symbol(img, len, &l, va, data_start, "probe_init", &addr);
 *
 * The code region starts at offset 0 of mem (and va), the data region at
 * data_start (a multiple of the page size, >= l.text_size).
 */
#ifndef MODULE_ELF_H
#define MODULE_ELF_H

#include <compiler.h>

#define MODULE_ELF_MAX_SECTIONS	256

enum { MODULE_REGION_NONE, MODULE_REGION_TEXT, MODULE_REGION_DATA };

struct module_layout {
	uint32_t nsec;
	uint32_t symtab, strtab;	/* section indices */
	size_t text_size, data_size;	/* bytes of each region */
	uint8_t region[MODULE_ELF_MAX_SECTIONS];
	uint64_t off[MODULE_ELF_MAX_SECTIONS];	/* within its region */
};

/* An exported symbol's address, or 0 when the name is not exported. */
typedef uint64_t (*module_resolve_fn)(const char *name);

const char *module_elf_check(const void *img, size_t len,
			     struct module_layout *l);
const char *module_elf_relocate(const void *img, size_t len,
				const struct module_layout *l, void *mem,
				uint64_t va, size_t data_start,
				module_resolve_fn resolve);
bool module_elf_symbol(const void *img, size_t len,
		       const struct module_layout *l, uint64_t va,
		       size_t data_start, const char *name, uint64_t *addr);

#endif /* MODULE_ELF_H */
