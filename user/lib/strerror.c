/*
 * strerror: text for every error number in abi/errno.h. The words come from
 * the kernel's own table (kern/lib/errno_text.c, linked into the libc), so
 * kernel and user space say the same thing.
 */
#include <string.h>
#include <errno_text.h>

char *strerror(int err)
{
	return (char *)errno_text(err);
}
