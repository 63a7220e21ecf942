/*
 * ttrace: drive the kernel tracer through /dev/ttrace (docs/ttrace-device.md)
 * and get traces out as one file (docs/trace-file.md).
 *
 *	ttrace status			print /dev/ttrace/ctl and stats
 *	ttrace enable NAME...		groups or events (globs) on
 *	ttrace disable NAME...		... off
 *	ttrace clear			empty the rings (aux keeps its names)
 *	ttrace mark TEXT...		record a user_marker event with TEXT
 *	ttrace cat [-c CPU]		records as text, all CPUs merged by time
 *	ttrace save [-s] FILE		the whole trace into one file (-s:
 *					the snapshot a snapshot probe took)
 *	ttrace hist EVENT[:FIELD] [by FIELD] [if TEST...]
 *	ttrace hist latency START END [by FIELD] [if TEST...]
 *					start a count, a histogram of FIELD
 *					or of the latency START -> END, or
 *					show it as bars if it runs already
 *	ttrace counters			the counters' values (docs/probes.md)
 *	ttrace probe list|load FILE|unload NAME
 *					probes (docs/probes.md): load a
 *					module (an ELF object) or write a
 *					text FILE's lines to ctl; unload a
 *					module or a built-in probe
 *	ttrace record [-o FILE] -- CMD [ARG...]
 *	ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]
 *
 * record clears the trace, enables the groups the event metadata marks on
 * by default (read from /dev/ttrace/meta, so nothing here names a group),
 * runs CMD and waits for it, stops tracing (group mask 0) so the save does
 * not trace itself, saves to FILE (default /tmp/trace.ttr) and finally
 * puts back the group mask it found.
 *
 * save streams: each section goes out in chunks of CHUNK bytes through the
 * ttrace_file writer (kern/lib/ttrace_file.c), so a trace of any size needs
 * CHUNK bytes of memory. Records come from rawN as runs (each a RECORDS or
 * LOSS section's payload): one consistent picture of each ring as of the
 * first read, every missing index declared.
 *
 * stream drains streamN of every CPU into one trace file as it runs (a
 * consuming reader: each record once, losses declared in place), until CMD
 * exits or SECONDS pass (default: CMD, or 10 s without one), then adds the
 * aux snapshot and the counters; the default FILE is /dev/host/out. It prints the file's size and CRC-32 (as zlib's
 * crc32 of the whole file) so a copy on the host can be checked with
 * `ttdecode verify`. Errors from the kernel are printed with its own text
 * (errstr), and the exit status is then 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ttrace_file.h>
#include <ttrace_meta.h>

#define DEV		"/dev/ttrace"
#define CHUNK		(64 * 1024)
#define CTL_MAX		256	/* TTRACE_CTL_MAX_LEN: longest ctl command */
#define DEFAULT_OUT	"/tmp/trace.ttr"
#define MAX_CPUS	256
#define FINAL_PASSES	64	/* stream: reads after the end, at most */

static uint8_t chunk[CHUNK];
static const char *partial;		/* file being saved: removed on error */
static char restore[64];		/* ctl command undoing record's mask */

/* Undoes what a failed command leaves behind (best effort), exits 1. */
static __noreturn void fail_exit(void)
{
	if (partial)
		remove(partial);
	if (restore[0]) {
		int fd = open(DEV "/ctl", O_WRONLY);

		if (fd >= 0) {
			write(fd, restore, strlen(restore));
			close(fd);
		}
	}
	exit(1);
}

/* Prints "ttrace: what: <the kernel's text for the last error>", exits 1. */
static __noreturn void die_sys(const char *what)
{
	char text[128];
	int saved = errno;

	if (errstr(text, sizeof(text)) <= 0)
		strlcpy(text, strerror(saved), sizeof(text));
	fprintf(stderr, "ttrace: %s: %s\n", what, text);
	fail_exit();
}

static __noreturn void die(const char *msg)
{
	fprintf(stderr, "ttrace: %s\n", msg);
	fail_exit();
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		die_sys(path);
	return fd;
}

/* Reads up to n bytes, looping over short reads. Returns the count read
 * (less than n only at the end of the file); exits on an error. */
static size_t read_full(int fd, void *buf, size_t n, const char *path)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (uint8_t *)buf + got, n - got);

		if (r < 0)
			die_sys(path);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Writes one command to the ctl file; exits with the kernel's error text. */
static void ctl_write(const char *cmd)
{
	int fd = open_or_die(DEV "/ctl", O_WRONLY);

	if (write(fd, cmd, strlen(cmd)) < 0)
		die_sys(cmd);
	close(fd);
}

