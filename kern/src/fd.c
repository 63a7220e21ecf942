/*
 * The descriptor table and the error string of the file system calls.
 *
 * Descriptors: p->fds[NOFILE] of chan pointers, lowest free first; only
 * the process's own thread touches them (see proc.h).
 *
 * errstr: a failed call records "op what: reason" in the process's errstr
 * (errstr_set) and returns -errno, unless a device already said more
 * (errstr_device: a ctl file's usage), which is then kept.
 */
#include <ns.h>
#include <errno_text.h>
#include <pmem.h>
#include <printfmt.h>
#include <string.h>
#include <syscall.h>
#include <abi/errno.h>
#include "sysfile_internal.h"

/* Sets the errstr text of the current process to text, which the syscall
 * layer then keeps rather than replacing it with its generic "op what:
 * reason"; for devices whose errors say more (a ctl file's usage).
 * Returns err. */
long errstr_device(long err, const char *text)
{
	struct proc *p = current_proc();

	if (p) {
		strlcpy(p->errstr, text, ERRMAX);
		p->errstr_kept = true;
	}
	return err;
}

long errstr_set(long err, const char *op, const char *what)
{
	struct proc *p = current_proc();

	if (err >= 0 || p == NULL)
		return err;
	if (p->errstr_kept) {		/* the device said it better */
		p->errstr_kept = false;
		return err;
	}
	if (what)
		fmt_snprintf(p->errstr, ERRMAX, "%s %s: %s", op, what,
			     errno_text(-err));
	else
		fmt_snprintf(p->errstr, ERRMAX, "%s: %s", op,
			     errno_text(-err));
	return err;
}

/* See sysfile_internal.h. */
long fd_err(long err, const char *op, int fd)
{
	char what[24];

	fmt_snprintf(what, sizeof(what), "fd %d", fd);
	return errstr_set(err, op, what);
}

int fd_alloc(struct proc *p, struct chan *c)
{
	for (int fd = 0; fd < NOFILE; fd++) {
		if (p->fds[fd] == NULL) {
			p->fds[fd] = c;
			return fd;
		}
	}
	return -EMFILE;
}

void fd_close_all(struct proc *p)
{
	for (int fd = 0; fd < NOFILE; fd++) {
		if (p->fds[fd]) {
			chan_put(p->fds[fd]);
			p->fds[fd] = NULL;
		}
	}
}

/* See sysfile_internal.h. */
struct chan *fd_chan(struct proc *p, int fd)
{
	return fd >= 0 && fd < NOFILE ? p->fds[fd] : NULL;
}

int fd_dup_for_child(struct proc *parent, struct proc *child,
		     const int fdmap[3])
{
	for (int i = 0; i < 3; i++)
		if (fdmap[i] != -1 && fd_chan(parent, fdmap[i]) == NULL)
			return -EBADF;
	for (int i = 0; i < 3; i++)
		if (fdmap[i] != -1)
			child->fds[i] = chan_get(parent->fds[fdmap[i]]);
	return 0;
}

/* See sysfile_internal.h. */
int fd_nfree(struct proc *p)
{
	int n = 0;

	for (int fd = 0; fd < NOFILE; fd++)
		n += p->fds[fd] == NULL;
	return n;
}

/* See sysfile_internal.h. */
struct chan *fd_for(int fd, int acc)
{
	struct chan *c = fd_chan(current_proc(), fd);
	int mode;

	if (c == NULL)
		return NULL;
	mode = c->omode & O_ACCMODE;
	if (mode != O_RDWR && mode != acc)
		return NULL;
	return c;
}
