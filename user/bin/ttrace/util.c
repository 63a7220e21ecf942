/*
 * util.c: the helpers every ttrace subcommand uses. Errors end the
 * program: die() and die_sys() print "ttrace: what: why" (the kernel's own
 * text through errstr when it has one) and first undo what the failing
 * command left behind (fail_exit: a partial trace file is removed, a
 * group mask record or graph changed is put back), so a subcommand never
 * checks a return value it cannot act on. Device files are read with
 * read_full (short reads looped), the version header and the event
 * metadata come from /dev/ttrace/version and meta, and commands are
 * started from /bin like the shell does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

uint8_t chunk[CHUNK];
const char *partial;
char restore[64];

/* Undoes what a failed command leaves behind (best effort), exits 1. */
static __noreturn void fail_exit(void)
{
	if (partial)
		remove(partial);
	if (restore[0]) {
		int fd = open(DEV "/ctl", O_WRONLY);

		if (fd >= 0) {
			write(fd, restore, strlen(restore));
			close(fd);
		}
	}
	exit(1);
}

/* Prints "ttrace: what: <the kernel's text for the last error>", exits 1. */
__noreturn void die_sys(const char *what)
{
	char text[128];
	int saved = errno;

	if (errstr(text, sizeof(text)) <= 0)
		strlcpy(text, strerror(saved), sizeof(text));
	fprintf(stderr, "ttrace: %s: %s\n", what, text);
	fail_exit();
}

/* Prints "ttrace: msg", exits 1. */
__noreturn void die(const char *msg)
{
	fprintf(stderr, "ttrace: %s\n", msg);
	fail_exit();
}

/* open(), or exits naming path. Returns the fd. */
int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		die_sys(path);
	return fd;
}

/* Reads up to n bytes, looping over short reads. Returns the count read
 * (less than n only at the end of the file); exits on an error. */
size_t read_full(int fd, void *buf, size_t n, const char *path)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (uint8_t *)buf + got, n - got);

		if (r < 0)
			die_sys(path);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Writes one command to the open ctl file fd; exits with the kernel's
 * error text. */
void ctl_write_fd(int fd, const char *cmd)
{
	if (write(fd, cmd, strlen(cmd)) < 0)
		die_sys(cmd);
}

/* Writes one command to the ctl file, opened for it. */
void ctl_write(const char *cmd)
{
	int fd = open_or_die(DEV "/ctl", O_WRONLY);

	ctl_write_fd(fd, cmd);
	close(fd);
}

/* Joins words with spaces after prefix into buf; exits if it does not fit. */
void join(char *buf, size_t size, const char *prefix, int n,
		 char **words)
{
	strlcpy(buf, prefix, size);
	for (int i = 0; i < n; i++) {
		if (i || prefix[0])
			strlcat(buf, " ", size);
		if (strlcat(buf, words[i], size) >= size)
			die("too long (a command or marker is at most 255 bytes)");
	}
}

/* Copies a whole file to stdout. */
void cat_file(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (write_all(STDOUT_FILENO, chunk, (size_t)n) < 0)
			die_sys("stdout");
	if (n < 0)
		die_sys(path);
	close(fd);
}

/* Reads and sanity-checks the version header (the host checks the rest). */
void read_version(struct ttrace_version *v)
{
	int fd = open_or_die(DEV "/version", O_RDONLY);

	if (read_full(fd, v, sizeof(*v), DEV "/version") != sizeof(*v) ||
	    v->magic != TTRACE_MAGIC || v->header_size != sizeof(*v) ||
	    v->entry_size != TTRACE_ENTRY_SIZE || v->num_cpus == 0 ||
	    v->num_cpus > MAX_CPUS || !IS_PWR2(v->entries_per_cpu))
		die(DEV "/version: not a version header this tool knows");
	close(fd);
}

/* Reads the event metadata into *t; *mem holds it until freed. */
void meta_load(struct ttrace_meta_table *t, void **mem)
{
	struct ttrace_version v;
	const char *why;
	uint8_t *blob;
	size_t n;
	int fd;

	read_version(&v);
	blob = malloc(v.meta_size ? v.meta_size : 1);
	fd = open_or_die(DEV "/meta", O_RDONLY);
	if (!blob || read_full(fd, blob, v.meta_size, DEV "/meta") !=
		     v.meta_size)
		die(DEV "/meta: cannot read the event metadata");
	close(fd);
	n = ttrace_meta_arena_size(blob, v.meta_size);
	*mem = malloc(n ? n : 1);
	if (!*mem || ttrace_meta_parse(blob, v.meta_size, *mem, n, t, &why) < 0)
		die(*mem ? why : "out of memory");
	free(blob);
}

/* Starts argv[0] (a name without '/' from /bin, as the shell does) with
 * this process's stdin, stdout and stderr; path (size bytes) gets what
 * was started, for errors. Returns its pid, or -1 (errno set). */
int spawn_cmd(char **argv, char *path, size_t size)
{
	int fdmap[3] = { 0, 1, 2 };

	snprintf(path, size, "%s%s", strchr(argv[0], '/') ? "" : "/bin/",
		 argv[0]);
	return spawn(path, argv, fdmap);
}
