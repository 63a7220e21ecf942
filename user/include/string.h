/*
 * string.h: the kernel's string functions (kern/include/string.h, built into
 * libc from kern/lib/string.c) plus strerror, which only user space needs.
 * user/include comes first on the include path, so this file reaches the
 * kernel header with #include_next.
 */
#ifndef ULIB_STRING_H
#define ULIB_STRING_H

#include_next <string.h>

/* Returns the text for error number err ("unknown error" if there is none);
 * the string is static and must not be modified. */
char *strerror(int err);

#endif /* ULIB_STRING_H */
