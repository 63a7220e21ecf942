/*
 * head: print the first lines of each FILE (or stdin).
 *
 *	head [-n N] [FILE...]	default N = 10
 *
 * With several FILEs, each is headed "==> FILE <==". Reading stops at the
 * Nth newline, so head works on endless input.
 */
#include <err.h>
#include <linecmd.h>
#include <stdio.h>

#define LINE_MAX	1024

/* Copies the first nlines lines of fd to stdout. Returns 0, or -1 after
 * reporting a read error. */
static int head_fd(int fd, const char *name, long nlines)
{
	static struct linereader lr;
	static char line[LINE_MAX];
	ssize_t n = 0;

	linereader_init(&lr, fd);
	while (nlines > 0 && (n = linereader_next(&lr, line, sizeof(line))) > 0) {
		printf("%s", line);
		if (line[n - 1] == '\n')
			nlines--;
	}
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	return linecmd_main(argc, argv, "head", head_fd);
}
