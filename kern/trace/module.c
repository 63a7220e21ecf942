/*
 * Loadable probe modules (docs/probes.md, "Probe modules"): a probe
 * written in C as its own relocatable object (probes/NAME.c, built with
 * the kernel's flags, -mcmodel=kernel -fno-pic, into /lib/probes/NAME.o),
 * linked into the running kernel against a table of exported symbols
 * (module_syms.c: only what a probe may call).
 *
 *	ctl: module load /lib/probes/syscount.o	-> probe_init()
 *	     module unload syscount			-> probe_fini(), then
 *						   whatever it left attached
 *						   is detached
 *
 * The object is untrusted input: the ELF header (64-bit, little-endian,
 * ET_REL, x86-64), every section's bounds, the symbol and string tables,
 * every relocation's type, symbol, offset and range are checked, and any
 * fault refuses the whole object with a message naming it, before the
 * module is mapped or any of its code runs; nothing changes. Its SHF_ALLOC
 * sections are laid out in two regions of fresh pages, one block of the
 * page allocator (so at most 8 MiB; a larger module is refused): code
 * (mapped read-only, executable) and the rest (writable, no-execute),
 * placed in the top 2 GiB with the kernel (-mcmodel=kernel code reaches
 * its symbols with 32-bit PC-relative and sign-extended relocations, whose
 * range is checked). Relocations are applied through the direct map before
 * the module's addresses are mapped. Addresses come first fit from the
 * module area (module_space.c) and are reused, so giving a module's
 * addresses back is a TLB shootdown: every CPU flushes its TLB (a kernel
 * message, or in its wait for the module mutex) before the addresses and
 * pages are freed.
 *
 * Unload: probe_fini(), then every probe whose callback lies in the
 * module's code is detached (one grace period: no CPU is left inside it),
 * then its pages are unmapped, shot down and freed. Loads and unloads are
 * serialised by the module mutex (module_lock + module_busy); the ctl
 * mutex is never held across a module's code, which attaches probes
 * itself.
 */
#include "module.h"
#include <module_elf.h>
#include <module_space.h>
#include <ttrace.h>
#include <ttrace_probe.h>
#include <buddy.h>
#include <atomic.h>
#include <kmalloc.h>
#include <kmsg.h>
#include <ns.h>
#include <pmem.h>
#include <printk.h>
#include <seqbuf.h>
#include <smp.h>
#include <stdarg.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#include "internal.h"

#define MODULE_VA_BASE	0xffffffffc0000000ull	/* the top GiB */
#define MODULE_VA_END	0xfffffffffff00000ull
#define MODULE_VA_PAGES	((MODULE_VA_END - MODULE_VA_BASE) / PGSIZE)
#define MODULE_MAX_PAGES (1u << BUDDY_MAX_ORDER)	/* one block */
#define MAX_SECTIONS	256

struct module {
	char name[MODULE_NAME_MAX + 1];
	uintptr_t va;			/* code at va, then the data region */
	size_t text_pages, data_pages;
	void *mem;			/* the same pages, through the direct map */
	unsigned order;
	int (*init)(void);
	void (*fini)(void);
	size_t (*report)(char *buf, size_t size);
	struct module *next;
};

static struct spinlock module_lock = SPINLOCK_INIT("module");
static bool module_busy;			/* module_lock */
static struct module *modules;			/* module mutex */
static char module_err[160];			/* module mutex */
static uint64_t module_va_used[MODULE_SPACE_WORDS(MODULE_VA_PAGES)];
static struct module_space module_va = {	/* module mutex */
	MODULE_VA_PAGES, module_va_used
};
/* What the loaded modules hold (module mutex): pages of the allocator
 * (each module's block, 2^order) and pages of the module area. A leak
 * check compares these, which no other user of the page allocator moves
 * (as vm.c's count does for processes). */
static size_t held_pages, area_pages;

/* TLB shootdowns: tlb_gen counts them (written under the module mutex),
 * tlb_seen[c] is the last one CPU c has flushed for. */
static uint64_t tlb_gen;
static uint64_t tlb_seen[CONFIG_MAX_NUM_CPUS];

/* Flushes this CPU's TLB if a shootdown asked for it since its last flush.
 * Kernel message or a wait for the module mutex: in no tracepoint. */
static void tlb_catch_up(void)
{
	uint64_t gen = atomic_read(&tlb_gen);

	if (atomic_read(&tlb_seen[core_id()]) >= gen)
		return;
	mmu_flush_tlb_all();
	__atomic_store_n(&tlb_seen[core_id()], gen, __ATOMIC_RELEASE);
}

static void tlb_flush_fn(void *arg)
{
	(void)arg;
	tlb_catch_up();
}

