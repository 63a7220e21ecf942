/*
 * ttrace_image.c: the one writer of the trace file (docs/trace-file.md,
 * ttrace_image.h). A generator writes the sections in the format's order
 * a piece at a time, from the contents a struct ttrace_image_ops gives:
 * pushed to a writer whole (ttrace_image_write(): the panic dump, the
 * pull) or pulled by reads through a bounded buffer (the pipe: the
 * #ttrace device's trace files).
 *
 * Rings standing still in memory (struct ttrace_image) are read with
 * trace_ring_read() from the ring's start (its clear point) to the head
 * as it was when the CPU's turn came: every index since the clear is
 * either in a RECORDS run or in a declared LOSS run, the slots the ring
 * overwrote before the read first, as an OVERWRITTEN loss. Nobody is expected to write the rings meanwhile (a
 * panic stopped the other CPUs; a pulled guest is stopped or hung), so a
 * slot found mid-write stays so and is given up at once: declared lost
 * "in flight", never waited for. Their aux buffer is copied between its
 * first and last counters as they are (two pieces when they wrap); a
 * record caught mid-write has its VALID bit clear and readers skip and
 * count it.
 */
#include <string.h>
#include <ttrace_image.h>

enum { S_HEAD, S_META, S_RINGS, S_RANGE, S_AUX, S_AUX_DATA, S_TSC,
       S_STATS, S_END, S_DONE };

/* Payload bytes of one chunk of a long section (META, AUX). */
static size_t chunk_bytes(const struct ttrace_image_gen *g)
{
	return g->max * sizeof(struct ttrace_entry);
}

/* A run as a RECORDS (its count entries in buf, their CRC-32C run->crc:
 * trace_ring_read_crc()) or LOSS section. */
static void write_run(struct ttrace_file_writer *w, uint32_t cpu, uint32_t k,
		      const struct trace_ring_run *run,
		      const struct ttrace_entry *buf)
{
	struct ttrace_file_run hdr;
	uint64_t bytes = k == TRACE_RUN_RECORDS ? run->count * sizeof(*buf) : 0;

	ttrace_file_run_init(&hdr, k == TRACE_RUN_RECORDS, run->first,
			     run->count, run->reason);
	ttrace_file_section_begin(w, hdr.type, cpu, sizeof(hdr) + bytes);
	ttrace_file_section_data(w, &hdr, sizeof(hdr));
	ttrace_file_section_data_crc(w, buf, bytes, run->crc);
	ttrace_file_section_end(w);
}

/* The next chunk of the open section's payload (g->piece); ends the
 * section after the last. Returns true when it ended. */
static bool payload_next(struct ttrace_image_gen *g)
{
	size_t room = chunk_bytes(g);

	for (int i = 0; i < 2; i++) {
		uint64_t n = MIN(g->left[i], room);

		ttrace_file_section_data(g->w, g->piece[i], n);
		g->piece[i] += n;
		g->left[i] -= n;
		room -= n;
	}
	if (g->left[0] || g->left[1])
		return false;
	ttrace_file_section_end(g->w);
	return true;
}

/* The file header and VERSION; META begun. */
static void write_head(struct ttrace_image_gen *g)
{
	const struct ttrace_version *v = g->version;

	ttrace_file_write_header(g->w);
	ttrace_file_write_section(g->w, TTRACE_FILE_SEC_VERSION, 0, v,
				  sizeof(*v));
	ttrace_file_section_begin(g->w, TTRACE_FILE_SEC_META, 0, v->meta_size);
	g->piece[0] = g->meta;
	g->left[0] = v->meta_size;
	g->left[1] = 0;
}

/*
 * Where the next run is read to: if the writer's output is memory with
 * room for the run's largest section, straight where its records will land
 * (write_run() then hands out() its own bytes: no copy), else g->buf.
 * After a section header and a run prefix (one entry), so 64-byte aligned
 * when the output is (a file's payloads start at 0 mod 64).
 */
static struct ttrace_entry *run_buf(struct ttrace_image_gen *g)
{
	uint64_t prefix = TTRACE_FILE_SEC_HDR_SIZE + sizeof(struct ttrace_file_run);
	uint8_t *p = ttrace_file_writer_place(g->w, prefix + g->max *
		sizeof(struct ttrace_entry) + TTRACE_FILE_CRC_SIZE);

	if (!p || ((uintptr_t)(p + prefix) & (_Alignof(struct ttrace_entry) - 1)))
		return g->buf;
	return (struct ttrace_entry *)(void *)(p + prefix);
}

/*
 * One run of the CPU whose turn it is. A save takes each CPU to its end
 * in turn; a stream takes one run of each CPU in turn and waits when a
 * whole round found nothing, until ttrace_image_end() (then a whole
 * round of nothing is every CPU at its end). A run holds no more than
 * the version header says a ring holds (ttrace_file_run_max()), though
 * the rings grew meanwhile (a bufsize while a stream or save is read).
 * A source that will not wait here for a slot in flight returns
 * TRACE_RUN_BUSY: the step waits.
 */
