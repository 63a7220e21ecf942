/*
 * record.c: a trace around a command (or a time).
 *
 *	ttrace record [-o FILE] -- CMD [ARG...]
 *	ttrace profile [-F HZ] [--off-cpu] [--sched] [-o FILE] -- CMD [ARG...]
 *	ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]
 *
 * record clears the trace, enables the groups the event metadata marks on
 * by default (read from /dev/ttrace/meta, so nothing here names a group),
 * runs CMD and waits for it, stops tracing (group mask 0) so the save does
 * not trace itself, saves to FILE (default /tmp/trace.ttr) and finally
 * puts back the group mask it found. profile does the same with the
 * sampling profiler on while CMD runs (cmd_profile()).
 *
 * stream gets the trace file out as it is made (each record once, losses
 * declared in place), until CMD exits or SECONDS pass (default: CMD, or
 * 10 s without one). To the host channel, /dev/host/out (the default
 * FILE), the kernel does it: ctl `drain on` has its drain thread write
 * the file straight from the rings into the channel (no copy here, no
 * system call per piece, none of it traced), and `drain off` returns once
 * it has added the records up to every head, the aux snapshot, the
 * counters and the file's END; the size and CRC-32 are then ctl's "drain"
 * line. Both are written to one open ctl file, whose close (this
 * process killed by ^C) ends the drain too. Any other FILE is copied here from the device's stream file,
 * whose "end" write does the same; this loop's own system calls are
 * then recorded into the rings it drains. record copies the kernel's
 * trace file with save.c's copy. Each prints the file's size and CRC-32.
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

/* Waits until process pid exits (0: none) or secs seconds (0: no limit)
 * since t0 pass: in waitpid when there is no limit, else polling. Returns
 * pid's exit status, or -1 when it still runs. */
static int stream_wait(int pid, uint64_t secs, uint64_t t0, uint64_t hz)
{
	int status = -1;

	if (pid && !secs) {
		if (waitpid(pid, &status) < 0)
			die_sys("wait");
		return status;
	}
	while (!(pid && exited(pid)) && tsc_now() - t0 < secs * hz)
		nanosleep(10000000);
	if (pid && exited(pid) && waitpid(pid, &status) < 0)
		die_sys("wait");
	return status;
}

/* The drain's "drain off bytes N crc32c X" line of ctl into o. */
static void drain_result(struct copy *o)
{
	static const char key[] = "\ndrain off bytes ";
	char text[1024], *line, *end;
	int fd = open_or_die(DEV "/ctl", O_RDONLY);
	ssize_t n = read(fd, text, sizeof(text) - 1);

	close(fd);
	text[n > 0 ? n : 0] = 0;
	line = strstr(text, key);
	if (!line)
		die(DEV "/ctl: no drain line after drain off");
	o->bytes = strtoull(line + sizeof(key) - 1, &end, 10);
	if (strncmp(end, " crc32c ", 8))
		die(DEV "/ctl: a drain line without its crc32c");
	o->crc = (uint32_t)strtoull(end + 8, NULL, 16);
}

/* stream to the host channel: the kernel's drain does it. The drain is
 * the ctl file's that turned it on: kept open until drain off, so that
 * if this process dies first (^C), its close ends the drain. */
static void stream_drain(struct copy *o, char **cmd, uint64_t secs,
			 const struct ttrace_version *v, int *status)
{
	char path[128];
	int pid = 0, ctl = open_or_die(DEV "/ctl", O_WRONLY);

	ctl_write_fd(ctl, "drain on");
	if (cmd && (pid = spawn_cmd(cmd, path, sizeof(path))) < 0)
		die_sys(path);		/* the exit's close ends the drain */
	*status = stream_wait(pid, secs, v->tsc_now, v->tsc_hz);
	ctl_write_fd(ctl, "drain off");
	close(ctl);
	drain_result(o);
	printf("ttrace: saved %s: %llu bytes, crc32c %#010x\n", o->path,
	       (unsigned long long)o->bytes, o->crc);
}

/* stream to another file: a copy of the device's stream file. */
static void stream_copy(struct copy *o, char **cmd, uint64_t secs,
			const struct ttrace_version *v, int *status)
{
	char path[128];
	int fd = open_or_die(DEV "/stream", O_RDWR), pid = 0;
	bool ending = false;

	out_open(o, o->path);
	copy_some(o, fd, DEV "/stream");	/* the file's head: now */
	if (cmd && (pid = spawn_cmd(cmd, path, sizeof(path))) < 0)
		die_sys(path);
	for (;;) {
		size_t got = copy_some(o, fd, DEV "/stream");

		if (ending) {
			if (!got)
				break;		/* the file's END */
		} else if ((pid && exited(pid)) ||
			   (secs && tsc_now() - v->tsc_now >= secs * v->tsc_hz)) {
			if (write(fd, "end", 3) != 3)	/* drain what is */
				die_sys(DEV "/stream");	/* there, then the tail */
			ending = true;
		} else if (!got) {
			nanosleep(10000000);
		}
	}
	if (pid && waitpid(pid, status) < 0)
		die_sys("wait");
	close(fd);
	out_close(o);
}

