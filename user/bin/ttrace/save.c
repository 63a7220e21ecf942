/*
 * save.c: `ttrace save [-s] FILE`, the whole trace as one file
 * (docs/trace-file.md): the header, VERSION and META, each CPU's records,
 * then RANGE, AUX, TSC, STATS and END. record and stream (record.c) write the
 * same file from the same pieces.
 *
 * save streams: each section goes out in chunks of CHUNK bytes through the
 * ttrace_file writer (kern/trace/lib/file.c), so a trace of any size needs
 * CHUNK bytes of memory. Records come from rawN as runs (each a RECORDS or
 * LOSS section's payload): one consistent picture of each ring as of the
 * first read, every missing index declared. The file's size and CRC-32
 * (zlib's crc32 of the whole file) are printed so that a copy on the host
 * can be checked with `ttdecode verify`.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

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
 * and names written, overwritten and dropped counts, and filtered if it
 * is there (a STATS without it is the older, shorter one) ("written 5",
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
				(uint32_t)cpu, &st,
				stat_value(end, "filtered", &st.filtered) ?
				sizeof(st) : TTRACE_FILE_STATS_MIN);
	}
	wcheck(w, out);
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

/* Entries a RECORDS section may hold: the ring's size (a stream's
 * adjacent runs can add up to more). Set by save_head(). */
static uint64_t max_section;

/* The indices each CPU's runs written so far cover (the RANGE section);
 * first == end until a CPU's first run. */
static struct ttrace_file_range range[MAX_CPUS];
static bool ranged[MAX_CPUS];

static void range_add(uint32_t cpu, const struct ttrace_file_run *h)
{
	if (!ranged[cpu])
		range[cpu].first = h->first;
	ranged[cpu] = true;
	range[cpu].end = h->first + h->count;
}

/*
 * Writes the runs read from a rawN or streamN file (len bytes at buf) as
 * sections of cpu, one RECORDS section per stretch of adjacent record
 * runs of at most max_section entries. Returns the records written.
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
			range_add(cpu, &h);
			ttrace_file_write_section(w, h.type, cpu, &h, sizeof(h));
			pos += sizeof(h);
			continue;
		}
		h.count = 0;		/* merge adjacent record runs */
		while (end < len && (n = run_bytes(buf + end, len - end)) &&
		       ((const struct ttrace_file_run *)(const void *)
			(buf + end))->type == TTRACE_FILE_SEC_RECORDS &&
		       (end == pos || h.count + (n - sizeof(h)) /
				      TTRACE_ENTRY_SIZE <= max_section)) {
			h.count += (n - sizeof(h)) / TTRACE_ENTRY_SIZE;
			end += n;
		}
		ttrace_file_section_begin(w, h.type, cpu, sizeof(h) +
					  h.count * TTRACE_ENTRY_SIZE);
		ttrace_file_section_data(w, &h, sizeof(h));
		for (; pos < end; pos += n) {
			n = run_bytes(buf + pos, end - pos);
			range_add(cpu, (const void *)(buf + pos));
			ttrace_file_section_data(w, buf + pos + sizeof(h),
						 n - sizeof(h));
		}
		ttrace_file_section_end(w);
		records += h.count;
	}
	wcheck(w, out);
	return records;
}

/*
 * Reads a rawN/streamN file into sections, as many whole runs as fill the
 * chunk (a read returns at most a page of them: the kernel moves a page
 * at a time, and a run never spans reads), so that adjacent record runs
 * become one section. Returns the bytes read; 0 when the file has no more
 * for now.
 */
size_t drain_once(struct ttrace_file_writer *w, int fd, uint32_t cpu,
			 const char *path, const char *out)
{
	size_t len = 0;
	ssize_t n = 1;

	while (n > 0 && CHUNK - len >= READ_MIN) {
		n = read(fd, chunk + len, CHUNK - len);
		if (n < 0)
			die_sys(path);
		len += (size_t)n;
	}
	write_runs(w, cpu, chunk, len, out);
	return len;
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
void save_head(struct ttrace_file_writer *w,
		      const struct ttrace_version *v, const char *out)
{
	max_section = v->entries_per_cpu;
	ttrace_file_write_header(w);
	ttrace_file_write_section(w, TTRACE_FILE_SEC_VERSION, 0, v, sizeof(*v));
	wcheck(w, out);
	stream_file(w, DEV "/meta", TTRACE_FILE_SEC_META, 0, v->meta_size, out);
}

/* RANGE, AUX, TSC, STATS and END. */
void save_tail(struct ttrace_file_writer *w, uint32_t ncpus,
		      const char *out)
{
	ttrace_file_write_section(w, TTRACE_FILE_SEC_RANGE, 0, range,
				  ncpus * sizeof(*range));
	wcheck(w, out);
	save_aux(w, out);
	stream_file(w, DEV "/tsc", TTRACE_FILE_SEC_TSC, 0,
		    ncpus * sizeof(struct ttrace_file_tsc), out);
	save_stats(w, ncpus, out);
	ttrace_file_write_end(w);
	wcheck(w, out);
}

/* Opens path for a trace file and starts w on it; returns the fd. */
int out_open(struct ttrace_file_writer *w, const char *path, int *fd)
{
	*fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);
	partial = path;
	ttrace_file_writer_init(w, file_out, fd);
	return *fd;
}

/* Closes what out_open() opened; prints its size and CRC-32. */
void out_close(const struct ttrace_file_writer *w, const char *path, int fd)
{
	if (close(fd) < 0)
		die_sys(path);
	partial = NULL;
	printf("ttrace: saved %s: %llu bytes, crc32 %#010x\n", path,
	       (unsigned long long)w->offset, w->file_crc);
}

/* Saves the whole trace (kind "raw"), or the snapshot a snapshot probe
 * took ("snap"), to path; prints its size and CRC-32. */
void save(const char *path, const char *kind)
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