/* Takes the module mutex, spinning while another holder has it. Process
 * context, no spinlock held but a reader's own. */
static void module_enter(void)
{
	for (;;) {
		spin_lock(&module_lock);
		if (!module_busy)
			break;
		spin_unlock(&module_lock);
		ttrace_quiet_turn(&ttrace_main);	/* the holder may be in a grace period */
		tlb_catch_up();		/* ... or in a TLB shootdown */
		arch_pause();
	}
	module_busy = true;
	spin_unlock(&module_lock);
}

static void module_exit(void)
{
	spin_lock(&module_lock);
	module_busy = false;
	spin_unlock(&module_lock);
}

/*
 * Returns once every CPU has flushed its TLB since the call, so addresses
 * unmapped before it may be mapped to other pages. Waiting, it counts as
 * quiet for the tracer's grace period (a ctl mutex holder may wait for one
 * before its CPU runs the message). Module mutex held, process context, no
 * spinlock, interrupts on.
 */
static void tlb_shootdown(void)
{
	uint64_t gen = tlb_gen + 1;

	__atomic_store_n(&tlb_gen, gen, __ATOMIC_RELEASE);
	tlb_catch_up();
	for (uint32_t c = 0; c < num_cpus; c++)
		if (c != core_id())
			while (send_kernel_message(c, tlb_flush_fn, NULL) < 0)
				arch_pause();	/* -ENOMEM: memory comes back */
	for (uint32_t c = 0; c < num_cpus; c++)
		while (atomic_read(&tlb_seen[c]) < gen) {
			ttrace_quiet_turn(&ttrace_main);
			arch_pause();
		}
}

/* Sets the error text (module mutex held) and returns it. */
static const char *__attribute__((format(printf, 1, 2)))
merr(const char *fmt, ...)
{
	va_list ap;
	struct seqbuf s;

	seqbuf_init(&s, module_err, sizeof(module_err));
	seqbuf_puts(&s, "module: ");
	va_start(ap, fmt);
	seqbuf_vprintf(&s, fmt, ap);
	va_end(ap);
	seqbuf_mark_cut(&s);
	return module_err;
}

static struct module *find(const char *name)
{
	for (struct module *m = modules; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* The module's name: PATH's last component without ".o". */
static const char *name_of(const char *path, char *name)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 2 && !strcmp(base + n - 2, ".o"))
		n -= 2;
	if (!n || n > MODULE_NAME_MAX)
		return merr("bad module name in '%s' (1-%d characters before "
			    ".o)", path, MODULE_NAME_MAX);
	memcpy(name, base, n);
	name[n] = 0;
	return NULL;
}

/* Memory for l's two regions (one block, zeroed) and a free run of the
 * module area for them; all or nothing. Module mutex held. */
static const char *place(struct module *m, const struct module_layout *l)
{
	size_t pages;
	long first;

	m->text_pages = (l->text_size + PGSIZE - 1) / PGSIZE;
	m->data_pages = (l->data_size + PGSIZE - 1) / PGSIZE;
	pages = m->text_pages + m->data_pages;
	if (!pages)
		return merr("nothing to load");
	if (pages > MODULE_MAX_PAGES)
		return merr("too large: %zu pages, at most %u (one block of the "
			    "page allocator)", pages, MODULE_MAX_PAGES);
	m->order = ttrace_order_for(pages * PGSIZE);
	if ((first = module_space_alloc(&module_va, pages)) < 0)
		return merr("the module area has no %zu free pages", pages);
	if (!(m->mem = get_cont_pages(m->order, 0))) {
		module_space_free(&module_va, (size_t)first, pages);
		return merr("out of memory");
	}
	memset(m->mem, 0, pages * PGSIZE);
	m->va = MODULE_VA_BASE + (uint64_t)first * PGSIZE;
	held_pages += (size_t)1 << m->order;
	area_pages += pages;
	return NULL;
}

/* Gives back what place() took: m's range is unmapped (where map() got
 * to) and every CPU has forgotten it before the range and the pages are
 * freed. Module mutex held, process context. */
static void unplace(struct module *m)
{
	size_t pages = m->text_pages + m->data_pages;

	mmu_unmap_kernel(m->va, pages);
	tlb_shootdown();
	free_cont_pages(m->mem, m->order);
	module_space_free(&module_va, (m->va - MODULE_VA_BASE) / PGSIZE, pages);
	held_pages -= (size_t)1 << m->order;
	area_pages -= pages;
}

