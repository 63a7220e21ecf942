/*
 * module_elf.c: checks, lays out and relocates an ELF64 x86-64 relocatable
 * object (ET_REL) for the probe module loader; rules in module_elf.h. The
 * object is untrusted: every header, table and index is checked against
 * the image before it is used, and structures are copied out with memcpy
 * (the image need not be aligned). Pure: host-tested.
 */
#include <printfmt.h>
#include <stdarg.h>
#include <string.h>

#include <module_elf.h>

#define ET_REL		1
#define EM_X86_64	62
#define SHT_NULL	0
#define SHT_SYMTAB	2
#define SHT_STRTAB	3
#define SHT_RELA	4
#define SHT_NOBITS	8
#define SHF_ALLOC	2
#define SHF_EXECINSTR	4
#define SHN_UNDEF	0
#define SHN_ABS		0xfff1
#define STB_GLOBAL	1
#define STT_FUNC	2
#define R_X86_64_64	1
#define R_X86_64_PC32	2
#define R_X86_64_PLT32	4
#define R_X86_64_32	10
#define R_X86_64_32S	11
#define MAX_ALIGN	4096

struct ehdr {
	unsigned char ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

struct sym {
	uint32_t name;
	unsigned char info, other;
	uint16_t shndx;
	uint64_t value, size;
};

struct rela {
	uint64_t offset, info;
	int64_t addend;
};

static char why_buf[128];

static const char *__attribute__((format(printf, 1, 2))) fail(const char *fmt,
							       ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

static struct shdr section(const void *img, uint32_t i)
{
	struct ehdr eh;
	struct shdr sh;

	memcpy(&eh, img, sizeof(eh));
	memcpy(&sh, (const char *)img + eh.shoff + (uint64_t)i * sizeof(sh),
	       sizeof(sh));
	return sh;
}

/* Whether [off, off + size) lies within len bytes. */
static bool inside(uint64_t off, uint64_t size, size_t len)
{
	return off <= len && size <= len - off;
}

static const char *check_header(const void *img, size_t len, struct ehdr *eh)
{
	if (len < sizeof(*eh))
		return fail("truncated: %zu bytes, no ELF header", len);
	memcpy(eh, img, sizeof(*eh));
	if (memcmp(eh->ident, "\177ELF", 4))
		return fail("not an ELF object");
	if (eh->ident[4] != 2 || eh->ident[5] != 1)
		return fail("not a 64-bit little-endian ELF object");
	if (eh->machine != EM_X86_64)
		return fail("wrong machine %u (want x86-64, %u)", eh->machine,
			    EM_X86_64);
	if (eh->type != ET_REL)
		return fail("not a relocatable object (type %u)", eh->type);
	if (eh->shentsize != sizeof(struct shdr) || !eh->shnum ||
	    eh->shnum > MODULE_ELF_MAX_SECTIONS)
		return fail("bad section table (%u entries of %u bytes)",
			    eh->shnum, eh->shentsize);
	if (!inside(eh->shoff, (uint64_t)eh->shnum * sizeof(struct shdr), len))
		return fail("truncated: section table at %lu beyond %zu bytes",
			    eh->shoff, len);
	return NULL;
}

/* Places allocated section i in its region; the sizes grow. */
static const char *place(struct module_layout *l, uint32_t i,
			 const struct shdr *sh)
{
	uint64_t align = sh->addralign ? sh->addralign : 1;
	size_t *size;

	if (align & (align - 1) || align > MAX_ALIGN)
		return fail("section %u: alignment %lu", i, align);
	l->region[i] = sh->flags & SHF_EXECINSTR ? MODULE_REGION_TEXT :
		       MODULE_REGION_DATA;
	size = l->region[i] == MODULE_REGION_TEXT ? &l->text_size :
		&l->data_size;
	*size = (*size + align - 1) & ~(align - 1);
	if (sh->size > (1u << 24))
		return fail("section %u: %lu bytes", i, sh->size);
	l->off[i] = *size;
	*size += sh->size;
	return NULL;
}

/* Checks symbol table entry si (an allocated section's symbol lies inside
 * it; a function starts before its end). */
static const char *check_symbol(const void *img, const struct module_layout *l,
				uint64_t si)
{
	struct shdr symtab = section(img, l->symtab), sh;
	struct sym s;

	memcpy(&s, (const char *)img + symtab.offset + si * sizeof(s),
	       sizeof(s));
	if (s.shndx == SHN_UNDEF || s.shndx >= l->nsec || !l->region[s.shndx])
		return NULL;	/* not in the module: sym_value() decides */
	sh = section(img, s.shndx);
	if (s.value > sh.size || s.size > sh.size - s.value ||
	    ((s.info & 0xf) == STT_FUNC && s.value == sh.size))
		return fail("symbol %lu (value %#lx size %lu) beyond section %u "
			    "(%lu bytes)", si, s.value, s.size, s.shndx,
			    sh.size);
	return NULL;
}

/* Checks what the sections name (after every section was seen): each
 * relocation section's symbol table and target, each symbol's place. */
static const char *check_links(const void *img, const struct module_layout *l)
{
	struct shdr symtab = section(img, l->symtab);
	const char *why = NULL;

	for (uint32_t i = 1; i < l->nsec; i++) {
		struct shdr sh = section(img, i);

		if (sh.type == SHT_RELA && (sh.link != l->symtab || !sh.info ||
					    sh.info >= l->nsec))
			return fail("bad relocation section %u (symbol table %u, "
				    "target %u)", i, sh.link, sh.info);
	}
	for (uint64_t si = 1; si < symtab.size / sizeof(struct sym) && !why;
	     si++)
		why = check_symbol(img, l, si);
	return why;
}

/* Checks section i (not 0): within the image; a symbol table is the only
 * one and names a string table; a relocation section's entries. */
static const char *check_section(const void *img, size_t len,
				 struct module_layout *l, uint32_t i)
{
	struct shdr sh = section(img, i);

	if (sh.type != SHT_NOBITS && !inside(sh.offset, sh.size, len))
		return fail("truncated: section %u beyond %zu bytes", i, len);
	if (sh.type == SHT_SYMTAB) {
		if (l->symtab || sh.entsize != sizeof(struct sym) ||
		    sh.size % sizeof(struct sym) || !sh.link ||
		    sh.link >= l->nsec ||
		    section(img, sh.link).type != SHT_STRTAB)
			return fail("bad symbol table (section %u)", i);
		l->symtab = i;
		l->strtab = sh.link;
	}
	if (sh.type == SHT_RELA && (sh.entsize != sizeof(struct rela) ||
				    sh.size % sizeof(struct rela)))
		return fail("bad relocation section %u", i);
	return sh.flags & SHF_ALLOC ? place(l, i, &sh) : NULL;
}

/*
 * Checks the object (header, section 0 the null section, every other
 * section within the image, one symbol table with its string table,
 * relocation sections' links, every symbol of an allocated section inside
 * it) and lays out its allocated sections into *l. Returns NULL or why it
 * is refused.
 */
const char *module_elf_check(const void *img, size_t len,
			     struct module_layout *l)
{
	struct ehdr eh;
	const char *why = check_header(img, len, &eh);

	if (why)
		return why;
	memset(l, 0, sizeof(*l));
	l->nsec = eh.shnum;
	if (section(img, 0).type != SHT_NULL)
		return fail("section 0 is not the null section (type %u)",
			    section(img, 0).type);
	for (uint32_t i = 1; i < l->nsec && !why; i++)
		why = check_section(img, len, l, i);
	if (!why && !l->symtab)
		return fail("no symbol table");
	return why ? why : check_links(img, l);
}

/* Section i's address and its memory (allocated sections only). */
static uint64_t sec_addr(const struct module_layout *l, uint32_t i,
			 uint64_t va, size_t data_start)
{
	return va + (l->region[i] == MODULE_REGION_DATA ? data_start : 0) +
	       l->off[i];
}

/* Symbol i's name, NULL if it does not lie NUL-terminated in strtab. */
static const char *sym_name(const void *img, const struct module_layout *l,
			    const struct sym *s)
{
	struct shdr st = section(img, l->strtab);
	const char *p = (const char *)img + st.offset;

	if (s->name >= st.size || !memchr(p + s->name, 0, st.size - s->name))
		return NULL;
	return p + s->name;
}

/* Symbol index si's value: an allocated section's address plus its value,
 * an absolute value, or an export by name. */
static const char *sym_value(const void *img, const struct module_layout *l,
			     uint64_t si, uint64_t va, size_t data_start,
			     module_resolve_fn resolve, uint64_t *v)
{
	struct shdr symtab = section(img, l->symtab);
	const char *name;
	struct sym s;

	if (si >= symtab.size / sizeof(s))
		return fail("bad relocation: symbol %lu of %lu", si,
			    symtab.size / sizeof(s));
	memcpy(&s, (const char *)img + symtab.offset + si * sizeof(s),
	       sizeof(s));
	if (s.shndx == SHN_ABS) {
		*v = s.value;
	} else if (s.shndx == SHN_UNDEF) {
		if (!(name = sym_name(img, l, &s)) || !*name)
			return fail("bad symbol name (symbol %lu)", si);
		if (!(*v = resolve(name)))
			return fail("unknown symbol %s (not exported)", name);
	} else if (s.shndx < l->nsec && l->region[s.shndx]) {
		*v = sec_addr(l, s.shndx, va, data_start) + s.value;
	} else {
		return fail("symbol %lu in section %u, which is not loaded",
			    si, s.shndx);
	}
	return NULL;
}

/* Applies one relocation r to section t (at addr, its bytes at mem). */
static const char *apply(const struct rela *r, uint32_t t, uint64_t addr,
			 uint8_t *mem, uint64_t size, uint64_t s)
{
	uint32_t type = (uint32_t)r->info;
	uint64_t v = s + (uint64_t)r->addend, p = addr + r->offset;
	unsigned n = type == R_X86_64_64 ? 8 : 4;
	uint32_t v32;

	if (type != R_X86_64_64 && type != R_X86_64_PC32 &&
	    type != R_X86_64_PLT32 && type != R_X86_64_32 &&
	    type != R_X86_64_32S)
		return fail("bad relocation: unsupported type %u (section %u)",
			    type, t);
	if (!inside(r->offset, n, size))
		return fail("bad relocation: offset %#lx beyond section %u "
			    "(%lu bytes)", r->offset, t, size);
	if (type == R_X86_64_PC32 || type == R_X86_64_PLT32)
		v -= p;
	if ((type == R_X86_64_PC32 || type == R_X86_64_PLT32 ||
	     type == R_X86_64_32S) && (int64_t)v != (int32_t)v)
		return fail("bad relocation: value %#lx out of range for type %u "
			    "(section %u offset %#lx)", v, type, t, r->offset);
	if (type == R_X86_64_32 && v > UINT32_MAX)
		return fail("bad relocation: value %#lx out of range for type %u "
			    "(section %u offset %#lx)", v, type, t, r->offset);
	v32 = (uint32_t)v;
	memcpy(mem + r->offset, n == 8 ? (const void *)&v : &v32, n);
	return NULL;
}

/* Applies relocation section i (whose target is allocated). */
static const char *relocate_section(const void *img, const struct module_layout *l,
				    uint32_t i, uint8_t *mem, uint64_t va,
				    size_t data_start, module_resolve_fn resolve)
{
	struct shdr rs = section(img, i), ts = section(img, rs.info);
	uint8_t *tmem = mem + (sec_addr(l, rs.info, va, data_start) - va);
	const char *why = NULL;

	for (uint64_t k = 0; k < rs.size / sizeof(struct rela) && !why; k++) {
		struct rela r;
		uint64_t s;

		memcpy(&r, (const char *)img + rs.offset + k * sizeof(r),
		       sizeof(r));
		why = sym_value(img, l, r.info >> 32, va, data_start, resolve, &s);
		if (!why)
			why = apply(&r, rs.info, sec_addr(l, rs.info, va,
							  data_start),
				    tmem, ts.size, s);
	}
	return why;
}

/*
 * Copies the allocated sections into mem (zeroed beforehand by the caller;
 * the module will run at va) and applies every relocation whose target is
 * allocated, resolving undefined symbols through resolve. Returns NULL or
 * why the object is refused (mem is then garbage).
 */
const char *module_elf_relocate(const void *img, size_t len,
				const struct module_layout *l, void *mem,
				uint64_t va, size_t data_start,
				module_resolve_fn resolve)
{
	const char *why = NULL;

	(void)len;	/* every offset was checked by module_elf_check() */
	for (uint32_t i = 1; i < l->nsec; i++) {
		struct shdr sh = section(img, i);

		if (l->region[i] && sh.type != SHT_NOBITS)
			memcpy((uint8_t *)mem + (sec_addr(l, i, va, data_start) - va),
			       (const char *)img + sh.offset, sh.size);
	}
	for (uint32_t i = 1; i < l->nsec && !why; i++) {
		struct shdr sh = section(img, i);

		if (sh.type == SHT_RELA && l->region[sh.info])
			why = relocate_section(img, l, i, mem, va, data_start,
					       resolve);
	}
	return why;
}

/* Finds global function name defined in a code section; its address (the
 * module at va) in *addr. module_elf_check() saw it start inside. */
bool module_elf_symbol(const void *img, size_t len,
		       const struct module_layout *l, uint64_t va,
		       size_t data_start, const char *name, uint64_t *addr)
{
	struct shdr symtab = section(img, l->symtab);

	(void)len;
	for (uint64_t i = 1; i < symtab.size / sizeof(struct sym); i++) {
		struct sym s;
		const char *n;

		memcpy(&s, (const char *)img + symtab.offset + i * sizeof(s),
		       sizeof(s));
		if (s.info >> 4 != STB_GLOBAL || (s.info & 0xf) != STT_FUNC ||
		    s.shndx >= l->nsec ||
		    l->region[s.shndx] != MODULE_REGION_TEXT ||
		    !(n = sym_name(img, l, &s)) || strcmp(n, name))
			continue;
		*addr = sec_addr(l, s.shndx, va, data_start) + s.value;
		return true;
	}
	return false;
}
