/*
 * The name space: the mount table and path resolution (design in ns.h).
 *
 * The mount table is a fixed array of NMOUNT entries under a rwlock; each
 * maps a mount point (a cleaned path) to a source: a device and a path
 * inside it. Resolving a path copies the best entry out under the read
 * lock, then attaches and walks with no lock held, so devices may take
 * their own locks (or sleep) in walk. A bind stores the source resolved
 * once: binding a directory binds what that directory was then, and a
 * later bind over one of its parents does not change it.
 *
 * Nothing here keeps a chan between calls: every resolution attaches
 * afresh, so devices need no clone operation and a chan's aux is only
 * ever shared through chan_get().
 */
#include <ns.h>
#include <kmalloc.h>
#include <path.h>
#include <printk.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>

#define NMOUNT		32
#define READ_FILE_MAX	(64ul << 20)	/* ns_read_file's limit */

struct mount {
	char point[PATH_MAX];	/* "" when the slot is free */
	const struct dev *dev;
	char subpath[PATH_MAX];	/* "" or "/a/b" inside dev */
};

static struct rwlock mount_lock = RWLOCK_INIT("mount");
static struct mount mounts[NMOUNT];

long ns_clean(char *out, const char *path)
{
	struct proc *p = current_proc();

	return path_clean(out, PATH_MAX, p ? p->cwd : "/", path);
}

/* Copies into *m the mount whose point is the longest prefix of clean
 * path. Returns the offset of the rest of path, or -ENOENT if none. */
static long mount_match(const char *path, struct mount *m)
{
	long best = -1, len = -ENOENT;

	rlock(&mount_lock);
	for (int i = 0; i < NMOUNT; i++) {
		const char *rest;

		if (mounts[i].point[0] == 0 ||
		    (rest = path_under(mounts[i].point, path)) == NULL)
			continue;
		if (best < 0 || rest - path > len) {
			best = i;
			len = rest - path;
		}
	}
	if (best >= 0)
		*m = mounts[best];
	runlock(&mount_lock);
	return len;
}

/* Walks c down every component of rest. Returns 0 or -errno. */
static int walk_elems(struct chan *c, const char *rest)
{
	char name[NAME_MAX + 1];
	int r;

	while (path_elem(&rest, name)) {
		if (!(c->qid.type & QTDIR))
			return -ENOTDIR;
		if ((r = c->dev->walk(c, name)) < 0)
			return r;
	}
	return 0;
}