/* Maps m's regions at m->va (on failure unplace() unmaps what it did). */
static const char *map(struct module *m)
{
	physaddr_t pa = PADDR(m->mem);

	if (mmu_map_kernel(m->va, pa, m->text_pages, MMU_MAP_EXEC) ||
	    mmu_map_kernel(m->va + m->text_pages * PGSIZE,
			   pa + m->text_pages * PGSIZE, m->data_pages,
			   MMU_MAP_DATA))
		return merr("out of memory for page tables");
	return NULL;
}

/* Links image (len bytes) into m: checks, lays out, relocates, finds the
 * entry points. Nothing is mapped or run. */
static const char *module_link(struct module *m, const void *image,
			       size_t len)
{
	struct module_layout l;
	const char *why;
	uint64_t addr;

	if ((why = module_elf_check(image, len, &l)))
		return merr("%s", why);
	if ((why = place(m, &l)))
		return why;
	why = module_elf_relocate(image, len, &l, m->mem, m->va,
				  m->text_pages * PGSIZE, module_export);
	if (!why && !module_elf_symbol(image, len, &l, m->va,
				       m->text_pages * PGSIZE, "probe_init",
				       &addr))
		why = "no probe_init function";
	if (why) {
		unplace(m);
		return merr("%s", why);
	}
	m->init = (int (*)(void))addr;
	if (module_elf_symbol(image, len, &l, m->va, m->text_pages * PGSIZE,
			      "probe_fini", &addr))
		m->fini = (void (*)(void))addr;
	if (module_elf_symbol(image, len, &l, m->va, m->text_pages * PGSIZE,
			      "probe_report", &addr))
		m->report = (size_t (*)(char *, size_t))addr;
	return NULL;
}

/* Detaches every probe whose callback is m's code (one grace period). */
static unsigned detach_leftovers(struct module *m)
{
	return ttrace_probe_detach_range(m->va, m->va + m->text_pages * PGSIZE);
}

/* Loads, links and starts the module at path. Module mutex held. */
static const char *load(const char *path)
{
	char name[MODULE_NAME_MAX + 1];
	struct module *m;
	const char *why;
	void *image;
	size_t len;
	long err;
	int r;

	if ((why = name_of(path, name)))
		return why;
	if (find(name))
		return merr("%s is loaded already", name);
	if ((err = ns_read_file(path, &image, &len)))
		return merr("%s: cannot read it (error %ld)", path, -err);
	m = kzmalloc(sizeof(*m));
	if (!m) {
		kfree(image);
		return merr("out of memory");
	}
	why = module_link(m, image, len);	/* on error it gave all back */
	kfree(image);
	if (!why && (why = map(m)))
		unplace(m);
	if (why) {
		kfree(m);
		return why;
	}
	memcpy(m->name, name, sizeof(name));
	if ((r = m->init()) != 0) {
		detach_leftovers(m);
		unplace(m);
		kfree(m);
		return merr("%s: probe_init failed (%d)", name, r);
	}
	m->next = modules;
	modules = m;
	printk(KERN_INFO "module: %s loaded at %#lx (%zu+%zu pages)\n", name,
	       m->va, m->text_pages, m->data_pages);
	return NULL;
}

/* Stops and removes module name. Module mutex held. */
static const char *unload(const char *name)
{
	struct module **link = &modules, *m;
	unsigned left;

	while ((m = *link) && strcmp(m->name, name))
		link = &m->next;
	if (!m)
		return merr("no module %s loaded", name);
	*link = m->next;
	if (m->fini)
		m->fini();
	left = detach_leftovers(m);
	unplace(m);
	printk(KERN_INFO "module: %s unloaded (%u probes it left attached "
	       "detached)\n", name, left);
	kfree(m);
	return NULL;
}

/*
 * ctl's "module load PATH" (remove false: word is the PATH) and "module
 * unload NAME", under the module mutex. Returns NULL or why nothing
 * changed (valid until the next call). Process context, no lock held (not
 * the ctl mutex: a module's init and fini attach and detach probes).
 */
const char *module_control(bool remove, const char *word)
{
	const char *why;

	module_enter();
	why = remove ? unload(word) : load(word);
	module_exit();
	return why;
}

/* The loaded modules as text, appended to s: "module NAME at ADDR" and
 * what each one's probe_report() writes (snprintf's rules), then the
 * pages all of them hold. Process context. */
void module_text(struct seqbuf *s)
{
	char *dst;
	size_t room;

	module_enter();
	for (struct module *m = modules; m; m = m->next) {
		seqbuf_printf(s, "module %s at %#lx\n", m->name, m->va);
		if (m->report && !seqbuf_overflowed(s)) {
			room = seqbuf_get_buf(s, &dst);
			seqbuf_commit(s, m->report(dst, room));
		}
	}
	seqbuf_printf(s, "modules hold %zu pages, %zu of the module area\n",
		      held_pages, area_pages);
	module_exit();
}