/* Joins words with spaces after prefix into buf; exits if it does not fit. */
static void join(char *buf, size_t size, const char *prefix, int n,
		 char **words)
{
	strlcpy(buf, prefix, size);
	for (int i = 0; i < n; i++) {
		if (i || prefix[0])
			strlcat(buf, " ", size);
		if (strlcat(buf, words[i], size) >= size)
			die("too long (a command or marker is at most 255 bytes)");
	}
}

/* Copies a whole file to stdout. */
static void cat_file(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (write_all(STDOUT_FILENO, chunk, (size_t)n) < 0)
			die_sys("stdout");
	if (n < 0)
		die_sys(path);
	close(fd);
}

/* ---- cat: merging cpuN text by time -------------------------------------- */

struct src {
	struct linereader lr;
	char *line;
	size_t cap;
	ssize_t len;		/* current line's length, 0 when done */
	uint64_t key;		/* its time in ns, or the previous line's */
	const char *path;
};

/* Lists the N of every NAME<N> in /dev/ttrace, ascending. Returns count. */
static int list_cpus(const char *name, int *cpus)
{
	struct dirent d[16];
	size_t plen = strlen(name);
	int fd = open_or_die(DEV, O_RDONLY), n, count = 0;

	while ((n = readdir(fd, d, 16)) > 0) {
		for (int i = 0; i < n && count < MAX_CPUS; i++) {
			char *end;
			long v;

			if (strncmp(d[i].name, name, plen) ||
			    d[i].name[plen] < '0' || d[i].name[plen] > '9')
				continue;
			v = strtol(d[i].name + plen, &end, 10);
			if (*end == 0 && v >= 0 && v < MAX_CPUS)
				cpus[count++] = (int)v;
		}
	}
	if (n < 0)
		die_sys(DEV);
	close(fd);
	for (int i = 1; i < count; i++)		/* few: insertion sort */
		for (int j = i; j > 0 && cpus[j] < cpus[j - 1]; j--) {
			int t = cpus[j];

			cpus[j] = cpus[j - 1];
			cpus[j - 1] = t;
		}
	return count;
}

/* Parses the leading "SECONDS.MMM" microseconds of a line into ns. */
static bool line_time(const char *s, uint64_t *ns)
{
	uint64_t us = 0, frac = 0;
	int digits = 0;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		us = us * 10 + (uint64_t)(*s++ - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (digits < 3) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				digits++;
			}
	while (digits++ < 3)
		frac *= 10;
	*ns = us * 1000 + frac;
	return true;
}

static void src_next(struct src *s)
{
	s->len = linereader_getline(&s->lr, &s->line, &s->cap);
	if (s->len < 0)
		die_sys(s->path);
	if (s->len > 0)
		line_time(s->line, &s->key);	/* else keep the last time */
}

/* Prints the cpuN files of cpus[0..n) merged by their lines' times. */
static void cat_merged(const int *cpus, int n)
{
	struct src *s = calloc((size_t)n, sizeof(*s));
	static char paths[MAX_CPUS][32];

	if (!s)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), DEV "/cpu%d", cpus[i]);
		s[i].path = paths[i];
		linereader_init(&s[i].lr, open_or_die(paths[i], O_RDONLY));
		src_next(&s[i]);
	}
	for (;;) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (s[i].len > 0 && (best < 0 || s[i].key < s[best].key))
				best = i;
		if (best < 0)
			break;
		printf("%s%s", s[best].line,
		       s[best].line[s[best].len - 1] == '\n' ? "" : "\n");
		src_next(&s[best]);
	}
	for (int i = 0; i < n; i++) {
		close(s[i].lr.fd);
		free(s[i].line);
	}
	free(s);
}

static int cmd_cat(int argc, char **argv)
{
	static int cpus[MAX_CPUS];
	int n, c, one = -1;

	while ((c = getopt(argc, argv, "c:")) != -1) {
		if (c != 'c')
			die("usage: ttrace cat [-c CPU]");
		one = atoi(optarg);
	}
	n = list_cpus("cpu", cpus);
	if (one >= 0) {
		cpus[0] = one;
		n = 1;
	}
	cat_merged(cpus, n);
	return 0;
}

/* ---- save: the trace file ----------------------------------------------- */

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return write_all(*(int *)arg, buf, (size_t)len) < 0 ? -1 : 0;
}

/* Exits if the writer failed (after the last call: errors stick). */
static void wcheck(const struct ttrace_file_writer *w, const char *out)
{
	if (w->error == TTRACE_FILE_EIO)
		die_sys(out);
	if (w->error)
		die("internal error: trace file written out of order");
}

