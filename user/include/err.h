/*
 * err.h: BSD-style error reports for utilities. Each prints
 * "PROGNAME: message: strerror(errno)" on stderr, where PROGNAME is the
 * last path element of argv[0]:
 *
 *	if ((fd = open(path, O_RDONLY)) < 0)
 *		err(1, "%s", path);	// "cat: /x: no such file or directory"
 */
#ifndef ULIB_ERR_H
#define ULIB_ERR_H

#include <compiler.h>

/* argv[0] of this process, set before main runs. */
extern const char *progname;

/* Print the report; err then exits with status, warn returns. */
__noreturn void err(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ULIB_ERR_H */
