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
 *	memstat	"free_pages N\ntotal_pages N\n" from the page allocator
 *
 * All files are a static table served by the devgen helpers; this file only
 * routes reads and writes to the console, printk and pmem.
 */
#include <ns.h>
#include <console.h>
#include <pmem.h>
#include <printfmt.h>
#include <printk.h>
#include <string.h>
#include <abi/errno.h>

enum { Qdir, Qcons, Qnull, Qzero, Qkmsg, Qsysname, Qmemstat };

static const struct dirtab cons_tab[] = {
	{ ".", { Qdir, 0, QTDIR }, 0, S_IFDIR | 0555 },
	{ "cons", { Qcons, 0, QTSTREAM }, 0, S_IFCHR | 0666 },
	{ "null", { Qnull, 0, QTFILE }, 0, S_IFCHR | 0666 },
	{ "zero", { Qzero, 0, QTFILE }, 0, S_IFCHR | 0666 },
	{ "kmsg", { Qkmsg, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "sysname", { Qsysname, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "memstat", { Qmemstat, 0, QTFILE }, 0, S_IFREG | 0444 },
};

static int cons_attach(struct chan *c)
{
	return devgen_attach(c, cons_tab);
}

static int cons_walk(struct chan *c, const char *name)
{
	return devgen_walk(c, name, cons_tab, ARRAY_SIZE(cons_tab));
}

static int cons_stat(struct chan *c, struct stat *st)
{
	return devgen_stat(c, st, cons_tab, ARRAY_SIZE(cons_tab));
}

static int cons_open(struct chan *c, int omode)
{
	return devgen_open(c, omode, cons_tab, ARRAY_SIZE(cons_tab));
}

static int cons_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	return devgen_readdir(c, i, de, cons_tab, ARRAY_SIZE(cons_tab));
}

/* Reads the memstat text at off. */
static long memstat_read(void *buf, size_t n, uint64_t off)
{
	char text[64];

	fmt_snprintf(text, sizeof(text), "free_pages %zu\ntotal_pages %zu\n",
		     pmem_nr_free_pages(), pmem_nr_total_pages());
	return devgen_readstr(off, buf, n, text);
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
		return memstat_read(buf, n, off);
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
	.attach = cons_attach,
	.walk = cons_walk,
	.stat = cons_stat,
	.open = cons_open,
	.read = cons_read,
	.write = cons_write,
	.readdir = cons_readdir,
};

DEV_REGISTER(cons_dev);
