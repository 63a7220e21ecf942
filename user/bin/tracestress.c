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
 *	save SECONDS [INTERVAL]
 *		runs `ttrace save /dev/host/out` again and again, INTERVAL
 *		(default 2) seconds apart, until SECONDS seconds have passed (by the TSC the
 *		tracer's version header reports), so the host gets one trace
 *		file after another; then tells the others to stop by creating
 *		/tmp/stress.done
 *	resize	changes the ring size (bufsize) and mode every second
 *	read	reads every cpuN file and aux, over and over
 *	readraw	the same with the rawN files (runs of records: no text)
 *	mix	spawns /bin/true, passes data through a pipe and writes,
 *		reads back and removes a /tmp file, round after round
 *	fuzz	runs `sysfuzz SEED 5000 2` again and again, a new seed
 *		each time (the seeds are printed, for a replay)
 *	burst N	makes N getpid calls and exits (a workload of known size)
 *	rings N OUT
 *		begins a save (its version header, one byte of
 *		/dev/ttrace/trace.ttr), then makes N getpid calls after each of
 *		`bufsize 64`, `clear`, `bufsize 8`, `mode saturate`, `mode
 *		overwrite` and `bufsize 64` again, and writes the whole save
 *		to OUT: a trace file read across ring changes (and, under
 *		`ttrace stream`, a stream's too); prints "rings: saved OUT"
 *	pace ROUNDS N MS
 *		makes N getpid calls, sleeps MS ms, ROUNDS times, and exits: a
 *		steady writer whose pace does not depend on the machine's
 *		speed (the in-kernel drain's test)
 *	share N	opens cpu0 and aux once and has N processes read each
 *		shared open file to its end at the same time
 *	marks N LEN
 *		writes N markers of LEN characters back to back, marker I
 *		"mark-I:" followed by I%10 digits up to LEN, then exits
 *	twin PATH
 *		opens PATH twice and reads the two opens in turn, 1 KiB at a
 *		time, to their ends; prints "twin: N bytes, same" when they
 *		gave the same text (two readers of one snapshot must), else
 *		where they first differ
 *	modules N PATH
 *		loads the probe module at PATH and unloads it again, N times
 *		(module load/unload through ctl), and prints "modules: N
 *		rounds"; stops at the first refusal, printing it
 *	probes PATH ROUNDS
 *		the probe torture (tests/seams_probelock.py): PATH lists
 *		function names; PROBE_BATCH at a time get a `str` probe on
 *		their entry, a `str` one on their return and a stacktrace
 *		probe on each, while ROUNDS times it saves the trace (reads
 *		the trace file to its end), reads stats and writes markers;
 *		then the probes go and the rings are cleared (each batch
 *		starts with "probes: batch B from function I", its first
 *		name's index in PATH: a name like panic_at would read as a panic). PATH's names
 *		are separated by blanks. Prints "probes: N functions in B
 *		batches, R refused, D strings dropped" (stats' strdropped
 *		summed before each clear; -1: stats has none) and ends the
 *		others (creates /tmp/stress.done)
 * All but burst, rings, pace, share, marks, twin, modules and probes stop when
 * /tmp/stress.done appears. In a pipeline only the last stage's stdout reaches the console, and the
 * console mixes the bytes of concurrent writers, so mix and fuzz append
 * their result, "mix: N rounds" or "fuzz: N runs, M failed", to
 * /tmp/stress.log in one write each.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <sys/stat.h>
#include <ttrace_format.h>

#define DONE	"/tmp/stress.done"
#define LOG	"/tmp/stress.log"

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

/* Writes one ctl command; exits on an error. */
static void ctl(int fd, const char *c)
{
	if (write(fd, c, strlen(c)) < 0)
		err(1, "ctl: %s", c);
}

/*
 * Writes cmds[0..n) to ctl in turn, period_ns apart, until the others are
 * done, then the closing commands in end[] (NULL-terminated); prints how
 * many it wrote, as "what: N commands".
 */
static int cycle(const char *what, const char *const *cmds, size_t n,
		 uint64_t period_ns, const char *const *end)
{
	int fd = open("/dev/ttrace/ctl", O_WRONLY);
	long k = 0;

	if (fd < 0)
		err(1, "/dev/ttrace/ctl");
	for (; !done(); k++) {
		ctl(fd, cmds[k % (long)n]);
		nanosleep(period_ns);
	}
	for (; *end; end++)
		ctl(fd, *end);
	close(fd);
	printf("%s: %ld commands\n", what, k);
	return 0;
}

static int toggle(void)
{
	static const char *const cmds[] = {
		"disable irq", "enable irq", "setbits 0x4", "clrbits 0x4",
		"disable syscall_exit", "enable syscall_exit",
	};
	static const char *const end[] = { NULL };

	return cycle("toggle", cmds, sizeof(cmds) / sizeof(cmds[0]), 5000000,
		     end);
}

static int resize(void)
{
	static const char *const cmds[] = {
		"bufsize 512", "mode saturate", "clear", "mode overwrite",
		"bufsize 1024", "bufsize 256",
	};
	static const char *const end[] = {
		"mode overwrite", "bufsize 1024", NULL,
	};

	return cycle("resize", cmds, sizeof(cmds) / sizeof(cmds[0]),
		     1000000000ull, end);
}

/* Reads path to its end in chunks of n bytes; returns the bytes read. */
static long drain(const char *path, int fd, size_t n)
{
	static char buf[16384];
	long total = 0;
	ssize_t r;

	while ((r = read(fd, buf, n < sizeof(buf) ? n : sizeof(buf))) > 0)
		total += r;
	if (r < 0)
		err(1, "%s", path);
	return total;
}

/* Reads every CPU's file of kind (cpu: text, raw: runs) and aux, over and
 * over, until done. */
static int reader(const char *kind)
{
	char path[32];
	long passes = 0;

	for (; !done(); passes++)
		for (int c = 0; ; c++) {
			int fd;

			snprintf(path, sizeof(path), "/dev/ttrace/%s%d", kind, c);
			if ((fd = open(path, O_RDONLY)) < 0)
				break;
			drain(path, fd, 1000 + (size_t)(passes * 37 % 5000));
			close(fd);
			fd = open("/dev/ttrace/aux", O_RDONLY);
			if (fd < 0)
				err(1, "/dev/ttrace/aux");
			drain("aux", fd, 4096);
			close(fd);
		}
	printf("read: %ld passes\n", passes);
	return 0;
}

/* Appends one line, text, to LOG in a single write. */
static void log_line(const char *text)
{
	int fd = open(LOG, O_WRONLY | O_CREAT | O_APPEND);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		err(1, LOG);
	close(fd);
}

/* Spawn/exit, a pipe and /tmp I/O, until done; exits on any error. */
static int mix(void)
{
	char *argv[] = { "true", NULL }, path[32], out[1500], in[1500];
	int fdmap[3] = { -1, -1, -1 }, status, fds[2], fd, pid;
	long rounds = 0;

	snprintf(path, sizeof(path), "/tmp/mix.%d", getpid());
	for (; !done(); rounds++) {
		memset(out, 'a' + rounds % 26, sizeof(out));
		if ((pid = spawn("/bin/true", argv, fdmap)) < 0 ||
		    waitpid(pid, &status) < 0 || status != 0)
			err(1, "mix: spawn /bin/true");
		if (pipe(fds) < 0 || write(fds[1], out, 500) != 500 ||
		    read(fds[0], in, 500) != 500 || memcmp(in, out, 500))
			err(1, "mix: pipe");
		close(fds[0]);
		close(fds[1]);
		if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC)) < 0 ||
		    write(fd, out, sizeof(out)) != sizeof(out) ||
		    pread(fd, in, sizeof(in), 0) != sizeof(in) ||
		    memcmp(in, out, sizeof(in)) || close(fd) < 0 ||
		    remove(path) < 0)
			err(1, "mix: %s", path);
	}
	snprintf(out, sizeof(out), "mix: %ld rounds\n", rounds);
	log_line(out);
	return 0;
}

