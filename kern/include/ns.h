/*
 * ns: the name space, channels and devices, in the manner of Plan 9.
 *
 * A device (struct dev) serves a tree of files: the console device #c, the
 * initramfs #r, the RAM file system #t, the process files #p, and so on.
 * Each registers itself with DEV_REGISTER() into the .devtab linker
 * section; ns_init() runs every device's init and mounts the defaults:
 *
 *	#r at /		#c at /dev	#p at /proc	#t at /tmp
 *
 * A channel (struct chan) names one file of one device: the device, the
 * file's qid, the device's private pointer (aux), and once opened the open
 * mode and offset. File descriptors point at channels; dup2 and spawn
 * share a channel (chan_get), so they share its offset, and the last
 * chan_put() closes it.
 *
 * Path resolution (ns.c): a path is cleaned (path.h) against the current
 * directory. "#name/a/b" means device name's own tree, no mounts applied.
 * Otherwise the mount table is searched for the longest mount point that
 * is a prefix of the path; that mount's device is attached, walked down
 * the mount's source path, then down the rest of the path one component
 * at a time. Cleaning has already folded "..", so walks only go down.
 * Reading a directory lists the device's entries and then every mount
 * point directly under it that the device does not list itself (so
 * `ls /dev` shows a bound /dev/ttrace).
 *
 * Binding (ns_bind, mount.c): the name space is one table for the whole system.
 * bind(old, new, 0) makes new show old: old is "#name[/path]" or a path,
 * which is resolved once, at bind time, to a device and a path inside it;
 * new must exist, except that for a "#" source it may be a new name in an
 * existing directory. Binding onto a mount point replaces that mount;
 * ns_unmount takes one down. The
 * details, and every device's files, are in docs/namespace.md.
 *
 * A device whose files are known (Plan 9's Dirtab and devgen) describes
 * them with a struct dirtab array, entry 0 being the directory itself
 * ("."), and leaves attach, walk, stat and readdir to the channel layer,
 * which makes them from the table (and checks open against its
 * permission bits):
 *
 *	enum { Qdir, Qhello };
 *	static const struct dirtab hello_tab[] = {
 *		{ ".", { Qdir, 0, QTDIR }, 0, S_IFDIR | 0555 },
 *		{ "hello", { Qhello, 0, QTFILE }, 0, S_IFREG | 0444 },
 *	};
 *	static long hello_read(struct chan *c, void *buf, size_t n,
 *			       uint64_t off)
 *	{ return devgen_readstr(off, buf, n, "hello, world\n"); }
 *	static const struct dev hello_dev = {
 *		.dc = 'h', .name = "hello", DEV_TAB(hello_tab),
 *		.read = hello_read,
 *	};
 *	DEV_REGISTER(hello_dev);
 *
 * A device whose files change (one per CPU, one per process) adds a
 * generator, .gen, that makes entry i of a directory on demand
 * (devttrace.c, devproc.c); a device with a tree of its own (devroot.c,
 * devtmp.c) fills in walk, stat and readdir itself. A file whose text is
 * made from live state is read through devgen_readtext(), which makes it
 * once per open (and at each read from offset 0) and serves every read
 * from that one text.
 *
 * Errors are -errno (abi/errno.h) throughout.
 */
#ifndef NS_H
#define NS_H

#include <compiler.h>
#include <proc.h>
#include <abi/syscall.h>

