/*
 * Host tests of the probe module linker's pure part (kern/trace/
 * lib/module_elf.c) over a small relocatable object built here byte by byte:
 * a .text of 24 bytes with four relocations (64, PC32 and 32S against an
 * exported symbol, PC32 against .data), a .data, a symbol table with
 * probe_init. The good object links to the expected bytes; each fault
 * (header, truncation, relocation type, offset, range, unknown symbol, a
 * symbol outside its section, a table linked to the wrong section) is
 * refused with its message.
 */
#include <string.h>

#include "htest.h"

#include <module_elf.h>

struct obj_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

struct obj_sym {
	uint32_t name;
	unsigned char info, other;
	uint16_t shndx;
	uint64_t value, size;
};

struct obj_rela {
	uint64_t offset, info;
	int64_t addend;
};

/* Sections: 0 null, 1 .text, 2 .data, 3 .symtab, 4 .strtab, 5 .rela.text */
static const char strtab[] = "\0probe_init\0exported\0";
static struct {
	uint8_t ehdr[64];
	uint8_t text[24];
	uint8_t data[8];
	struct obj_sym syms[4];
	char str[sizeof(strtab)];
	uint8_t pad[8 - sizeof(strtab) % 8];
	struct obj_rela rela[4];
	struct obj_shdr sh[6];
} obj;

#define EXPORTED_ADDR	0xffffffff80123000ULL
#define VA		0xffffffffc0000000ULL
#define DATA_START	4096

static uint64_t resolve(const char *name)
{
	return !strcmp(name, "exported") ? EXPORTED_ADDR : 0;
}

static void sh(int i, uint32_t type, uint64_t flags, const void *at,
	       uint64_t size, uint32_t link, uint32_t info, uint64_t entsize)
{
	obj.sh[i] = (struct obj_shdr){ .type = type, .flags = flags,
		.offset = (uint64_t)((const uint8_t *)at - (const uint8_t *)&obj),
		.size = size, .link = link, .info = info, .addralign = 8,
		.entsize = entsize };
}

static void build(void)
{
	uint16_t h16[] = { 1, 62 };	/* ET_REL, EM_X86_64 */
	uint64_t shoff = offsetof(__typeof__(obj), sh);
	uint16_t tail[] = { 64, 0, 0, 64, 6, 0 };

	memset(&obj, 0, sizeof(obj));
	memcpy(obj.ehdr, "\177ELF\2\1\1", 7);
	memcpy(obj.ehdr + 16, h16, sizeof(h16));
	memcpy(obj.ehdr + 0x28, &shoff, 8);
	memcpy(obj.ehdr + 0x34, tail, sizeof(tail));
	memcpy(obj.str, strtab, sizeof(strtab));
	/* symbols: 1 probe_init (.text+0, global), 2 exported (undefined),
	 * 3 the .data section */
	obj.syms[1] = (struct obj_sym){ .name = 1, .info = 0x12, .shndx = 1,
					.size = 8 };
	obj.syms[2] = (struct obj_sym){ .name = 12, .info = 0x10 };
	obj.syms[3] = (struct obj_sym){ .info = 3, .shndx = 2 };
	obj.rela[0] = (struct obj_rela){ 0, 2ULL << 32 | 1, 0 };	/* 64 */
	obj.rela[1] = (struct obj_rela){ 8, 2ULL << 32 | 2, -4 };	/* PC32 */
	obj.rela[2] = (struct obj_rela){ 12, 3ULL << 32 | 2, 4 };	/* PC32 .data */
	obj.rela[3] = (struct obj_rela){ 16, 2ULL << 32 | 11, 0 };	/* 32S */
	sh(1, 1, 6, obj.text, sizeof(obj.text), 0, 0, 0);	/* AX */
	sh(2, 1, 3, obj.data, sizeof(obj.data), 0, 0, 0);	/* WA */
	sh(3, 2, 0, obj.syms, sizeof(obj.syms), 4, 1, sizeof(struct obj_sym));
	sh(4, 3, 0, obj.str, sizeof(obj.str), 0, 0, 0);
	sh(5, 4, 0, obj.rela, sizeof(obj.rela), 3, 1, sizeof(struct obj_rela));
}

static uint8_t mem[2 * DATA_START];

static const char *link_it(size_t len)
{
	struct module_layout l;
	const char *why = module_elf_check(&obj, len, &l);

	memset(mem, 0, sizeof(mem));
	return why ? why : module_elf_relocate(&obj, len, &l, mem, VA,
					       DATA_START, resolve);
}

static int test_good(void)
{
	struct module_layout l;
	uint64_t v64, addr;
	int32_t v32;

	build();
	HT_CHECK(!module_elf_check(&obj, sizeof(obj), &l));
	HT_CHECK(l.text_size == 24 && l.data_size == 8);
	HT_CHECK(l.region[1] == MODULE_REGION_TEXT &&
		 l.region[2] == MODULE_REGION_DATA && !l.region[3]);
	HT_CHECK(!link_it(sizeof(obj)));
	memcpy(&v64, mem, 8);
	HT_CHECK(v64 == EXPORTED_ADDR);
	memcpy(&v32, mem + 8, 4);	/* S - 4 - P, P = VA + 8 */
	HT_CHECK((int64_t)v32 == (int64_t)(EXPORTED_ADDR - 4 - (VA + 8)));
	memcpy(&v32, mem + 12, 4);	/* .data + 4 - P */
	HT_CHECK(v32 == (int32_t)(DATA_START + 4 - 12));
	/* 32S of a kernel address: fits, sign-extended */
	memcpy(&v32, mem + 16, 4);
	HT_CHECK((int64_t)v32 == (int64_t)EXPORTED_ADDR);
	HT_CHECK(module_elf_symbol(&obj, sizeof(obj), &l, VA, DATA_START,
				   "probe_init", &addr) && addr == VA);
	HT_CHECK(!module_elf_symbol(&obj, sizeof(obj), &l, VA, DATA_START,
				    "exported", &addr));
	return 0;
}