/* Attaches d and walks sub. Returns the chan or NULL with *err set. */
static struct chan *attach_walk(const struct dev *d, const char *sub,
				long *err)
{
	struct chan *c = chan_new(d);

	if (c == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	if ((*err = d->attach(c)) == 0)
		*err = walk_elems(c, sub);
	if (*err < 0) {
		chan_put(c);
		return NULL;
	}
	return c;
}

/*
 * Finds what cleaned path names: its device and the path inside it, in
 * *m (m->point is left empty for a "#" path). Returns 0, -ENODEV or
 * -ENAMETOOLONG.
 */
static int source_of(const char *path, struct mount *m)
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

/* Resolves cleaned path to an unopened chan, or NULL with *err set. */
static struct chan *walk_clean(const char *path, long *err)
{
	struct mount *m = kmalloc(sizeof(*m));
	struct chan *c = NULL;

	*err = -ENOMEM;
	if (m && (*err = source_of(path, m)) == 0)
		c = attach_walk(m->dev, m->subpath, err);
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
	return walk_clean(clean, err);
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
	if ((c = walk_clean(parent, err)) == NULL)
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
	if (c->dev->open && (r = c->dev->open(c, omode)) < 0)
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
	c = walk_clean(clean, err);
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
	if ((c = walk_clean(clean, &err)) != NULL) {
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

/* True if some mount point is path or lies below it. */
static bool is_mount_busy(const char *path)
{
	bool busy = false;

	rlock(&mount_lock);
	for (int i = 0; i < NMOUNT && !busy; i++)
		busy = mounts[i].point[0] &&
		       path_under(path, mounts[i].point) != NULL;
	runlock(&mount_lock);
	return busy;
}

int ns_remove(const char *path)
{
	char clean[PATH_MAX];
	struct chan *c;
	long err;

	if ((err = ns_clean(clean, path)) < 0)
		return (int)err;
	if ((c = walk_clean(clean, &err)) == NULL)
		return (int)err;
	if (clean[0] == '/' && is_mount_busy(clean))
		err = -EBUSY;
	else if (c->dev->remove == NULL)
		err = -EROFS;
	else
		err = c->dev->remove(c);
	chan_put(c);
	return (int)err;
}

/* Points mount point (a cleaned path) at source m, replacing a mount
 * there. Returns 0 or -ENOMEM when the table is full. */
static int mount_set(const char *point, const struct mount *m)
{
	int slot = -1;

	wlock(&mount_lock);
	for (int i = 0; i < NMOUNT; i++) {
		if (strcmp(mounts[i].point, point) == 0) {
			slot = i;
			break;
		}
		if (slot < 0 && mounts[i].point[0] == 0)
			slot = i;
	}
	if (slot >= 0) {
		mounts[slot] = *m;
		strlcpy(mounts[slot].point, point, PATH_MAX);
	}
	wunlock(&mount_lock);
	return slot < 0 ? -ENOMEM : 0;
}

/*
 * Checks that cleaned path new can show a source that is a directory or
 * not (is_dir): it must exist with the same kind, or (when may_create) be
 * a new name in an existing directory. Returns 0 or -errno.
 */
static int check_target(const char *new, bool is_dir, bool may_create)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	struct chan *c = walk_clean(new, &(long){ 0 });
	long err = 0;

	if (c) {
		if (is_dir && !(c->qid.type & QTDIR))
			err = -ENOTDIR;
		else if (!is_dir && (c->qid.type & QTDIR))
			err = -EISDIR;
		chan_put(c);
		return (int)err;
	}
	if (!may_create)
		return -ENOENT;
	if ((err = path_split(new, parent, sizeof(parent), name)) < 0)
		return (int)err;
	if ((c = walk_clean(parent, &err)) == NULL)
		return (int)err;
	err = c->qid.type & QTDIR ? 0 : -ENOTDIR;
	chan_put(c);
	return (int)err;
}

/* ns_bind with old and new cleaned, m a scratch mount. */
static int bind_clean(const char *old, const char *new, struct mount *m)
{
	struct chan *c;
	long err;
	bool is_dir;

	if (new[0] != '/')
		return -EINVAL;
	if ((err = source_of(old, m)) < 0)
		return (int)err;
	if ((c = attach_walk(m->dev, m->subpath, &err)) == NULL)
		return (int)err;
	is_dir = c->qid.type & QTDIR;
	chan_put(c);
	if ((err = check_target(new, is_dir, old[0] == '#')) < 0)
		return (int)err;
	return mount_set(new, m);
}

int ns_bind(const char *old, const char *new, int flags)
{
	char old_clean[PATH_MAX], new_clean[PATH_MAX];
	struct mount *m;
	long err;

	if (flags != 0)
		return -EINVAL;
	if ((err = ns_clean(old_clean, old)) < 0 ||
	    (err = ns_clean(new_clean, new)) < 0)
		return (int)err;
	if ((m = kmalloc(sizeof(*m))) == NULL)
		return -ENOMEM;
	err = bind_clean(old_clean, new_clean, m);
	kfree(m);
	return (int)err;
}

/* Frees the slot of mount point point (a cleaned path). Returns 0 or
 * -EINVAL when nothing is mounted there. */
static int mount_clear(const char *point)
{
	int err = -EINVAL;

	wlock(&mount_lock);
	for (int i = 0; i < NMOUNT; i++) {
		if (strcmp(mounts[i].point, point) == 0) {
			mounts[i].point[0] = 0;
			err = 0;
			break;
		}
	}
	wunlock(&mount_lock);
	return err;
}

int ns_unmount(const char *path)
{
	char clean[PATH_MAX];
	long err = ns_clean(clean, path);

	if (err < 0)
		return (int)err;
	if (strcmp(clean, "/") == 0)
		return -EBUSY;
	return mount_clear(clean);
}

/* Copies mount point i into point and its last component into name;
 * returns true if it lies directly in directory dir. */
static bool mount_child(int i, const char *dir, char *point, char *name)
{
	char parent[PATH_MAX];

	rlock(&mount_lock);
	strlcpy(point, mounts[i].point, PATH_MAX);
	runlock(&mount_lock);
	return point[0] && path_split(point, parent, sizeof(parent), name) == 0
	       && strcmp(parent, dir) == 0;
}

/* Returns how many entries c's device lists in directory c; if name is
 * not NULL, stops at and returns the index of the entry called name. */
static uint64_t dev_entries(struct chan *c, const char *name)
{
	struct dirent de;
	uint64_t i = 0;

	while (c->dev->readdir && c->dev->readdir(c, i, &de) > 0 &&
	       !(name && strcmp(de.name, name) == 0))
		i++;
	return i;
}

/* Fills *de for mount point point, named name in its directory. */
static void mount_dirent(const char *point, const char *name,
			 struct dirent *de)
{
	struct stat st = { .mode = S_IFDIR | 0555 };
	struct chan *c = walk_clean(point, &(long){ 0 });

	if (c) {
		chan_stat(c, &st);
		chan_put(c);
	}
	memset(de, 0, sizeof(*de));
	strlcpy(de->name, name, sizeof(de->name));
	de->mode = st.mode;
	de->size = st.size;
}

/* Fills *de with the e-th mount point directly in directory c that c's
 * device, which lists listed entries, does not list itself. Returns 1, or
 * 0 if there is none. */
static int mount_entry(struct chan *c, uint64_t listed, uint64_t e,
		       struct dirent *de)
{
	char point[PATH_MAX], name[NAME_MAX + 1];

	for (int i = 0; i < NMOUNT; i++) {
		if (!mount_child(i, c->path, point, name) ||
		    dev_entries(c, name) < listed || e-- > 0)
			continue;
		mount_dirent(point, name, de);
		return 1;
	}
	return 0;
}

/* Fills *de with entry i of directory c: the device's entries first,
 * then the mount points below c. Returns 1, 0 at the end, or -errno.
 * Past the device's entries, each call counts them again (in order, so
 * at the cost of one step each with the device's readdir cursor). */
static int dir_entry(struct chan *c, uint64_t i, struct dirent *de)
{
	int r = c->dev->readdir ? c->dev->readdir(c, i, de) : 0;
	uint64_t listed;

	if (r != 0 || c->path[0] != '/')
		return r;
	listed = dev_entries(c, NULL);
	return i >= listed ? mount_entry(c, listed, i - listed, de) : 0;
}

long ns_readdir(struct chan *c, uint64_t index, struct dirent *de, size_t n)
{
	size_t k;
	int r = 0;

	if (!(c->qid.type & QTDIR))
		return -ENOTDIR;
	for (k = 0; k < n; k++)
		if ((r = dir_entry(c, index + k, &de[k])) <= 0)
			break;
	return k > 0 ? (long)k : r;
}

/* Reads the first size bytes of open chan c into a new buffer. */
static long read_whole(struct chan *c, uint64_t size, void **kbuf,
		       size_t *len)
{
	size_t done = 0;
	long r = 0;
	char *buf;

	if (size > READ_FILE_MAX)
		return -EFBIG;
	if ((buf = kmalloc(size ? size : 1)) == NULL)
		return -ENOMEM;
	while (done < size &&
	       (r = chan_read(c, buf + done, size - done, done)) > 0)
		done += (size_t)r;
	if (r < 0) {
		kfree(buf);
		return r;
	}
	*kbuf = buf;
	*len = done;
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

enum mount_need {
	MOUNT_REQUIRED,
	MOUNT_IF_PRESENT,	/* skipped when the device is not built in */
};

void ns_init(void)
{
	static const struct {
		const char *source;
		const char *point;
		enum mount_need need;
	} defaults[] = {
		{ "#r", "/", MOUNT_REQUIRED },
		{ "#c", "/dev", MOUNT_REQUIRED },
		{ "#p", "/proc", MOUNT_REQUIRED },
		{ "#t", "/tmp", MOUNT_REQUIRED },
		{ "#ttrace", "/dev/ttrace", MOUNT_IF_PRESENT },
		{ "#h", "/dev/host", MOUNT_REQUIRED },
	};
	static struct mount m;

	dev_init_all();
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++) {
		if (source_of(defaults[i].source, &m) == -ENODEV &&
		    defaults[i].need == MOUNT_IF_PRESENT)
			continue;
		if (m.dev == NULL || mount_set(defaults[i].point, &m) < 0)
			panic("ns_init: cannot mount %s on %s",
			      defaults[i].source, defaults[i].point);
	}
}
