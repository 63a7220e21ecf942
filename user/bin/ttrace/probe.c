/*
 * probe.c: the probes of docs/probes.md from the shell.
 *
 *	ttrace hist EVENT[:FIELD] [by FIELD] [if TEST...]
 *	ttrace hist latency START END [by FIELD] [if TEST...]
 *	ttrace probe list|load FILE|unload NAME
 *
 * hist names its probe after what it measures (hist.EVENT.FIELD,
 * lat.START.END), so the same command line either starts the probe (a
 * "probe NAME count|hist|latency ..." ctl command) or, once it runs,
 * finds its block in /dev/ttrace/probes and prints it with text bars
 * scaled to the block's largest count. probe load takes a module (an ELF
 * object: "module load PATH") or a text file whose lines are ctl
 * commands; unload tries a module first, then a built-in probe.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

#define PROBES_MAX	(128 * 1024)	/* the kernel's probes text, at most */
#define NAME_MAX_LEN	63		/* a probe's name (ttrace_probe_spec.h) */
#define BAR_WIDTH	40

/* The probes file into a buffer (NUL terminated) the caller frees. */
static char *probes_text(void)
{
	char *text = malloc(PROBES_MAX + 1);
	int fd = open_or_die(DEV "/probes", O_RDONLY);
	size_t n;

	if (!text)
		die("out of memory");
	n = read_full(fd, text, PROBES_MAX, DEV "/probes");
	close(fd);
	text[n] = 0;
	return text;
}

/* Reads up to max numbers from line s (words that are not numbers are
 * skipped); returns how many. */
static int numbers(const char *s, uint64_t *v, int max)
{
	int n = 0;

	while (*s && *s != '\n' && n < max) {
		char *end;

		if (*s >= '0' && *s <= '9') {
			v[n++] = strtoull(s, &end, 10);
			s = end;
		} else {
			s++;
		}
	}
	return n;
}

static const char *next_line(const char *l)
{
	const char *e = strchr(l, '\n');

	return e ? e + 1 : l + strlen(l);
}

/* The line that opens probe name's block in text, or NULL. */
static const char *probe_block(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = text; *l; l = next_line(l))
		if (!strncmp(l, "probe ", 6) && !strncmp(l + 6, name, n) &&
		    l[6 + n] == ' ')
			return l;
	return NULL;
}

/* A count's key line ("  key K count N", K a number or "NAME (N)"):
 * sets *label to K, *len to its length and *n to N; false for another
 * line. */
static bool count_line(const char *l, const char **label, int *len,
		       uint64_t *n)
{
	const char *eol = next_line(l), *c = strstr(l, " count ");

	if (strncmp(l, "  key ", 6) || !c || c >= eol)
		return false;
	*label = l + 6;
	*len = (int)(c - *label);
	return numbers(c, n, 1) == 1;
}

/* The largest count below line l: of the keys of a count ("  key K count
 * N"), or of the buckets ("    LOW HIGH N") under one key. */
static uint64_t block_max(const char *l, bool buckets)
{
	uint64_t max = 1, v[3];
	const char *label;
	int len;

	for (l = next_line(l); *l == ' '; l = next_line(l)) {
		if (buckets && strncmp(l, "    ", 4))
			break;
		if (buckets && numbers(l, v, 3) == 3 && v[2] > max)
			max = v[2];
		if (!buckets && count_line(l, &label, &len, v) && v[0] > max)
			max = v[0];
	}
	return max;
}

static void bar(uint64_t n, uint64_t max)
{
	char b[BAR_WIDTH + 1];
	size_t w = (size_t)(n * BAR_WIDTH / max);

	memset(b, '#', w);
	b[w] = 0;
	printf(" |%s\n", b);
}

/* Prints the probe block opening at l with text bars: one per key for a
 * count, one per bucket under each key for a histogram. */
static void show_block(const char *l)
{
	const char *eol = strchr(l, '\n');
	bool count = eol && strstr(l, " count ") && strstr(l, " count ") < eol;
	uint64_t max = count ? block_max(l, false) : 1, v[3];
	const char *label;
	int klen;

	printf("%.*s\n", (int)(next_line(l) - l - 1), l);
	for (l = next_line(l); *l == ' '; l = next_line(l)) {
		int len = (int)(next_line(l) - l - 1);

		if (!strncmp(l, "    ", 4) && numbers(l, v, 3) == 3) {
			printf("  %12llu .. %-12llu %8llu",
			       (unsigned long long)v[0],
			       (unsigned long long)v[1],
			       (unsigned long long)v[2]);
			bar(v[2], max);
		} else if (count && count_line(l, &label, &klen, v)) {
			printf("  key %-20.*s %8llu", klen, label,
			       (unsigned long long)v[0]);
			bar(v[0], max);
		} else {
			if (!strncmp(l, "  key", 5))
				max = block_max(l, true);
			printf("%.*s\n", len, l);
		}
	}
}

