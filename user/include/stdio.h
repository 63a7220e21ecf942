/*
 * stdio.h: formatted output on file descriptors, in the style of Plan 9's
 * fprint: there is no FILE, a stream is its fd, and stdin/stdout/stderr are
 * the numbers 0, 1, 2, so fprintf(stderr, ...) reads as usual.
 *
 * Only stdout is buffered: it is written at each newline (unless
 * setbuffering() made it block-buffered), when its 4 KiB buffer fills, at
 * fflush(stdout) and at exit(). Output to any other fd is written
 * once per call, after stdout is flushed so the two stay in order. A program
 * that prints a prompt without a newline calls fflush(stdout).
 *
 * When stdout's reader has gone (EPIPE), the process exits with status 1,
 * as SIGPIPE would end it elsewhere: `producer | head` then terminates.
 *
 * Formatting is C99 printf (kern/lib/printfmt.c). Line input is in
 * linereader.h.
 */
#ifndef ULIB_STDIO_H
#define ULIB_STDIO_H

#include <stdarg.h>
#include <sys/types.h>
#include <linereader.h>

#define stdin	0
#define stdout	1
#define stderr	2
#define EOF	(-1)

#define ULIB_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Each returns the number of characters output, or -1 if a write failed. */
int printf(const char *fmt, ...) ULIB_PRINTF(1, 2);
int fprintf(int fd, const char *fmt, ...) ULIB_PRINTF(2, 3);
int vfprintf(int fd, const char *fmt, va_list ap) ULIB_PRINTF(2, 0);

/* Format into buf, truncating to n - 1 characters plus a NUL (n > 0).
 * Return the length the whole output would have had. */
int snprintf(char *buf, size_t n, const char *fmt, ...) ULIB_PRINTF(3, 4);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
	ULIB_PRINTF(3, 0);

/* puts writes s and a newline to stdout, putchar one character. They
 * return a non-negative value, or EOF if a write failed. */
int puts(const char *s);
int putchar(int c);

/* stdout's buffering: _IOLBF (the default) writes at each newline,
 * _IOFBF only when the buffer fills, for a program whose output is bulk
 * (fewer write calls). Returns 0, or -1 with errno EINVAL for another fd
 * or mode. */
#define _IOFBF	0
#define _IOLBF	1
int setbuffering(int fd, int mode);

/* Writes out buffered stdout text; other fds have none. Returns 0, or EOF
 * if the write failed. */
int fflush(int fd);

/* Removes the file or empty directory path. Returns 0, or -1 with errno. */
int remove(const char *path);

#endif /* ULIB_STDIO_H */