static bool refused(const char *why, const char *want)
{
	if (why && strstr(why, want))
		return true;
	fprintf(stderr, "got '%s', want '%s'\n", why ? why : "(linked)", want);
	return false;
}

static int test_bad(void)
{
	uint16_t machine = 3;

	build();
	memcpy(obj.ehdr + 18, &machine, 2);
	HT_CHECK(refused(link_it(sizeof(obj)), "wrong machine 3"));
	build();
	obj.ehdr[4] = 1;
	HT_CHECK(refused(link_it(sizeof(obj)), "not a 64-bit"));
	build();
	HT_CHECK(refused(link_it(40), "truncated: 40 bytes"));
	HT_CHECK(refused(link_it(offsetof(__typeof__(obj), sh) + 64),
			 "truncated: section table"));
	build();
	obj.sh[5].size += 24;		/* past the end of the file */
	obj.sh[5].offset = sizeof(obj) - 24;
	HT_CHECK(refused(link_it(sizeof(obj)), "truncated: section 5"));
	build();
	obj.rela[1].info = 2ULL << 32 | 99;
	HT_CHECK(refused(link_it(sizeof(obj)), "unsupported type 99"));
	build();
	obj.rela[2].offset = 22;	/* 4 bytes at 22 of 24 */
	HT_CHECK(refused(link_it(sizeof(obj)), "offset 0x16 beyond section 1"));
	build();
	obj.rela[3].info = 2ULL << 32 | 10;	/* R_X86_64_32 of a kernel address */
	HT_CHECK(refused(link_it(sizeof(obj)), "out of range for type 10"));
	build();
	obj.syms[2].name = 1;		/* "probe_init": not exported */
	HT_CHECK(refused(link_it(sizeof(obj)), "unknown symbol probe_init"));
	build();
	obj.syms[2].name = 9999;
	HT_CHECK(refused(link_it(sizeof(obj)), "bad symbol name"));
	build();
	obj.rela[0].info = 7ULL << 32 | 1;
	HT_CHECK(refused(link_it(sizeof(obj)), "symbol 7 of 4"));
	build();
	obj.sh[3].type = 1;		/* no symbol table */
	HT_CHECK(refused(link_it(sizeof(obj)), "no symbol table"));
	return 0;
}

/* A symbol the loader would call or relocate against must lie inside its
 * section: before, probe_init at .text+0x30 (of 24 bytes) was "found" at
 * VA + 0x30 and called. */
static int test_sym_bounds(void)
{
	static const struct { uint64_t value, size; } bad[] = {
		{ 0x30, 8 },	/* starts past the end */
		{ 16, 16 },	/* runs past the end */
		{ 24, 0 },	/* a function at the end: no code */
		{ 8, ~0ULL },	/* value + size wraps */
	};
	struct module_layout l;
	uint64_t addr;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build();
		obj.syms[1].value = bad[i].value;
		obj.syms[1].size = bad[i].size;
		if (!module_elf_check(&obj, sizeof(obj), &l) &&
		    module_elf_symbol(&obj, sizeof(obj), &l, VA, DATA_START,
				      "probe_init", &addr))
			HT_FAIL("probe_init at %#lx size %#lx: linked, at %#lx",
				(unsigned long)bad[i].value,
				(unsigned long)bad[i].size, (unsigned long)addr);
		HT_CHECK(refused(module_elf_check(&obj, sizeof(obj), &l),
				 "beyond section 1"));
	}
	build();			/* relocated against, not called */
	obj.syms[3].value = sizeof(obj.data) + 1;
	HT_CHECK(refused(link_it(sizeof(obj)), "symbol 3"));
	return 0;
}

/* Every sh_link and sh_info used names a section of the right type, and
 * section 0 is the null section: before, a symbol table linked to a
 * section 0 that claimed to be a string table far outside the image was
 * read (SEGV in sym_name). */
static int test_links(void)
{
	build();
	obj.sh[0].type = 3;		/* SHT_STRTAB, at 1 TiB */
	obj.sh[0].offset = 1ULL << 40;
	obj.sh[0].size = 4096;
	obj.sh[3].link = 0;
	HT_CHECK(refused(link_it(sizeof(obj)), "section 0"));
	build();
	obj.sh[0].type = 3;		/* a string table at 0, not linked */
	obj.sh[0].offset = 1ULL << 40;
	HT_CHECK(refused(link_it(sizeof(obj)), "section 0"));
	build();
	obj.sh[3].link = 2;		/* .data as the string table */
	HT_CHECK(refused(link_it(sizeof(obj)), "bad symbol table"));
	build();
	obj.sh[5].link = 4;		/* relocations against .strtab */
	HT_CHECK(refused(link_it(sizeof(obj)), "relocation section 5"));
	build();
	obj.sh[5].info = 6;		/* no section 6 */
	HT_CHECK(refused(link_it(sizeof(obj)), "relocation section 5"));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_good, "module_elf_good" },
	{ test_bad, "module_elf_bad" },
	{ test_sym_bounds, "module_elf_sym_bounds" },
	{ test_links, "module_elf_links" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