/* Streams len bytes of fd (already opened, at the right offset) as the
 * rest of the open section; path names fd in errors. */
static void stream_rest(struct ttrace_file_writer *w, int fd, uint64_t len,
			const char *path, const char *out)
{
	char msg[96];

	while (len) {
		size_t want = len < CHUNK ? (size_t)len : CHUNK;
		size_t got = read_full(fd, chunk, want, path);

		if (got < want) {
			snprintf(msg, sizeof(msg), "%s: ended early (trace "
				 "resized? try again)", path);
			die(msg);
		}
		ttrace_file_section_data(w, chunk, got);
		wcheck(w, out);
		len -= got;
	}
	ttrace_file_section_end(w);
	wcheck(w, out);
}

/* A whole device file of len bytes as one section. */
static void stream_file(struct ttrace_file_writer *w, const char *path,
			uint32_t type, uint32_t cpu, uint64_t len,
			const char *out)
{
	int fd = open_or_die(path, O_RDONLY);

	ttrace_file_section_begin(w, type, cpu, len);
	stream_rest(w, fd, len, path, out);
	close(fd);
}

/* The aux file: a version header (for the snapshot's counters), then the
 * snapshot, streamed behind a struct ttrace_file_aux. */
static void save_aux(struct ttrace_file_writer *w, const char *out)
{
	struct ttrace_version v;
	struct ttrace_file_aux a;
	int fd = open_or_die(DEV "/aux", O_RDONLY);

	if (read_full(fd, &v, sizeof(v), DEV "/aux") != sizeof(v) ||
	    v.aux_last < v.aux_first || v.aux_last - v.aux_first > v.aux_size)
		die(DEV "/aux: bad header");
	a.first = v.aux_first;
	a.last = v.aux_last;
	ttrace_file_section_begin(w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + (a.last - a.first));
	ttrace_file_section_data(w, &a, sizeof(a));
	stream_rest(w, fd, a.last - a.first, DEV "/aux", out);
	close(fd);
}

/* Finds "key N", "key=N" or "key: N" among the words of line. */
static bool stat_value(const char *line, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);

	for (const char *p = line; (p = strstr(p, key)) != NULL; p += klen) {
		const char *q = p + klen;

		if ((p != line && p[-1] != ' ' && p[-1] != '\t' &&
		     p[-1] != ',') || (*q >= 'a' && *q <= 'z'))
			continue;
		while (*q == '=' || *q == ':' || *q == ' ')
			q++;
		if (*q >= '0' && *q <= '9') {
			*v = strtoull(q, NULL, 0);
			return true;
		}
	}
	return false;
}

/*
 * STATS sections from the stats text: each line that starts with "cpuN"
 * and names written, overwritten and dropped counts ("written 5",
 * "written=5" or "written: 5"). Optional: a stats file in another shape
 * just gives no sections.
 */
static void save_stats(struct ttrace_file_writer *w, uint32_t ncpus,
		       const char *out)
{
	static char text[CHUNK];
	int fd = open(DEV "/stats", O_RDONLY);
	size_t n;

	if (fd < 0)
		return;
	n = read_full(fd, text, sizeof(text) - 1, DEV "/stats");
	close(fd);
	text[n] = 0;
	for (char *line = text, *nl; line && *line; line = nl) {
		struct ttrace_file_stats st;
		char *end;
		unsigned long cpu;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		cpu = strtoul(line + 3, &end, 10);
		if (cpu < ncpus && stat_value(end, "written", &st.written) &&
		    stat_value(end, "overwritten", &st.overwritten) &&
		    stat_value(end, "dropped", &st.dropped))
			ttrace_file_write_section(w, TTRACE_FILE_SEC_STATS,
						  (uint32_t)cpu, &st, sizeof(st));
	}
	wcheck(w, out);
}

/* Reads and sanity-checks the version header (the host checks the rest). */
static void read_version(struct ttrace_version *v)
{
	int fd = open_or_die(DEV "/version", O_RDONLY);

	if (read_full(fd, v, sizeof(*v), DEV "/version") != sizeof(*v) ||
	    v->magic != TTRACE_MAGIC || v->header_size != sizeof(*v) ||
	    v->entry_size != TTRACE_ENTRY_SIZE || v->num_cpus == 0 ||
	    v->num_cpus > MAX_CPUS || !IS_PWR2(v->entries_per_cpu))
		die(DEV "/version: not a version header this tool knows");
	close(fd);
}

/* Bytes of the run at p (header and entries), or 0 if it is not whole in
 * the len bytes there. */
