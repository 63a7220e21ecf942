/*
 * cat.c: `ttrace cat [-c CPU]`, the records as text. Each /dev/ttrace/cpuN
 * file prints its CPU's records in time order, one line each starting
 * with the time in microseconds; cat merges them into one stream by that
 * leading time, holding one line per CPU (a linereader each), so memory
 * does not grow with the trace. A line without a time (a continuation or
 * a loss note) keeps its place after the line before it.
 *
 * cat's own system calls are recorded into the rings it reads, over the
 * oldest records not yet read. So it reads and writes in 4 KiB blocks:
 * written a line at a time (a write, the reader's read and two switches
 * each), its output overwrote a small ring faster than it read it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"


struct src {
	struct linereader lr;
	char *line;
	size_t cap;
	ssize_t len;		/* current line's length, 0 when done */
	uint64_t key;		/* its time in ns, or the previous line's */
	const char *path;
};

/* Lists the N of every NAME<N> in /dev/ttrace, ascending. Returns count. */
static int list_cpus(const char *name, int *cpus)
{
	struct dirent d[16];
	size_t plen = strlen(name);
	int fd = open_or_die(DEV, O_RDONLY), n, count = 0;

	while ((n = readdir(fd, d, 16)) > 0) {
		for (int i = 0; i < n && count < MAX_CPUS; i++) {
			char *end;
			long v;

			if (strncmp(d[i].name, name, plen) ||
			    d[i].name[plen] < '0' || d[i].name[plen] > '9')
				continue;
			v = strtol(d[i].name + plen, &end, 10);
			if (*end == 0 && v >= 0 && v < MAX_CPUS)
				cpus[count++] = (int)v;
		}
	}
	if (n < 0)
		die_sys(DEV);
	close(fd);
	for (int i = 1; i < count; i++)		/* few: insertion sort */
		for (int j = i; j > 0 && cpus[j] < cpus[j - 1]; j--) {
			int t = cpus[j];

			cpus[j] = cpus[j - 1];
			cpus[j - 1] = t;
		}
	return count;
}

/* Parses the leading "SECONDS.MMM" microseconds of a line into ns. */
static bool line_time(const char *s, uint64_t *ns)
{
	uint64_t us = 0, frac = 0;
	int digits = 0;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		us = us * 10 + (uint64_t)(*s++ - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (digits < 3) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				digits++;
			}
	while (digits++ < 3)
		frac *= 10;
	*ns = us * 1000 + frac;
	return true;
}

static void src_next(struct src *s)
{
	s->len = linereader_getline(&s->lr, &s->line, &s->cap);
	if (s->len < 0)
		die_sys(s->path);
	if (s->len > 0)
		line_time(s->line, &s->key);	/* else keep the last time */
}

/* Prints the cpuN files of cpus[0..n) merged by their lines' times. */
static void cat_merged(const int *cpus, int n)
{
	struct src *s = calloc((size_t)n, sizeof(*s));
	static char paths[MAX_CPUS][32];

	if (!s)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), DEV "/cpu%d", cpus[i]);
		s[i].path = paths[i];
		linereader_init(&s[i].lr, open_or_die(paths[i], O_RDONLY));
		src_next(&s[i]);
	}
	for (;;) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (s[i].len > 0 && (best < 0 || s[i].key < s[best].key))
				best = i;
		if (best < 0)
			break;
		printf("%s%s", s[best].line,
		       s[best].line[s[best].len - 1] == '\n' ? "" : "\n");
		src_next(&s[best]);
	}
	for (int i = 0; i < n; i++) {
		close(s[i].lr.fd);
		free(s[i].line);
	}
	free(s);
}

int cmd_cat(int argc, char **argv)
{
	static int cpus[MAX_CPUS];
	int n, c, one = -1;

	while ((c = getopt(argc, argv, "c:")) != -1) {
		if (c != 'c')
			die("usage: ttrace cat [-c CPU]");
		one = atoi(optarg);
	}
	setbuffering(stdout, _IOFBF);
	n = list_cpus("cpu", cpus);
	if (one >= 0) {
		cpus[0] = one;
		n = 1;
	}
	cat_merged(cpus, n);
	return 0;
}
