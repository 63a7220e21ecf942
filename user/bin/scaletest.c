/*
 * scaletest: tests that fail when a kernel path stops scaling.
 *
 *	scaletest			run proc, sleep and tmp
 *	scaletest proc|sleep|tmp|bomb [N]
 *				run one, N replacing its big count
 *
 * Each test times the same work at a small and a large size in guest time
 * (the TSC), in the same boot, and compares the two as a ratio, so the
 * host's speed does not decide the result. Each figure is the median of
 * many timed steps (one spawn+wait, one file created, one readdir call),
 * so a busy host, which stretches a few steps a lot, does not decide it
 * either. Where both sizes can exist at once (tmp) their steps alternate,
 * so a host that gets busier half-way (under TCG the TSC is the host's
 * time) slows both sides alike. One line of figures, then PASSED or
 * FAILED [scale_NAME]:
 *
 *	proc	listing /proc and reading every status, as ps does, with
 *		1,000 processes costs per readdir call (64 entries and their
 *		status files) at most 3x what it does with 100 (it was
 *		cubic: nth_pid and the end-of-directory recount);
 *	sleep	100 spawn+wait of /bin/true beside 1,500 processes in
 *		nanosleep take at most 2x what they take with none, and a
 *		100 ms sleep at most 1.5x (every tick used to wake every
 *		sleeper, and every wakeup walked them all);
 *	tmp	creating 20,000 files in one /tmp directory: the last 5,000
 *		cost at most 1.5x the first 5,000 (each created in turn
 *		with one of the first 5,000 of a second directory); listing
 *		20,000 costs per readdir call at most 2x listing 5,000 (one
 *		call on each in turn; both were linear per file).
 *	bomb	(only when named: it exhausts memory) spawns /bin/sleep
 *		until spawn fails for want of memory, kills and reaps them
 *		all, twice: after the second, the free pages must be back to
 *		the count between the two, less BOMB_SLACK_PAGES, within
 *		twice the time the spawning took after the first kill (a
 *		ratio in one boot, not a time limit: before the fixes of
 *		issue 11, reaping 4,067 processes took 391 s of guest
 *		time). The first bomb is a warm-up: kmalloc keeps the pages
 *		it split into small blocks, and the line of figures says
 *		how many.
 *
 * Exits 0 when every test run passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tsc.h>
#include <ttrace_format.h>
#include <unistd.h>

#define REPS		3
#define MS		1000000ull	/* nanoseconds */
#define MAX_PROCS	16384
#define BOMB_SLACK_PAGES 64
#define BOMB_RECOVER_MS	1000	/* the least time pages get to come back */
#define TMP_DIR		"/tmp/scale"
#define MAX_SAMPLES	20000

static int pids[MAX_PROCS];
static int npids;
/* The cycles of timed steps of one kind. */
struct samples {
	uint64_t v[MAX_SAMPLES];
	int n;
};

static struct samples steps, steps2;

/* Records the cycles since t0 as one sample in s. */
static void sample(struct samples *s, uint64_t t0)
{
	uint64_t t = rdtsc() - t0;

	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = t;
}