/* Runs sysfuzz with a new seed each time until done; fails if a run did. */
static int fuzz(void)
{
	char seed[16], *argv[] = { "sysfuzz", seed, "5000", "2", NULL };
	int fdmap[3] = { -1, 2, 2 }, status, pid, runs = 0, failed = 0;

	for (; !done(); runs++) {
		snprintf(seed, sizeof(seed), "%d", 1000 + runs);
		if ((pid = spawn("/bin/sysfuzz", argv, fdmap)) < 0 ||
		    waitpid(pid, &status) < 0)
			err(1, "fuzz: spawn sysfuzz");
		if (status != 0) {
			fprintf(stderr, "fuzz: sysfuzz %s 5000 2 exited with "
				"%d\n", seed, status);
			failed++;
		}
	}
	char line[64];

	snprintf(line, sizeof(line), "fuzz: %d runs, %d failed\n", runs, failed);
	log_line(line);
	return failed != 0;
}

static int burst(long n)
{
	for (long i = 0; i < n; i++)
		getpid();
	return 0;
}

/* See the file comment. */
static int rings(long n, const char *out)
{
	static const char *const cmds[] = {
		"bufsize 64", "clear", "bufsize 8", "mode saturate",
		"mode overwrite", "bufsize 64",
	};
	static char buf[16384];
	int fd = open("/dev/ttrace/ctl", O_WRONLY);
	int in = open("/dev/ttrace/trace.ttr", O_RDONLY);
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC);
	ssize_t r;

	if (fd < 0 || in < 0 || o < 0)
		err(1, "rings: open ctl, trace or %s", out);
	if ((r = read(in, buf, 1)) != 1)
		err(1, "/dev/ttrace/trace.ttr");
	burst(n);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ctl(fd, cmds[i]);
		burst(n);
	}
	do {
		if (write(o, buf, (size_t)r) != r)
			err(1, "%s", out);
	} while ((r = read(in, buf, sizeof(buf))) > 0);
	if (r < 0)
		err(1, "/dev/ttrace/trace.ttr");
	close(o);
	close(in);
	close(fd);
	printf("rings: saved %s\n", out);
	return 0;
}