static size_t run_bytes(const uint8_t *p, size_t len)
{
	const struct ttrace_file_run *h = (const void *)p;

	if (len < sizeof(*h) || (h->type != TTRACE_FILE_SEC_RECORDS &&
				 h->type != TTRACE_FILE_SEC_LOSS) ||
	    (h->type == TTRACE_FILE_SEC_RECORDS &&
	     h->count > (len - sizeof(*h)) / TTRACE_ENTRY_SIZE))
		return 0;
	return sizeof(*h) + (h->type == TTRACE_FILE_SEC_RECORDS ?
			     (size_t)h->count * TTRACE_ENTRY_SIZE : 0);
}

/*
 * Writes the runs read from a rawN or streamN file (len bytes at buf) as
 * sections of cpu, one RECORDS section per stretch of adjacent record
 * runs. Returns the records written.
 */
static uint64_t write_runs(struct ttrace_file_writer *w, uint32_t cpu,
			   const uint8_t *buf, size_t len, const char *out)
{
	uint64_t records = 0;
	size_t pos = 0;

	while (pos < len) {
		struct ttrace_file_run h = *(const struct ttrace_file_run *)
					   (const void *)(buf + pos);
		size_t end = pos, n;

		if (!run_bytes(buf + pos, len - pos))
			die("the device returned a malformed run");
		if (h.type == TTRACE_FILE_SEC_LOSS) {
			ttrace_file_write_section(w, h.type, cpu, &h, sizeof(h));
			pos += sizeof(h);
			continue;
		}
		h.count = 0;		/* merge adjacent record runs */
		while (end < len && (n = run_bytes(buf + end, len - end)) &&
		       ((const struct ttrace_file_run *)(const void *)
			(buf + end))->type == TTRACE_FILE_SEC_RECORDS) {
			h.count += (n - sizeof(h)) / TTRACE_ENTRY_SIZE;
			end += n;
		}
		ttrace_file_section_begin(w, h.type, cpu, sizeof(h) +
					  h.count * TTRACE_ENTRY_SIZE);
		ttrace_file_section_data(w, &h, sizeof(h));
		for (; pos < end; pos += n) {
			n = run_bytes(buf + pos, end - pos);
			ttrace_file_section_data(w, buf + pos + sizeof(h),
						 n - sizeof(h));
		}
		ttrace_file_section_end(w);
		records += h.count;
	}
	wcheck(w, out);
	return records;
}

/* One read of a rawN/streamN file into sections; returns the bytes read. */
static size_t drain_once(struct ttrace_file_writer *w, int fd, uint32_t cpu,
			 const char *path, const char *out)
{
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		die_sys(path);
	write_runs(w, cpu, chunk, (size_t)n, out);
	return (size_t)n;
}

/* CPU c's records as of now (rawN to its end), or as the snapshot probe
 * copied them (snapN). */
static void save_ring(struct ttrace_file_writer *w, uint32_t c,
		      const char *kind, const char *out)
{
	char raw[32];
	int fd;

	snprintf(raw, sizeof(raw), DEV "/%s%u", kind, c);
	fd = open_or_die(raw, O_RDONLY);
	while (drain_once(w, fd, c, raw, out))
		;
	close(fd);
}

/* The file header, VERSION and META. */
static void save_head(struct ttrace_file_writer *w,
		      const struct ttrace_version *v, const char *out)
{
	ttrace_file_write_header(w);
	ttrace_file_write_section(w, TTRACE_FILE_SEC_VERSION, 0, v, sizeof(*v));
	wcheck(w, out);
	stream_file(w, DEV "/meta", TTRACE_FILE_SEC_META, 0, v->meta_size, out);
}

/* AUX, TSC, STATS and END. */
static void save_tail(struct ttrace_file_writer *w, uint32_t ncpus,
		      const char *out)
{
	save_aux(w, out);
	stream_file(w, DEV "/tsc", TTRACE_FILE_SEC_TSC, 0,
		    ncpus * sizeof(struct ttrace_file_tsc), out);
	save_stats(w, ncpus, out);
	ttrace_file_write_end(w);
	wcheck(w, out);
}

/* Opens path for a trace file and starts w on it; returns the fd. */
static int out_open(struct ttrace_file_writer *w, const char *path, int *fd)
{
	*fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);
	partial = path;
	ttrace_file_writer_init(w, file_out, fd);
	return *fd;
}

static void out_close(const struct ttrace_file_writer *w, const char *path,
		      int fd)
{
	if (close(fd) < 0)
		die_sys(path);
	partial = NULL;
	printf("ttrace: saved %s: %llu bytes, crc32 %#010x\n", path,
	       (unsigned long long)w->offset, w->file_crc);
}

