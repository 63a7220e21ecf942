/*
 * sysfile_internal.h: the descriptor helpers fd.c gives the file system
 * calls (sysfile.c on descriptors, syspath.c on path names).
 */
#ifndef SYSFILE_INTERNAL_H
#define SYSFILE_INTERNAL_H

#include <ns.h>

/* errstr_set for a call on descriptor fd ("op fd N: reason"). Returns err. */
long fd_err(long err, const char *op, int fd);
/* Returns the chan open on fd of p, or NULL. */
struct chan *fd_chan(struct proc *p, int fd);
/* Returns how many fds of p are free. */
int fd_nfree(struct proc *p);
/* Returns the chan on fd if it is open for access acc (O_RDONLY: reading,
 * O_WRONLY: writing), or NULL: the caller's EBADF. */
struct chan *fd_for(int fd, int acc);

#endif /* SYSFILE_INTERNAL_H */
