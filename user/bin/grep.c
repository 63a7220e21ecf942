/*
 * grep: print the lines that contain a fixed string.
 *
 *	grep [-cvi] PATTERN [FILE...]
 *	  -c	print only the number of selected lines
 *	  -v	select the lines that do not contain PATTERN
 *	  -i	ignore ASCII case
 *
 * With several FILEs, each output line is prefixed "FILE:". Lines may be
 * of any length that fits in the heap. Exit status: 0 if a line was
 * selected, 1 if none was or a file could not be read.
 */
#include <ctype.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int opt_count, opt_invert, opt_icase;

/* Returns 1 if pattern occurs in line ignoring ASCII case, else 0. */
static int contains_icase(const char *line, const char *pattern)
{
	size_t n = strlen(pattern);

	for (; *line; line++) {
		size_t i = 0;

		while (i < n && tolower((unsigned char)line[i]) ==
		       tolower((unsigned char)pattern[i]))
			i++;
		if (i == n)
			return 1;
	}
	return n == 0;
}

/* Returns 1 if line is selected by pattern and the options. */
static int selected(const char *line, const char *pattern)
{
	int found = opt_icase ? contains_icase(line, pattern) :
		strstr(line, pattern) != NULL;

	return found != opt_invert;
}

/* Greps fd (called name; prefix lines with it if show_name). Returns the
 * number of selected lines, or -1 after reporting a read error. */
static long grep_fd(int fd, const char *name, int show_name,
		    const char *pattern)
{
	static struct linereader lr;
	static char *line;	/* reused for every file; freed by exit */
	static size_t cap;
	long count = 0;
	ssize_t n;

	linereader_init(&lr, fd);
	while ((n = linereader_getline(&lr, &line, &cap)) > 0) {
		if (!selected(line, pattern))
			continue;
		count++;
		if (!opt_count)
			printf("%s%s%s%s", show_name ? name : "",
			       show_name ? ":" : "", line,
			       line[n - 1] == '\n' ? "" : "\n");
	}
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	if (opt_count)
		printf("%s%s%ld\n", show_name ? name : "", show_name ? ":" : "",
		       count);
	return count;
}

/* Parses the options; exits with a usage message on a bad one. */
static void parse_options(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "cvi")) != -1) {
		if (c == 'c')
			opt_count = 1;
		else if (c == 'v')
			opt_invert = 1;
		else if (c == 'i')
			opt_icase = 1;
		else
			break;
	}
	if (c != -1 || optind >= argc) {
		fprintf(stderr, "usage: grep [-cvi] PATTERN [FILE...]\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *pattern;
	int failed = 0, nfiles;
	long total = 0;

	parse_options(argc, argv);
	pattern = argv[optind++];
	nfiles = argc - optind;
	if (nfiles == 0)
		total = grep_fd(STDIN_FILENO, "stdin", 0, pattern);
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		long n;

		if (fd < 0) {
			warn("%s", argv[i]);
			failed = 1;
			continue;
		}
		n = grep_fd(fd, argv[i], nfiles > 1, pattern);
		close(fd);
		if (n < 0)
			failed = 1;
		else
			total += n;
	}
	return failed || total <= 0;
}
