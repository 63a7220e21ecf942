/*
 * wc: count lines, words and bytes.
 *
 *	wc [-l] [FILE...]	-l: lines only
 *
 * A word is a maximal run of non-space bytes. With several FILEs a total
 * line follows.
 */
#include <ctype.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

struct counts {
	unsigned long lines, words, bytes;
};

static int lines_only;

/* Adds the counts of fd's contents to *c. Returns 0, or -1 after
 * reporting a read error. */
static int count_fd(int fd, const char *name, struct counts *c)
{
	static char buf[4096];
	int in_word = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		c->bytes += (unsigned long)n;
		for (ssize_t i = 0; i < n; i++) {
			int space = isspace((unsigned char)buf[i]);

			c->lines += buf[i] == '\n';
			c->words += !space && !in_word;
			in_word = !space;
		}
	}
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

/* Prints one result line; name may be NULL (stdin). */
static void print_counts(const struct counts *c, const char *name)
{
	if (lines_only)
		printf("%7lu", c->lines);
	else
		printf("%7lu %7lu %7lu", c->lines, c->words, c->bytes);
	printf("%s%s\n", name ? " " : "", name ? name : "");
}

int main(int argc, char **argv)
{
	struct counts total = { 0 };
	int c, status = 0;

	while ((c = getopt(argc, argv, "l")) != -1) {
		if (c != 'l') {
			fprintf(stderr, "usage: wc [-l] [FILE...]\n");
			return 1;
		}
		lines_only = 1;
	}
	if (optind == argc) {
		status = count_fd(STDIN_FILENO, "stdin", &total) < 0;
		print_counts(&total, NULL);
		return status;
	}
	for (int i = optind; i < argc; i++) {
		struct counts one = { 0 };
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || count_fd(fd, argv[i], &one) < 0) {
			if (fd < 0)
				warn("%s", argv[i]);
			status = 1;
		} else {
			print_counts(&one, argv[i]);
		}
		if (fd >= 0)
			close(fd);
		total.lines += one.lines;
		total.words += one.words;
		total.bytes += one.bytes;
	}
	if (argc - optind > 1)
		print_counts(&total, "total");
	return status;
}
