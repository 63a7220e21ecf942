/*
 * image.c: writes a whole trace file (docs/trace-file.md) from the
 * tracer's structures in memory: header, VERSION, META, each CPU's RECORDS
 * and LOSS runs, RANGE, AUX, TSC, each CPU's STATS, END: the order `ttrace
 * save` writes too (docs/trace-file.md). The rings are read with
 * trace_ring_read() from the oldest live slot to the head as it was when
 * the CPU's turn came: every index is either in a RECORDS run or in a
 * declared LOSS run. Nobody is expected to write the rings meanwhile (a
 * panic stopped the other CPUs; a pulled guest is stopped or hung), so a
 * slot found mid-write stays so and is given up at once: declared lost
 * "in flight", never waited for.
 *
 * The aux buffer is copied between its first and last counters as they
 * are (two pieces when they wrap); a record caught mid-write has its VALID
 * bit clear and readers skip and count it.
 */
#include <ttrace_image.h>

/* AUX: the counters, then the bytes from first to last. */
static void write_aux(struct ttrace_file_writer *w, const struct ttrace_aux *a)
{
	struct ttrace_file_aux hdr = { a->first, a->last };
	uint64_t len = a->last - a->first;
	uint64_t off = a->first & a->mask;
	uint64_t part = MIN(len, a->size - off);

	ttrace_file_section_begin(w, TTRACE_FILE_SEC_AUX, 0, sizeof(hdr) + len);
	ttrace_file_section_data(w, &hdr, sizeof(hdr));
	ttrace_file_section_data(w, a->buf + off, part);
	ttrace_file_section_data(w, a->buf, len - part);
	ttrace_file_section_end(w);
}

/* Writes cpu's ring r as RECORDS and LOSS sections, oldest first, through
 * buf (max entries, more than TTRACE_MAX_CONT). Nobody writes r meanwhile:
 * a slot in flight is declared lost at once. */
void ttrace_image_write_ring(struct ttrace_file_writer *w,
			     const struct trace_ring *r, uint32_t cpu,
			     struct ttrace_entry *buf, size_t max)
{
	struct trace_ring_cursor cur;
	struct trace_ring_run run;
	uint64_t end = trace_ring_head(r);
	uint32_t k;

	trace_ring_cursor_oldest(r, &cur);
	while ((k = trace_ring_read(r, &cur, end, buf, max, &run))) {
		struct ttrace_file_run hdr;

		if (k == TRACE_RUN_BUSY)
			trace_ring_give_up(&cur, &run);
		ttrace_file_run_init(&hdr, k == TRACE_RUN_RECORDS, run.first,
				     run.count, run.reason);
		ttrace_file_section_begin(w, hdr.type, cpu, sizeof(hdr) +
			(k == TRACE_RUN_RECORDS ? run.count * sizeof(*buf) : 0));
		ttrace_file_section_data(w, &hdr, sizeof(hdr));
		if (k == TRACE_RUN_RECORDS)
			ttrace_file_section_data(w, buf, run.count * sizeof(*buf));
		ttrace_file_section_end(w);
	}
}

/* RANGE: each ring's [oldest, head), the indices its runs cover (the
 * rings stand still, so these are the bounds write_ring read). */
static void write_range(struct ttrace_file_writer *w,
			const struct ttrace_image *img)
{
	uint32_t n = img->version.num_cpus;

	ttrace_file_section_begin(w, TTRACE_FILE_SEC_RANGE, 0,
				  n * sizeof(struct ttrace_file_range));
	for (uint32_t c = 0; c < n; c++) {
		struct trace_ring_cursor cur;
		struct ttrace_file_range range;

		trace_ring_cursor_oldest(&img->rings[c], &cur);
		range.first = cur.next;
		range.end = trace_ring_head(&img->rings[c]);
		ttrace_file_section_data(w, &range, sizeof(range));
	}
	ttrace_file_section_end(w);
}

/* Each CPU's STATS. */
static void write_stats(struct ttrace_file_writer *w,
			const struct ttrace_image *img)
{
	for (uint32_t c = 0; c < img->version.num_cpus; c++) {
		struct trace_ring_stats st;
		struct ttrace_file_stats fs;

		trace_ring_stats(&img->rings[c], &st);
		fs.written = st.written;
		fs.overwritten = st.overwritten;
		fs.dropped = st.dropped;
		fs.filtered = st.filtered;
		ttrace_file_write_section(w, TTRACE_FILE_SEC_STATS, c, &fs,
					  sizeof(fs));
	}
}

/*
 * Writes img as a complete trace file to w (from its header to END).
 * buf is scratch for max entries (more than TTRACE_MAX_CONT). Returns the
 * writer's result: 0, or its sticky error. Precondition: nobody writes the
 * rings or aux meanwhile.
 */
int ttrace_image_write(struct ttrace_file_writer *w,
		       const struct ttrace_image *img, struct ttrace_entry *buf,
		       size_t max)
{
	const struct ttrace_version *v = &img->version;

	ttrace_file_write_header(w);
	ttrace_file_write_section(w, TTRACE_FILE_SEC_VERSION, 0, v, sizeof(*v));
	ttrace_file_write_section(w, TTRACE_FILE_SEC_META, 0, img->meta,
				  v->meta_size);
	for (uint32_t c = 0; c < v->num_cpus; c++)
		ttrace_image_write_ring(w, &img->rings[c], c, buf, max);
	write_range(w, img);
	if (img->aux)
		write_aux(w, img->aux);
	if (img->tsc)
		ttrace_file_write_section(w, TTRACE_FILE_SEC_TSC, 0, img->tsc,
					  v->num_cpus * sizeof(*img->tsc));
	write_stats(w, img);
	return ttrace_file_write_end(w);
}
