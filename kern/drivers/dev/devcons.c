/*
 * #c: the console device, mounted at /dev.
 *
 *	cons	read: one line typed on the console (console.h's line
 *		discipline; ^D gives end of file); write: to the console.
 *		A stream: no offsets.
 *	null	reads end at once; writes are swallowed
 *	zero	reads give zeros; writes are swallowed
 *	kmsg	the kernel log ring (printk's), from its oldest byte
 *	sysname	"ttrace\n"
 *	memstat	"free_pages N\ntotal_pages N\n..." from the page allocator, and
 *		proc_pages, the pages held for processes (vm.c)
 *
 * All files are a static table (DEV_TAB) that the channel layer walks,
 * stats and lists; this file only routes reads and writes to the console,
 * printk and pmem.
 */
#include <ns.h>
#include <console.h>
#include <pmem.h>
#include <vm.h>
#include <printk.h>
#include <seqbuf.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>

enum { Qdir, Qcons, Qnull, Qzero, Qkmsg, Qsysname, Qmemstat };

#define MEMSTAT_MAX	128	/* the memstat text, the NUL included */

static const struct dirtab cons_tab[] = {
	{ ".", { Qdir, 0, QTDIR }, 0, S_IFDIR | 0555 },
	{ "cons", { Qcons, 0, QTSTREAM }, 0, S_IFCHR | 0666 },
	{ "null", { Qnull, 0, QTFILE }, 0, S_IFCHR | 0666 },
	{ "zero", { Qzero, 0, QTFILE }, 0, S_IFCHR | 0666 },
	{ "kmsg", { Qkmsg, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "sysname", { Qsysname, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "memstat", { Qmemstat, 0, QTFILE }, 0, S_IFREG | 0444 },
};

/* The memstat text (devtext_fn). */
static int memstat_text(struct chan *c, struct seqbuf *s)
{
	(void)c;
	seqbuf_printf(s, "free_pages %zu\ntotal_pages %zu\n"
		      "kernel_table_pages %lu\nproc_pages %lu\n",
		      pmem_nr_free_pages(), pmem_nr_total_pages(),
		      mmu_kernel_table_pages(), vm_pages_held());
	return 0;
}

static long cons_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	switch (c->qid.path) {
	case Qcons:
		return console_read(buf, n);
	case Qnull:
		return 0;
	case Qzero:
		memset(buf, 0, n);
		return (long)n;
	case Qkmsg:
		return (long)kmsg_read(buf, (size_t)off, n);
	case Qsysname:
		return devgen_readstr(off, buf, n, "ttrace\n");
	case Qmemstat:
		return devgen_readtext(c, buf, n, off, MEMSTAT_MAX,
				       memstat_text);
	}
	return -EBADF;
}

static long cons_write(struct chan *c, const void *buf, size_t n,
		       uint64_t off)
{
	(void)off;
	switch (c->qid.path) {
	case Qcons:
		console_write(buf, n);
		return (long)n;
	case Qnull:
	case Qzero:
		return (long)n;
	}
	return -EBADF;
}

static const struct dev cons_dev = {
	.dc = 'c',
	.name = "cons",
	DEV_TAB(cons_tab),
	.read = cons_read,
	.write = cons_write,
};

DEV_REGISTER(cons_dev);
