/*
 * ttprof_elf.c: the function symbols of a user program's ELF file
 * (build/user/NAME: static, not position-independent, so its pcs are its
 * symbols' addresses), for naming the user frames of a profile. Every
 * offset and size the file gives is checked against the file before use:
 * a truncated or hostile file gives an error, never a read out of bounds.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ttprof_elf.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct ttprof_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether [off, off + n) lies in a file of size bytes. */
static bool in_file(uint64_t off, uint64_t n, uint64_t size)
{
	return off <= size && n <= size - off;
}

/* The FUNC symbols of symbol table sh (its names in section sh->sh_link)
 * into e. Returns 0, or -1 with *why set. */
static int read_symtab(struct ttprof_elf *e, const Elf64_Shdr *shdr,
		       uint32_t nsh, const Elf64_Shdr *sh, const char **why)
{
	const Elf64_Shdr *str;
	const Elf64_Sym *sym;
	uint64_t n;

	if (sh->sh_link >= nsh || sh->sh_entsize != sizeof(Elf64_Sym) ||
	    sh->sh_offset % 8 ||
	    !in_file(sh->sh_offset, sh->sh_size, e->size)) {
		*why = "bad symbol table";
		return -1;
	}
	str = &shdr[sh->sh_link];
	if (!in_file(str->sh_offset, str->sh_size, e->size) || !str->sh_size ||
	    e->file[str->sh_offset + str->sh_size - 1]) {
		*why = "bad string table";
		return -1;
	}
	sym = (const Elf64_Sym *)(e->file + sh->sh_offset);
	n = sh->sh_size / sizeof(*sym);
	e->syms = calloc(n ? n : 1, sizeof(*e->syms));
	if (!e->syms) {
		*why = "out of memory";
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC &&
		    sym[i].st_value && sym[i].st_name < str->sh_size)
			e->syms[e->nsyms++] = (struct ttprof_sym){
				sym[i].st_value, sym[i].st_size,
				(const char *)e->file + str->sh_offset +
				sym[i].st_name };
	qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	return 0;
}

/* Loads path's function symbols into e. Returns 0, or -1 with *why set
 * (e then holds nothing to free). */
int ttprof_elf_load(struct ttprof_elf *e, const char *path, const char **why)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *shdr;
	FILE *f = fopen(path, "rb");
	long size;

	memset(e, 0, sizeof(*e));
	*why = "cannot read it";
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < (long)sizeof(*eh) ||
	    fseek(f, 0, SEEK_SET) || !(e->file = malloc((size_t)size)) ||
	    fread(e->file, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		ttprof_elf_free(e);
		return -1;
	}
	fclose(f);
	e->size = (uint64_t)size;
	eh = (const Elf64_Ehdr *)e->file;
	*why = "not a 64-bit ELF file";
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*shdr),
		     e->size) || eh->e_shoff % 8) {
		ttprof_elf_free(e);
		return -1;
	}
	shdr = (const Elf64_Shdr *)(e->file + eh->e_shoff);
	for (uint32_t i = 0; i < eh->e_shnum; i++)
		if (shdr[i].sh_type == SHT_SYMTAB)
			return read_symtab(e, shdr, eh->e_shnum, &shdr[i], why) ?
			       (ttprof_elf_free(e), -1) : 0;
	*why = "no symbol table";
	ttprof_elf_free(e);
	return -1;
}

void ttprof_elf_free(struct ttprof_elf *e)
{
	free(e->syms);
	free(e->file);
	memset(e, 0, sizeof(*e));
}

/* The function pc is in: the symbol with the largest address at or below
 * it, if pc is within its size (or it has none). NULL if none. */
const struct ttprof_sym *ttprof_elf_find(const struct ttprof_elf *e,
					 uint64_t pc)
{
	uint64_t lo = 0, hi = e->nsyms;
	const struct ttprof_sym *s;

	while (lo < hi) {	/* lo: the first symbol above pc */
		uint64_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	return !s->size || pc - s->addr < s->size ? s : NULL;
}
