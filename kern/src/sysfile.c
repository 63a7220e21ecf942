/*
 * The file system calls on descriptors: read, write, pread, pwrite, lseek,
 * close, dup2, fstat, readdir, pipe, ftruncate. The calls on path names
 * are in syspath.c, the descriptor table and errstr in fd.c.
 *
 * Every call copies its user arguments in first (paths with copyinstr,
 * bounded by PATH_MAX, so a bad pointer is EFAULT and a path with no NUL
 * in reach is ENAMETOOLONG), does its work on kernel copies through ns.c
 * and the chan functions, and copies results out last. On failure it
 * records "op what: reason" in the process's errstr (errstr_set) and
 * returns -errno.
 *
 * Data moves through the process's one-page bounce buffer (bounce_run),
 * a chunk at a time: write
 * copies each chunk in before the device sees it, so a bad buffer fails
 * with EFAULT before anything is written. Read copies each chunk out after
 * the device filled it; a file or a device read again gives the same bytes,
 * so a failed copy-out loses nothing, but a stream (pipe, console) would
 * lose what it handed over, so for streams the chunk of user memory is
 * first checked by copying it in and back out unchanged (processes are
 * single-threaded, so nothing else writes it meanwhile). A call that fails
 * part-way returns the bytes moved so far.
 */
#include <ns.h>
#include <errno_text.h>
#include <proc.h>
#include <printfmt.h>
#include <string.h>
#include <syscall.h>
#include <abi/errno.h>
#include "sysfile_internal.h"

#define CHUNK		4096			/* the bounce page */
#define RW_MAX		0x7ffff000ul		/* bytes per call, as Linux */
#define DIRENTS_PER_CHUNK (CHUNK / sizeof(struct dirent))

/*
 * A transfer through the bounce page, one chunk at a time: step moves up to
 * k units (bytes, or directory entries) at unit index done between the
 * user's buffer and kbuf, returning how many it moved, 0 at the end, or
 * -errno. A short step ends the transfer.
 *
 * The bounce page is the process's own (proc->bounce), taken at spawn
 * with its other pages and given back at exit: a process has one thread,
 * so one syscall at a time uses it. A page taken per call was held for as
 * long as the call waited (a read of an empty pipe, a write to a full
 * one), so the free page count moved with where other processes were in
 * their I/O, and usertests' [no_page_leak] saw a page lost when the reader
 * of its pipeline waited in a read at the second count but not the first.
 */
struct bounce {
	struct chan *c;
	uint64_t user;		/* the user's buffer */
	uint64_t off;		/* the file offset of unit 0 */
	long (*step)(const struct bounce *b, void *kbuf, size_t done, size_t k);
};

/* Runs b over n units, at most per_chunk a step. Returns the units moved
 * if any, else the last step's 0 or -errno. */
static long bounce_run(const struct bounce *b, size_t n, size_t per_chunk)
{
	void *kbuf = current_proc()->bounce;
	size_t done = 0;
	long r = 0;

	while (done < n) {
		size_t k = MIN(n - done, per_chunk);

		if ((r = b->step(b, kbuf, done, k)) <= 0)
			break;
		done += (size_t)r;
		if ((size_t)r < k)
			break;
	}
	return done > 0 ? (long)done : r;
}

/* A read step (see the top of the file): for a stream, the user's chunk is
 * checked writable first, since what the device hands over is gone. */
static long read_step(const struct bounce *b, void *kbuf, size_t done,
		      size_t k)
{
	char *ubuf = (char *)b->user + done;
	long r;

	if ((b->c->qid.type & QTSTREAM) &&
	    (copyin(kbuf, ubuf, k) < 0 || copyout(ubuf, kbuf, k) < 0))
		return -EFAULT;
	if ((r = chan_read(b->c, kbuf, k, b->off + done)) <= 0)
		return r;
	return copyout(ubuf, kbuf, (size_t)r) < 0 ? -EFAULT : r;
}

/* A write step: the chunk is copied in before the device sees it. */
static long write_step(const struct bounce *b, void *kbuf, size_t done,
		       size_t k)
{
	if (copyin(kbuf, (const char *)b->user + done, k) < 0)
		return -EFAULT;
	return chan_write(b->c, kbuf, k, b->off + done);
}

