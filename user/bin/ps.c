/*
 * ps: list processes.
 *
 *	ps
 *
 * Reads /proc, which has one directory per process named by its pid, each
 * holding a file "status" with one line "PID PPID STATE CPU NAME". Lines
 * that do not have that shape are printed as they are.
 */
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NFIELDS	5

/* Reads the whole of the small file path into buf (NUL-terminated).
 * Returns 0, or -1 with errno set. */
static int read_small(const char *path, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t got = 1;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < n - 1 && (got = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = 0;
	return got < 0 ? -1 : 0;
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Splits line into at most NFIELDS blank-separated fields, the last one
 * taking the rest of the line (without its newline). Returns the number
 * of fields found. */
static int split_fields(char *line, char *fields[NFIELDS])
{
	char *nl = strchr(line, '\n');
	int n = 0;

	if (nl)
		*nl = 0;
	for (;;) {
		while (is_blank(*line))
			line++;
		if (*line == 0)
			return n;
		fields[n++] = line;
		if (n == NFIELDS)
			return n;
		while (*line && !is_blank(*line))
			line++;
		if (*line)
			*line++ = 0;
	}
}

/* Prints the status line of process pid (its /proc name). */
static void print_proc(const char *pid)
{
	char path[NAME_MAX + 16], line[256], copy[256];
	char *f[NFIELDS];

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (read_small(path, line, sizeof(line)) < 0) {
		warn("%s", path);
		return;
	}
	strlcpy(copy, line, sizeof(copy));
	if (split_fields(copy, f) == NFIELDS)
		printf("%5s %5s %-8s %3s %s\n", f[0], f[1], f[2], f[3], f[4]);
	else
		printf("%s%s", line, strchr(line, '\n') ? "" : "\n");
}

int main(void)
{
	struct dirent ents[16];
	int fd = open("/proc", O_RDONLY), n;

	if (fd < 0)
		err(1, "/proc");
	printf("%5s %5s %-8s %3s %s\n", "PID", "PPID", "STATE", "CPU", "NAME");
	while ((n = readdir(fd, ents, 16)) > 0)
		for (int i = 0; i < n; i++)
			if (isdigit((unsigned char)ents[i].name[0]))
				print_proc(ents[i].name);
	if (n < 0)
		err(1, "/proc");
	close(fd);
	return 0;
}