/* qid.type bits */
#define QTFILE		0x00
#define QTSTREAM	0x01	/* no offsets: lseek, pread, pwrite: ESPIPE */
#define QTTEXT		0x02	/* a directory the device also reads as a
				   file (#ttrace's events: its listing) */
#define QTDIR		0x80

/* chan.flags */
#define COPEN		0x01	/* opened: omode and offset mean something */

struct qid {
	uint64_t path;		/* unique within the device: stat's ino */
	uint32_t vers;		/* for the device's own use */
	uint8_t type;		/* QT* bits */
};

struct chan {
	const struct dev *dev;
	struct qid qid;
	uint32_t flags;		/* COPEN */
	int omode;		/* O_ACCMODE and O_APPEND bits, once open */
	uint64_t offset;	/* bytes; for a directory, the next entry */
	int ref;
	void *aux;		/* the device's own state for this file */
	uint64_t dir_index;	/* a directory's readdir cursor: the index */
	uint64_t dir_pos;	/* last listed, and the device's mark of it */
	struct devtext *text;	/* a generated file's text (devgen_readtext) */
	struct spinlock text_lock;	/* guards text */
	char path[PATH_MAX];	/* the cleaned path it was reached by */
};

enum create_kind {
	CREATE_FILE,
	CREATE_DIR,
};

struct devdir;

/*
 * A device. Every hook may be NULL: attach, walk, stat and readdir are
 * then made from the device's files (tab, or gen: see devgen()), or, for
 * a device with neither (the pipe's, never attached), stat reports only
 * what the qid says and a directory is empty; open then only checks the
 * file's permission bits, close does nothing, read fails with -EBADF,
 * write, create and remove with -EROFS, and truncate with -EINVAL (O_TRUNC
 * is then ignored). The channel layer (chan.c) calls the hooks with no
 * lock held; each device does its own locking. Hooks that take a
 * directory are only called with one.
 */
struct dev {
	int dc;				/* letter: '#c' is the console */
	const char *name;		/* '#name' works as well */
	/* The device's fixed files, entry 0 the directory itself (or NULL). */
	const struct dirtab *tab;
	size_t ntab;
	/* Fills *e with entry i of directory c, or with c's own entry when i
	 * is DEVGEN_SELF. name, when not NULL, is the name a walk looks for:
	 * a generator may return that entry (at any i) instead of the i-th,
	 * as long as the walk still ends. Returns 1, or 0 past the last entry
	 * (or no such entry). NULL: devgen(), tab's entries. */
	int (*gen)(struct chan *c, const char *name, uint64_t i,
		   struct devdir *e);
	/* Called once by ns_init(), before any attach. */
	void (*init)(void);
	/* Makes fresh chan c refer to the device's root. */
	int (*attach)(struct chan *c);
	/* Moves directory chan c to its child name; on failure (-ENOENT)
	 * leaves c as it was. */
	int (*walk)(struct chan *c, const char *name);
	/* Fills in *st; chan.c first sets ino, dev and a mode from the qid. */
	int (*stat)(struct chan *c, struct stat *st);
	/* Checks and prepares an open with omode (O_ flags), after the
	 * permission check of a device with files (tab or gen). */
	int (*open)(struct chan *c, int omode);
	/* Releases c's aux; called for every chan freed, open or not. */
	void (*close)(struct chan *c);
	long (*read)(struct chan *c, void *buf, size_t n, uint64_t off);
	long (*write)(struct chan *c, const void *buf, size_t n, uint64_t off);
	/* Creates name in directory c; on success c refers to the new file
	 * (not yet open). -EEXIST if name exists. */
	int (*create)(struct chan *c, const char *name, int omode,
		      enum create_kind kind);
	/* Removes the file c refers to; c stays valid until put. */
	int (*remove)(struct chan *c);
	/* Sets the length of open file c. */
	int (*truncate)(struct chan *c, uint64_t len);
	/* Fills *de with entry index of directory c ("." and ".." are not
	 * entries). Returns 1, or 0 past the last entry. */
	int (*readdir)(struct chan *c, uint64_t index, struct dirent *de);
};

/* .tab and .ntab of a struct dev from a dirtab array. */
#define DEV_TAB(t)	.tab = (t), .ntab = ARRAY_SIZE(t)

/* The section holds pointers, not the structs: the compiler may pad
 * structs to a larger alignment than the array walk would expect. */
#define DEV_REGISTER(d)                                                    \
	static const struct dev *const __devtab_ptr_##d                    \
		__section(".devtab") __attribute__((used)) = &(d)

/* One file of a device's table; entry 0 of a table is the directory. */
struct dirtab {
	const char *name;
	struct qid qid;
	uint64_t length;	/* stat's size */
	uint32_t perm;		/* S_IF* type and permission bits */
};

/* One directory entry as a generator makes it (Plan 9's Dir): a dirtab
 * entry with room for a name made on the spot ("cpu3", "42"). */
struct devdir {
	char name[NAME_MAX + 1];
	struct qid qid;
	uint64_t length;
	uint32_t perm;
};

#define DEVGEN_SELF	UINT64_MAX	/* gen's index for c's own entry */

/* ---- devices and channels (chan.c) ---- */

/* Runs every registered device's init. Called once, from ns_init(). */
void dev_init_all(void);
/* Returns the device called name ("c" or "cons" style: its letter or
 * its name), or NULL. */
const struct dev *dev_lookup(const char *name);

/* Returns a new chan on device d with one reference, or NULL. */
struct chan *chan_new(const struct dev *d);
/* Takes a reference to c; returns c. */
struct chan *chan_get(struct chan *c);
/* Drops a reference; the last one closes (dev close) and frees c. */
void chan_put(struct chan *c);
/* Read/write n bytes at off through c's device, kernel buffers only. No
 * open-mode check: callers check c->omode. Return bytes or -errno. */
long chan_read(struct chan *c, void *kbuf, size_t n, uint64_t off);
long chan_write(struct chan *c, const void *kbuf, size_t n, uint64_t off);
/* chan_read() again and again until n bytes or the end of the file.
 * Returns the bytes read, or the -errno of a read that failed. */
long chan_read_full(struct chan *c, void *kbuf, size_t n, uint64_t off);
/* Fills *st for c. Returns 0 or -errno. */
int chan_stat(struct chan *c, struct stat *st);
/* Sets the length of c. Returns 0, -EISDIR, -EINVAL (no such thing for
 * this device) or the device's error. */
int chan_truncate(struct chan *c, uint64_t len);

/* The operations a device may leave to its files (tab or gen), for ns.c:
 * each calls the device's hook if it has one. Return 0 or -errno;
 * chan_readdir returns 1, or 0 past the last entry. */
int chan_attach(struct chan *c);
int chan_walk(struct chan *c, const char *name);
/* Refuses (-EACCES) an open the file's owner permission bits forbid,
 * then calls the device's open. */
int chan_open(struct chan *c, int omode);
int chan_readdir(struct chan *c, uint64_t index, struct dirent *de);

/* The generator of a device with a table (Plan 9's devgen): entry i of
 * the directory is tab[i + 1]; DEVGEN_SELF finds c's entry by qid.path.
 * A device's own gen calls it for its fixed files. */
int devgen(struct chan *c, const char *name, uint64_t i, struct devdir *e);
/* Fills *e from table entry t. */
void devdir_of(struct devdir *e, const struct dirtab *t);
/* Copies the part of string s at off into buf (n bytes); returns the
 * count, 0 past its end. */
long devgen_readstr(uint64_t off, void *buf, size_t n, const char *s);
long devgen_readbytes(uint64_t off, void *buf, size_t n, const void *src,
		      size_t len);

struct seqbuf;
/* Makes the text of generated file c into s (as much as fits; the rest
 * is counted, and cut visibly). Returns 0 or -errno (-ENOENT: gone). */
typedef int (*devtext_fn)(struct chan *c, struct seqbuf *s);
/*
 * Reads a generated file (a text made from live state: counters, a
 * status line), as Plan 9's and Linux's seq_file do: the text is made by
 * make (at most max bytes, the NUL included) once, at the open file's
 * first read or at a read from offset 0, and kept with c; every read
 * serves the part of that one text at off, so a file read in small
 * pieces is one consistent text, never the tail of a newer one. Returns
 * the count, 0 past its end, or make's -errno (or -ENOMEM). The text is
 * freed with c. Process context, no spinlock held (make may take the
 * device's locks).
 */
long devgen_readtext(struct chan *c, void *buf, size_t n, uint64_t off,
		     size_t max, devtext_fn make);

/* ---- the name space (ns.c, mount.c) ---- */

/* Initialises every device and makes the default mounts; panics if one
 * fails. Call once at boot, before the first process. */
void ns_init(void);

/* Cleans path against the current process's directory ("/" in a ktask)
 * into out (PATH_MAX bytes). Returns the length or -errno. */
long ns_clean(char *out, const char *path);

/* Returns an unopened chan for path, or NULL with *err set: -ENOENT,
 * -ENOTDIR (a component is a file), -ENAMETOOLONG, -ENODEV. */
struct chan *ns_walk(const char *path, long *err);

/*
 * Opens path with omode (O_RDONLY/O_WRONLY/O_RDWR, O_CREAT, O_TRUNC,
 * O_APPEND) relative to the current directory. Returns the open chan (one
 * reference, offset 0), or NULL with *err set, e.g. -ENOENT, -EISDIR
 * (a directory for writing), -EACCES, -EROFS.
 */
struct chan *ns_open(const char *path, int omode, long *err);

/* Makes directory path. Returns 0, -EEXIST, -ENOENT (no parent), ... */
int ns_mkdir(const char *path);
/* Removes file or empty directory path. Returns 0, -ENOENT, -ENOTEMPTY,
 * -EBUSY (a mount point), ... */
int ns_remove(const char *path);
/* Makes new show old, as described above; flags must be 0. Returns 0,
 * -ENOENT, -ENODEV, -ENOTDIR, -EINVAL or -ENOMEM (table full). */
int ns_bind(const char *old, const char *new, int flags);
/* Takes down the mount at path, so the table slot is free again (the
 * only way back from a full table). Returns 0, -EINVAL (no mount there)
 * or -EBUSY for "/". Open chans keep working. */
int ns_unmount(const char *path);

/* Fills up to n entries of directory c starting at entry index, mount
 * points under it included. Returns the count (0 at the end) or -ENOTDIR.
 * Does not move c->offset. */
long ns_readdir(struct chan *c, uint64_t index, struct dirent *de, size_t n);

/*
 * Reads the whole file at path into a kmalloc'd buffer (*kbuf, *len bytes;
 * the caller kfree's it), for exec. Returns 0, or -errno: -ENOENT,
 * -EISDIR, -ENOMEM, -EFBIG (over 64 MiB), -EACCES, ...
 */
long ns_read_file(const char *path, void **kbuf, size_t *len);

/* ---- descriptors and errstr (fd.c) ---- */

/* Installs c in p's lowest free fd (taking over the caller's reference).
 * Returns the fd or -EMFILE. Runs in p's thread or before p runs. */
int fd_alloc(struct proc *p, struct chan *c);
/* Closes every fd of p. Called by exit, in p's thread. */
void fd_close_all(struct proc *p);
/* Gives child fds 0-2 as dups of parent's fdmap[i] (-1: none). Returns 0,
 * or -EBADF (nothing done) if an fd is out of range or closed. Called in
 * the parent's thread before the child runs. */
int fd_dup_for_child(struct proc *parent, struct proc *child,
		     const int fdmap[3]);
/* Sets the current process's errstr to "op what: <text of err>" (or
 * "op: <text>" when what is NULL) if err < 0. Returns err. */
long errstr_set(long err, const char *op, const char *what);
long errstr_device(long err, const char *text);

/* ---- pipes (pipe.c) ---- */

/* Makes a pipe: ends[0] open for reading, ends[1] for writing, one
 * reference each. Returns 0 or -ENOMEM. */
int pipe_alloc(struct chan *ends[2]);

#endif /* NS_H */
