/*
 * sysfuzz: a seeded random system call fuzzer (issue 11).
 *
 *	sysfuzz SEED CALLS NPROCS
 *
 * spawns NPROCS workers that make CALLS calls between them, each call a
 * random syscall number (every one, and out-of-range ones) with arguments
 * drawn from hostile sets: NULL, kernel, non-canonical and unmapped
 * pointers, read-only text for output buffers, buffers that run off the
 * top of the stack or the end of the data segment; huge and negative
 * lengths and offsets; closed and out-of-range descriptors; long,
 * unterminated, ".." and "#device" paths; hostile ELF images (mutated
 * copies of /bin/true) to spawn; random ctl writes to /dev/ttrace/ctl and
 * device reads at odd offsets.
 *
 * The check: no call moves more bytes through a buffer than the buffer
 * has mapped (text and data are one mapped run) or any into read-only
 * text, and no call whose path, argv,
 * fdmap or output pointer is bad succeeds. Each violation is printed with
 * the call; the exit status is 0 only when there was none and every
 * worker exited by itself. Worker i uses seed SEED * 1000 + i, so a run is
 * replayed by the same SEED, CALLS and NPROCS (the kernel's answers, such
 * as descriptor numbers, steer later calls, so a replay is close to,
 * not always exactly, the same sequence).
 *
 * Neutered, so the fuzzer cannot legitimately take the machine down:
 * poweroff and exit are never called at random; kill goes only to the
 * worker's own children or to pids that cannot exist; nanosleep is at
 * most 2 ms; descriptor 2 (the report) is never touched and workers have
 * no console input; reads and writes of a pipe never ask for more than it
 * holds or has room for (they would block for good); creating, removing
 * and binding happen only under /tmp/fz; spawn runs only /bin/true, the
 * hostile images and names that do not exist. Everything under /tmp/fz
 * is unmounted and removed at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <sys/stat.h>
#include <elf.h>

#define TEXT_ADDR	0x400000ul		/* user.ld */
#define USTACK_TOP	0x00007ffffff00000ul	/* kern/include/vm.h */
#define USTACK_SIZE	(64ul * 1024)
#define PAGE		4096ul
#define SCRATCH		8192
#define REPORT_FD	2
#define NIMAGES		12
#define MAX_KIDS	8
#define FUZZ_DIR	"/tmp/fz"

extern char _end[];

/* A pointer argument: p, with room bytes usable from it (0 for a bad
 * pointer), whether they may be written, and whether a call that reads
 * a string or a fixed-size object from it must fail. */
struct ptr {
	uint64_t p;
	uint64_t room;
	int writable;
	int bad;
};

static uint64_t rng;
static char scratch[SCRATCH];
static char wdir[32];			/* this worker's /tmp/fz/wN */
static int kids[MAX_KIDS], nkids;
static long ncalls, nviolations;

/* xorshift64*: the whole run follows from the seed. */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

#define PICK(a) ((a)[below(sizeof(a) / sizeof((a)[0]))])

/* Where the data segment's last mapped page ends. */
static uint64_t data_end(void)
{
	return ((uint64_t)_end + PAGE - 1) & ~(PAGE - 1);
}

/* A buffer argument for a call that moves up to len bytes. */
static struct ptr gen_ptr(void)
{
	static const uint64_t bad[] = {
		0, 1, 0xffffffff80100000ul, 0xffff800000000000ul,
		0x0000800000000000ul, 0x8000000000000000ul,
		0xdead00000000beeful, USTACK_TOP, USTACK_TOP - USTACK_SIZE - 64,
		0x10000000ul, 0x7fffffffffffull,
	};
	uint64_t r = 1 + below(64);

