/*
 * profpingpong: a workload of scheduling events for the profiler's
 * stacks on every switch and wakeup (`profile on ... sched`; make bench,
 * docs/benchmarks.md): PAIRS pairs of processes pass a byte back and
 * forth through two pipes, ROUNDS times each, so every round trip blocks
 * and wakes each side once.
 *
 *	profpingpong PAIRS ROUNDS
 *
 * Prints "profpingpong: done" once every pair has finished.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PAIRS	16

/* Starts this program as role with argument arg, fds 0-2 mapped by
 * fdmap. */
static int start(const char *role, const char *arg, const int fdmap[3])
{
	char *argv[] = { "profpingpong", (char *)role, (char *)arg, NULL };
	int pid = spawn("/bin/profpingpong", argv, fdmap);

	if (pid < 0)
		err(1, "spawn %s", role);
	return pid;
}

/* The echo side: every byte read on fd 0 written back on fd 1, until
 * the other side closes its end. */
static int echo(void)
{
	char c;

	while (read(0, &c, 1) == 1)
		if (write(1, &c, 1) != 1)
			return 1;
	return 0;
}

/* One pair: this process and an echo child, rounds round trips. */
static int pair(int rounds)
{
	int to[2], from[2], status, pid;
	char c = 'p';

	if (pipe(to) < 0 || pipe(from) < 0)
		err(1, "pipe");
	pid = start("echo", "", (const int[3]){ to[0], from[1], 2 });
	close(to[0]);
	close(from[1]);
	for (int i = 0; i < rounds; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			err(1, "round %d", i);
	close(to[1]);
	waitpid(pid, &status);
	return status;
}

int main(int argc, char **argv)
{
	int pids[MAX_PAIRS], n, rounds, status, bad = 0;

	if (argc >= 2 && !strcmp(argv[1], "echo"))
		return echo();
	if (argc == 3 && !strcmp(argv[1], "pair"))
		return pair(atoi(argv[2]));
	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > MAX_PAIRS ||
	    (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: profpingpong PAIRS(1-%d) ROUNDS\n",
			MAX_PAIRS);
		return 1;
	}
	for (int i = 0; i < n; i++)
		pids[i] = start("pair", argv[2], (const int[3]){ 0, 1, 2 });
	for (int i = 0; i < n; i++)
		bad |= waitpid(pids[i], &status) < 0 || status;
	printf("profpingpong: done\n");
	return bad;
}