/* Saves the whole trace (kind "raw"), or the snapshot a snapshot probe
 * took ("snap"), to path; prints its size and CRC-32. */
static void save(const char *path, const char *kind)
{
	struct ttrace_file_writer w;
	struct ttrace_version v;
	int fd;

	read_version(&v);
	out_open(&w, path, &fd);
	save_head(&w, &v, path);
	for (uint32_t c = 0; c < v.num_cpus; c++)
		save_ring(&w, c, kind, path);
	save_tail(&w, v.num_cpus, path);
	out_close(&w, path, fd);
}

/* ---- stream -------------------------------------------------------------- */

/* Whether process pid has exited (its /proc status says Z, or it is gone). */
static bool exited(int pid)
{
	char path[32], line[96];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return true;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = 0;
	return n <= 0 || strstr(line, " Z ") != NULL;
}

/* The TSC now, as the version header gives it. */
static uint64_t tsc_now(void)
{
	struct ttrace_version v;

	read_version(&v);
	return v.tsc_now;
}

static int cmd_stream(int argc, char **argv)
{
	static int fds[MAX_CPUS];
	const char *out = "/dev/host/out";
	struct ttrace_file_writer w;
	struct ttrace_version v;
	char path[32];
	uint64_t secs = 0, t0, bytes = 0;
	int c, fd, pid = 0, status = 0, fdmap[3] = { 0, 1, 2 };

	while ((c = getopt(argc, argv, "o:t:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 't')
			secs = strtoull(optarg, NULL, 10);
		else
			die("usage: ttrace stream [-o FILE] [-t SECONDS] "
			    "[-- CMD [ARG...]]");
	}
	if (optind >= argc && !secs)
		secs = 10;
	read_version(&v);
	t0 = v.tsc_now;
	for (uint32_t i = 0; i < v.num_cpus; i++) {
		snprintf(path, sizeof(path), DEV "/stream%u", i);
		fds[i] = open_or_die(path, O_RDONLY);
	}
	out_open(&w, out, &fd);
	save_head(&w, &v, out);
	if (optind < argc) {
		snprintf(path, sizeof(path), "%s%s", strchr(argv[optind], '/') ?
			 "" : "/bin/", argv[optind]);
		if ((pid = spawn(path, argv + optind, fdmap)) < 0)
			die_sys(path);
	}
	for (int ending = 0; ending < FINAL_PASSES;) {
		size_t got = 0;

		for (uint32_t i = 0; i < v.num_cpus; i++)
			got += drain_once(&w, fds[i], i, "stream", out);
		bytes += got;
		if (ending)
			ending = got ? ending + 1 : FINAL_PASSES;
		else if ((pid && exited(pid)) ||
			 (secs && tsc_now() - t0 >= secs * v.tsc_hz))
			ending = 1;	/* drain what is there, then stop */
		if (!got && !ending)
			nanosleep(10000000);
	}
	if (pid && waitpid(pid, &status) < 0)
		die_sys("wait");
	for (uint32_t i = 0; i < v.num_cpus; i++)
		close(fds[i]);
	save_tail(&w, v.num_cpus, out);
	out_close(&w, out, fd);
	printf("ttrace: streamed %llu bytes of records in %llu ms",
	       (unsigned long long)bytes,
	       (unsigned long long)((tsc_now() - t0) / (v.tsc_hz / 1000)));
	if (pid)
		printf("; %s exited with status %d", argv[optind], status);
	printf("\n");
	return 0;
}

/* ---- record -------------------------------------------------------------- */

/* Reads the event metadata into *t; *mem holds it until freed. */
static void meta_load(struct ttrace_meta_table *t, void **mem)
{
	struct ttrace_version v;
	const char *why;
	uint8_t *blob;
	size_t n;
	int fd;

	read_version(&v);
	blob = malloc(v.meta_size ? v.meta_size : 1);
	fd = open_or_die(DEV "/meta", O_RDONLY);
	if (!blob || read_full(fd, blob, v.meta_size, DEV "/meta") !=
		     v.meta_size)
		die(DEV "/meta: cannot read the event metadata");
	close(fd);
	n = ttrace_meta_arena_size(blob, v.meta_size);
	*mem = malloc(n ? n : 1);
	if (!*mem || ttrace_meta_parse(blob, v.meta_size, *mem, n, t, &why) < 0)
		die(*mem ? why : "out of memory");
	free(blob);
}

/* Builds "enable G..." for the groups the metadata turns on by default. */
static void default_groups(char *cmd, size_t size)
{
	struct ttrace_meta_table t;
	void *mem;

	meta_load(&t, &mem);
	strlcpy(cmd, "enable", size);
	for (uint32_t g = 0; g < t.ngroups; g++) {
		if (!(t.groups[g].flags & TTRACE_EVF_DEFAULT_ON))
			continue;
		strlcat(cmd, " ", size);
		if (strlcat(cmd, t.groups[g].name, size) >= size)
			die("too many default groups for one ctl command");
	}
	free(mem);
}

static int cmd_record(int argc, char **argv)
{
	const char *out = DEFAULT_OUT;
	char cmd[CTL_MAX + 1], path[128];
	struct ttrace_version v;
	int c, pid, status, fdmap[3] = { 0, 1, 2 };

	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o')
			die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
		out = optarg;
	}
	if (optind >= argc)
		die("usage: ttrace record [-o FILE] -- CMD [ARG...]");
	read_version(&v);
	default_groups(cmd, sizeof(cmd));
	snprintf(path, sizeof(path), "%s%s", strchr(argv[optind], '/') ? "" :
		 "/bin/", argv[optind]);
	ctl_write("clear");
	snprintf(restore, sizeof(restore), "setmask %#llx 0xffffffffffffffff",
		 (unsigned long long)v.group_mask);
	ctl_write(cmd);
	pid = spawn(path, argv + optind, fdmap);
	if (pid < 0)
		die_sys(path);
	if (waitpid(pid, &status) < 0)
		die_sys("wait");
	ctl_write("setmask 0 0xffffffffffffffff");	/* don't trace the save */
	save(out, "raw");
	ctl_write(restore);
	restore[0] = 0;
	printf("ttrace: %s exited with status %d\n", argv[optind], status);
	return 0;
}

/* ---- graph: the function-graph tracer around one command ------------------ */

/* Writes glob to the funcs file (the graph tracer's filter). */
static void funcs_write(const char *glob)
{
	int fd = open_or_die(DEV "/funcs", O_WRONLY);

	if (write(fd, glob, strlen(glob)) < 0)
		die_sys(glob);
	close(fd);
}

/* ttrace graph [-f GLOB] [-o FILE] -- CMD: records every call into the
 * functions GLOB selects while CMD runs (docs/function-graph.md), saves
 * the trace, and leaves every function site a NOP again. */
static int cmd_graph(int argc, char **argv)
{
	const char *out = "/dev/host/out", *glob = "*";
	char path[128];
	int c, pid, status, fdmap[3] = { 0, 1, 2 };

	while ((c = getopt(argc, argv, "f:o:")) != -1) {
		if (c == 'f')
			glob = optarg;
		else if (c == 'o')
			out = optarg;
		else
			die("usage: ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]");
	}
	if (optind >= argc)
		die("usage: ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]");
	snprintf(path, sizeof(path), "%s%s", strchr(argv[optind], '/') ? "" :
		 "/bin/", argv[optind]);
	funcs_write(glob);
	ctl_write("clear");
	strlcpy(restore, "disable func", sizeof(restore));
	ctl_write("enable func");
	pid = spawn(path, argv + optind, fdmap);
	if (pid >= 0 && waitpid(pid, &status) < 0)
		die_sys("wait");
	ctl_write(restore);	/* every function site a NOP again */
	restore[0] = 0;
	funcs_write("*");
	if (pid < 0)
		die_sys(path);
	save(out, "raw");
	printf("ttrace: %s exited with status %d; graph saved to %s\n",
	       argv[optind], status, out);
	return 0;
}

/* ---- probes -------------------------------------------------------------- */

#define PROBES_MAX	(128 * 1024)	/* the kernel's probes text, at most */
#define BAR_WIDTH	40

/* The probes file into a buffer (NUL terminated) the caller frees. */
static char *probes_text(void)
{
	char *text = malloc(PROBES_MAX + 1);
	int fd = open_or_die(DEV "/probes", O_RDONLY);
	size_t n;

	if (!text)
		die("out of memory");
	n = read_full(fd, text, PROBES_MAX, DEV "/probes");
	close(fd);
	text[n] = 0;
	return text;
}

/* Reads up to max numbers from line s (words that are not numbers are
 * skipped); returns how many. */
static int numbers(const char *s, uint64_t *v, int max)
{
	int n = 0;

	while (*s && *s != '\n' && n < max) {
		char *end;

		if (*s >= '0' && *s <= '9') {
			v[n++] = strtoull(s, &end, 10);
			s = end;
		} else {
			s++;
		}
	}
	return n;
}

static const char *next_line(const char *l)
{
	const char *e = strchr(l, '\n');

	return e ? e + 1 : l + strlen(l);
}

/* The line that opens probe name's block in text, or NULL. */
static const char *probe_block(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = text; *l; l = next_line(l))
		if (!strncmp(l, "probe ", 6) && !strncmp(l + 6, name, n) &&
		    l[6 + n] == ' ')
			return l;
	return NULL;
}

