/*
 * ttprof_elf: a user program's function symbols, read from its ELF file,
 * to name the user frames of a profile (tools/profile/ttprof_trace.c).
 *
 *	struct ttprof_elf e;
 *	const char *why;
 *	if (ttprof_elf_load(&e, "build/user/spin", &why) < 0)
 *		warn(why);
 *	const struct ttprof_sym *s = ttprof_elf_find(&e, pc);
 *	ttprof_elf_free(&e);
 */
#ifndef TTPROF_ELF_H
#define TTPROF_ELF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ttprof_sym {
	uint64_t addr, size;
	const char *name;		/* in the file's string table */
};

struct ttprof_elf {
	uint8_t *file;
	uint64_t size;
	struct ttprof_sym *syms;	/* by address */
	uint64_t nsyms;
};

int ttprof_elf_load(struct ttprof_elf *e, const char *path, const char **why);
void ttprof_elf_free(struct ttprof_elf *e);
const struct ttprof_sym *ttprof_elf_find(const struct ttprof_elf *e,
					 uint64_t pc);

#endif /* TTPROF_ELF_H */
