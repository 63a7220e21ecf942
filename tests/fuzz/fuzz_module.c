/*
 * Fuzz target: the probe module linker's pure part (kern/trace/lib/module_elf.c)
 * as kern/trace/module.c drives it. An object that passes module_elf_check()
 * and is no larger than the kernel takes (one 8 MiB block) is relocated
 * into memory of exactly its pages, so ASan sees any write outside, with
 * undefined symbols resolved to kernel addresses; then probe_init,
 * probe_fini and probe_report, when found, must lie in its code.
 */
#include <stdlib.h>
#include <string.h>

#include <module_elf.h>

#include "fuzz.h"

#define PAGE		4096ull
#define MAX_PAGES	2048ull		/* 1 << BUDDY_MAX_ORDER, module.c */
#define VA		0xffffffffc0000000ull

/* Every name starting with a lowercase letter is "exported", at a kernel
 * text address of its first bytes; the rest are not. */
static uint64_t resolve(const char *name)
{
	if (name[0] < 'a' || name[0] > 'z')
		return 0;
	return 0xffffffff80100000ull + (uint64_t)(unsigned char)name[0] * 64 +
	       (unsigned char)name[1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const entries[] = {
		"probe_init", "probe_fini", "probe_report",
	};
	struct module_layout l;
	uint64_t text_pages, pages, addr;
	uint8_t *mem;

	if (module_elf_check(data, size, &l))
		return 0;
	text_pages = (l.text_size + PAGE - 1) / PAGE;
	pages = text_pages + (l.data_size + PAGE - 1) / PAGE;
	if (!pages || pages > MAX_PAGES)
		return 0;		/* the kernel refuses these */
	mem = calloc(pages, PAGE);
	if (!mem)
		abort();
	if (!module_elf_relocate(data, size, &l, mem, VA, text_pages * PAGE,
				 resolve))
		for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
			if (module_elf_symbol(data, size, &l, VA,
					      text_pages * PAGE, entries[i],
					      &addr) &&
			    (addr < VA || addr >= VA + l.text_size))
				abort();
	free(mem);
	return 0;
}
