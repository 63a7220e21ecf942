/*
 * Error texts (see errno_text.h): one table indexed by number, worded as
 * in abi/errno.h and user/lib/strerror.c so a message reads the same from
 * the kernel's errstr and from the user's strerror().
 */
#include <errno_text.h>
#include <compiler.h>
#include <abi/errno.h>

static const char *const error_text[] = {
	[EPERM] = "operation not permitted",
	[ENOENT] = "no such file or directory",
	[ESRCH] = "no such process",
	[EINTR] = "interrupted",
	[EIO] = "I/O error",
	[E2BIG] = "argument list too long",
	[ENOEXEC] = "exec format error",
	[EBADF] = "bad file descriptor",
	[ECHILD] = "no child processes",
	[EAGAIN] = "try again",
	[ENOMEM] = "out of memory",
	[EACCES] = "permission denied",
	[EFAULT] = "bad address",
	[EBUSY] = "device or resource busy",
	[EEXIST] = "file exists",
	[EXDEV] = "cross-device link",
	[ENODEV] = "no such device",
	[ENOTDIR] = "not a directory",
	[EISDIR] = "is a directory",
	[EINVAL] = "invalid argument",
	[ENFILE] = "file table overflow",
	[EMFILE] = "too many open files",
	[ENOTTY] = "not a terminal",
	[EFBIG] = "file too large",
	[ENOSPC] = "no space left on device",
	[ESPIPE] = "illegal seek",
	[EROFS] = "read-only file system",
	[EPIPE] = "broken pipe",
	[ERANGE] = "result out of range",
	[ENAMETOOLONG] = "file name too long",
	[ENOSYS] = "function not implemented",
	[ENOTEMPTY] = "directory not empty",
	[ELOOP] = "too many symbolic links",
};

const char *errno_text(long err)
{
	if (err <= 0 || err >= (long)ARRAY_SIZE(error_text) ||
	    error_text[err] == NULL)
		return "unknown error";
	return error_text[err];
}