/* Reads up to n bytes of c at off into user buffer ubuf. Returns the count
 * or -errno. */
static long read_chunks(struct chan *c, char __user *ubuf, size_t n,
			uint64_t off)
{
	struct bounce b = { c, (uint64_t)ubuf, off, read_step };

	return bounce_run(&b, n, CHUNK);
}

/* Writes n bytes of user buffer ubuf to c at off. Returns the count or
 * -errno. */
static long write_chunks(struct chan *c, const char __user *ubuf, size_t n,
			 uint64_t off)
{
	struct bounce b = { c, (uint64_t)ubuf, off, write_step };

	return bounce_run(&b, n, CHUNK);
}

/* read(fd, buf, n) -> bytes read, 0 at the end; advances the offset. */
long sys_read(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_for(fd, O_RDONLY);
	long r;

	if (c == NULL)
		return fd_err(-EBADF, "read", fd);
	r = read_chunks(c, (char *)a[1], MIN((size_t)a[2], RW_MAX), c->offset);
	if (r > 0 && !(c->qid.type & QTSTREAM))
		c->offset += (uint64_t)r;
	return fd_err(r, "read", fd);
}

/* write(fd, buf, n) -> bytes written, at the end of the file for
 * O_APPEND; advances the offset. */
long sys_write(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_for(fd, O_WRONLY);
	uint64_t off;
	struct stat st;
	long r;

	if (c == NULL)
		return fd_err(-EBADF, "write", fd);
	off = c->offset;
	if ((c->omode & O_APPEND) && (r = chan_stat(c, &st)) == 0)
		off = st.size;
	r = write_chunks(c, (const char *)a[1], MIN((size_t)a[2], RW_MAX),
			 off);
	if (r > 0 && !(c->qid.type & QTSTREAM))
		c->offset = off + (uint64_t)r;
	return fd_err(r, "write", fd);
}

/* Checks a pread/pwrite: c open for it, seekable, off >= 0. */
static long positional_check(struct chan *c, int64_t off)
{
	if (c == NULL)
		return -EBADF;
	if (c->qid.type & QTSTREAM)
		return -ESPIPE;
	return off < 0 ? -EINVAL : 0;
}

/* pread(fd, buf, n, off) -> bytes read at off; the offset stays. */
long sys_pread(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_for(fd, O_RDONLY);
	long r = positional_check(c, (int64_t)a[3]);

	if (r == 0)
		r = read_chunks(c, (char *)a[1], MIN((size_t)a[2], RW_MAX),
				a[3]);
	return fd_err(r, "pread", fd);
}

/* pwrite(fd, buf, n, off) -> bytes written at off; the offset stays. */
long sys_pwrite(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_for(fd, O_WRONLY);
	long r = positional_check(c, (int64_t)a[3]);

	if (r == 0)
		r = write_chunks(c, (const char *)a[1],
				 MIN((size_t)a[2], RW_MAX), a[3]);
	return fd_err(r, "pwrite", fd);
}

/* Returns the new offset of c for lseek(off, whence), or -errno. */
static int64_t seek_to(struct chan *c, int64_t off, int whence)
{
	struct stat st;
	int64_t base, pos;
	int r;

	if (c->qid.type & QTSTREAM)
		return -ESPIPE;
	if (whence == SEEK_SET) {
		base = 0;
	} else if (whence == SEEK_CUR) {
		base = (int64_t)c->offset;
	} else if (whence == SEEK_END) {
		if ((r = chan_stat(c, &st)) < 0)
			return r;
		base = (int64_t)st.size;
	} else {
		return -EINVAL;
	}
	/* base < 0: an offset a write pushed past INT64_MAX */
	if (base < 0 || __builtin_add_overflow(base, off, &pos) || pos < 0)
		return -EINVAL;
	return pos;
}

/* lseek(fd, off, whence) -> the new offset; ESPIPE on a stream. */
long sys_lseek(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_chan(current_proc(), fd);
	int64_t pos;

	if (c == NULL)
		return fd_err(-EBADF, "lseek", fd);
	if ((pos = seek_to(c, (int64_t)a[1], (int)a[2])) >= 0)
		c->offset = (uint64_t)pos;
	return fd_err(pos, "lseek", fd);
}