	switch (below(7)) {
	case 0: case 1:
		return (struct ptr){ (uint64_t)scratch, SCRATCH, 1, 0 };
	case 2:
		{
		uint64_t p = TEXT_ADDR + below(PAGE);	/* text, then data */

		return (struct ptr){ p, data_end() - p, 0, 0 };
	}
	case 3:
		return (struct ptr){ USTACK_TOP - r, r, 1, 0 };
	case 4:
		if (data_end() - (uint64_t)_end >= r)
			return (struct ptr){ data_end() - r, r, 1, 0 };
		return (struct ptr){ data_end(), 0, 0, 1 };
	case 5:
		return (struct ptr){ data_end() + below(16) * PAGE, 0, 0, 1 };
	default:
		return (struct ptr){ PICK(bad), 0, 0, 1 };
	}
}

/* A pointer the kernel must refuse to read from. */
static struct ptr gen_bad_ptr(void)
{
	struct ptr p;

	while (!(p = gen_ptr()).bad)
		;
	return p;
}

/* A length: small, page-sized, huge or negative. */
static uint64_t gen_len(void)
{
	static const uint64_t lens[] = {
		0, 1, 7, 64, 255, 4095, 4096, 4097, 65536, 1ul << 31,
		(uint64_t)-1, (uint64_t)-4096, 1ul << 62, 0x7fffffff,
	};

	return below(2) ? below(SCRATCH + 1) : PICK(lens);
}

/* A descriptor: open, closed or out of range, never REPORT_FD. */
static long gen_fd(void)
{
	static const long odd[] = { -1, 64, 65, 1000, 0x7fffffff, -0x80000000l,
				    1l << 32 };
	long fd = below(4) ? (long)below(64) : PICK(odd);

	return fd == REPORT_FD ? 3 : fd;
}

/* Returns where path s can be passed from: usually scratch, sometimes
 * the last bytes of the stack or data (so the kernel's copy of a long
 * path runs off the mapping). */
static struct ptr place_path(const char *s)
{
	size_t len = strlen(s) + 1;
	struct ptr at = { (uint64_t)scratch + SCRATCH / 2, SCRATCH / 2, 1, 0 };

	if (below(8) == 0 && len <= 64)
		at = (struct ptr){ USTACK_TOP - len, len, 1, 0 };
	memcpy((void *)at.p, s, len);
	return at;
}

/* Fills scratch's second half with an unterminated run of 'a'. */
static struct ptr unterminated(void)
{
	uint64_t room = data_end() - (uint64_t)_end;

	if (room > 0 && below(2)) {
		memset((void *)(data_end() - room), 'a', room);
		return (struct ptr){ data_end() - room, room, 1, 1 };
	}
	memset((void *)(USTACK_TOP - 32), 'b', 32);
	return (struct ptr){ USTACK_TOP - 32, 32, 1, 1 };
}

/* A path into the read-only trees, devices (never cons, stream or host,
 * which block or leave the machine) or this worker's directory. */
static void gen_path_text(char *out, size_t n)
{
	static const char *const fixed[] = {
		"/", "/bin", "/bin/true", "/etc", "/dev", "/dev/null",
		"/dev/zero", "/dev/kmsg", "/dev/memstat", "/dev/sysname",
		"/proc", "/proc/1/status", "/proc/99999/status", "#c/null",
		"#p", "#r/bin/../etc", "#ttrace/ctl", "/dev/ttrace/cpu0",
		"/dev/ttrace/cpu1", "/dev/ttrace/raw0", "/dev/ttrace/aux",
		"/dev/ttrace/stats", "/dev/ttrace/meta", "/dev/ttrace/tsc",
		"/dev/ttrace/events", "/dev/ttrace/marker", "/dev/ttrace/version",
		"/dev/ttrace/ctl", "#nosuch", "#", "", ".", "..", "../../..",
		"/../../..", "/bin/true/..", "/dev/null/x", "//bin///true",
		"#c/../..", "/nonexistent/x", "a", "b", "d/e", "../m",
	};
	static const char *const mine[] = { "a", "b", "d", "d/e", "m", "d/../a",
					    "d/e/f", "b/" };

	switch (below(5)) {
	case 0: case 1:
		strlcpy(out, PICK(fixed), n);
		break;
	case 2: case 3:
		snprintf(out, n, "%s/%s", wdir, PICK(mine));
		break;
	default:
		memset(out, below(2) ? 'x' : '/', n - 1);
		out[below(n - 1) + 1] = 0;	/* up to n-1 long */
		if (below(2))
			memcpy(out, wdir, strlen(wdir));
	}
}