/* The name ttrace hist gives a probe: KIND.WORD..., whole: one longer
 * than the kernel takes (63 characters) is refused, never cut (two cut
 * names could be one probe's). name has room for NAME_MAX_LEN + 1. */
static void hist_name(char *name, const char *kind, const char *a,
		      const char *b)
{
	int n = snprintf(name, NAME_MAX_LEN + 1, "%s.%s%s%s", kind, a,
			 b ? "." : "", b ? b : "");

	if (n > NAME_MAX_LEN)
		die("the probe's name would be longer than 63 characters: "
		    "write the probe command to /dev/ttrace/ctl, naming it");
	for (char *p = name; *p; p++)
		if (*p == ':')
			*p = '.';
}

/* The first argument of event name, if it has one (NULL otherwise): the
 * default key of a latency histogram (syscall_enter: the syscall). */
static const char *first_arg(const struct ttrace_meta_table *t,
			     const char *name)
{
	for (uint32_t e = 0; e < t->nevents; e++)
		if (!strcmp(t->events[e].name, name))
			return t->events[e].nargs ? t->events[e].args[0].name :
			       NULL;
	return NULL;
}

/* ttrace hist EVENT[:FIELD] ... | latency START END ...: shows the probe
 * if it exists, else starts it. */
int cmd_hist(int argc, char **argv)
{
	char name[NAME_MAX_LEN + 1], cmd[TTRACE_CTL_MAX_LEN + 1], *text, *field;
	const char *l;
	bool lat = argc >= 3 && !strcmp(argv[0], "latency");
	int rest = lat ? 3 : 1;

	if (argc < 1 || (!strcmp(argv[0], "latency") && argc < 3))
		die("usage: ttrace hist EVENT[:FIELD] | ttrace hist latency "
		    "START END");
	if (lat)
		hist_name(name, "lat", argv[1], argv[2]);
	else
		hist_name(name, "hist", argv[0], NULL);
	text = probes_text();
	if ((l = probe_block(text, name))) {
		show_block(l);
		free(text);
		return 0;
	}
	free(text);
	if (lat) {
		struct ttrace_meta_table t;
		void *mem;
		const char *key;

		meta_load(&t, &mem);
		key = argc == 3 ? first_arg(&t, argv[1]) : NULL;
		snprintf(cmd, sizeof(cmd), "probe %s latency %s %s%s%s", name,
			 argv[1], argv[2], key ? " by " : "", key ? key : "");
		free(mem);
	} else if ((field = strchr(argv[0], ':'))) {
		*field++ = 0;
		snprintf(cmd, sizeof(cmd), "probe %s hist %s %s", name, argv[0],
			 field);
	} else {
		snprintf(cmd, sizeof(cmd), "probe %s count %s", name, argv[0]);
	}
	join(cmd, sizeof(cmd), cmd, argc - rest, argv + rest);
	ctl_write(cmd);
	printf("ttrace: probe %s started; run the same command to see it\n",
	       name);
	return 0;
}

/* Loads a probe module (an ELF object: "module load PATH"), or writes
 * each line of a text file (blank and # lines aside) to ctl, stopping at
 * the first the kernel refuses. */
void probe_load(const char *path)
{
	struct linereader lr;
	char line[TTRACE_CTL_MAX_LEN + 2];
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n = read(fd, line, 4);

	if (n == 4 && !memcmp(line, "\177ELF", 4)) {
		close(fd);
		snprintf(line, sizeof(line), "module load %s", path);
		ctl_write(line);
		return;
	}
	close(fd);
	fd = open_or_die(path, O_RDONLY);
	linereader_init(&lr, fd);
	while ((n = linereader_next(&lr, line, sizeof(line))) > 0) {
		char *p = line;

		line[n - (line[n - 1] == '\n')] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#')
			ctl_write(p);
	}
	if (n < 0)
		die_sys(path);
	close(fd);
}

/* Unloads module name, or else removes built-in probe name. */
void probe_unload(const char *name)
{
	char cmd[TTRACE_CTL_MAX_LEN + 1];
	int fd = open_or_die(DEV "/ctl", O_WRONLY);

	snprintf(cmd, sizeof(cmd), "module unload %s", name);
	if (write(fd, cmd, strlen(cmd)) < 0) {
		snprintf(cmd, sizeof(cmd), "unprobe %s", name);
		if (write(fd, cmd, strlen(cmd)) < 0)
			die_sys(cmd);
	}
	close(fd);
}
