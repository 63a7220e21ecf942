/*
 * errno: the error of the last failed libc call. The syscall wrappers set it
 * from the kernel's -errno result; the values are those of abi/errno.h.
 * Processes are single-threaded, so one global suffices.
 */
#ifndef ULIB_ERRNO_H
#define ULIB_ERRNO_H

#include <abi/errno.h>

extern int errno;

#endif /* ULIB_ERRNO_H */
