/*
 * Channels and the device table (see ns.h).
 *
 * A chan is reference counted with atomics: descriptors in several
 * processes may share one (dup2, spawn), and the last chan_put() calls the
 * device's close and frees it. chan_read/chan_write/chan_stat are the one
 * place that turns a NULL device hook into an error, so neither the
 * syscalls nor the devices repeat those checks.
 *
 * A device that leaves attach, walk, stat or readdir empty gets them made
 * here from its generator (Plan 9's devgen): gen(c, name, i) is entry i of
 * directory c, and DEVGEN_SELF c's own entry. The default generator,
 * devgen(), reads the device's table (entry 0 the directory, the others
 * its files, matched to a chan by qid.path); a device whose files come and
 * go supplies its own. A walk asks for entries in order until one has the
 * name, and passes the name so that a generator with many entries (one per
 * process) can find it at once.
 *
 * A generated file's text (devgen_readtext()) is made outside any lock
 * and then swapped in under the chan's text_lock, under which reads copy
 * from it: the text a reader copies from is never freed or rewritten
 * beneath it, whichever process sharing the chan made a newer one.
 */
#include <ns.h>
#include <atomic.h>
#include <kmalloc.h>
#include <printk.h>
#include <seqbuf.h>
#include <string.h>
#include <abi/errno.h>

/* A generated file's text as it was made. */
struct devtext {
	size_t len;
	char *data;
};

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
		spinlock_init(&c->text_lock, "chan_text");
	}
	return c;
}

static void devtext_free(struct devtext *t)
{
	if (t) {
		kfree(t->data);
		kfree(t);
	}
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
	devtext_free(c->text);
	kfree(c);
}

long chan_read(struct chan *c, void *kbuf, size_t n, uint64_t off)
{
	if ((c->qid.type & (QTDIR | QTTEXT)) == QTDIR)
		return -EISDIR;
	if (c->dev->read == NULL)
		return -EBADF;
	return c->dev->read(c, kbuf, n, off);
}

long chan_read_full(struct chan *c, void *kbuf, size_t n, uint64_t off)
{
	size_t done = 0;
	long r = 0;

	while (done < n &&
	       (r = chan_read(c, (char *)kbuf + done, n - done, off + done)) > 0)
		done += (size_t)r;
	return r < 0 ? r : (long)done;
}

long chan_write(struct chan *c, const void *kbuf, size_t n, uint64_t off)
{
	if (c->qid.type & QTDIR)
		return -EISDIR;
	if (c->dev->write == NULL)
		return -EROFS;
	return c->dev->write(c, kbuf, n, off);
}

/* Whether d's files come from a table or a generator. */
static bool has_files(const struct dev *d)
{
	return d->tab || d->gen;
}

/* Entry i of directory c (or c's own, DEVGEN_SELF) from c's device. */
static int gen(struct chan *c, const char *name, uint64_t i, struct devdir *e)
{
	return c->dev->gen ? c->dev->gen(c, name, i, e) : devgen(c, name, i, e);
}

int chan_attach(struct chan *c)
{
	if (c->dev->attach)
		return c->dev->attach(c);
	c->qid = c->dev->tab ? c->dev->tab[0].qid : (struct qid){ .type = QTDIR };
	return 0;
}

int chan_walk(struct chan *c, const char *name)
{
	struct devdir e;

	if (c->dev->walk)
		return c->dev->walk(c, name);
	for (uint64_t i = 0; has_files(c->dev) && gen(c, name, i, &e) > 0; i++) {
		if (strcmp(e.name, name) == 0) {
			c->qid = e.qid;
			return 0;
		}
	}
	return -ENOENT;
}

