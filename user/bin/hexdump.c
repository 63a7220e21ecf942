/*
 * hexdump: canonical hex+ASCII dump, the format of `hexdump -C`.
 *
 *	hexdump [-C] [FILE...]	(-C is accepted; the format is always that)
 *
 *	00000000  68 65 6c 6c 6f 0a                                 |hello.|
 *	00000006
 *
 * The FILEs (or stdin) are dumped as one stream, 16 bytes a line. A line
 * equal to the one before it is shown as a single "*" however often it
 * repeats, as hexdump does. Reads may return any amount, so bytes are
 * gathered into whole lines first.
 */
#include <ctype.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_BYTES	16

struct dump {
	unsigned long offset;		/* of line[0] in the stream */
	size_t len;			/* bytes gathered in line */
	unsigned char line[LINE_BYTES];
	unsigned char prev[LINE_BYTES];	/* the last full line printed */
	int have_prev;
	int squeezing;			/* "*" printed for repeats of prev */
};

/* Prints line d->line of d->len bytes at d->offset, or squeezes it. */
static void dump_line(struct dump *d)
{
	if (d->len == LINE_BYTES && d->have_prev &&
	    memcmp(d->line, d->prev, LINE_BYTES) == 0) {
		if (!d->squeezing)
			printf("*\n");
		d->squeezing = 1;
		return;
	}
	d->squeezing = 0;
	printf("%08lx ", d->offset);
	for (size_t i = 0; i < LINE_BYTES; i++) {
		if (i == LINE_BYTES / 2)
			putchar(' ');
		if (i < d->len)
			printf(" %02x", d->line[i]);
		else
			printf("   ");
	}
	printf("  |");
	for (size_t i = 0; i < d->len; i++)
		putchar(isprint(d->line[i]) ? d->line[i] : '.');
	printf("|\n");
	memcpy(d->prev, d->line, LINE_BYTES);
	d->have_prev = d->len == LINE_BYTES;
}

/* Feeds fd's bytes into d, printing each full line. Returns 0, or -1
 * after reporting a read error. */
static int dump_fd(struct dump *d, int fd, const char *name)
{
	unsigned char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			d->line[d->len++] = buf[i];
			if (d->len == LINE_BYTES) {
				dump_line(d);
				d->offset += LINE_BYTES;
				d->len = 0;
			}
		}
	}
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct dump d;
	int c, status = 0;

	while ((c = getopt(argc, argv, "C")) != -1) {
		if (c != 'C') {
			fprintf(stderr, "usage: hexdump [-C] [FILE...]\n");
			return 1;
		}
	}
	if (optind == argc)
		status = dump_fd(&d, STDIN_FILENO, "stdin") < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		if (fd < 0 || dump_fd(&d, fd, argv[i]) < 0) {
			if (fd < 0)
				warn("%s", argv[i]);
			status = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	if (d.len > 0)
		dump_line(&d);
	if (d.offset + d.len > 0)
		printf("%08lx\n", d.offset + d.len);
	return status;
}