/* A path argument: text (see above), an unterminated string or a bad
 * pointer. */
static struct ptr gen_path(void)
{
	char text[320];

	switch (below(8)) {
	case 0:
		return unterminated();
	case 1: {
		struct ptr p = gen_ptr();

		return p.writable ? place_path("/dev/null") : p;
	}
	default:
		gen_path_text(text, sizeof(text));
		return place_path(text);
	}
}

/* True if a call on fd that moves n bytes could block for good: a pipe
 * with too little in it (read) or too little room (write). */
static int would_block(long fd, uint64_t n, int writing)
{
	struct stat st;

	if (fstat((int)fd, &st) < 0 || (st.mode & S_IFMT) != S_IFIFO)
		return 0;
	return writing ? n > 4096 - st.size : n > st.size;
}

static __attribute__((noinline, cold)) void report(const char *what, long nr,
						 const uint64_t *a, long ret)
{
	nviolations++;
	fprintf(REPORT_FD, "sysfuzz: VIOLATION call %ld: %s: nr %ld (%lx, "
		"%lx, %lx, %lx) = %ld\n", ncalls, what, nr, a[0], a[1], a[2],
		a[3], ret);
}

/* Checks a call that moved ret bytes through buffer b (output: written). */
static void check_moved(long nr, const uint64_t *a, long ret, struct ptr b,
			int output, uint64_t unit)
{
	if (ret <= 0)
		return;
	if ((uint64_t)ret * unit > b.room)
		report("moved more bytes than the buffer has", nr, a, ret);
	else if (output && !b.writable)
		report("wrote into read-only memory", nr, a, ret);
}

/* A ctl command for /dev/ttrace/ctl: real words with hostile values. */
static size_t gen_ctl(char *out, size_t n)
{
	static const char *const cmds[] = {
		"enable all", "disable all", "enable syscall", "disable sched",
		"enable nosuch", "setmask 0xffffffffffffffff", "setmask 0",
		"setbits 0x5", "clrbits -1", "bufsize 4", "bufsize 3",
		"bufsize 1048577", "bufsize 99999999999999999999", "bufsize 64",
		"bufsize 1024", "mode overwrite", "mode saturate", "mode x",
		"clear", "clear now", "", "\n\n", "enable", "enable a b c d e f g",
	};
	size_t len;

	if (below(4) == 0) {
		len = below(n);
		for (size_t i = 0; i < len; i++)
			out[i] = (char)rnd();
		return len;
	}
	return (size_t)snprintf(out, n, "%s\n", PICK(cmds));
}

/* Pseudo-call: one random ctl write. */
static void fuzz_ctl(void)
{
	int fd = open("/dev/ttrace/ctl", O_WRONLY);
	size_t len = gen_ctl(scratch, 512);

	if (fd >= 0) {
		write(fd, scratch, len);
		close(fd);
	}
}

/* Pseudo-call: a device file read at an odd offset. */
static void fuzz_devread(void)
{
	static const char *const files[] = {
		"/dev/ttrace/cpu0", "/dev/ttrace/raw1", "/dev/ttrace/aux",
		"/dev/ttrace/meta", "/dev/ttrace/tsc", "/dev/ttrace/stats",
		"/dev/ttrace/events", "/dev/ttrace/version", "/dev/ttrace/ctl",
		"/dev/kmsg", "/dev/memstat", "/proc/1/status", "/dev/sysname",
	};
	static const uint64_t offs[] = { 1, 63, 65, 4095, 4097, 1ul << 40,
					 (uint64_t)-1, 0x7fffffffffffffff };
	int fd = open(PICK(files), O_RDONLY);
	struct ptr b = gen_ptr();
	uint64_t n = below(2) ? below(SCRATCH) : gen_len();
	uint64_t a[4] = { (uint64_t)fd, b.p, n, below(2) ? PICK(offs) : below(99999) };
	long r;

	if (fd < 0)
		return;
	if (b.p == (uint64_t)scratch && n > SCRATCH)
		a[2] = SCRATCH;		/* the kernel may fill it all */
	r = syscall6(SYS_pread, (long)a[0], (long)a[1], (long)a[2], (long)a[3], 0, 0);
	check_moved(SYS_pread, a, r, b, 1, 1);
	close(fd);
}