/* rounds of n getpid calls, ms ms apart. */
static int pace(long rounds, long n, long ms)
{
	for (long r = 0; r < rounds; r++) {
		burst(n);
		nanosleep((uint64_t)ms * 1000000);
	}
	return 0;
}

/* n markers of len (at most 255) characters, each its own number and
 * filler, one write each: a run of long lines for cpuN's text. */
static int marks(int n, int len)
{
	int fd = open("/dev/ttrace/marker", O_WRONLY);
	char text[256];

	if (len < 16 || len > 255) {
		fprintf(stderr, "tracestress: marks: LEN must be 16..255\n");
		return 2;
	}
	if (fd < 0)
		err(1, "/dev/ttrace/marker");
	for (int i = 0; i < n; i++) {
		int k = snprintf(text, sizeof(text), "mark-%d:", i);

		memset(text + k, '0' + i % 10, (size_t)(len - k));
		if (write(fd, text, (size_t)len) != len)
			err(1, "marker");
	}
	close(fd);
	return 0;
}

/* Reads up to n more bytes of fd into buf at *len (0 at its end). */
static long twin_read(int fd, char *buf, size_t *len, size_t n)
{
	long k = read(fd, buf + *len, n);

	if (k < 0)
		err(1, "twin: read");
	*len += (size_t)k;
	return k;
}

/* Two opens of path read in turn: their texts must be the same. */
static int twin(const char *path)
{
	static char a[256 * 1024], b[256 * 1024];
	int fa = open(path, O_RDONLY), fb = open(path, O_RDONLY);
	size_t la = 0, lb = 0, i;
	long ka = 1, kb = 1;

	if (fa < 0 || fb < 0)
		err(1, "%s", path);
	while ((ka || kb) && la + 1024 <= sizeof(a) && lb + 1024 <= sizeof(b)) {
		if (ka)
			ka = twin_read(fa, a, &la, 1024);
		if (kb)
			kb = twin_read(fb, b, &lb, 1024);
	}
	close(fa);
	close(fb);
	for (i = 0; i < la && i < lb && a[i] == b[i]; i++)
		;
	if (i == la && i == lb) {
		printf("twin: %zu bytes, same\n", la);
		return 0;
	}
	printf("twin: %zu and %zu bytes, first differ at %zu\n", la, lb, i);
	return 1;
}

/* N processes read one open file (their stdin) to its end together. */
static int share(int n, const char *path)
{
	char *argv[] = { "tracestress", "drain", NULL };
	int fd = open(path, O_RDONLY), pids[64], status;

	if (fd < 0)
		err(1, "%s", path);
	for (int i = 0; i < n && i < 64; i++) {
		int fdmap[3] = { fd, 1, 2 };

		if ((pids[i] = spawn("/bin/tracestress", argv, fdmap)) < 0)
			err(1, "spawn");
	}
	close(fd);
	for (int i = 0; i < n && i < 64; i++)
		if (waitpid(pids[i], &status) < 0 || status != 0)
			err(1, "drain of %s", path);
	return 0;
}

