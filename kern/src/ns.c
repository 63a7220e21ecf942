/*
 * The name space, path resolution: a path to a chan, and the calls that
 * open, create, remove and read whole files by name (design in ns.h). The
 * mount table it resolves through is mount.c's.
 *
 * Resolving a path copies the best mount entry out under the table's read
 * lock (mount_match), then attaches and walks with no lock held, so devices
 * may take their own locks (or sleep) in walk.
 *
 * Nothing here keeps a chan between calls: every resolution attaches
 * afresh, so devices need no clone operation and a chan's aux is only
 * ever shared through chan_get().
 */
#include <ns.h>
#include <kmalloc.h>
#include <path.h>
#include <string.h>
#include <abi/errno.h>
#include "ns_internal.h"

#define READ_FILE_MAX	(64ul << 20)	/* ns_read_file's limit */

long ns_clean(char *out, const char *path)
{
	struct proc *p = current_proc();

	return path_clean(out, PATH_MAX, p ? p->cwd : "/", path);
}

/* Walks c down every component of rest. Returns 0 or -errno. */
static int walk_elems(struct chan *c, const char *rest)
{
	char name[NAME_MAX + 1];
	int r;

	while (path_elem(&rest, name)) {
		if (!(c->qid.type & QTDIR))
			return -ENOTDIR;
		if ((r = chan_walk(c, name)) < 0)
			return r;
	}
	return 0;
}

/* See ns_internal.h. */
struct chan *ns_attach_walk(const struct dev *d, const char *sub,
				long *err)
{
	struct chan *c = chan_new(d);

	if (c == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	if ((*err = chan_attach(c)) == 0)
		*err = walk_elems(c, sub);
	if (*err < 0) {
		chan_put(c);
		return NULL;
	}
	return c;
}

/* See ns_internal.h. */
int ns_source_of(const char *path, struct mount *m)
{
	char dev_name[NAME_MAX + 1];
	size_t root = path_root_len(path);
	long off;

	memset(m, 0, sizeof(*m));
	if (path[0] == '#') {
		strlcpy(dev_name, path + 1, MIN(root, sizeof(dev_name)));
		if ((m->dev = dev_lookup(dev_name)) == NULL)
			return -ENODEV;
		strlcpy(m->subpath, path + root, sizeof(m->subpath));
		return 0;
	}
	if ((off = mount_match(path, m)) < 0)
		return (int)off;
	m->point[0] = 0;
	if (strlcat(m->subpath, "/", PATH_MAX) >= PATH_MAX ||
	    strlcat(m->subpath, path + off, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* See ns_internal.h. */
struct chan *ns_walk_clean(const char *path, long *err)
{
	struct mount *m = kmalloc(sizeof(*m));
	struct chan *c = NULL;

	*err = -ENOMEM;
	if (m && (*err = ns_source_of(path, m)) == 0)
		c = ns_attach_walk(m->dev, m->subpath, err);
	if (c)
		strlcpy(c->path, path, sizeof(c->path));
	kfree(m);
	return c;
}

struct chan *ns_walk(const char *path, long *err)
{
	char clean[PATH_MAX];

	if ((*err = ns_clean(clean, path)) < 0)
		return NULL;
	return ns_walk_clean(clean, err);
}

/* Creates cleaned path (which does not exist) as kind. Returns an
 * unopened chan for it, or NULL with *err set. */
static struct chan *create_clean(const char *path, int omode,
				 enum create_kind kind, long *err)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	struct chan *c;

	if ((*err = path_split(path, parent, sizeof(parent), name)) < 0)
		return NULL;
	if ((c = ns_walk_clean(parent, err)) == NULL)
		return NULL;
	if (!(c->qid.type & QTDIR))
		*err = -ENOTDIR;
	else if (c->dev->create == NULL)
		*err = -EROFS;
	else
		*err = c->dev->create(c, name, omode, kind);
	if (*err < 0) {
		chan_put(c);
		return NULL;
	}
	strlcpy(c->path, path, sizeof(c->path));
	return c;
}

/* Opens unopened chan c with omode. Returns 0 or -errno. */
static int open_chan(struct chan *c, int omode)
{
	int acc = omode & O_ACCMODE, r;

	if (acc == O_ACCMODE)
		return -EINVAL;
	if ((c->qid.type & QTDIR) && (acc != O_RDONLY || (omode & O_TRUNC)))
		return -EISDIR;
	if ((r = chan_open(c, omode)) < 0)
		return r;
	c->flags |= COPEN;
	c->omode = omode & (O_ACCMODE | O_APPEND);
	c->offset = 0;
	/* Devices with no length (the console, null) ignore O_TRUNC, so
	 * "cmd > /dev/null" works. */
	if ((omode & O_TRUNC) && acc != O_RDONLY && c->dev->truncate)
		return c->dev->truncate(c, 0);
	return 0;
}

struct chan *ns_open(const char *path, int omode, long *err)
{
	char clean[PATH_MAX];
	struct chan *c;

	if ((*err = ns_clean(clean, path)) < 0)
		return NULL;
	c = ns_walk_clean(clean, err);
	if (c == NULL && *err == -ENOENT && (omode & O_CREAT))
		c = create_clean(clean, omode, CREATE_FILE, err);
	if (c == NULL)
		return NULL;
	if ((*err = open_chan(c, omode)) < 0) {
		chan_put(c);
		return NULL;
	}
	return c;
}

int ns_mkdir(const char *path)
{
	char clean[PATH_MAX];
	struct chan *c;
	long err;

	if ((err = ns_clean(clean, path)) < 0)
		return (int)err;
	if ((c = ns_walk_clean(clean, &err)) != NULL) {
		chan_put(c);
		return -EEXIST;
	}
	if (err != -ENOENT)
		return (int)err;
	if ((c = create_clean(clean, O_RDONLY, CREATE_DIR, &err)) == NULL)
		return (int)err;
	chan_put(c);
	return 0;
}

int ns_remove(const char *path)
{
	char clean[PATH_MAX];
	struct chan *c;
	long err;

	if ((err = ns_clean(clean, path)) < 0)
		return (int)err;
	if ((c = ns_walk_clean(clean, &err)) == NULL)
		return (int)err;
	if (clean[0] == '/' && mount_busy(clean))
		err = -EBUSY;
	else if (c->dev->remove == NULL)
		err = -EROFS;
	else
		err = c->dev->remove(c);
	chan_put(c);
	return (int)err;
}

/* Reads the first size bytes of open chan c into a new buffer. */
static long read_whole(struct chan *c, uint64_t size, void **kbuf,
		       size_t *len)
{
	long r;
	char *buf;

	if (size > READ_FILE_MAX)
		return -EFBIG;
	if ((buf = kmalloc(size ? size : 1)) == NULL)
		return -ENOMEM;
	if ((r = chan_read_full(c, buf, size, 0)) < 0) {
		kfree(buf);
		return r;
	}
	*kbuf = buf;
	*len = (size_t)r;
	return 0;
}

long ns_read_file(const char *path, void **kbuf, size_t *len)
{
	struct chan *c;
	struct stat st;
	long err;

	if ((c = ns_open(path, O_RDONLY, &err)) == NULL)
		return err;
	if (c->qid.type & QTDIR)
		err = -EISDIR;
	else if ((err = chan_stat(c, &st)) == 0)
		err = read_whole(c, st.size, kbuf, len);
	chan_put(c);
	return err;
}