/* Runs call nr and counts it. */
static long call(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	ncalls++;
	return syscall6(nr, (long)a0, (long)a1, (long)a2, (long)a3, 0, 0);
}

/* Reports a call that succeeded although one of its pointers was bad. */
static void check_failed(long nr, const uint64_t *a, long ret, int bad)
{
	if (ret >= 0 && bad)
		report("succeeded with a bad pointer", nr, a, ret);
}

/* True if b cannot take an object of size bytes written by the kernel. */
static int bad_out(struct ptr b, uint64_t size)
{
	return b.bad || b.room < size || !b.writable;
}

/* read, write, pread, pwrite: hostile buffers, lengths and offsets. */
static void c_io(long nr)
{
	static const uint64_t offs[] = { 0, 1, 4095, 16ul << 20, (16ul << 20) - 1,
					 1ul << 40, (uint64_t)-1, 0x7fffffffffffffff };
	int out = nr == SYS_read || nr == SYS_pread;
	long fd = gen_fd();
	struct ptr b = gen_ptr();
	uint64_t n = gen_len();
	uint64_t a[4] = { (uint64_t)fd, b.p, n, below(2) ? PICK(offs) : below(9999) };
	long r;

	if (b.p == (uint64_t)scratch && n > SCRATCH)
		n = a[2] = below(SCRATCH + 1);	/* the kernel may fill it all */
	if (!out && b.p == (uint64_t)scratch)
		n = a[2] = below(2) ? gen_ctl(scratch, SCRATCH) : n;
	if (would_block(fd, n, !out))
		return;
	r = call(nr, a[0], a[1], a[2], a[3]);
	check_moved(nr, a, r, b, out, 1);
	if (!out)
		check_failed(nr, a, r, b.bad && n > 0);
}

static void c_lseek(long nr)
{
	static const uint64_t offs[] = { 0, 1, (uint64_t)-1, 1ul << 63,
					 0x7fffffffffffffff, 4096 };

	call(nr, (uint64_t)gen_fd(), PICK(offs), below(5) - 1, 0);
}

/* stat(path, st) and fstat(fd, st). */
static void c_stat(long nr)
{
	struct ptr path = gen_path(), st = gen_ptr();
	uint64_t a[4] = { nr == SYS_stat ? path.p : (uint64_t)gen_fd(), st.p };
	long r = call(nr, a[0], a[1], 0, 0);

	check_failed(nr, a, r, bad_out(st, sizeof(struct stat)) ||
		     (nr == SYS_stat && path.bad));
}

static void c_readdir(long nr)
{
	struct ptr b = gen_ptr();
	uint64_t n = below(2) ? below(8) : gen_len();
	uint64_t a[4] = { (uint64_t)gen_fd(), b.p, n };
	long r;

	if (b.p == (uint64_t)scratch && n > SCRATCH / sizeof(struct dirent))
		a[2] = SCRATCH / sizeof(struct dirent);
	r = call(nr, a[0], a[1], a[2], 0);
	check_moved(nr, a, r, b, 1, sizeof(struct dirent));
}

/* Keeps the current directory out of /tmp outside this worker's. */
static void stay_home(void)
{
	char cwd[300];

	if (getcwd(cwd, sizeof(cwd)) && strncmp(cwd, "/tmp", 4) == 0 &&
	    strncmp(cwd, wdir, strlen(wdir)) != 0)
		chdir(wdir);
}