static int rings_step(struct ttrace_image_gen *g)
{
	uint32_t n = g->version->num_cpus, cpu = g->cpu;
	struct trace_ring_run run;
	struct ttrace_entry *buf = run_buf(g);
	uint32_t k = g->ops->run(g->arg, cpu, buf, MIN(g->max,
		ttrace_file_run_max(g->version->entries_per_cpu)), &run);

	if (k == TRACE_RUN_BUSY)	/* the same CPU again, later */
		return TTRACE_IMAGE_WAIT;
	if (k != TRACE_RUN_NONE) {
		write_run(g->w, cpu, k, &run, buf);
		g->idle = 0;
		if (g->stream)
			g->cpu = (cpu + 1) % n;
		return TTRACE_IMAGE_MORE;
	}
	g->cpu = g->stream ? (cpu + 1) % n : cpu + 1;
	if (g->stream && ++g->idle < n)
		return TTRACE_IMAGE_MORE;
	if (g->stream && !g->ending) {
		g->idle = 0;
		return TTRACE_IMAGE_WAIT;
	}
	if (!g->stream && g->cpu < n)
		return TTRACE_IMAGE_MORE;
	g->state = S_RANGE;
	return TTRACE_IMAGE_MORE;
}

/* RANGE: the indices each CPU's runs covered. */
static void write_range(struct ttrace_image_gen *g)
{
	uint32_t n = g->version->num_cpus;

	ttrace_file_section_begin(g->w, TTRACE_FILE_SEC_RANGE, 0,
				  n * sizeof(struct ttrace_file_range));
	for (uint32_t c = 0; c < n; c++) {
		struct ttrace_file_range range;

		g->ops->range(g->arg, c, &range);
		ttrace_file_section_data(g->w, &range, sizeof(range));
	}
	ttrace_file_section_end(g->w);
}

/* Begins AUX (its counters written, its bytes in g->piece): returns the
 * state after, S_TSC when there is none. A source that fails fails the
 * writer. */
static uint32_t aux_begin(struct ttrace_image_gen *g)
{
	struct ttrace_file_aux a;
	int r = g->ops->aux(g->arg, &a, g->piece, g->left);

	if (r < 0)
		g->w->error = TTRACE_FILE_EIO;
	if (r <= 0)
		return S_TSC;
	ttrace_file_section_begin(g->w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + g->left[0] + g->left[1]);
	ttrace_file_section_data(g->w, &a, sizeof(a));
	return S_AUX_DATA;
}

/* One CPU's STATS; the next state. */
static uint32_t stats_step(struct ttrace_image_gen *g)
{
	struct ttrace_file_stats st;

	g->ops->stats(g->arg, g->cpu, &st);
	ttrace_file_write_section(g->w, TTRACE_FILE_SEC_STATS, g->cpu, &st,
				  sizeof(st));
	return ++g->cpu < g->version->num_cpus ? S_STATS : S_END;
}

/*
 * Writes g's next piece to g->w (at most TTRACE_IMAGE_PIECE_MAX()
 * bytes; possibly none). Returns TTRACE_IMAGE_MORE (call again),
 * TTRACE_IMAGE_WAIT (a stream with nothing for now), or
 * TTRACE_IMAGE_DONE: the file is complete, or the writer failed
 * (g->w->error).
 */
int ttrace_image_step(struct ttrace_image_gen *g)
{
	if (g->w->error)
		return TTRACE_IMAGE_DONE;
	switch (g->state) {
	case S_HEAD:
		write_head(g);
		g->state = S_META;
		break;
	case S_META:
		if (payload_next(g))
			g->state = S_RINGS;
		break;
	case S_RINGS:
		return rings_step(g);
	case S_RANGE:
		write_range(g);
		g->state = S_AUX;
		break;
	case S_AUX:
		g->state = aux_begin(g);
		break;
	case S_AUX_DATA:
		if (payload_next(g))
			g->state = S_TSC;
		break;
	case S_TSC:
		if (g->tsc)
			ttrace_file_write_section(g->w, TTRACE_FILE_SEC_TSC, 0,
				g->tsc, g->version->num_cpus * sizeof(*g->tsc));
		g->cpu = 0;
		g->state = S_STATS;
		break;
	case S_STATS:
		g->state = stats_step(g);
		break;
	case S_END:
		ttrace_file_write_end(g->w);
		g->state = S_DONE;
		break;
	default:
		return TTRACE_IMAGE_DONE;
	}
	return TTRACE_IMAGE_MORE;
}

/* A stream: write what its sources hold up to their ends now, then the
 * rest of the file. Its source must bound every CPU first. */
void ttrace_image_end(struct ttrace_image_gen *g)
{
	g->ending = true;
	g->idle = 0;
}

static int pipe_out(void *arg, const void *buf, uint64_t len)
{
	struct ttrace_image_pipe *p = arg;

	if (len > p->size - p->len)
		return -1;
	memcpy(p->out + p->len, buf, len);
	p->len += len;
	return 0;
}

