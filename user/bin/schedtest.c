/*
 * schedtest: workloads whose traces show the scheduler at work
 * (docs/scheduler.md; tests/seams_sched.py reads their traces):
 *
 *	hog		spins for ever, a getpid every 65536 rounds (a CPU-bound
 *			process that makes a system call now and then); run
 *			as /bin/schedhog (the same program), so traces name
 *			it apart
 *	spin HOGS MS [NAP_MS]
 *			starts HOGS hogs, lets them settle 50 ms, writes the
 *			marker "sched-begin", sleeps MS ms (one nanosleep, or
 *			NAP_MS ms naps until MS have passed), writes
 *			"sched-end", kills the hogs and reaps them
 *	kids N		starts N children that each make 1000 getpid calls and
 *			sleep 20 ms twice, and reaps them
 *
 * Prints "schedtest: done" at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <marker.h>

#define MAX_HOGS	16
#define MS		1000000ull

/* Starts /bin/NAME what. */
static int start(const char *name, const char *what)
{
	char path[32];
	char *argv[] = { (char *)name, (char *)what, NULL };
	int fdmap[3] = { 0, 1, 2 };
	int pid;

	snprintf(path, sizeof(path), "/bin/%s", name);
	pid = spawn(path, argv, fdmap);

	if (pid < 0)
		err(1, "spawn");
	return pid;
}

static __noreturn void hog(void)
{
	for (volatile unsigned long n = 0;; n++)	/* each round runs */
		if (n % 65536 == 0)
			getpid();
}

static int spin(int hogs, uint64_t ms, uint64_t nap_ms)
{
	int pids[MAX_HOGS], status;

	if (hogs < 0 || hogs > MAX_HOGS || !ms) {
		fprintf(stderr, "schedtest spin: 0..%d hogs, MS > 0\n",
			MAX_HOGS);
		return 1;
	}
	for (int i = 0; i < hogs; i++)
		pids[i] = start("schedhog", "hog");
	nanosleep(50 * MS);
	marker("sched-begin");
	if (!nap_ms)
		nanosleep(ms * MS);
	else
		for (uint64_t slept = 0; slept < ms; slept += nap_ms)
			nanosleep(nap_ms * MS);
	marker("sched-end");
	for (int i = 0; i < hogs; i++) {
		kill(pids[i]);
		waitpid(pids[i], &status);
	}
	return 0;
}

static int kid(void)
{
	for (int i = 0; i < 1000; i++)
		getpid();
	nanosleep(20 * MS);
	nanosleep(20 * MS);
	return 0;
}

static int kids(int n)
{
	int status;

	for (int i = 0; i < n; i++)
		start("schedtest", "kid");
	for (int i = 0; i < n; i++)
		wait(&status);
	return 0;
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 2 && !strcmp(argv[1], "hog"))
		hog();
	if (argc == 2 && !strcmp(argv[1], "kid"))
		return kid();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "spin"))
		r = spin(atoi(argv[2]), (uint64_t)atoi(argv[3]),
			 argc == 5 ? (uint64_t)atoi(argv[4]) : 0);
	else if (argc == 3 && !strcmp(argv[1], "kids"))
		r = kids(atoi(argv[2]));
	else {
		fprintf(stderr, "usage: schedtest hog | spin HOGS MS [NAP_MS] | "
			"kids N\n");
		return 1;
	}
	printf("schedtest: done\n");
	return r;
}
