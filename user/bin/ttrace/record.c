/*
 * record.c: a trace around a command (or a time).
 *
 *	ttrace record [-o FILE] -- CMD [ARG...]
 *	ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]
 *
 * record clears the trace, enables the groups the event metadata marks on
 * by default (read from /dev/ttrace/meta, so nothing here names a group),
 * runs CMD and waits for it, stops tracing (group mask 0) so the save does
 * not trace itself, saves to FILE (default /tmp/trace.ttr) and finally
 * puts back the group mask it found.
 *
 * stream copies the device's stream file as it runs (a trace file whose
 * runs the kernel drains from every CPU's ring as they come: each record
 * once, losses declared in place), until CMD exits or SECONDS pass
 * (default: CMD, or 10 s without one); then it writes "end" to it, and
 * the kernel adds the records up to every head, the aux snapshot, the
 * counters and the file's END. The default FILE is /dev/host/out. Both
 * copy the kernel's file with save.c's copy and print its size and
 * CRC-32.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

#define DEFAULT_OUT	"/tmp/trace.ttr"

/* Whether process pid has exited (its /proc status says Z, or it is gone). */
static bool exited(int pid)
{
	char path[32], line[96];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return true;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = 0;
	return n <= 0 || strstr(line, " Z ") != NULL;
}

/* The TSC now, as the version header gives it. */
static uint64_t tsc_now(void)
{
	struct ttrace_version v;

	read_version(&v);
	return v.tsc_now;
}

/* ttrace stream (above): the trace drained as it is made. */
int cmd_stream(int argc, char **argv)
{
	const char *out = "/dev/host/out";
	struct ttrace_version v;
	struct copy o;
	char path[128];
	uint64_t secs = 0, t0;
	int c, fd, pid = 0, status = 0;
	bool ending = false;

	while ((c = getopt(argc, argv, "o:t:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 't')
			secs = strtoull(optarg, NULL, 10);
		else
			die("usage: ttrace stream [-o FILE] [-t SECONDS] "
			    "[-- CMD [ARG...]]");
	}
	if (optind >= argc && !secs)
		secs = 10;
	read_version(&v);
	t0 = v.tsc_now;
	fd = open_or_die(DEV "/stream", O_RDWR);
	out_open(&o, out);
	copy_some(&o, fd, DEV "/stream");	/* the file's head: now */
	if (optind < argc) {
		if ((pid = spawn_cmd(argv + optind, path, sizeof(path))) < 0)
			die_sys(path);
	}
	for (;;) {
		size_t got = copy_some(&o, fd, DEV "/stream");

		if (ending) {
			if (!got)
				break;		/* the file's END */
		} else if ((pid && exited(pid)) ||
			   (secs && tsc_now() - t0 >= secs * v.tsc_hz)) {
			if (write(fd, "end", 3) != 3)	/* drain what is */
				die_sys(DEV "/stream");	/* there, then the tail */
			ending = true;
		} else if (!got) {
			nanosleep(10000000);
		}
	}
	if (pid && waitpid(pid, &status) < 0)
		die_sys("wait");
	close(fd);
	out_close(&o);
	printf("ttrace: streamed %llu bytes of records in %llu ms",
	       (unsigned long long)o.bytes,
	       (unsigned long long)((tsc_now() - t0) / (v.tsc_hz / 1000)));
	if (pid)
		printf("; %s exited with status %d", argv[optind], status);
	printf("\n");
	return 0;
}

/* Builds "enable G..." for the groups the metadata turns on by default. */
static void default_groups(char *cmd, size_t size)
{
	struct ttrace_meta_table t;
	void *mem;

	meta_load(&t, &mem);
	strlcpy(cmd, "enable", size);
	for (uint32_t g = 0; g < t.ngroups; g++) {
		if (!(t.groups[g].flags & TTRACE_EVF_DEFAULT_ON))
			continue;
		strlcat(cmd, " ", size);
		if (strlcat(cmd, t.groups[g].name, size) >= size)
			die("too many default groups for one ctl command");
	}
	free(mem);
}

/* ttrace record (above): a saved trace of one command. */
int cmd_record(int argc, char **argv)
{
	const char *out = DEFAULT_OUT;
	char cmd[TTRACE_CTL_MAX_LEN + 1], path[128];
	struct ttrace_version v;
	int c, pid, status;

	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o')
			die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
		out = optarg;
	}
	if (optind >= argc)
		die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
	read_version(&v);
	default_groups(cmd, sizeof(cmd));
	ctl_write("clear");
	snprintf(restore, sizeof(restore), "setmask %#llx 0xffffffffffffffff",
		 (unsigned long long)v.group_mask);
	ctl_write(cmd);
	pid = spawn_cmd(argv + optind, path, sizeof(path));
	if (pid < 0)
		die_sys(path);
	if (waitpid(pid, &status) < 0)
		die_sys("wait");
	ctl_write("setmask 0 0xffffffffffffffff");	/* don't trace the save */
	save(out, "trace");
	ctl_write(restore);
	restore[0] = 0;
	printf("ttrace: %s exited with status %d\n", argv[optind], status);
	return 0;
}
