/*
 * insnbench: user-side regions for the exact instruction-count benchmark
 * (make bench; plugins/ttinsn.c counts, scripts/bench.py reads the marks).
 * Measures N getpid round trips with the syscall trace group as the boot
 * left it (on by default), then with it disabled (other groups on), then
 * with no event enabled at all, then an empty loop of N turns to subtract,
 * and powers off. Without #ttrace (CONFIG_TTRACE=n) the three getpid
 * regions are the same kernel path.
 *
 *	insnbench [N]		default 100000
 */
#include <abi/insn_mark.h>
#include <fcntl.h>
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;

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