int chan_stat(struct chan *c, struct stat *st)
{
	struct devdir e;

	memset(st, 0, sizeof(*st));
	st->ino = c->qid.path;
	st->dev = (uint32_t)c->dev->dc;
	st->mode = c->qid.type & QTDIR ? S_IFDIR | 0555 : S_IFREG | 0444;
	if (c->dev->stat)
		return c->dev->stat(c, st);
	if (!has_files(c->dev))
		return 0;
	if (gen(c, NULL, DEVGEN_SELF, &e) <= 0)
		return -ENOENT;
	st->mode = e.perm;
	st->size = e.length;
	return 0;
}

int chan_open(struct chan *c, int omode)
{
	int acc = omode & O_ACCMODE;
	struct devdir e;

	if (has_files(c->dev)) {
		if (gen(c, NULL, DEVGEN_SELF, &e) <= 0)
			return -ENOENT;
		if ((acc != O_WRONLY && !(e.perm & 0400)) ||
		    (acc != O_RDONLY && !(e.perm & 0200)))
			return -EACCES;
	}
	return c->dev->open ? c->dev->open(c, omode) : 0;
}

int chan_readdir(struct chan *c, uint64_t index, struct dirent *de)
{
	struct devdir e;

	if (c->dev->readdir)
		return c->dev->readdir(c, index, de);
	if (!has_files(c->dev) || gen(c, NULL, index, &e) <= 0)
		return 0;
	memset(de, 0, sizeof(*de));
	strlcpy(de->name, e.name, sizeof(de->name));
	de->mode = e.perm;
	de->size = e.length;
	return 1;
}

int chan_truncate(struct chan *c, uint64_t len)
{
	if (c->qid.type & QTDIR)
		return -EISDIR;
	if (c->dev->truncate == NULL)
		return -EINVAL;
	return c->dev->truncate(c, len);
}

void devdir_of(struct devdir *e, const struct dirtab *t)
{
	strlcpy(e->name, t->name, sizeof(e->name));
	e->qid = t->qid;
	e->length = t->length;
	e->perm = t->perm;
}

int devgen(struct chan *c, const char *name, uint64_t i, struct devdir *e)
{
	const struct dev *d = c->dev;

	(void)name;
	if (i == DEVGEN_SELF) {
		for (size_t k = 0; k < d->ntab; k++) {
			if (d->tab[k].qid.path == c->qid.path) {
				devdir_of(e, &d->tab[k]);
				return 1;
			}
		}
		return 0;
	}
	if (i + 1 >= d->ntab)
		return 0;
	devdir_of(e, &d->tab[i + 1]);
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

/* c's text made afresh by make, at most max bytes (the NUL included),
 * cut visibly when longer; NULL with *err. No lock held. */
static struct devtext *devtext_make(struct chan *c, size_t max,
				    devtext_fn make, int *err)
{
	struct devtext *t = kzmalloc(sizeof(*t));
	struct seqbuf s;

	*err = -ENOMEM;
	if (!t || !(t->data = kmalloc(max))) {
		kfree(t);
		return NULL;
	}
	seqbuf_init(&s, t->data, max);
	if ((*err = make(c, &s)) < 0) {
		devtext_free(t);
		return NULL;
	}
	seqbuf_mark_cut(&s);
	t->len = seqbuf_used(&s);
	return t;
}

long devgen_readtext(struct chan *c, void *buf, size_t n, uint64_t off,
		     size_t max, devtext_fn make)
{
	struct devtext *fresh = NULL, *old = NULL;
	int err;
	long r;

	/* text is set once and only ever replaced: seen set here, it is
	 * set under the lock */
	if (off == 0 || !__atomic_load_n(&c->text, __ATOMIC_ACQUIRE)) {
		if (!(fresh = devtext_make(c, max, make, &err)))
			return err;
	}
	spin_lock(&c->text_lock);
	if (fresh) {
		old = c->text;
		__atomic_store_n(&c->text, fresh, __ATOMIC_RELEASE);
	}
	r = devgen_readbytes(off, buf, n, c->text->data, c->text->len);
	spin_unlock(&c->text_lock);
	devtext_free(old);
	return r;
}