/* The largest count below line l: of the keys of a count ("  key K count
 * N"), or of the buckets ("    LOW HIGH N") under one key. */
static uint64_t block_max(const char *l, bool buckets)
{
	uint64_t max = 1, v[3];

	for (l = next_line(l); *l == ' '; l = next_line(l)) {
		if (buckets && strncmp(l, "    ", 4))
			break;
		if (buckets && numbers(l, v, 3) == 3 && v[2] > max)
			max = v[2];
		if (!buckets && !strncmp(l, "  key", 5) && numbers(l, v, 2) == 2 &&
		    v[1] > max)
			max = v[1];
	}
	return max;
}

static void bar(uint64_t n, uint64_t max)
{
	char b[BAR_WIDTH + 1];
	size_t w = (size_t)(n * BAR_WIDTH / max);

	memset(b, '#', w);
	b[w] = 0;
	printf(" |%s\n", b);
}

/* Prints the probe block opening at l with text bars: one per key for a
 * count, one per bucket under each key for a histogram. */
static void show_block(const char *l)
{
	const char *eol = strchr(l, '\n');
	bool count = eol && strstr(l, " count ") && strstr(l, " count ") < eol;
	uint64_t max = count ? block_max(l, false) : 1, v[3];

	printf("%.*s\n", (int)(next_line(l) - l - 1), l);
	for (l = next_line(l); *l == ' '; l = next_line(l)) {
		int len = (int)(next_line(l) - l - 1);

		if (!strncmp(l, "    ", 4) && numbers(l, v, 3) == 3) {
			printf("  %12llu .. %-12llu %8llu",
			       (unsigned long long)v[0],
			       (unsigned long long)v[1],
			       (unsigned long long)v[2]);
			bar(v[2], max);
		} else if (count && !strncmp(l, "  key", 5) &&
			   numbers(l, v, 2) == 2) {
			printf("  key %-12llu %8llu", (unsigned long long)v[0],
			       (unsigned long long)v[1]);
			bar(v[1], max);
		} else {
			if (!strncmp(l, "  key", 5))
				max = block_max(l, true);
			printf("%.*s\n", len, l);
		}
	}
}

