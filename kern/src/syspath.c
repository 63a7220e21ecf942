/*
 * The file system calls on path names: open, stat, mkdir, remove, chdir,
 * getcwd, bind, unmount (the calls on descriptors are in sysfile.c).
 *
 * A path is copied in with copyinstr, bounded by PATH_MAX, so a bad pointer
 * is EFAULT and a path with no NUL in reach is ENAMETOOLONG; the work is
 * ns.c's on the kernel copy, and a failure is recorded as "op path: reason"
 * in the process's errstr (errstr_set, fd.c).
 */
#include <ns.h>
#include <errno_text.h>
#include <pmem.h>
#include <printfmt.h>
#include <string.h>
#include <syscall.h>
#include <abi/errno.h>
#include "sysfile_internal.h"


/* Copies in the user path at a word into path (PATH_MAX bytes). Returns
 * 0, -EFAULT or -ENAMETOOLONG. */
static long path_in(char *path, uint64_t __user uaddr)
{
	long r = copyinstr(path, (const char *)uaddr, PATH_MAX);

	return r < 0 ? r : 0;
}

/* open(path, flags) -> the lowest free fd. */
long sys_open(const uint64_t *a)
{
	char path[PATH_MAX];
	struct chan *c;
	long err;

	if ((err = path_in(path, a[0])) < 0)
		return errstr_set(err, "open", NULL);
	if (fd_nfree(current_proc()) == 0)
		return errstr_set(-EMFILE, "open", path);
	if ((c = ns_open(path, (int)a[1], &err)) == NULL)
		return errstr_set(err, "open", path);
	return fd_alloc(current_proc(), c);
}

/* stat(path, struct stat *) -> 0. */
long sys_stat(const uint64_t *a)
{
	char path[PATH_MAX];
	struct stat st;
	struct chan *c;
	long err;

	if ((err = path_in(path, a[0])) < 0)
		return errstr_set(err, "stat", NULL);
	if ((c = ns_walk(path, &err)) == NULL)
		return errstr_set(err, "stat", path);
	err = chan_stat(c, &st);
	chan_put(c);
	if (err == 0)
		err = copyout((void *)a[1], &st, sizeof(st));
	return errstr_set(err, "stat", path);
}

/* A call that takes one user path and applies op to it. */
static long path_call(uint64_t upath, const char *name, int (*op)(const char *))
{
	char path[PATH_MAX];
	long err;

	if ((err = path_in(path, upath)) < 0)
		return errstr_set(err, name, NULL);
	return errstr_set(op(path), name, path);
}

/* mkdir(path) -> 0. */
long sys_mkdir(const uint64_t *a)
{
	return path_call(a[0], "mkdir", ns_mkdir);
}

/* remove(path) -> 0: a file or an empty directory. */
long sys_remove(const uint64_t *a)
{
	return path_call(a[0], "remove", ns_remove);
}

/* chdir(path) -> 0: the current directory becomes path, cleaned. */
long sys_chdir(const uint64_t *a)
{
	char path[PATH_MAX];
	struct chan *c;
	long err;

	if ((err = path_in(path, a[0])) < 0)
		return errstr_set(err, "chdir", NULL);
	if ((c = ns_walk(path, &err)) == NULL)
		return errstr_set(err, "chdir", path);
	if (c->qid.type & QTDIR)
		strlcpy(current_proc()->cwd, c->path, PATH_MAX);
	else
		err = -ENOTDIR;
	chan_put(c);
	return errstr_set(err, "chdir", path);
}

/* getcwd(buf, n) -> the length of the current directory's path. The
 * path is copied out NUL-padded to the whole buffer (up to PATH_MAX
 * bytes), so a buffer that is bad past the string is refused too. */
long sys_getcwd(const uint64_t *a)
{
	char buf[PATH_MAX] = { 0 };
	size_t len = strlcpy(buf, current_proc()->cwd, sizeof(buf));

	if (len + 1 > (size_t)a[1])
		return errstr_set(-ERANGE, "getcwd", NULL);
	if (copyout((void *)a[0], buf, MIN((size_t)a[1], sizeof(buf))) < 0)
		return errstr_set(-EFAULT, "getcwd", NULL);
	return (long)len;
}

/* bind(old, new, flags) -> 0: new shows old (ns_bind). */
long sys_bind(const uint64_t *a)
{
	char old[PATH_MAX], new[PATH_MAX];
	long err;

	if ((err = path_in(old, a[0])) < 0 || (err = path_in(new, a[1])) < 0)
		return errstr_set(err, "bind", NULL);
	return errstr_set(ns_bind(old, new, (int)a[2]), "bind", new);
}

/* unmount(path) -> 0: the mount at path is gone (ns_unmount). */
long sys_unmount(const uint64_t *a)
{
	char path[PATH_MAX];
	long err = path_in(path, a[0]);

	if (err < 0)
		return errstr_set(err, "unmount", NULL);
	return errstr_set(ns_unmount(path), "unmount", path);
}
