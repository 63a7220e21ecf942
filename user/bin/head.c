/*
 * head: print the first lines of each FILE (or stdin).
 *
 *	head [-n N] [FILE...]	default N = 10
 *
 * With several FILEs, each is headed "==> FILE <==". Reading stops at the
 * Nth newline, so head works on endless input.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Returns the line count given by -n's argument s; exits if it is bad. */
static long parse_count(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s == 0 || *end != 0 || n < 0) {
		fprintf(stderr, "head: bad line count '%s'\n", s);
		exit(1);
	}
	return n;
}

int main(int argc, char **argv)
{
	long nlines = 10;
	int c, status = 0;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: head [-n N] [FILE...]\n");
			return 1;
		}
		nlines = parse_count(optarg);
	}
	if (optind == argc)
		return head_fd(STDIN_FILENO, "stdin", nlines) < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (argc - optind > 1)
			printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (head_fd(fd, argv[i], nlines) < 0)
			status = 1;
		close(fd);
	}
	return status;
}
