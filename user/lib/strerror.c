/*
 * strerror: text for every error number in abi/errno.h, worded as that
 * header's comments so kernel and user space say the same thing.
 */
#include <string.h>
#include <abi/errno.h>

static const char *const error_text[] = {
	[0] = "no error",
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

char *strerror(int err)
{
	if (err < 0 || err >= (int)(sizeof(error_text) / sizeof(error_text[0]))
	    || error_text[err] == NULL)
		return (char *)"unknown error";
	return (char *)error_text[err];
}