/* close(fd) -> 0; the chan closes with its last descriptor. */
long sys_close(const uint64_t *a)
{
	int fd = (int)a[0];
	struct proc *p = current_proc();
	struct chan *c = fd_chan(p, fd);

	if (c == NULL)
		return fd_err(-EBADF, "close", fd);
	p->fds[fd] = NULL;
	chan_put(c);
	return 0;
}

/* dup2(old, new) -> new, now sharing old's chan (and offset). */
long sys_dup2(const uint64_t *a)
{
	int old = (int)a[0], new = (int)a[1];
	struct proc *p = current_proc();
	struct chan *c = fd_chan(p, old);

	if (c == NULL || new < 0 || new >= NOFILE)
		return fd_err(-EBADF, "dup2", c ? new : old);
	if (old == new)
		return new;
	if (p->fds[new])
		chan_put(p->fds[new]);
	p->fds[new] = chan_get(c);
	return new;
}

/* fstat(fd, struct stat *) -> 0. */
long sys_fstat(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_chan(current_proc(), fd);
	struct stat st;
	long err;

	if (c == NULL)
		return fd_err(-EBADF, "fstat", fd);
	if ((err = chan_stat(c, &st)) == 0)
		err = copyout((void *)a[1], &st, sizeof(st));
	return fd_err(err, "fstat", fd);
}

/* A readdir step: entries from c's offset, which moves past those copied
 * out. */
static long readdir_step(const struct bounce *b, void *kbuf, size_t done,
			 size_t k)
{
	struct dirent *de = kbuf;
	long r;

	if ((r = ns_readdir(b->c, b->c->offset, de, k)) <= 0)
		return r;
	if (copyout((void *)(b->user + done * sizeof(*de)), de,
		    (size_t)r * sizeof(*de)) < 0)
		return -EFAULT;
	b->c->offset += (uint64_t)r;
	return r;
}

/* Reads up to n entries of directory c into user array uents, moving c's
 * offset past those copied out. Returns the count or -errno. */
static long readdir_chunks(struct chan *c, uint64_t uents, size_t n)
{
	struct bounce b = { c, uents, 0, readdir_step };

	return bounce_run(&b, n, DIRENTS_PER_CHUNK);
}

/* readdir(fd, struct dirent *, n) -> entries filled, 0 at the end; the
 * fd's offset counts entries. */
long sys_readdir(const uint64_t *a)
{
	int fd = (int)a[0], n = (int)a[2];
	struct chan *c = fd_for(fd, O_RDONLY);
	long r;

	if (c == NULL)
		r = -EBADF;
	else if (!(c->qid.type & QTDIR))
		r = -ENOTDIR;
	else if (n < 0)
		r = -EINVAL;
	else
		r = readdir_chunks(c, a[1], (size_t)n);
	return fd_err(r, "readdir", fd);
}

/* pipe(int fds[2]) -> 0: fds[0] reads, fds[1] writes. */
long sys_pipe(const uint64_t *a)
{
	struct proc *p = current_proc();
	struct chan *ends[2];
	int fds[2];
	long err;

	if (fd_nfree(p) < 2)
		return errstr_set(-EMFILE, "pipe", NULL);
	if ((err = pipe_alloc(ends)) < 0)
		return errstr_set(err, "pipe", NULL);
	fds[0] = fd_alloc(p, ends[0]);
	fds[1] = fd_alloc(p, ends[1]);
	if (copyout((void *)a[0], fds, sizeof(fds)) == 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		p->fds[fds[i]] = NULL;
		chan_put(ends[i]);
	}
	return errstr_set(-EFAULT, "pipe", NULL);
}

/* ftruncate(fd, length) -> 0; fd must be open for writing. */
long sys_ftruncate(const uint64_t *a)
{
	int fd = (int)a[0];
	struct chan *c = fd_for(fd, O_WRONLY);
	long r;

	if (c == NULL)
		r = -EBADF;
	else if ((int64_t)a[1] < 0)
		r = -EINVAL;
	else
		r = chan_truncate(c, a[1]);
	return fd_err(r, "ftruncate", fd);
}
