/*
 * tracestress: the parts of the tracer's stress test, run as one shell
 * pipeline so that they overlap (the shell has no background jobs):
 *
 *	tracestress load | tracestress load | tracestress toggle |
 *		tracestress save SECONDS
 *
 *	load	makes syscalls and marker writes as fast as it can, so every
 *		CPU that runs one fills its ring
 *	toggle	flips event groups through /dev/ttrace/ctl all the time
 *	save	runs `ttrace save /dev/host/out` again and again, 2 s
 *		apart, until SECONDS seconds have passed (by the TSC the
 *		tracer's version header reports), so the host gets one trace
 *		file after another; then tells the others to stop by creating
 *		/tmp/stress.done
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <sys/stat.h>
#include <ttrace_format.h>

#define DONE	"/tmp/stress.done"

static int done(void)
{
	struct stat st;

	return stat(DONE, &st) == 0;
}

static int load(void)
{
	int fd = open("/dev/ttrace/marker", O_WRONLY);
	long n = 0;

	if (fd < 0)
		err(1, "/dev/ttrace/marker");
	while (!done()) {
		getpid();
		if (++n % 64 == 0 && write(fd, "load", 4) != 4)
			err(1, "marker");
	}
	close(fd);
	return 0;
}

static int toggle(void)
{
	static const char *const cmds[] = {
		"disable irq", "enable irq", "setbits 0x4", "clrbits 0x4",
		"disable syscall_exit", "enable syscall_exit",
	};
	int fd = open("/dev/ttrace/ctl", O_WRONLY);
	long n = 0;

	if (fd < 0)
		err(1, "/dev/ttrace/ctl");
	for (; !done(); n++) {
		const char *c = cmds[n % (sizeof(cmds) / sizeof(cmds[0]))];

		if (write(fd, c, strlen(c)) < 0)
			err(1, "ctl: %s", c);
		nanosleep(5000000);
	}
	close(fd);
	printf("toggle: %ld commands\n", n);
	return 0;
}

/* Seconds since boot, from the tracer's clock: the version header's TSC
 * and its rate. */
static uint64_t now(void)
{
	struct ttrace_version v;
	int fd = open("/dev/ttrace/version", O_RDONLY);

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v) || !v.tsc_hz)
		err(1, "/dev/ttrace/version");
	close(fd);
	return (v.tsc_now - v.tsc_boot) / v.tsc_hz;
}

static int save(int seconds)
{
	char *argv[] = { "ttrace", "save", "/dev/host/out", NULL };
	int fdmap[3] = { 0, 1, 2 }, status, saved = 0, fd;
	uint64_t end = now() + (uint64_t)seconds;

	while (now() < end) {
		int pid = spawn("/bin/ttrace", argv, fdmap);

		if (pid < 0 || waitpid(pid, &status) < 0 || status != 0)
			err(1, "ttrace save");
		saved++;
		nanosleep(2000000000ull);	/* keep within the 128 MiB window */
	}
	fd = open(DONE, O_WRONLY | O_CREAT);
	if (fd < 0)
		err(1, DONE);
	close(fd);
	printf("save: %d traces saved\n", saved);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "load"))
		return load();
	if (argc == 2 && !strcmp(argv[1], "toggle"))
		return toggle();
	if (argc == 3 && !strcmp(argv[1], "save"))
		return save(atoi(argv[2]));
	fprintf(stderr, "usage: tracestress load | toggle | save SECONDS\n");
	return 2;
}
