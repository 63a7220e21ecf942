/*
 * linereader: buffered line input from a file descriptor, the getline of
 * this libc. It reads in blocks and hands back one line at a time, so
 * callers never loop over read() themselves:
 *
 *	struct linereader lr;
 *	char line[256];
 *	ssize_t n;
 *
 *	linereader_init(&lr, fd);
 *	while ((n = linereader_next(&lr, line, sizeof(line))) > 0)
 *		...line holds n bytes, the last one '\n' unless the input ended
 *		   without one or the line was longer than the buffer...
 *
 * linereader_getline() returns whole lines of any length instead, in a
 * buffer it grows with realloc (the contract of POSIX getline):
 *
 *	char *line = NULL;
 *	size_t cap = 0;
 *	while ((n = linereader_getline(&lr, &line, &cap)) > 0)
 *		...
 *	free(line);
 *
 * The reader keeps read-ahead bytes, so once a reader is in use, other code
 * must not read the same fd. A console read returns one line, so reading
 * the console this way takes nothing beyond the current line.
 */
#ifndef ULIB_LINEREADER_H
#define ULIB_LINEREADER_H

#include <stddef.h>
#include <sys/types.h>

#define LINEREADER_BUF	4096

struct linereader {
	int fd;
	int error;		/* errno of a failed read, reported once drained */
	size_t pos;		/* next unread byte in buf */
	size_t len;		/* bytes held in buf */
	char buf[LINEREADER_BUF];
};

/* Starts reading fd from its current offset. */
void linereader_init(struct linereader *lr, int fd);

/*
 * Copies the next line, with its '\n', into line and NUL-terminates it. A
 * line longer than n - 1 bytes comes back in pieces of n - 1 bytes (n >= 2).
 * Returns the number of bytes copied, 0 at the end of input, or -1 with
 * errno set if a read failed.
 */
ssize_t linereader_next(struct linereader *lr, char *line, size_t n);

/*
 * Reads the next whole line, however long, into *linep: a malloc'd buffer
 * of *capp bytes, grown with realloc when the line does not fit (start with
 * NULL and 0; free it when done). The line keeps its '\n' and is
 * NUL-terminated. Returns its length, 0 at the end of input, or -1 with
 * errno set (ENOMEM if the line does not fit in memory, or the read's
 * error); the partial line is then lost.
 */
ssize_t linereader_getline(struct linereader *lr, char **linep, size_t *capp);

#endif /* ULIB_LINEREADER_H */