/* The name ttrace hist gives a probe: KIND.WORD..., cut to 23 characters
 * (the kernel's limit). */
static void hist_name(char *name, const char *kind, const char *a,
		      const char *b)
{
	char full[160];

	snprintf(full, sizeof(full), "%s.%s%s%s", kind, a, b ? "." : "",
		 b ? b : "");
	for (char *p = full; *p; p++)
		if (*p == ':')
			*p = '.';
	snprintf(name, 24, "%s", full);
}

/* The first argument of event name, if it has one (NULL otherwise): the
 * default key of a latency histogram (syscall_enter: the syscall). */
static const char *first_arg(const struct ttrace_meta_table *t,
			     const char *name)
{
	for (uint32_t e = 0; e < t->nevents; e++)
		if (!strcmp(t->events[e].name, name))
			return t->events[e].nargs ? t->events[e].args[0].name :
			       NULL;
	return NULL;
}

/* ttrace hist EVENT[:FIELD] ... | latency START END ...: shows the probe
 * if it exists, else starts it. */
static int cmd_hist(int argc, char **argv)
{
	char name[24], cmd[CTL_MAX + 1], *text, *field;
	const char *l;
	bool lat = argc >= 3 && !strcmp(argv[0], "latency");
	int rest = lat ? 3 : 1;

	if (argc < 1 || (!strcmp(argv[0], "latency") && argc < 3))
		die("usage: ttrace hist EVENT[:FIELD] | ttrace hist latency "
		    "START END");
	if (lat)
		hist_name(name, "lat", argv[1], argv[2]);
	else
		hist_name(name, "hist", argv[0], NULL);
	text = probes_text();
	if ((l = probe_block(text, name))) {
		show_block(l);
		free(text);
		return 0;
	}
	free(text);
	if (lat) {
		struct ttrace_meta_table t;
		void *mem;
		const char *key;

		meta_load(&t, &mem);
		key = argc == 3 ? first_arg(&t, argv[1]) : NULL;
		snprintf(cmd, sizeof(cmd), "probe %s latency %s %s%s%s", name,
			 argv[1], argv[2], key ? " by " : "", key ? key : "");
		free(mem);
	} else if ((field = strchr(argv[0], ':'))) {
		*field++ = 0;
		snprintf(cmd, sizeof(cmd), "probe %s hist %s %s", name, argv[0],
			 field);
	} else {
		snprintf(cmd, sizeof(cmd), "probe %s count %s", name, argv[0]);
	}
	join(cmd, sizeof(cmd), cmd, argc - rest, argv + rest);
	ctl_write(cmd);
	printf("ttrace: probe %s started; run the same command to see it\n",
	       name);
	return 0;
}

