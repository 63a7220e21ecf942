/*
 * err, warn: "PROGNAME: message: error text" reports for utilities (see
 * err.h). PROGNAME drops argv[0]'s directories, so /bin/cat says "cat".
 */
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the report for fmt/ap and the current errno to stderr. */
static void report(const char *fmt, va_list ap)
{
	int saved = errno;
	const char *slash = strrchr(progname, '/');
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s: %s\n", slash ? slash + 1 : progname, msg,
		strerror(saved));
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
}

void err(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	exit(status);
}