/* Starts p: p->gen filled but for w, p->out and p->size set. */
void ttrace_image_pipe_init(struct ttrace_image_pipe *p)
{
	ttrace_file_writer_init(&p->w, pipe_out, p);
	p->gen.w = &p->w;
	p->len = p->pos = 0;
	p->off = 0;
}

/*
 * Reads up to n bytes of the file at off, which must be where the last
 * read ended (0 at first). Returns the bytes read; 0 at the end of the
 * file, or for a stream with nothing for now; -1 for another offset, -2
 * when the writer failed.
 */
int64_t ttrace_image_pipe_read(struct ttrace_image_pipe *p, void *dst,
			       size_t n, uint64_t off)
{
	size_t done = 0;

	if (off != p->off)
		return -1;
	while (done < n) {
		size_t k;

		if (p->pos == p->len) {
			p->pos = p->len = 0;
			if (ttrace_image_step(&p->gen) != TTRACE_IMAGE_MORE &&
			    !p->len)
				break;
		}
		if (p->w.error)
			return -2;
		k = MIN(n - done, p->len - p->pos);
		memcpy((uint8_t *)dst + done, p->out + p->pos, k);
		p->pos += k;
		done += k;
	}
	if (p->w.error)
		return -2;
	p->off += done;
	return (int64_t)done;
}

/* ---- rings standing still in memory ------------------------------------ */

struct mem_src {
	const struct ttrace_image *img;
	const struct trace_ring *ring;	/* the ring cur is in */
	struct trace_ring_cursor cur;
	uint64_t end;
};

/* r's next run: from its start to its head as of the first call for r;
 * a slot in flight is given up at once. */
static uint32_t ring_next(struct mem_src *m, const struct trace_ring *r,
			  struct ttrace_entry *buf, size_t max,
			  struct trace_ring_run *run)
{
	uint32_t k;

	if (m->ring != r) {
		m->ring = r;
		trace_ring_cursor_start(r, &m->cur);
		m->end = trace_ring_head(r);
	}
	k = trace_ring_read_crc(r, &m->cur, m->end, buf, max, run, false);
	if (k == TRACE_RUN_BUSY) {
		trace_ring_give_up(&m->cur, run);
		k = TRACE_RUN_LOST;
	}
	return k;
}

static uint32_t mem_run(void *arg, uint32_t cpu, struct ttrace_entry *buf,
			size_t max, struct trace_ring_run *run)
{
	struct mem_src *m = arg;

	return ring_next(m, &m->img->rings[cpu], buf, max, run);
}

/* [start, head): the rings stand still, so the bounds mem_run read. */
static void mem_range(void *arg, uint32_t cpu, struct ttrace_file_range *r)
{
	const struct mem_src *m = arg;
	struct trace_ring_cursor cur;

	trace_ring_cursor_start(&m->img->rings[cpu], &cur);
	r->first = cur.next;
	r->end = trace_ring_head(&m->img->rings[cpu]);
}

/* The aux buffer between its counters: two pieces when they wrap. */
static int mem_aux(void *arg, struct ttrace_file_aux *fa,
		   const uint8_t *piece[2], uint64_t len[2])
{
	const struct ttrace_aux *a = ((const struct mem_src *)arg)->img->aux;
	uint64_t off, total;

	if (!a)
		return 0;
	*fa = (struct ttrace_file_aux){ a->first, a->last };
	total = a->last - a->first;
	off = a->first & a->mask;
	len[0] = MIN(total, a->size - off);
	len[1] = total - len[0];
	piece[0] = a->buf + off;
	piece[1] = a->buf;
	return 1;
}

static void mem_stats(void *arg, uint32_t cpu, struct ttrace_file_stats *fs)
{
	const struct mem_src *m = arg;
	struct trace_ring_stats st;

	trace_ring_stats(&m->img->rings[cpu], &st);
	ttrace_image_stats(fs, &st);
}

static const struct ttrace_image_ops mem_ops = {
	.run = mem_run,
	.range = mem_range,
	.aux = mem_aux,
	.stats = mem_stats,
};

/* Writes cpu's ring r as RECORDS and LOSS sections, from its start, through
 * buf (max entries, more than TTRACE_MAX_CONT): the runs a whole image
 * writes of it. Nobody writes r meanwhile. */
void ttrace_image_write_ring(struct ttrace_file_writer *w,
			     const struct trace_ring *r, uint32_t cpu,
			     struct ttrace_entry *buf, size_t max)
{
	struct mem_src m = { 0 };
	struct trace_ring_run run;
	uint32_t k;

	while ((k = ring_next(&m, r, buf, max, &run)))
		write_run(w, cpu, k, &run, buf);
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
	struct mem_src m = { .img = img };
	struct ttrace_image_gen g = {
		.version = &img->version, .meta = img->meta, .tsc = img->tsc,
		.ops = &mem_ops, .arg = &m, .w = w, .buf = buf, .max = max,
	};

	while (ttrace_image_step(&g) == TTRACE_IMAGE_MORE)
		;
	return w->error;
}