/* ttrace stream (above): the trace drained as it is made. */
int cmd_stream(int argc, char **argv)
{
	struct ttrace_version v;
	struct copy o = { .path = "/dev/host/out" };
	char **cmd;
	uint64_t secs = 0;
	int c, status = 0;

	while ((c = getopt(argc, argv, "o:t:")) != -1) {
		if (c == 'o')
			o.path = optarg;
		else if (c == 't')
			secs = strtoull(optarg, NULL, 10);
		else
			die("usage: ttrace stream [-o FILE] [-t SECONDS] "
			    "[-- CMD [ARG...]]");
	}
	if (optind >= argc && !secs)
		secs = 10;
	read_version(&v);
	cmd = optind < argc ? argv + optind : NULL;
	if (!strcmp(o.path, "/dev/host/out"))
		stream_drain(&o, cmd, secs, &v, &status);
	else
		stream_copy(&o, cmd, secs, &v, &status);
	printf("ttrace: streamed %llu bytes of records in %llu ms",
	       (unsigned long long)o.bytes,
	       (unsigned long long)((tsc_now() - v.tsc_now) / (v.tsc_hz / 1000)));
	if (optind < argc)
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

/* A saved trace (to out) of the command cmd, with the profiler on as
 * profile says (a ctl command; NULL: off) while it runs: written to a ctl
 * file held open meanwhile, whose close ends a held profile should this
 * process be killed (^C). */
static int record_run(const char *out, char **cmd, const char *profile)
{
	char groups[TTRACE_CTL_MAX_LEN + 1], path[128];
	struct ttrace_version v;
	int pid, status, hold = -1;

	read_version(&v);
	default_groups(groups, sizeof(groups));
	ctl_write("clear");
	snprintf(restore, sizeof(restore), "setmask %#llx 0xffffffffffffffff",
		 (unsigned long long)v.group_mask);
	ctl_write(groups);
	if (profile) {
		hold = open_or_die(DEV "/ctl", O_WRONLY);
		ctl_write_fd(hold, profile);
	}
	pid = spawn_cmd(cmd, path, sizeof(path));
	if (pid >= 0 && waitpid(pid, &status) < 0)
		pid = -1;
	if (profile) {
		ctl_write_fd(hold, "profile off");
		close(hold);
	}
	if (pid < 0)
		die_sys(path);
	ctl_write("setmask 0 0xffffffffffffffff");	/* don't trace the save */
	save(out, "trace.ttr");
	ctl_write(restore);
	restore[0] = 0;
	printf("ttrace: %s exited with status %d\n", cmd[0], status);
	return 0;
}

/* ttrace record (above): a saved trace of one command. */
int cmd_record(int argc, char **argv)
{
	const char *out = DEFAULT_OUT;
	int c;

	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o')
			die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
		out = optarg;
	}
	if (optind >= argc)
		die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
	return record_run(out, argv + optind, NULL);
}

/*
 * ttrace profile [-F HZ] [--off-cpu] [--sched] [-o FILE] -- CMD [ARG...]:
 * record's trace of CMD with the sampling profiler on (docs/profiling.md)
 * at HZ samples a second on every CPU (997 by default), kernel and user
 * stacks; --off-cpu adds where each thread blocks and for how long,
 * --sched a stack on every switch and wakeup. The kernel checks HZ.
 */
int cmd_profile(int argc, char **argv)
{
	static const char use[] = "usage: ttrace profile [-F HZ] [--off-cpu] "
				  "[--sched] [-o FILE] -- CMD [ARG...]";
	const char *out = DEFAULT_OUT, *hz = "997";
	bool offcpu = false, sched = false;
	char on[96];
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-F") && i + 1 < argc)
			hz = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--off-cpu"))
			offcpu = true;
		else if (!strcmp(argv[i], "--sched"))
			sched = true;
		else
			break;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--"))
		die(use);
	snprintf(on, sizeof(on), "profile on %s all%s%s held", hz,
		 offcpu ? " offcpu" : "", sched ? " sched" : "");
	return record_run(out, argv + i + 1, on);
}
