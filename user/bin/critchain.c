/*
 * critchain: programs whose traces have a known answer for the host
 * analyses (docs/analysis.md; tests/seams_analysis29.py reads them):
 *
 *	chain MS	A (this process) waits on a pipe for B, B waits on
 *			a pipe for C, C computes for MS ms of TSC time and
 *			writes; between the markers "crit-begin" and
 *			"crit-end" A only waits, so its critical path is C's
 *			computing (and C's waits for a CPU), B's few
 *			microseconds, and A's own marker write
 *	starve HOGS	starts HOGS CPU-bound hogs (one per CPU), then naps
 *			2 ms five times between "starve-begin" and
 *			"starve-end": woken with every CPU busy, it waits
 *			runnable behind a hog each time
 *	errors		five failing calls whose errors come from known
 *			kernel functions: open of a missing file (ENOENT),
 *			read of a bad descriptor (EBADF), open of a bad user
 *			pointer (EFAULT), open of a path longer than PATH_MAX
 *			(ENAMETOOLONG), a refused ttrace ctl command (EINVAL)
 *
 * b, c and hog are the roles of the processes it starts. Each mode ends
 * with "critchain: done" and the pids of its roles.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <marker.h>
#include <errno.h>
#include <tsc.h>

#define MS		1000000ull
#define MAX_HOGS	16
#define LONG_PATH	5000		/* > PATH_MAX */

/* Starts this program as ROLE with argument arg, fds 0-2 mapped by fdmap. */
static int start(const char *role, const char *arg, const int fdmap[3])
{
	char *argv[] = { "critchain", (char *)role, (char *)arg, NULL };
	int pid = spawn("/bin/critchain", argv, fdmap);

	if (pid < 0)
		err(1, "spawn %s", role);
	return pid;
}

/* TSC cycles in ms milliseconds, measured over a 20 ms nap. */
static uint64_t cycles_per(uint64_t ms)
{
	uint64_t t0 = rdtsc();

	nanosleep(20 * MS);
	return (rdtsc() - t0) / 20 * ms;
}

/* C: computes for cycles, then writes a byte to fd 1 (B's pipe). */
static int role_c(uint64_t cycles)
{
	uint64_t t0 = rdtsc();

	while (rdtsc() - t0 < cycles)
		;
	return write(1, "c", 1) == 1 ? 0 : 1;
}

/* B: waits for C's byte on fd 0, passes it to A on fd 1. */
static int role_b(void)
{
	char c;

	return read(0, &c, 1) == 1 && write(1, &c, 1) == 1 ? 0 : 1;
}

static int chain(uint64_t ms)
{
	int ab[2], bc[2], status, b, c;
	char arg[24], byte;

	if (pipe(ab) < 0 || pipe(bc) < 0)
		err(1, "pipe");
	snprintf(arg, sizeof(arg), "%llu",
		 (unsigned long long)cycles_per(ms));
	c = start("c", arg, (const int[3]){ 0, bc[1], 2 });
	b = start("b", "", (const int[3]){ bc[0], ab[1], 2 });
	close(bc[0]);
	close(bc[1]);
	close(ab[1]);
	marker("crit-begin");
	if (read(ab[0], &byte, 1) != 1)
		err(1, "read");
	marker("crit-end");
	waitpid(b, &status);
	waitpid(c, &status);
	printf("critchain: done A=%d B=%d C=%d\n", getpid(), b, c);
	return 0;
}

static __noreturn void hog(void)
{
	for (;;)
		;
}

static int starve(int hogs)
{
	int pids[MAX_HOGS], status;

	if (hogs < 1 || hogs > MAX_HOGS) {
		fprintf(stderr, "critchain starve: 1..%d hogs\n", MAX_HOGS);
		return 1;
	}
	for (int i = 0; i < hogs; i++)
		pids[i] = start("hog", "", (const int[3]){ 0, 1, 2 });
	nanosleep(50 * MS);
	marker("starve-begin");
	for (int i = 0; i < 5; i++)
		nanosleep(2 * MS);
	marker("starve-end");
	for (int i = 0; i < hogs; i++) {
		kill(pids[i]);
		waitpid(pids[i], &status);
	}
	printf("critchain: done S=%d\n", getpid());
	return 0;
}

/* Prints what call returned (r) and its errno. */
static void said(const char *call, long r)
{
	printf("critchain: %s = %ld errno %d\n", call, r, r < 0 ? errno : 0);
}

static int errors(void)
{
	static char longpath[LONG_PATH];
	char buf[1];
	int fd;

	said("open missing", open("/no/such/file", O_RDONLY));
	said("read baddesc", read(99, buf, 1));
	said("open badptr", open((const char *)8, O_RDONLY));
	memset(longpath, 'a', sizeof(longpath));	/* no NUL in reach */
	said("open toolong", open(longpath, O_RDONLY));
	if ((fd = open("/dev/ttrace/ctl", O_WRONLY)) < 0)
		err(1, "/dev/ttrace/ctl");
	said("ctl refused", write(fd, "frobnicate", 10));
	close(fd);
	printf("critchain: done E=%d\n", getpid());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "c") && argc == 3)
		return role_c(strtoul(argv[2], NULL, 10));
	if (argc >= 2 && !strcmp(argv[1], "b"))
		return role_b();
	if (argc >= 2 && !strcmp(argv[1], "hog"))
		hog();
	if (argc == 3 && !strcmp(argv[1], "chain"))
		return chain((uint64_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "starve"))
		return starve(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "errors"))
		return errors();
	fprintf(stderr, "usage: critchain chain MS | starve HOGS | errors\n");
	return 1;
}
