/*
 * linereader: block reads split into lines (see linereader.h). The buffer
 * refills only when empty, so a line that straddles two reads is copied in
 * two steps; a failed read is remembered and reported after the bytes
 * already read have been handed out.
 *
 * Included by its header's relative path so the host tests, which build
 * against the host libc, can compile this file unchanged.
 */
#include "../include/linereader.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

void linereader_init(struct linereader *lr, int fd)
{
	lr->fd = fd;
	lr->error = 0;
	lr->pos = 0;
	lr->len = 0;
}

/* Refills lr's empty buffer. Returns the bytes read, 0 at end of input, or
 * -1 with lr->error set. */
static ssize_t linereader_fill(struct linereader *lr)
{
	ssize_t n = read(lr->fd, lr->buf, sizeof(lr->buf));

	if (n < 0) {
		lr->error = errno;
		return -1;
	}
	lr->pos = 0;
	lr->len = (size_t)n;
	return n;
}

ssize_t linereader_next(struct linereader *lr, char *line, size_t n)
{
	size_t got = 0;

	while (got < n - 1) {
		if (lr->pos == lr->len &&
		    (lr->error || linereader_fill(lr) <= 0))
			break;
		size_t avail = lr->len - lr->pos;
		size_t take = avail < n - 1 - got ? avail : n - 1 - got;
		char *nl = memchr(lr->buf + lr->pos, '\n', take);

		if (nl)
			take = (size_t)(nl - (lr->buf + lr->pos)) + 1;
		memcpy(line + got, lr->buf + lr->pos, take);
		lr->pos += take;
		got += take;
		if (nl)
			break;
	}
	line[got] = 0;
	if (got == 0 && lr->error) {
		errno = lr->error;
		lr->error = 0;
		return -1;
	}
	return (ssize_t)got;
}
