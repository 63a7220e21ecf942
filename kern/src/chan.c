/*
 * Channels and the device table (see ns.h).
 *
 * A chan is reference counted with atomics: descriptors in several
 * processes may share one (dup2, spawn), and the last chan_put() calls the
 * device's close and frees it. chan_read/chan_write/chan_stat are the one
 * place that turns a NULL device hook into an error, so neither the
 * syscalls nor the devices repeat those checks.
 *
 * The devgen helpers serve a device whose files are a fixed table (Plan
 * 9's Dirtab and devgen): entry 0 is the directory, the others its files,
 * matched to a chan by qid.path.
 */
#include <ns.h>
#include <atomic.h>
#include <kmalloc.h>
#include <printk.h>
#include <string.h>
#include <abi/errno.h>

extern const struct dev *const __devtab_start[];
extern const struct dev *const __devtab_end[];

void dev_init_all(void)
{
	for (const struct dev *const *d = __devtab_start; d < __devtab_end;
	     d++)
		if ((*d)->init)
			(*d)->init();
}

const struct dev *dev_lookup(const char *name)
{
	for (const struct dev *const *d = __devtab_start; d < __devtab_end;
	     d++) {
		if (strcmp((*d)->name, name) == 0)
			return *d;
		if (name[0] == (*d)->dc && name[1] == 0)
			return *d;
	}
	return NULL;
}

struct chan *chan_new(const struct dev *d)
{
	struct chan *c = kzmalloc(sizeof(*c));

	if (c) {
		c->dev = d;
		c->ref = 1;
	}
	return c;
}

struct chan *chan_get(struct chan *c)
{
	atomic_add(&c->ref, 1);
	return c;
}

void chan_put(struct chan *c)
{
	if (atomic_add(&c->ref, -1) != 0)
		return;
	if (c->dev->close)
		c->dev->close(c);
	kfree(c);
}

long chan_read(struct chan *c, void *kbuf, size_t n, uint64_t off)
{
	if (c->qid.type & QTDIR)
		return -EISDIR;
	if (c->dev->read == NULL)
		return -EBADF;
	return c->dev->read(c, kbuf, n, off);
}

long chan_write(struct chan *c, const void *kbuf, size_t n, uint64_t off)
{
	if (c->qid.type & QTDIR)
		return -EISDIR;
	if (c->dev->write == NULL)
		return -EROFS;
	return c->dev->write(c, kbuf, n, off);
}

int chan_stat(struct chan *c, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->ino = c->qid.path;
	st->dev = (uint32_t)c->dev->dc;
	st->mode = c->qid.type & QTDIR ? S_IFDIR | 0555 : S_IFREG | 0444;
	return c->dev->stat ? c->dev->stat(c, st) : 0;
}

int chan_truncate(struct chan *c, uint64_t len)
{
	if (c->qid.type & QTDIR)
		return -EISDIR;
	if (c->dev->truncate == NULL)
		return -EINVAL;
	return c->dev->truncate(c, len);
}

/* Returns the entry of tab (n entries) for c's qid, or NULL. */
static const struct dirtab *tab_entry(struct chan *c, const struct dirtab *tab,
				      size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].qid.path == c->qid.path)
			return &tab[i];
	return NULL;
}

int devgen_attach(struct chan *c, const struct dirtab *tab)
{
	c->qid = tab[0].qid;
	return 0;
}

int devgen_walk(struct chan *c, const char *name, const struct dirtab *tab,
		size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (strcmp(tab[i].name, name) == 0) {
			c->qid = tab[i].qid;
			return 0;
		}
	}
	return -ENOENT;
}

int devgen_stat(struct chan *c, struct stat *st, const struct dirtab *tab,
		size_t n)
{
	const struct dirtab *t = tab_entry(c, tab, n);

	if (t == NULL)
		return -ENOENT;
	st->mode = t->perm;
	st->size = t->length;
	return 0;
}

int devgen_open(struct chan *c, int omode, const struct dirtab *tab,
		size_t n)
{
	const struct dirtab *t = tab_entry(c, tab, n);
	int acc = omode & O_ACCMODE;

	if (t == NULL)
		return -ENOENT;
	if ((acc != O_WRONLY && !(t->perm & 0400)) ||
	    (acc != O_RDONLY && !(t->perm & 0200)))
		return -EACCES;
	return 0;
}

int devgen_readdir(struct chan *c, uint64_t index, struct dirent *de,
		   const struct dirtab *tab, size_t n)
{
	(void)c;
	if (index + 1 >= n)
		return 0;
	memset(de, 0, sizeof(*de));
	strlcpy(de->name, tab[index + 1].name, sizeof(de->name));
	de->mode = tab[index + 1].perm;
	de->size = tab[index + 1].length;
	return 1;
}

long devgen_readstr(uint64_t off, void *buf, size_t n, const char *s)
{
	return devgen_readbytes(off, buf, n, s, strlen(s));
}

/* Copies the part of src[0..len) at off into buf (n bytes); returns the
 * count, 0 past its end. */
long devgen_readbytes(uint64_t off, void *buf, size_t n, const void *src,
		      size_t len)
{
	if (off >= len)
		return 0;
	n = MIN(n, len - (size_t)off);
	memcpy(buf, (const char *)src + off, n);
	return (long)n;
}