/* mkdir, remove, chdir: one path. */
static void c_path(long nr)
{
	struct ptr p = gen_path();
	uint64_t a[4] = { p.p };

	check_failed(nr, a, call(nr, a[0], 0, 0, 0), p.bad);
	if (nr == SYS_chdir)
		stay_home();
}

static void c_fds(long nr)
{
	call(nr, (uint64_t)gen_fd(), (uint64_t)gen_fd(), 0, 0);
}

static void c_pipe(long nr)
{
	struct ptr b = gen_ptr();
	uint64_t a[4] = { b.p };

	check_failed(nr, a, call(nr, a[0], 0, 0, 0), bad_out(b, 2 * sizeof(int)));
}

/* getcwd copies min(n, PATH_MAX) bytes; errstr its length and a NUL. */
static void c_getcwd_errstr(long nr)
{
	struct ptr b = gen_ptr();
	uint64_t n = gen_len();
	uint64_t a[4] = { b.p, n };
	long r;

	if (b.p == (uint64_t)scratch && n > SCRATCH)
		n = a[1] = SCRATCH;
	r = call(nr, a[0], a[1], 0, 0);
	if (r >= 0)
		check_failed(nr, a, r, bad_out(b, nr == SYS_getcwd ?
			     (n < 256 ? n : 256) : (uint64_t)r + 1));
}

/* bind and unmount, only on points under this worker's directory. */
static void c_mount(long nr)
{
	static const char *const olds[] = { "#c", "#p", "#ttrace", "#r/bin",
					    "/proc", "/dev", "#nosuch", "/x/y" };
	static const char *const news[] = { "m", "d", "d/e", "a", "zz/y" };
	char text[64];
	struct ptr old = place_path(PICK(olds));
	struct ptr new;
	uint64_t a[4];

	if (nr == SYS_bind && below(4) == 0)
		old = gen_bad_ptr();	/* a good one might say "/" */
	old.p = nr == SYS_bind ? old.p : 0;
	snprintf(text, sizeof(text), "%s/%s", wdir, PICK(news));
	new = below(4) ? (struct ptr){ (uint64_t)scratch, 64, 1, 0 } : gen_bad_ptr();
	if (new.p == (uint64_t)scratch)
		strlcpy(scratch, text, 64);
	a[0] = nr == SYS_bind ? old.p : new.p;
	a[1] = new.p;
	a[2] = below(4) ? 0 : rnd();
	check_failed(nr, a, call(nr, a[0], a[1], a[2], 0),
		     new.bad || (nr == SYS_bind && old.bad));
}

static void c_ftruncate(long nr)
{
	static const uint64_t lens[] = { 0, 1, 4096, 16ul << 20,
					 (16ul << 20) + 1, (uint64_t)-1, 1ul << 62 };

	call(nr, (uint64_t)gen_fd(), PICK(lens), 0, 0);
}

/* Kills and waits for every child spawned so far. */
static void reap_kids(void)
{
	for (int i = 0; i < nkids; i++) {
		kill(kids[i]);
		waitpid(kids[i], NULL);
	}
	nkids = 0;
}

/* An argv for spawn: fine, a bad array, a bad element, too many or too
 * long arguments. Returns its pointer and whether the call must fail. */
static struct ptr gen_argv(void)
{
	static char *argv[72];
	static char longarg[5000];
	struct ptr elem;
	int n = (int)below(4), bad = 0;

	for (int i = 0; i < 72; i++)
		argv[i] = "x";
	switch (below(6)) {
	case 0:
		return gen_ptr();
	case 1:
		elem = gen_ptr();
		argv[n++] = (char *)elem.p;
		bad = elem.bad && elem.p;	/* NULL just ends argv */
		break;
	case 2:
		n = 70;
		break;
	case 3:
		memset(longarg, 'l', sizeof(longarg) - 1);
		argv[n++] = longarg;
		break;
	}
	argv[n] = NULL;
	return (struct ptr){ (uint64_t)argv, sizeof(argv), 1, bad };
}

