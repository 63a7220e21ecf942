/*
 * linereader_getline: whole lines of any length (see linereader.h), in a
 * buffer grown with realloc as POSIX getline does. It lives apart from
 * linereader.c so that programs reading into fixed buffers, like the
 * shell, do not link malloc and its heap.
 *
 * Included by its header's relative path so the host tests, which build
 * against the host libc, can compile this file unchanged.
 */
#include "../include/linereader.h"
#include <stdlib.h>

#define GETLINE_MIN	128	/* first buffer size */

ssize_t linereader_getline(struct linereader *lr, char **linep, size_t *capp)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (*capp - len < 2) {
			size_t cap = *capp ? *capp * 2 : GETLINE_MIN;
			char *line = realloc(*linep, cap);

			if (line == NULL)
				return -1;
			*linep = line;
			*capp = cap;
		}
		n = linereader_next(lr, *linep + len, *capp - len);
		if (n < 0)
			return -1;
		len += (size_t)n;
		if (n == 0 || (*linep)[len - 1] == '\n')
			return (ssize_t)len;
	}
}