/* Loads and unloads the module at path n times; 0, or 1 at a refusal. */
static int modules(long n, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char load[160], unload[160];
	int fd = open("/dev/ttrace/ctl", O_WRONLY);
	long k;

	if (fd < 0)
		err(1, "/dev/ttrace/ctl");
	snprintf(load, sizeof(load), "module load %s", path);
	snprintf(unload, sizeof(unload), "module unload %.*s",
		 (int)(strlen(base) - 2), base);	/* NAME.o */
	for (k = 0; k < n; k++)
		if (write(fd, load, strlen(load)) < 0 ||
		    write(fd, unload, strlen(unload)) < 0)
			break;
	if (k < n)
		warn("round %ld", k + 1);
	close(fd);
	printf("modules: %ld rounds\n", k);
	return k < n;
}

/* Milliseconds since boot, from the tracer's clock: the version header's
 * TSC and its rate. */
static uint64_t now_ms(void)
{
	struct ttrace_version v;
	int fd = open("/dev/ttrace/version", O_RDONLY);

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v) || v.tsc_hz < 1000)
		err(1, "/dev/ttrace/version");
	close(fd);
	return (v.tsc_now - v.tsc_boot) / (v.tsc_hz / 1000);
}

#define PROBE_BATCH	8	/* functions at a time: 2 of the 16 fprobe
				 * ids and 2 of the 16 probes each */

/* Writes cmd to ctl; 1, or 0 (said) if it was refused. */
static int ctl_try(int fd, const char *cmd)
{
	if (write(fd, cmd, strlen(cmd)) >= 0)
		return 1;
	warn("%s", cmd);
	return 0;
}

/* Probes on fn[0..n): entry, return, a stacktrace on each; returns how
 * many of the 4 n commands were refused. */
static int probes_on(int fd, char **fn, int n)
{
	char cmd[160];
	int refused = 0;

	for (int i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "fprobe add pl%d %s a=arg0:str "
			 "b=arg1:str", i, fn[i]);
		refused += !ctl_try(fd, cmd);
		snprintf(cmd, sizeof(cmd), "fprobe add pr%d %s%%return r=ret:str",
			 i, fn[i]);
		refused += !ctl_try(fd, cmd);
		snprintf(cmd, sizeof(cmd), "probe sl%d stacktrace pl%d", i, i);
		refused += !ctl_try(fd, cmd);
		snprintf(cmd, sizeof(cmd), "probe sr%d stacktrace pr%d", i, i);
		refused += !ctl_try(fd, cmd);
	}
	return refused;
}

/* Deletes the probes probes_on() made, and their ids with the records
 * (clear). */
static void probes_off(int fd)
{
	ctl(fd, "unprobe *");
	ctl(fd, "fprobe del *");
	ctl(fd, "clear");
}

/* What the tracer does under its locks, rounds times: a save (the trace
 * file read to its end), stats, a marker. */
static void tracer_work(int rounds)
{
	static const char *const files[] = { "/dev/ttrace/trace.ttr",
					     "/dev/ttrace/stats" };
	int mark = open("/dev/ttrace/marker", O_WRONLY);

	if (mark < 0)
		err(1, "/dev/ttrace/marker");
	for (int r = 0; r < rounds; r++) {
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			int fd = open(files[f], O_RDONLY);

			if (fd < 0)
				err(1, "%s", files[f]);
			drain(files[f], fd, 16384);
			close(fd);
		}
		if (write(mark, "probes", 6) != 6)
			err(1, "marker");
	}
	close(mark);
}

/* The strings probes dropped since the last clear, every CPU's (stats'
 * strdropped), or -1 if stats has none. */
static long strings_dropped(void)
{
	static char text[8192];
	int fd = open("/dev/ttrace/stats", O_RDONLY);
	long len, sum = -1;

	if (fd < 0 || (len = read(fd, text, sizeof(text) - 1)) < 0)
		err(1, "/dev/ttrace/stats");
	close(fd);
	text[len] = 0;
	for (char *at = text; (at = strstr(at, " strdropped ")); at++)
		sum = (sum < 0 ? 0 : sum) + atoi(at + 12);
	return sum;
}