/* open: hostile paths and flags; keeps a few descriptors free. */
static void c_open(long nr)
{
	static const uint64_t flags[] = { O_RDONLY, O_WRONLY, O_RDWR,
					  O_RDWR | O_CREAT, O_WRONLY | O_TRUNC,
					  O_WRONLY | O_APPEND | O_CREAT, 3,
					  0xffffffff, 1ul << 40 };
	struct ptr p = gen_path();
	uint64_t a[4] = { p.p, PICK(flags) };
	long r = call(nr, a[0], a[1], 0, 0);

	check_failed(nr, a, r, p.bad);
	if (r >= 48)
		close((int)r);
}

/* spawn of /bin/true, a hostile image or a name that does not exist. */
static void c_spawn(long nr)
{
	static const char *const progs[] = { "/bin/true", "/nonexistent", "/bin",
					     "/dev/null", "/proc/1/status" };
	static int fdmap[3];
	char path[64];
	struct ptr p, argv = gen_argv(), map = { (uint64_t)fdmap, 12, 1, 0 };
	uint64_t a[4];
	long r;

	if (below(2))
		snprintf(path, sizeof(path), FUZZ_DIR "/elf%d", (int)below(NIMAGES));
	else
		strlcpy(path, PICK(progs), sizeof(path));
	p = below(6) ? place_path(path) : gen_path();
	for (int i = 0; i < 3; i++)
		fdmap[i] = below(2) ? -1 : (int)gen_fd();
	if (below(6) == 0)
		map = gen_ptr();
	a[0] = p.p, a[1] = argv.p, a[2] = map.p;
	r = call(nr, a[0], a[1], a[2], 0);
	check_failed(nr, a, r, p.bad || argv.bad || bad_out(map, 0) ||
		     map.room < 12);
	if (r > 0) {
		if (nkids == MAX_KIDS)
			reap_kids();
		kids[nkids++] = (int)r;
	}
}

/* A pid no wait or kill may block on or hurt. */
static long gen_pid(void)
{
	static const long pids[] = { 0, -2, 99999, 0x7fffffff, -0x80000000l,
				     1l << 40 };

	return below(2) || nkids == 0 ? PICK(pids) : -1;
}

/* wait for nothing that can block: -1 only with no children left. */
static void c_wait(long nr)
{
	struct ptr st = below(3) ? gen_ptr() : (struct ptr){ 0, 0, 0, 0 };
	uint64_t a[4] = { (uint64_t)gen_pid(), st.p };

	if ((long)a[0] == -1 && nkids)
		a[0] = 99999;
	check_failed(nr, a, call(nr, a[0], a[1], 0, 0),
		     st.p && bad_out(st, sizeof(int)));
}

/* kill: pids that do not exist, or this worker's own children. */
static void c_kill(long nr)
{
	long pid = gen_pid();

	if (pid == -1)
		pid = kids[below((uint64_t)nkids)];
	call(nr, (uint64_t)pid, 0, 0, 0);
}

static void c_nanosleep(long nr)
{
	static const uint64_t ns[] = { 0, 1, 1000, 999999, 2000000 };

	call(nr, PICK(ns), rnd(), 0, 0);
}

/* getpid, yield, setfg: junk in the unused arguments. */
static void c_simple(long nr)
{
	static const long fg[] = { 0, -1, 99999 };

	call(nr, nr == SYS_setfg ? (uint64_t)PICK(fg) : rnd(), rnd(), rnd(), rnd());
}

/* capdrop of random bits but the right to trace (fuzz_ctl() needs it):
 * EINVAL for a bit that is no right, nothing dropped. */
static void c_capdrop(long nr)
{
	uint64_t a[4] = { rnd() & ~(uint64_t)CAP_TRACE, rnd(), rnd(), rnd() };
	long r = call(nr, a[0], a[1], a[2], a[3]);

	if ((a[0] & ~(uint64_t)CAP_ALL) && r != -EINVAL)
		report("capdrop took a bit that is no right", nr, a, r);
}