/* Returns the median of s's samples (0 if none) and forgets them. */
static uint64_t median(struct samples *s)
{
	uint64_t *samples = s->v;
	int lo = 0, hi = s->n - 1, k = s->n / 2;
	uint64_t m;

	while (lo < hi) {		/* quickselect */
		uint64_t pivot = samples[(lo + hi) / 2], t;
		int i = lo, j = hi;

		while (i <= j) {
			while (samples[i] < pivot)
				i++;
			while (samples[j] > pivot)
				j--;
			if (i <= j) {
				t = samples[i];
				samples[i++] = samples[j];
				samples[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	m = s->n ? samples[k] : 0;
	s->n = 0;
	return m;
}

/* Starts path (argv) with stdin on fd in (-1: none); records its pid.
 * Returns 0 or -1 with errno set. */
static int start(const char *path, char *argv[], int in)
{
	int fdmap[3] = { in, -1, -1 };
	int pid;

	if (npids == MAX_PROCS) {
		errno = E2BIG;
		return -1;
	}
	if ((pid = spawn(path, argv, fdmap)) < 0)
		return -1;
	pids[npids++] = pid;
	return 0;
}

/* Kills (when kill_them) and waits for every process start() made. */
static void reap_all(int kill_them)
{
	int status;

	for (int i = 0; i < npids; i++) {
		if (kill_them)
			kill(pids[i]);
		waitpid(pids[i], &status);
	}
	npids = 0;
}

/* Prints the result line; returns 1 if it failed. */
static int report(const char *name, int ok, const char *why)
{
	if (ok)
		printf("PASSED [scale_%s]\n", name);
	else
		printf("FAILED [scale_%s] %s\n", name, why);
	return !ok;
}

/* ---- proc ---- */

/* Reads /proc/name/status, as ps does. */
static void read_status(const char *name)
{
	char path[NAME_MAX + 16], line[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/status", name);
	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	while (read(fd, line, sizeof(line)) > 0)
		;
	close(fd);
}

/* Lists directory path REPS times, 64 entries a call, reading the status
 * of each entry when status; one sample a call. Returns the entries. */
static int list_dir(const char *path, int status)
{
	struct dirent d[64];
	int fd, n, count = 0;

	for (int r = 0; r < REPS; r++) {
		if ((fd = open(path, O_RDONLY)) < 0)
			return -1;
		count = 0;
		for (uint64_t t0 = rdtsc(); (n = readdir(fd, d, 64)) > 0;
		     t0 = rdtsc()) {
			for (int i = 0; status && i < n; i++)
				read_status(d[i].name);
			count += n;
			sample(&steps, t0);
		}
		close(fd);
	}
	return count;
}

/* Starts /bin/cat blocked on stdin (fd in) until npids is n. */
static int grow_to(int n, int in)
{
	char *argv[] = { "cat", NULL };

	while (npids < n)
		if (start("/bin/cat", argv, in) < 0)
			return -1;
	return 0;
}

static int test_proc(int big)
{
	int fds[2], c0 = 0, c1 = 0;
	uint64_t t0 = 0, t1 = 0;
	char why[160] = "";

	if (pipe(fds) < 0)
		return report("proc", 0, "pipe failed");
	if (grow_to(100, fds[0]) == 0) {
		c0 = list_dir("/proc", 1);
		t0 = median(&steps);
		if (grow_to(big, fds[0]) == 0) {
			c1 = list_dir("/proc", 1);
			t1 = median(&steps);
		}
	}
	if (c1 < big)
		snprintf(why, sizeof(why), "spawn %d: %s", npids,
			 strerror(errno));
	close(fds[0]);
	close(fds[1]);		/* every cat sees the end of its input */
	reap_all(0);
	printf("scale_proc: readdir+status of 64: %lu cycles with %d procs, "
	       "%lu with %d\n", t0, c0, t1, c1);
	if (!why[0] && t1 > 3 * t0)
		snprintf(why, sizeof(why), "%lu%% of the baseline (limit "
			 "300%%)", t1 * 100 / t0);
	return report("proc", !why[0], why);
}

/* ---- sleep ---- */

/* Samples REPS * 100 spawn+wait of /bin/true. */
static void time_spawn_true(void)
{
	char *argv[] = { "true", NULL };
	int fdmap[3] = { -1, -1, -1 }, status;

	for (int i = 0; i < REPS * 100; i++) {
		uint64_t t0 = rdtsc();

		waitpid(spawn("/bin/true", argv, fdmap), &status);
		sample(&steps, t0);
	}
}

/* Samples REPS 100 ms sleeps. */
static void time_sleep(void)
{
	for (int r = 0; r < REPS; r++) {
		uint64_t t0 = rdtsc();

		nanosleep(100 * MS);
		sample(&steps, t0);
	}
}

static int test_sleep(int big)
{
	char *argv[] = { "sleep", "1000", NULL };
	uint64_t s0, z0, s1, z1;
	char why[160] = "";

	time_spawn_true();
	s0 = median(&steps);
	time_sleep();
	z0 = median(&steps);
	while (npids < big && start("/bin/sleep", argv, -1) == 0)
		;
	if (npids < big)
		snprintf(why, sizeof(why), "spawn %d: %s", npids,
			 strerror(errno));
	nanosleep(200 * MS);		/* let them all reach their sleep */
	time_spawn_true();
	s1 = median(&steps);
	time_sleep();
	z1 = median(&steps);
	reap_all(1);
	printf("scale_sleep: spawn+wait %lu cycles alone, %lu beside %d "
	       "sleepers; 100 ms sleep %lu, %lu\n", s0, s1, big, z0, z1);
	if (!why[0] && s1 > 2 * s0)
		snprintf(why, sizeof(why), "spawn+wait %lu%% of alone (limit "
			 "200%%)", s1 * 100 / s0);
	if (!why[0] && 2 * z1 > 3 * z0)
		snprintf(why, sizeof(why), "sleep %lu%% of alone (limit "
			 "150%%)", z1 * 100 / z0);
	return report("sleep", !why[0], why);
}

/* ---- tmp ---- */

#define TMP_SMALL	TMP_DIR "/small"
#define TMP_BIG		TMP_DIR "/big"

/* Creates file i in dir; one sample in s when s is not NULL. Returns 0,
 * or -1 with errno set. */
static int create_file(const char *dir, int i, struct samples *s)
{
	char path[64];
	uint64_t t0 = rdtsc();
	int fd;

	snprintf(path, sizeof(path), "%s/f%05d", dir, i);
	if ((fd = open(path, O_CREAT | O_WRONLY)) < 0)
		return -1;
	close(fd);
	if (s)
		sample(s, t0);
	return 0;
}

/* Removes files 0..n-1 of dir, and dir. */
static void remove_files(const char *dir, int n)
{
	char path[64];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", dir, i);
		remove(path);
	}
	remove(dir);
}

/* Lists dirs a and b REPS times, one readdir call (64 entries) on each in
 * turn, a started again whenever it ends before b; each call a sample, in
 * sa or sb. Sets *na and *nb to the entries of one pass over each.
 * Returns 0, or -1 with errno set. */
static int list_two(const char *a, const char *b, struct samples *sa,
		    struct samples *sb, int *na, int *nb)
{
	struct dirent d[64];
	int fa = -1, fb = -1, n, ca = 0, err = 0;

	for (int r = 0; r < REPS && !err; r++) {
		if ((fb = open(b, O_RDONLY)) < 0)
			return -1;
		*nb = 0;
		for (;;) {
			uint64_t t0;

			if (fa < 0 && (fa = open(a, O_RDONLY)) < 0) {
				err = -1;
				break;
			}
			t0 = rdtsc();
			if ((n = readdir(fa, d, 64)) > 0) {
				sample(sa, t0);
				ca += n;
			} else {
				*na = ca;
				ca = 0;
				close(fa);
				fa = -1;
			}
			t0 = rdtsc();
			if ((n = readdir(fb, d, 64)) <= 0)
				break;
			sample(sb, t0);
			*nb += n;
		}
		close(fb);
	}
	if (fa >= 0)
		close(fa);
	return err;
}

static int test_tmp(int big)
{
	int q = big / 4, c0 = 0, c1 = 0, err = 0;
	uint64_t first, last, l0, l1;
	char why[160] = "";

	mkdir(TMP_DIR);
	mkdir(TMP_SMALL);
	mkdir(TMP_BIG);
	for (int i = 0; i < big - q && !err; i++)
		err = create_file(TMP_BIG, i, NULL);
	/* the first q files of one directory, the last q of the other */
	for (int i = 0; i < q && !err; i++)
		err = create_file(TMP_SMALL, i, &steps) |
		      create_file(TMP_BIG, big - q + i, &steps2);
	first = median(&steps);
	last = median(&steps2);
	err |= list_two(TMP_SMALL, TMP_BIG, &steps, &steps2, &c0, &c1);
	l0 = median(&steps);
	l1 = median(&steps2);
	remove_files(TMP_SMALL, q);
	remove_files(TMP_BIG, big);
	remove(TMP_DIR);
	printf("scale_tmp: create a file: %lu cycles for the first %d, %lu "
	       "for the last; readdir of 64: %lu cycles in %d, %lu in %d\n",
	       first, q, last, l0, c0, l1, c1);
	if (err || c0 != q || c1 != big)
		snprintf(why, sizeof(why), "created or listed too few: %d, %d",
			 c0, c1);
	else if (2 * last > 3 * first)
		snprintf(why, sizeof(why), "last files %lu%% of the first "
			 "(limit 150%%)", last * 100 / first);
	else if (l1 > 2 * l0)
		snprintf(why, sizeof(why), "readdir %lu%% of the baseline "
			 "(limit 200%%)", l1 * 100 / l0);
	return report("tmp", !why[0], why);
}

/* ---- bomb ---- */

/* Free pages as /dev/memstat (open on fd) says now; -1 if unreadable. */
static long free_pages(int fd)
{
	char text[128];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	char *p;

	if (n <= 0)
		return -1;
	text[n] = 0;
	p = strstr(text, "free_pages ");
	return p ? strtol(p + 11, NULL, 10) : -1;
}

/* The TSC's rate in cycles per millisecond, from the tracer's version
 * header; 0 if it cannot be read. */
static uint64_t tsc_per_ms(void)
{
	struct ttrace_version v;
	int fd = open("/dev/ttrace/version", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, &v, sizeof(v));

	if (fd >= 0)
		close(fd);
	return n == sizeof(v) ? v.tsc_hz / 1000 : 0;
}

/* What one bomb found: pages still missing after it (-1: spawn stopped
 * for another reason than exhaustion), the guest time it took to spawn
 * them all, and from the first kill to the pages' return (or to giving
 * up, after as long as the spawning took). */
struct bomb {
	long missing;
	uint64_t spawn_ms;
	uint64_t recover_ms;
};

/* Polls fd's free pages every 10 ms until they reach want or limit_ms
 * of guest time passed since t0; returns the last count, *ms the time. */
static long wait_pages(int fd, long want, uint64_t t0, uint64_t per_ms,
		       uint64_t limit_ms, uint64_t *ms)
{
	long f;

	while ((f = free_pages(fd)) < want &&
	       (rdtsc() - t0) / per_ms < limit_ms)
		nanosleep(10 * MS);
	*ms = (rdtsc() - t0) / per_ms;
	return f;
}

/* One bomb: spawns /bin/sleep until spawn fails (at most big), kills and
 * reaps them all, and waits for the free pages (memstat on fd) to come
 * back to f0 - BOMB_SLACK_PAGES. Prints a line of figures. */
static struct bomb bomb_round(int fd, uint64_t per_ms, int big, long f0)
{
	char *argv[] = { "sleep", "100000", NULL };
	uint64_t t0 = rdtsc(), limit;
	struct bomb b;
	long low, reaped, back;
	int err, n;

	while (npids < big && start("/bin/sleep", argv, -1) == 0)
		;
	err = npids < big ? errno : 0;
	n = npids;
	b.spawn_ms = (rdtsc() - t0) / per_ms;
	limit = 2 * b.spawn_ms > BOMB_RECOVER_MS ? 2 * b.spawn_ms :
		BOMB_RECOVER_MS;
	low = free_pages(fd);
	t0 = rdtsc();
	reap_all(1);
	reaped = free_pages(fd);
	back = wait_pages(fd, f0 - BOMB_SLACK_PAGES, t0, per_ms, limit,
			  &b.recover_ms);
	printf("scale_bomb: %d processes in %lu ms until %s; free pages %ld "
	       "before, %ld at the peak, %ld after reaping, %ld %lu ms after "
	       "the first kill\n", n, b.spawn_ms, err ? strerror(err) :
	       "the limit", f0, low, reaped, back, b.recover_ms);
	b.missing = err == ENOMEM || err == EAGAIN ? f0 - back : -1;
	return b;
}

/* A warm-up bomb fills kmalloc's free lists, which keep their pages (see
 * kern/src/kmalloc.c); a second bomb must then give every page back
 * within twice the guest time the bomb took to build. */
static int test_bomb(int big)
{
	int fd = open("/dev/memstat", O_RDONLY);
	uint64_t per_ms = tsc_per_ms();
	struct bomb warm, b = { -1, 0, 0 };
	char why[160] = "";
	long f0;

	if (fd < 0 || !per_ms || (f0 = free_pages(fd)) < 0)
		return report("bomb", 0, "cannot read /dev/memstat or the TSC "
			      "rate");
	warm = bomb_round(fd, per_ms, big, f0);
	if (warm.missing >= 0)
		b = bomb_round(fd, per_ms, big, free_pages(fd));
	close(fd);
	printf("scale_bomb: the first bomb left %ld pages in kmalloc; the "
	       "second %ld (slack %d)\n", warm.missing, b.missing,
	       BOMB_SLACK_PAGES);
	if (warm.missing < 0 || b.missing < 0)
		snprintf(why, sizeof(why), "spawn stopped before memory ran "
			 "out (raise the limit %d)", big);
	else if (b.missing > BOMB_SLACK_PAGES)
		snprintf(why, sizeof(why), "%ld pages missing after the "
			 "second bomb", b.missing);
	else if (b.recover_ms > 2 * b.spawn_ms)
		snprintf(why, sizeof(why), "recovery took %lu ms, over twice "
			 "the bomb's %lu ms", b.recover_ms, b.spawn_ms);
	return report("bomb", !why[0], why);
}

enum when { ALWAYS, BY_NAME };

static const struct {
	int (*fn)(int big);
	const char *name;
	int big;
	enum when when;
} tests[] = {
	{ test_proc, "proc", 1000, ALWAYS },
	{ test_sleep, "sleep", 1500, ALWAYS },
	{ test_tmp, "tmp", 20000, ALWAYS },
	{ test_bomb, "bomb", MAX_PROCS, BY_NAME },
};

int main(int argc, char **argv)
{
	int failed = 0, big;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (argc > 1 ? strcmp(argv[1], tests[i].name) != 0 :
			       tests[i].when == BY_NAME)
			continue;
		big = argc > 2 ? atoi(argv[2]) : 0;
		failed += tests[i].fn(big > 0 ? big : tests[i].big);
	}
	return failed != 0;
}