/* The probe torture (see the top); 0, or 1 if a command was refused. */
static int probes(const char *path, int rounds)
{
	static char list[16384];
	char *fn[512], *w;
	int fd = open(path, O_RDONLY), ctlfd, n = 0, refused = 0, batches = 0;
	long len, d, dropped = 0;
	uint64_t ms[3] = { 0 }, t[4];	/* probes on, work, probes off */

	if (fd < 0 || (len = read(fd, list, sizeof(list) - 1)) < 0)
		err(1, "%s", path);
	close(fd);
	list[len] = 0;
	for (w = list; *w && n < 512; w++) {	/* names between blanks */
		if (isspace(*w))
			continue;
		fn[n++] = w;
		while (w[1] && !isspace(w[1]))
			w++;
		if (w[1])
			*++w = 0;
	}
	if ((ctlfd = open("/dev/ttrace/ctl", O_WRONLY)) < 0)
		err(1, "/dev/ttrace/ctl");
	for (int i = 0; i < n; i += PROBE_BATCH, batches++) {
		int k = n - i < PROBE_BATCH ? n - i : PROBE_BATCH;

		printf("probes: batch %d from function %d\n", batches, i);
		fflush(stdout);
		t[0] = now_ms();
		refused += probes_on(ctlfd, fn + i, k);
		t[1] = now_ms();
		tracer_work(rounds);
		d = strings_dropped();	/* before the clear resets it */
		dropped = dropped < 0 || d < 0 ? -1 : dropped + d;
		t[2] = now_ms();
		probes_off(ctlfd);
		t[3] = now_ms();
		for (int p = 0; p < 3; p++)
			ms[p] += t[p + 1] - t[p];
	}
	close(ctlfd);
	printf("probes: %d functions in %d batches, %d refused, %ld strings "
	       "dropped; %llu ms adding, %llu working, %llu removing\n", n,
	       batches, refused, dropped, (unsigned long long)ms[0],
	       (unsigned long long)ms[1], (unsigned long long)ms[2]);
	fflush(stdout);
	if ((fd = open(DONE, O_WRONLY | O_CREAT)) < 0)
		err(1, DONE);
	close(fd);
	return refused != 0;
}

static int save(int seconds, int interval)
{
	char *argv[] = { "ttrace", "save", "/dev/host/out", NULL };
	int fdmap[3] = { 0, 1, 2 }, status, saved = 0, fd;
	uint64_t end = now_ms() + (uint64_t)seconds * 1000, t0;

	while ((t0 = now_ms()) < end) {
		int pid = spawn("/bin/ttrace", argv, fdmap);

		if (pid < 0 || waitpid(pid, &status) < 0 || status != 0)
			err(1, "ttrace save");
		printf("save: %d took %llu ms\n", saved,
		       (unsigned long long)(now_ms() - t0));
		saved++;
		/* a few MiB a trace: keep within the 128 MiB window. Timed
		 * by the TSC: on an overloaded host the guest's timer ticks
		 * come late, and a long nanosleep with them */
		while (now_ms() < t0 + (uint64_t)interval * 1000 &&
		       now_ms() < end)
			nanosleep(50000000);
	}
	/* before DONE: the others' last words come after this line, not
	 * into it (the console interleaves concurrent writers' bytes) */
	printf("save: %d traces saved\n", saved);
	fflush(stdout);
	fd = open(DONE, O_WRONLY | O_CREAT);
	if (fd < 0)
		err(1, DONE);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "load"))
		return load();
	if (argc == 2 && !strcmp(argv[1], "toggle"))
		return toggle();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "save"))
		return save(atoi(argv[2]), argc == 4 ? atoi(argv[3]) : 2);
	if (argc == 2 && !strcmp(argv[1], "resize"))
		return resize();
	if (argc == 2 && !strcmp(argv[1], "read"))
		return reader("cpu");
	if (argc == 2 && !strcmp(argv[1], "readraw"))
		return reader("raw");
	if (argc == 2 && !strcmp(argv[1], "mix"))
		return mix();
	if (argc == 2 && !strcmp(argv[1], "fuzz"))
		return fuzz();
	if (argc == 3 && !strcmp(argv[1], "burst"))
		return burst(strtol(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "rings"))
		return rings(strtol(argv[2], NULL, 10), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "pace"))
		return pace(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10),
			    strtol(argv[4], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "drain"))
		return drain("stdin", 0, 4096) < 0;
	if (argc == 3 && !strcmp(argv[1], "share"))
		return share(atoi(argv[2]), "/dev/ttrace/cpu0") ||
		       share(atoi(argv[2]), "/dev/ttrace/aux");
	if (argc == 3 && !strcmp(argv[1], "twin"))
		return twin(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "marks"))
		return marks(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "probes"))
		return probes(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "modules"))
		return modules(strtol(argv[2], NULL, 10), argv[3]);
	fprintf(stderr, "usage: tracestress load | toggle | resize | read | "
		"readraw | mix | fuzz | save SECONDS [INTERVAL] | burst N | "
		"rings N OUT | pace ROUNDS N MS | share N | "
		"marks N LEN | twin PATH | modules N PATH | "
		"probes PATH ROUNDS\n");
	return 2;
}