/* A number that is no system call, even in its low 32 bits. */
static void c_bogus(long nr)
{
	static const uint64_t nrs[] = { 0, NR_SYSCALLS, NR_SYSCALLS + 1, 255,
					256, 1000, (uint64_t)-1, 0x7fffffff,
					(1ul << 32) + 1000, 0xffffffff00000100ul,
					1ul << 63 };
	uint64_t a[4] = { rnd(), rnd(), rnd(), rnd() };

	nr = (long)PICK(nrs);
	check_failed(nr, a, call(nr, a[0], a[1], a[2], a[3]), 1);
}

static void (*const calls[NR_SYSCALLS])(long) = {
	[0] = c_bogus, [SYS_exit] = c_bogus, [SYS_poweroff] = c_bogus,
	[SYS_spawn] = c_spawn, [SYS_wait] = c_wait, [SYS_getpid] = c_simple,
	[SYS_kill] = c_kill, [SYS_nanosleep] = c_nanosleep,
	[SYS_open] = c_open, [SYS_close] = c_fds, [SYS_read] = c_io,
	[SYS_write] = c_io, [SYS_pread] = c_io, [SYS_pwrite] = c_io,
	[SYS_lseek] = c_lseek, [SYS_stat] = c_stat, [SYS_fstat] = c_stat,
	[SYS_readdir] = c_readdir, [SYS_mkdir] = c_path,
	[SYS_remove] = c_path, [SYS_dup2] = c_fds, [SYS_pipe] = c_pipe,
	[SYS_chdir] = c_path, [SYS_getcwd] = c_getcwd_errstr,
	[SYS_bind] = c_mount, [SYS_unmount] = c_mount,
	[SYS_errstr] = c_getcwd_errstr, [SYS_yield] = c_simple,
	[SYS_setfg] = c_simple, [SYS_ftruncate] = c_ftruncate,
	[SYS_capdrop] = c_capdrop,
};

/* One random call or pseudo-call. */
static void fuzz_one(void)
{
	uint64_t k = below(NR_SYSCALLS + 4);

	if (k < NR_SYSCALLS)
		calls[k]((long)k);
	else if (k == NR_SYSCALLS)
		fuzz_ctl();
	else if (k == NR_SYSCALLS + 1)
		fuzz_devread();
	else
		c_open(SYS_open);
}

/* Reads up to n entries of directory path from its start into de;
 * returns the count (0 for none or not a directory). */
static int first_entries(const char *path, struct dirent *de, int n)
{
	int fd = open(path, O_RDONLY), got;

	if (fd < 0)
		return 0;
	got = readdir(fd, de, n);
	close(fd);
	return got < 0 ? 0 : got;
}

/* Removes path and everything under it (mount points are unmounted).
 * Removing shifts a directory's entries, so each round starts over. */
static void rm_tree(const char *path)
{
	struct dirent de[8];
	char sub[320];
	int n, before = -1;

	unmount(path);
	while ((n = first_entries(path, de, 8)) > 0 && n != before) {
		for (int i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path, de[i].name);
			rm_tree(sub);
		}
		before = n < 8 ? n : -1;	/* a short batch that stays: stuck */
	}
	remove(path);
}

/* One worker: its own directory, calls calls, then cleans up. Returns
 * the exit status: 0, or 1 after a violation. */
static int worker(uint64_t seed, long n, int index)
{
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	snprintf(wdir, sizeof(wdir), FUZZ_DIR "/w%d", index);
	rm_tree(wdir);
	if (mkdir(wdir) < 0)
		err(1, "mkdir %s", wdir);
	snprintf(scratch, sizeof(scratch), "%s/d", wdir);
	mkdir(scratch);
	chdir(wdir);
	while (ncalls < n)
		fuzz_one();
	reap_kids();
	for (int fd = 0; fd < 64; fd++)
		if (fd != REPORT_FD)
			close(fd);
	chdir("/");
	rm_tree(wdir);
	return nviolations ? 1 : 0;
}

/* Writes image i: /bin/true (bytes true, len long) with its ELF header
 * or first program header made hostile, or cut short. */
