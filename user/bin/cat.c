/*
 * cat: copy each FILE (or stdin, also for "-") to stdout.
 *
 *	cat [FILE...]
 *
 * Files of any size: it reads until read() returns 0. A file that cannot
 * be read is reported and skipped; the exit status is then 1.
 */
#include <err.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Copies fd to stdout. Returns 0, or -1 after reporting a read error. */
static int cat_fd(int fd, const char *name)
{
	static char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
			err(1, "write");
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2)
		return cat_fd(STDIN_FILENO, "stdin") < 0;
	for (int i = 1; i < argc; i++) {
		int fd = strcmp(argv[i], "-") == 0 ? STDIN_FILENO :
			open(argv[i], O_RDONLY);

		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (cat_fd(fd, argv[i]) < 0)
			status = 1;
		if (fd != STDIN_FILENO)
			close(fd);
	}
	return status;
}
