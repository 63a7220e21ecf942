/*
 * The name space, the mount table: bind, unmount, the default mounts, and
 * directory listings that show the mount points below a directory (design
 * in ns.h; ns.c resolves paths through it).
 *
 * The table is a fixed array of NMOUNT entries under a rwlock; each maps a
 * mount point (a cleaned path) to a source: a device and a path inside it.
 * A bind stores the source resolved once: binding a directory binds what
 * that directory was then, and a later bind over one of its parents does
 * not change it.
 */
#include <ns.h>
#include <kmalloc.h>
#include <path.h>
#include <printk.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>
#include "ns_internal.h"

#define NMOUNT		32

static struct rwlock mount_lock = RWLOCK_INIT("mount");
static struct mount mounts[NMOUNT];

/* See ns_internal.h. */
long mount_match(const char *path, struct mount *m)
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

/* See ns_internal.h. */
bool mount_busy(const char *path)
{
	bool busy = false;

	rlock(&mount_lock);
	for (int i = 0; i < NMOUNT && !busy; i++)
		busy = mounts[i].point[0] &&
		       path_under(path, mounts[i].point) != NULL;
	runlock(&mount_lock);
	return busy;
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
	struct chan *c = ns_walk_clean(new, &(long){ 0 });
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
	if ((c = ns_walk_clean(parent, &err)) == NULL)
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
	if ((err = ns_source_of(old, m)) < 0)
		return (int)err;
	if ((c = ns_attach_walk(m->dev, m->subpath, &err)) == NULL)
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

	while (chan_readdir(c, i, &de) > 0 &&
	       !(name && strcmp(de.name, name) == 0))
		i++;
	return i;
}

/* Fills *de for mount point point, named name in its directory. */
static void mount_dirent(const char *point, const char *name,
			 struct dirent *de)
{
	struct stat st = { .mode = S_IFDIR | 0555 };
	struct chan *c = ns_walk_clean(point, &(long){ 0 });

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
	int r = chan_readdir(c, i, de);
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
		if (ns_source_of(defaults[i].source, &m) == -ENODEV &&
		    defaults[i].need == MOUNT_IF_PRESENT)
			continue;
		if (m.dev == NULL || mount_set(defaults[i].point, &m) < 0)
			panic("ns_init: cannot mount %s on %s",
			      defaults[i].source, defaults[i].point);
	}
}