static void write_image(int i, const uint8_t *true_img, size_t len)
{
	static const struct { size_t off; uint64_t val; int size; } edits[] = {
		{ 0, 0x46, 1 },			/* magic */
		{ 4, 1, 1 },			/* ELFCLASS32 */
		{ 56, 0xffff, 2 },		/* e_phnum */
		{ 32, 1ul << 62, 8 },		/* e_phoff */
		{ 64 + 8, 1ul << 40, 8 },	/* p_offset */
		{ 64 + 32, 1ul << 30, 8 },	/* p_filesz > p_memsz */
		{ 64 + 16, 0xffffffff80000000ul, 8 },	/* p_vaddr in the kernel */
		{ 64 + 40, (uint64_t)-4096, 8 },	/* p_memsz wraps */
		{ 24, 0xffffffff80100000ul, 8 },	/* e_entry in the kernel */
	};
	static uint8_t img[65536];
	size_t n = len < sizeof(img) ? len : sizeof(img);
	char path[32];
	int fd;

	memcpy(img, true_img, n);
	if (i < (int)(sizeof(edits) / sizeof(edits[0])))
		memcpy(img + edits[i].off, &edits[i].val, (size_t)edits[i].size);
	else
		n = (size_t)(i - 9) * 31;	/* 31, 62 bytes: a cut header */
	snprintf(path, sizeof(path), FUZZ_DIR "/elf%d", i);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC)) < 0 ||
	    write_all(fd, img, n) < 0)
		err(1, "%s", path);
	close(fd);
}

/* Makes /tmp/fz with the hostile images. */
static void setup(void)
{
	static uint8_t true_img[65536];
	int fd = open("/bin/true", O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, true_img, sizeof(true_img));

	if (n < 128)
		err(1, "/bin/true");
	close(fd);
	rm_tree(FUZZ_DIR);
	if (mkdir(FUZZ_DIR) < 0)
		err(1, FUZZ_DIR);
	for (int i = 0; i < NIMAGES; i++)
		write_image(i, true_img, (size_t)n);
}

/* Spawns the workers, waits for all; returns how many failed. */
static int run_workers(char *self, const char *seed, long calls, int nprocs)
{
	int fdmap[3] = { -1, -1, REPORT_FD }, failed = 0;
	char count[24], index[24];
	char *argv[] = { self, "-w", (char *)seed, count, index, NULL };

	for (int i = 0; i < nprocs; i++) {
		snprintf(count, sizeof(count), "%ld",
			 calls / nprocs + (i < calls % nprocs));
		snprintf(index, sizeof(index), "%d", i);
		if (spawn("/bin/sysfuzz", argv, fdmap) < 0)
			err(1, "spawn worker");
	}
	for (int i = 0; i < nprocs; i++) {
		int status;

		if (wait(&status) < 0 || status != 0) {
			fprintf(REPORT_FD, "sysfuzz: a worker ended with status "
				"%d\n", status);
			failed++;
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	long calls;
	int nprocs, failed;

	if (argc == 5 && strcmp(argv[1], "-w") == 0)
		return worker(strtoul(argv[2], NULL, 0) * 1000 + strtoul(argv[4], NULL, 0),
			      strtol(argv[3], NULL, 0), atoi(argv[4]));
	if (argc != 4 || (calls = strtol(argv[2], NULL, 0)) <= 0 ||
	    (nprocs = atoi(argv[3])) <= 0 || nprocs > 32) {
		fprintf(2, "usage: sysfuzz SEED CALLS NPROCS (1..32)\n");
		return 2;
	}
	printf("sysfuzz: seed %s, %ld calls, %d processes\n", argv[1], calls,
	       nprocs);
	setup();
	failed = run_workers(argv[0], argv[1], calls, nprocs);
	rm_tree(FUZZ_DIR);
	printf("sysfuzz: seed %s: %ld calls, %d processes, %s\n", argv[1],
	       calls, nprocs, failed ? "FAILED" : "no violation");
	return failed ? 1 : 0;
}
