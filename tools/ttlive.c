/*
 * ttlive: the live drain (`make live`, scripts/live, docs/pull.md). Reads
 * a running guest's trace out of its RAM, which QEMU shares with the host
 * as a file (-object memory-backend-file,share=on), and writes it as a
 * trace file while the guest runs; the guest spends no instruction on it.
 *
 *	ttlive [-c CPUS] [-w SECONDS] [-i MS] [-p PID] RAM ROOT-PADDR
 *	       ROOT-SIZE OUT.ttr
 *
 * RAM is the memory file (guest physical address 0 at offset 0: the
 * guest's RAM below 4 GiB, as QEMU's pc machine lays it out); ROOT-PADDR
 * and ROOT-SIZE say where the root record is (scripts/live takes them
 * from the kernel ELF, as scripts/pull does). It waits up to SECONDS (60)
 * for the root record and for CPUS CPUs to be up (1), polls the rings
 * every MS milliseconds (1) when it has caught up, and stops on SIGINT or
 * SIGTERM, or when process PID (QEMU) has gone: the rings read up to
 * their heads then, the aux buffer, the counters, the file's end.
 *
 * The work is tools/live.c's, through the kernel's ring reader and the one
 * trace-file writer. Exit status 0; 1 with a message when the guest's
 * trace could not be found or read (the file written so far is ended).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

#define ull(x)		((unsigned long long)(x))
#define SCRATCH		1024	/* entries per RECORDS section */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int die(const char *what, const char *why)
{
	fprintf(stderr, "ttlive: %s: %s\n", what, why);
	exit(1);
}

/* Whether the watched process (0: none) is still there. */
static int alive(pid_t pid)
{
	return !pid || kill(pid, 0) == 0 || errno != ESRCH;
}

/* The memory file mapped read-only, once it holds the root record. */
static const uint8_t *map_ram(const char *path, uint64_t need,
			      uint64_t deadline, uint64_t *size)
{
	struct stat st;
	void *p;
	int fd;

	while ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0 ||
	       (uint64_t)st.st_size < need) {
		if (fd >= 0)
			close(fd);
		if (now_ns() > deadline || stop)
			die(path, fd < 0 ? strerror(errno) : "smaller than "
			    "the root record's address: not this guest's RAM");
		sleep_ms(10);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	*size = (uint64_t)st.st_size;
	return p;
}

/* Attaches once the guest's tracer is up, or dies after the deadline. */
static void attach(struct ttlive *l, uint64_t deadline, pid_t pid)
{
	while (ttlive_attach(l) < 0) {
		if (now_ns() > deadline || stop || !alive(pid))
			die("no trace in the guest's RAM", l->why);
		sleep_ms(10);
	}
}

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* Streams l to f until told to stop, then ends the file; adds the time
 * it slept, caught up, to *slept. */
static int drain(struct ttlive *l, FILE *f, long poll_ms, pid_t pid,
		 uint64_t *slept)
{
	static struct ttrace_entry scratch[SCRATCH];
	struct ttrace_file_writer w;
	struct ttrace_image_gen g;
	int k;

	ttrace_file_writer_init(&w, file_out, f);
	ttlive_gen_init(l, &g, &w, scratch, SCRATCH);
	while ((k = ttrace_image_step(&g)) != TTRACE_IMAGE_DONE) {
		if (k == TTRACE_IMAGE_MORE)
			continue;
		fflush(f);
		if (stop || l->why[0] || !alive(pid))
			ttlive_end(l, &g);
		else {
			uint64_t t = now_ns();

			sleep_ms(poll_ms);
			*slept += now_ns() - t;
		}
	}
	return w.error ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ttlive [-c CPUS] [-w SECONDS] [-i MS] [-p PID] "
		"RAM ROOT-PADDR ROOT-SIZE OUT.ttr\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ttlive *l = calloc(1, sizeof(*l));
	long wait_s = 60, poll_ms = 1;
	pid_t pid = 0;
	uint64_t t0, deadline, slept = 0, busy;
	FILE *f;
	int opt;

	if (!l)
		die("ttlive", "out of memory");
	l->want_cpus = 1;
	while ((opt = getopt(argc, argv, "c:w:i:p:")) != -1) {
		if (opt == 'c')
			l->want_cpus = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'w')
			wait_s = strtol(optarg, NULL, 0);
		else if (opt == 'i')
			poll_ms = strtol(optarg, NULL, 0);
		else if (opt == 'p')
			pid = (pid_t)strtol(optarg, NULL, 0);
		else
			usage();
	}
	if (argc - optind != 4)
		usage();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	l->root_pa = strtoull(argv[optind + 1], NULL, 0);
	l->root_size = strtoull(argv[optind + 2], NULL, 0);
	l->now_ns = now_ns;
	deadline = now_ns() + (uint64_t)wait_s * 1000000000ULL;
	l->ram = map_ram(argv[optind], l->root_pa + l->root_size, deadline,
			 &l->ram_size);
	attach(l, deadline, pid);
	f = fopen(argv[optind + 3], "wb");
	if (!f)
		die(argv[optind + 3], strerror(errno));
	t0 = now_ns();
	if (drain(l, f, poll_ms, pid, &slept) < 0 || fclose(f) != 0)
		die(argv[optind + 3], "write failed");
	busy = now_ns() - t0 - slept;
	printf("ttlive: %s: %llu records, %llu lost (overwritten %llu, raced "
	       "%llu, in flight %llu, cleared %llu), %u cpus, %llu attaches, "
	       "%.1f s (%.2f s reading): %.0f records/s while reading\n",
	       argv[optind + 3], ull(l->records),
	       ull(l->lost[1] + l->lost[2] + l->lost[3] + l->lost[4]),
	       ull(l->lost[TTRACE_LOSS_OVERWRITTEN]),
	       ull(l->lost[TTRACE_LOSS_RACED]),
	       ull(l->lost[TTRACE_LOSS_IN_FLIGHT]),
	       ull(l->lost[TTRACE_LOSS_CLEARED]), l->version.num_cpus,
	       ull(l->attaches), (double)(now_ns() - t0) / 1e9,
	       (double)busy / 1e9, (double)l->records * 1e9 / (double)(busy + 1));
	if (l->why[0])
		die("the guest's trace", l->why);
	ttlive_free(l);
	free(l);
	return 0;
}
