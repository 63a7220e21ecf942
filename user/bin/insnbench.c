/*
 * insnbench: user-side regions for the exact instruction-count benchmark
 * (make bench; plugins/ttinsn.c counts, scripts/bench.py reads the marks).
 * Measures N getpid round trips with the syscall trace group as the boot
 * left it (on by default), then with it disabled (other groups on), then
 * with no event enabled at all, then an empty loop of N turns to subtract,
 * and powers off. Without #ttrace (CONFIG_TTRACE=n) the three getpid
 * regions are the same kernel path.
 *
 * With "stream", it measures getting a trace out instead: N getpid calls
 * into a ring large enough to hold them all (bufsize STREAM_RING_KB, one
 * CPU), then `ttrace stream -- true` between two marks, whole: everything the
 * guest spends to drain those records (and the ones the drain itself
 * makes) to the host channel. scripts/bench.py divides by the records the
 * file holds.
 *
 *	insnbench [N]		default 100000
 *	insnbench stream N
 */
#include <abi/insn_mark.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void getpid_loop(int n)
{
	for (int i = 0; i < n; i++)
		getpid();
}

static void empty_loop(int n)
{
	for (int i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static void ctl(const char *cmd)
{
	int fd = open("/dev/ttrace/ctl", O_WRONLY);

	if (fd >= 0) {
		write(fd, cmd, strlen(cmd));
		close(fd);
	}
}

#define STREAM_RING_KB	"8192"	/* 131,072 entries: 50,000 calls fit */

/* `ttrace stream` of n getpid calls' records (above); powers off. */
static void stream_bench(int n)
{
	char *argv[] = { "ttrace", "stream", "-o", "/dev/host/out", "--",
			 "true", NULL };
	int fdmap[3] = { 0, 1, 2 }, pid, status = -1;

	ctl("bufsize " STREAM_RING_KB "\n");
	getpid_loop(n);
	INSN_MARK(INSN_MARK_STREAM);
	pid = spawn("/bin/ttrace", argv, fdmap);
	if (pid > 0)
		waitpid(pid, &status);
	INSN_MARK(INSN_MARK_STREAM + 1);
	printf("insnbench: stream status %d\n", status);
	poweroff(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;

	if (argc == 3 && !strcmp(argv[1], "stream"))
		stream_bench(atoi(argv[2]));

	INSN_MARK(INSN_MARK_GETPID_ON);
	getpid_loop(n);
	INSN_MARK(INSN_MARK_GETPID_ON + 1);
	ctl("disable syscall\n");
	INSN_MARK(INSN_MARK_GETPID_OFF);
	getpid_loop(n);
	INSN_MARK(INSN_MARK_GETPID_OFF + 1);
	ctl("setmask 0 0xffffffffffffffff\n");
	INSN_MARK(INSN_MARK_GETPID_NONE);
	getpid_loop(n);
	INSN_MARK(INSN_MARK_GETPID_NONE + 1);
	INSN_MARK(INSN_MARK_U_EMPTY);
	empty_loop(n);
	INSN_MARK(INSN_MARK_U_EMPTY + 1);
	poweroff(0);
}
