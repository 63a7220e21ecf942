/*
 * fcntl.h: open() and its O_ flags (the flags live in abi/syscall.h).
 *
 *	int fd = open("/tmp/x", O_WRONLY | O_CREAT | O_TRUNC);
 */
#ifndef ULIB_FCNTL_H
#define ULIB_FCNTL_H

#include <abi/syscall.h>

/* Opens path with flags O_RDONLY/O_WRONLY/O_RDWR, optionally O_CREAT,
 * O_TRUNC, O_APPEND. Returns the new fd, or -1 with errno set. */
int open(const char *path, int flags);

#endif /* ULIB_FCNTL_H */
