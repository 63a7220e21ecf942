/*
 * ttrace_image.h: the one writer of the trace file (docs/trace-file.md).
 * Every trace file comes from here: `ttrace save`, `record`, `graph` and
 * `stream` read it from the #ttrace device (kern/trace/tracefile.c),
 * the kernel's panic flight recorder (kern/trace/dump.c) and the
 * host's pull (tools/ttpull.c) write it straight from the tracer's
 * structures in memory. So the sections and their order exist once:
 *
 *	header, VERSION, META, RECORDS and LOSS runs (CPU 0's, then CPU 1's,
 *	...; a stream interleaves them), RANGE, AUX, TSC, each CPU's STATS,
 *	END
 *
 * The generator (struct ttrace_image_gen) writes the file one piece at a
 * time (the header, one section, one run, one chunk of a long payload:
 * at most TTRACE_IMAGE_PIECE_MAX() bytes), so a caller streams a file of
 * any size through a bounded buffer. Where the contents come from is the
 * caller's struct ttrace_image_ops: the live tracer (the device) or rings
 * standing still in memory (struct ttrace_image: the panic dump, the
 * pull). The ring-reading rules (runs, seq checks, declared losses)
 * stay in trace_ring_read().
 *
 * Usage, pushing (panic dump, pull):
 *	struct ttrace_image img = { .version = v, .meta = blob,
 *				    .rings = rings, .aux = &aux, .tsc = tsc };
 *	ttrace_file_writer_init(&w, out, arg);
 *	if (ttrace_image_write(&w, &img, scratch, 1024) < 0) ...
 *
 * Usage, pulled by reads (the device):
 *	struct ttrace_image_pipe p = { .gen = { .version = &v, ..., .ops =
 *		&live_ops, .arg = src, .buf = scratch, .max = n },
 *		.out = mem, .size = TTRACE_IMAGE_PIECE_MAX(n, ncpus) };
 *	ttrace_image_pipe_init(&p);
 *	while ((k = ttrace_image_pipe_read(&p, dst, len, off)) > 0) off += k;
 */
#ifndef TTRACE_IMAGE_H
#define TTRACE_IMAGE_H

#include <compiler.h>
#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_file.h>

/* Where the sections' contents come from; arg is the gen's. */
struct ttrace_image_ops {
	/* cpu's next run: TRACE_RUN_RECORDS (run->count entries into
	 * buf, at most max, and their CRC-32C in run->crc: read them with
	 * trace_ring_read_crc()) or TRACE_RUN_LOST, run set; TRACE_RUN_NONE
	 * when cpu has no more (a stream: for now); TRACE_RUN_BUSY when it
	 * waits for a slot in flight (the step returns TTRACE_IMAGE_WAIT
	 * and reads cpu again at the next). */
	uint32_t (*run)(void *arg, uint32_t cpu, struct ttrace_entry *buf,
			size_t max, struct trace_ring_run *run);
	/* The logical indices cpu's runs covered (the RANGE section). */
	void (*range)(void *arg, uint32_t cpu, struct ttrace_file_range *r);
	/* The aux snapshot: its counters and its bytes, in up to two
	 * pieces. Returns 1, 0 for no AUX section, -1 on failure. */
	int (*aux)(void *arg, struct ttrace_file_aux *a,
		   const uint8_t *piece[2], uint64_t len[2]);
	/* cpu's ring counters. */
	void (*stats)(void *arg, uint32_t cpu, struct ttrace_file_stats *st);
};

/* A ring's counters as its STATS section holds them, with the ring they
 * count (its start, size and mode). */
static inline void ttrace_image_stats(struct ttrace_file_stats *fs,
				      const struct trace_ring_stats *st)
{
	*fs = (struct ttrace_file_stats){ st->written, st->overwritten,
					  st->dropped, st->filtered,
					  st->str_dropped, st->start,
					  st->nentries, st->mode };
}

/* A trace file being written, a piece per ttrace_image_step(). The
 * caller fills the first block and zeroes the rest. */
struct ttrace_image_gen {
	const struct ttrace_version *version;	/* complete */
	const void *meta;		/* version->meta_size bytes */
	const struct ttrace_file_tsc *tsc; /* num_cpus pairs; NULL: no TSC */
	const struct ttrace_image_ops *ops;
	void *arg;
	struct ttrace_file_writer *w;
	struct ttrace_entry *buf;	/* scratch for max entries */
	size_t max;			/* more than TTRACE_MAX_CONT */
	bool stream;			/* interleave CPUs until ended */
	/* state */
	bool ending;			/* stream: ttrace_image_end() called */
	uint32_t state;
	uint32_t cpu;
	uint32_t idle;			/* stream: CPUs in a row with nothing */
	const uint8_t *piece[2];	/* the open section's payload left */
	uint64_t left[2];
};

/* What ttrace_image_step() did. */
enum ttrace_image_step {
	TTRACE_IMAGE_DONE = -1,		/* the file is complete, or w failed */
	TTRACE_IMAGE_WAIT = 0,		/* nothing for now (a stream, or a
					   slot in flight) */
	TTRACE_IMAGE_MORE = 1,		/* wrote a piece */
};

int ttrace_image_step(struct ttrace_image_gen *g);
void ttrace_image_end(struct ttrace_image_gen *g);
/*
 * Bytes one step writes at most, for a gen of max scratch entries and
 * num_cpus CPUs: a run's section, a chunk with a section header, the
 * file header with VERSION, or a RANGE or TSC section (16 bytes a CPU),
 * each with its CRC and padding. A constant expression when its
 * arguments are, so a caller's buffer can be checked at compile time.
 */
#define TTRACE_IMAGE_PIECE_MAX(max, num_cpus)				\
	((max) * sizeof(struct ttrace_entry) + 320 >			\
	 (size_t)(num_cpus) * 16 + 128 ?				\
	 (max) * sizeof(struct ttrace_entry) + 320 :			\
	 (size_t)(num_cpus) * 16 + 128)

/* The generator pulled by reads at increasing offsets: pieces go into
 * out (size bytes, at least TTRACE_IMAGE_PIECE_MAX()) and are read from
 * there. */
struct ttrace_image_pipe {
	struct ttrace_image_gen gen;
	uint8_t *out;
	size_t size;
	/* state */
	struct ttrace_file_writer w;
	size_t len, pos;		/* out[pos, len) not read yet */
	uint64_t off;			/* file offset of out[pos] */
};

void ttrace_image_pipe_init(struct ttrace_image_pipe *p);
int64_t ttrace_image_pipe_read(struct ttrace_image_pipe *p, void *dst,
			       size_t n, uint64_t off);

/* Rings, aux and metadata standing still in memory. */
struct ttrace_image {
	struct ttrace_version version;	/* complete: aux bounds, num_cpus... */
	const void *meta;		/* version.meta_size bytes */
	const struct trace_ring *rings;	/* version.num_cpus rings */
	const struct ttrace_aux *aux;	/* NULL: no AUX section */
	const struct ttrace_file_tsc *tsc; /* num_cpus pairs; NULL: no TSC */
};

void ttrace_image_write_ring(struct ttrace_file_writer *w,
			     const struct trace_ring *r, uint32_t cpu,
			     struct ttrace_entry *buf, size_t max);
int ttrace_image_write(struct ttrace_file_writer *w,
		       const struct ttrace_image *img, struct ttrace_entry *buf,
		       size_t max);

#endif /* TTRACE_IMAGE_H */
