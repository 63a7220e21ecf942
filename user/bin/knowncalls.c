/*
 * knowncalls: a program whose system calls are known exactly, so that a
 * trace of it can be checked against the truth (tests/ttrace_tests.py,
 * ttrace_exports_agree; docs/exports.md):
 *
 *	knowncalls [FILE]
 *
 * Between two markers, "knowncalls begin" and "knowncalls end" (each one
 * write to /dev/ttrace/marker), it makes exactly 1000 getpid calls, 3
 * nanosleep calls of 50 ms, and 10 writes of 64 bytes to FILE (default
 * /tmp/x, opened before and closed after). Every syscall it needs exists
 * (getpid, nanosleep, open, write, close).
 */
#include <err.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define NGETPID		1000
#define NSLEEP		3
#define SLEEP_NS	50000000ull
#define NWRITE		10
#define WRITE_SIZE	64

static void marker(int fd, const char *text)
{
	if (write(fd, text, strlen(text)) < 0)
		err(1, "marker");
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/tmp/x";
	char buf[WRITE_SIZE];
	int mfd, fd;

	memset(buf, 'k', sizeof(buf));
	if ((mfd = open("/dev/ttrace/marker", O_WRONLY)) < 0)
		err(1, "/dev/ttrace/marker");
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC)) < 0)
		err(1, "%s", path);
	marker(mfd, "knowncalls begin");
	for (int i = 0; i < NGETPID; i++)
		getpid();
	for (int i = 0; i < NSLEEP; i++)
		if (nanosleep(SLEEP_NS) < 0)
			err(1, "nanosleep");
	for (int i = 0; i < NWRITE; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			err(1, "%s", path);
	marker(mfd, "knowncalls end");
	close(fd);
	close(mfd);
	return 0;
}
