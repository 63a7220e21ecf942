/*
 * tail: print the last lines of each FILE (or stdin).
 *
 *	tail [-n N] [FILE...]	default N = 10
 *
 * The input may be a pipe, so tail cannot seek back: it keeps the last N
 * lines, read whole with linereader_getline, as malloc'd copies in a ring.
 * Memory is the libc heap (1 MiB), which bounds N times the line length.
 */
#include <err.h>
#include <linecmd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct line {
	char *text;
	size_t len;
};

/* The last nlines lines: filled in order until full, then a ring in which
 * next is the oldest line. lines grows as lines arrive, so a large N costs
 * nothing for short input. */
struct ring {
	struct line *lines;
	long cap;		/* slots allocated */
	long nlines;		/* N */
	long count;		/* lines held, at most nlines */
	long next;		/* once full: the oldest line, replaced next */
};

/* Adds a copy of line (len bytes) as the newest, dropping the oldest if
 * the ring is full. Exits if memory runs out. */
static void ring_add(struct ring *r, const char *line, size_t len)
{
	char *text = malloc(len);

	if (text == NULL)
		err(1, "-n %ld", r->nlines);
	memcpy(text, line, len);
	if (r->count < r->nlines) {
		if (r->count == r->cap) {
			long cap = r->cap ? r->cap * 2 : 16;

			if (cap > r->nlines)
				cap = r->nlines;
			r->lines = realloc(r->lines, (size_t)cap *
					   sizeof(*r->lines));
			if (r->lines == NULL)
				err(1, "-n %ld", r->nlines);
			r->cap = cap;
		}
		r->lines[r->count++] = (struct line){ text, len };
		return;
	}
	free(r->lines[r->next].text);
	r->lines[r->next] = (struct line){ text, len };
	r->next = (r->next + 1) % r->nlines;
}

/* Reads fd to its end, keeping its last r->nlines lines in r. Returns 0,
 * or -1 after reporting a read error. */
static int ring_fill(struct ring *r, int fd, const char *name)
{
	static struct linereader lr;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	linereader_init(&lr, fd);
	while ((n = linereader_getline(&lr, &line, &cap)) > 0)
		ring_add(r, line, (size_t)n);
	free(line);
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

/* Writes the lines kept in r, oldest first. */
static void ring_print(const struct ring *r)
{
	fflush(stdout);
	for (long i = 0; i < r->count; i++) {
		const struct line *l = &r->lines[(r->next + i) % r->count];

		if (write_all(STDOUT_FILENO, l->text, l->len) < 0)
			err(1, "write");
	}
}

/* Prints the last nlines lines of fd. Returns 0, or -1 after reporting. */
static int tail_fd(int fd, const char *name, long nlines)
{
	struct ring r = { .nlines = nlines };
	int status;

	if (nlines == 0)
		return 0;
	status = ring_fill(&r, fd, name);
	if (status == 0)
		ring_print(&r);
	for (long i = 0; i < r.count; i++)
		free(r.lines[i].text);
	free(r.lines);
	return status;
}

int main(int argc, char **argv)
{
	return linecmd_main(argc, argv, "tail", tail_fd);
}
