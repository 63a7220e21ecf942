/*
 * write_all: write() that finishes the job. Pipes and the console may
 * accept fewer bytes than asked, so a utility copying data must loop.
 *
 * A pipe whose reader has gone (EPIPE) ends the process quietly with
 * status 1, as SIGPIPE's default action would elsewhere (there are no
 * signals here): `cat big | head` then ends without a complaint from cat.
 * A program that wants the EPIPE calls write() itself.
 */
#include <errno.h>
#include <unistd.h>

ssize_t write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(fd, p + done, n - done);

		if (w < 0 && errno == EPIPE)
			_exit(1);
		if (w < 0)
			return -1;
		done += (size_t)w;
	}
	return (ssize_t)n;
}