/* Loads a probe module (an ELF object: "module load PATH"), or writes
 * each line of a text file (blank and # lines aside) to ctl, stopping at
 * the first the kernel refuses. */
static void probe_load(const char *path)
{
	struct linereader lr;
	char line[CTL_MAX + 2];
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n = read(fd, line, 4);

	if (n == 4 && !memcmp(line, "\177ELF", 4)) {
		close(fd);
		snprintf(line, sizeof(line), "module load %s", path);
		ctl_write(line);
		return;
	}
	close(fd);
	fd = open_or_die(path, O_RDONLY);
	linereader_init(&lr, fd);
	while ((n = linereader_next(&lr, line, sizeof(line))) > 0) {
		char *p = line;

		line[n - (line[n - 1] == '\n')] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#')
			ctl_write(p);
	}
	if (n < 0)
		die_sys(path);
	close(fd);
}

/* Unloads module name, or else removes built-in probe name. */
static void probe_unload(const char *name)
{
	char cmd[CTL_MAX + 1];
	int fd = open_or_die(DEV "/ctl", O_WRONLY);

	snprintf(cmd, sizeof(cmd), "module unload %s", name);
	if (write(fd, cmd, strlen(cmd)) < 0) {
		snprintf(cmd, sizeof(cmd), "unprobe %s", name);
		if (write(fd, cmd, strlen(cmd)) < 0)
			die_sys(cmd);
	}
	close(fd);
}

/* ---- main ---------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr,
		"usage: ttrace status\n"
		"       ttrace enable|disable NAME...\n"
		"       ttrace clear\n"
		"       ttrace mark TEXT...\n"
		"       ttrace cat [-c CPU]\n"
		"       ttrace save [-s] FILE\n"
		"       ttrace hist EVENT[:FIELD] [by FIELD] [if TEST...]\n"
		"       ttrace hist latency START END [by FIELD] [if TEST...]\n"
		"       ttrace probe list|load FILE|unload NAME\n"
		"       ttrace counters\n"
		"       ttrace record [-o FILE] -- CMD [ARG...]\n"
		"       ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]\n"
		"       ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	char buf[CTL_MAX + 1];
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "status") && argc == 2) {
		cat_file(DEV "/ctl");
		cat_file(DEV "/stats");
	} else if ((!strcmp(c, "enable") || !strcmp(c, "disable")) &&
		   argc > 2) {
		join(buf, sizeof(buf), c, argc - 2, argv + 2);
		ctl_write(buf);
	} else if (!strcmp(c, "clear") && argc == 2) {
		ctl_write("clear");
	} else if (!strcmp(c, "mark") && argc > 2) {
		int fd = open_or_die(DEV "/marker", O_WRONLY);

		join(buf, sizeof(buf), "", argc - 2, argv + 2);
		if (write(fd, buf, strlen(buf)) < 0)
			die_sys(DEV "/marker");
		close(fd);
	} else if (!strcmp(c, "cat")) {
		return cmd_cat(argc - 1, argv + 1);
	} else if (!strcmp(c, "save") && argc == 3) {
		save(argv[2], "raw");
	} else if (!strcmp(c, "save") && argc == 4 && !strcmp(argv[2], "-s")) {
		save(argv[3], "snap");
	} else if (!strcmp(c, "counters") && argc == 2) {
		cat_file(DEV "/counters");
	} else if (!strcmp(c, "hist")) {
		return cmd_hist(argc - 2, argv + 2);
	} else if (!strcmp(c, "probe") && argc == 3 &&
		   !strcmp(argv[2], "list")) {
		cat_file(DEV "/probes");
	} else if (!strcmp(c, "probe") && argc == 4 &&
		   !strcmp(argv[2], "load")) {
		probe_load(argv[3]);
	} else if (!strcmp(c, "probe") && argc == 4 &&
		   !strcmp(argv[2], "unload")) {
		probe_unload(argv[3]);
	} else if (!strcmp(c, "record")) {
		return cmd_record(argc - 1, argv + 1);
	} else if (!strcmp(c, "graph")) {
		return cmd_graph(argc - 1, argv + 1);
	} else if (!strcmp(c, "stream")) {
		return cmd_stream(argc - 1, argv + 1);
	} else {
		return usage();
	}
	return 0;
}
