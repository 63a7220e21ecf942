/*
 * ttrace_tracefile.c: the #ttrace device's trace files (trace, stream,
 * and those of a snapshot set: snaptrace, NAME_trace; internal.h), a whole trace file each, made as it is read by
 * the one writer (kern/trace/lib/image.c) from the live tracer. This
 * file is only the writer's source: the version header, metadata and TSC
 * offsets as of the first read, each CPU's runs as its rawN, snapN or
 * streamN file reads them (ttrace_run_next(): the same cursor, end and
 * patience), the indices those runs covered, an aux snapshot taken when
 * the writer reaches AUX, and each ring's counters, binary, at STATS.
 *
 * Memory is bounded whatever the trace's size: SCRATCH_ORDER pages of
 * entries for one run, as many for the piece the writer made last (the
 * pipe), and the aux snapshot while AUX is read. The in-kernel drain
 * (drain.c) steps the same generator into its own writer instead of the
 * pipe (ttrace_tracefile_step()): no copy to the pipe, none to a reader.
 */
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <ttrace_image.h>
#include <abi/errno.h>
#include <arch/mmu.h>

#include "internal.h"

#define SCRATCH_ORDER	4	/* 64 KiB of entries, and of output */
#define RUN_ENTRIES	1000	/* a run's section fits the output: fewer
				   runs, less framing a record (the drain) */

TTRACE_STATIC_ASSERT(RUN_ENTRIES * sizeof(struct ttrace_entry) <=
		     (size_t)PGSIZE << SCRATCH_ORDER, "a run fits the scratch");
TTRACE_STATIC_ASSERT(TTRACE_IMAGE_PIECE_MAX(RUN_ENTRIES,
					    CONFIG_MAX_NUM_CPUS) <=
		     (size_t)PGSIZE << SCRATCH_ORDER,
		     "the writer's largest piece fits the pipe");

/* What the writer read of one CPU. */
struct tf_cpu {
	struct trace_ring_cursor cur;
	uint64_t end;
	struct trace_ring_patience wait;
	struct ttrace_file_range range;	/* the indices its runs covered */
	bool started;
};

struct ttrace_tracefile {
	struct spinlock lock;
	struct ttrace *t;		/* the tracer it reads */
	enum ttrace_read_kind kind;	/* RAW, SNAP, STREAM */
	struct ttrace_snap_view view;	/* SNAP: the copy read */
	uint32_t src;			/* SNAP: whose (ttrace_snap_src) */
	struct ttrace_meta_snap *meta;	/* RAW, STREAM: the metadata held
					   (SNAP: the view's) */
	bool started;
	enum ttrace_copy copy;		/* how runs are read: the step's */
	enum ttrace_busy busy;		/* a slot in flight: the step's */
	struct ttrace_version v;
	struct ttrace_file_tsc tsc[CONFIG_MAX_NUM_CPUS];
	struct ttrace_image_pipe pipe;
	struct ttrace_entry *scratch;
	char *aux;			/* the aux snapshot, once taken */
	unsigned aux_order;
	struct tf_cpu cpu[CONFIG_MAX_NUM_CPUS];
};

static uint32_t tf_run(void *arg, uint32_t cpu, struct ttrace_entry *buf,
		       size_t max, struct trace_ring_run *run)
{
	struct ttrace_tracefile *f = arg;
	struct tf_cpu *c = &f->cpu[cpu];
	uint32_t k;

	if (!c->started) {
		ttrace_run_start(f->t, f->kind, cpu, &c->cur, &c->end, &c->wait);
		c->started = true;
	}
	k = ttrace_run_next(f->t, f->kind, &f->view, cpu, &c->cur, &c->end,
			    &c->wait, buf, max, run, f->copy, f->busy);
	if (k == TRACE_RUN_NONE)
		return k;
	if (c->range.first == c->range.end)	/* its first run */
		c->range.first = run->first;
	c->range.end = run->first + run->count;
	return k;
}

static void tf_range(void *arg, uint32_t cpu, struct ttrace_file_range *r)
{
	*r = ((struct ttrace_tracefile *)arg)->cpu[cpu].range;
}

/* The aux snapshot, taken now (after the records, so that it names
 * everything they name). */
static int tf_aux(void *arg, struct ttrace_file_aux *a,
		  const uint8_t *piece[2], uint64_t len[2])
{
	struct ttrace_tracefile *f = arg;
	struct ttrace_aux_view view;
	uint64_t bytes, size, dropped;

	ttrace_aux_usage(f->t, &bytes, &size, &dropped);
	f->aux_order = ttrace_order_for(size);
	if (((size_t)PGSIZE << f->aux_order) < size)
		return -1;
	f->aux = get_cont_pages(f->aux_order, 0);
	if (!f->aux || ttrace_aux_read(f->t, f->aux, size, &view))
		return -1;
	*a = (struct ttrace_file_aux){ view.first, view.last };
	piece[0] = (const uint8_t *)f->aux;
	len[0] = view.len;
	len[1] = 0;
	return 1;
}

static void tf_stats(void *arg, uint32_t cpu, struct ttrace_file_stats *fs)
{
	struct ttrace_tracefile *f = arg;
	struct trace_ring_stats st;

	ttrace_ring_get_stats(f->t, cpu, &st);
	ttrace_image_stats(fs, &st);
}

static const struct ttrace_image_ops tf_ops = {
	.run = tf_run,
	.range = tf_range,
	.aux = tf_aux,
	.stats = tf_stats,
};

struct ttrace_tracefile *ttrace_tracefile_new(enum ttrace_read_kind kind)
{
	struct ttrace_tracefile *f = kzmalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->t = &ttrace_main;
	f->scratch = get_cont_pages(SCRATCH_ORDER, 0);
	f->pipe.out = get_cont_pages(SCRATCH_ORDER, 0);
	if (!f->scratch || !f->pipe.out) {
		ttrace_tracefile_free(f);
		return NULL;
	}
	spinlock_init(&f->lock, "ttrace_tracefile");
	f->kind = kind;
	f->copy = TTRACE_COPY_CRC;
	f->src = TTRACE_SNAP_PROBE;
	return f;
}

struct ttrace_tracefile *ttrace_tracefile_snap(uint32_t src)
{
	struct ttrace_tracefile *f = ttrace_tracefile_new(TTRACE_READ_SNAP);

	if (f)
		f->src = src;
	return f;
}

void ttrace_tracefile_free(struct ttrace_tracefile *f)
{
	if (!f)
		return;
	ttrace_snap_view_end(&f->view);
	ttrace_meta_reader_end(f->meta);
	if (f->scratch)
		free_cont_pages(f->scratch, SCRATCH_ORDER);
	if (f->pipe.out)
		free_cont_pages(f->pipe.out, SCRATCH_ORDER);
	if (f->aux)
		free_cont_pages(f->aux, f->aux_order);
	kfree(f);
}

/* The first read or step: the header's contents as of now (the
 * metadata held until f is freed, metasnap.c: the current one, or the
 * frozen copy's own), the generator set up to write to w (NULL: to the
 * pipe, for reads). */
static void tf_start(struct ttrace_tracefile *f, struct ttrace_file_writer *w)
{
	const struct ttrace_meta_snap *m;

	if (f->kind == TTRACE_READ_SNAP) {
		ttrace_snap_view_begin(&f->view, f->src);
		m = f->view.meta;
	} else {
		m = f->meta = ttrace_meta_reader_begin();
	}
	ttrace_fill_version(&f->v);
	f->v.meta_size = m->size;
	ttrace_tsc_offsets(f->tsc);
	f->pipe.gen = (struct ttrace_image_gen){
		.version = &f->v, .tsc = f->tsc, .meta = m->blob,
		.ops = &tf_ops, .arg = f, .buf = f->scratch,
		.max = RUN_ENTRIES, .stream = f->kind == TTRACE_READ_STREAM,
	};
	f->pipe.size = (size_t)PGSIZE << SCRATCH_ORDER;
	ttrace_image_pipe_init(&f->pipe);
	if (w)
		f->pipe.gen.w = w;
	f->started = true;
}

long ttrace_tracefile_read(struct ttrace_tracefile *f, void *buf, size_t n,
			   uint64_t off)
{
	int64_t r;

	spin_lock(&f->lock);
	if (!f->started)
		tf_start(f, NULL);
	r = ttrace_image_pipe_read(&f->pipe, buf, n, off);
	spin_unlock(&f->lock);
	return r == -1 ? -ESPIPE : r == -2 ? -ENOMEM : (long)r;
}

/* A stream's end: every CPU bounded at its head now, read as rawN reads
 * (waiting for a slot in flight with rawN's patience, not the stream's,
 * then declaring it lost), then the rest of the file. f->lock held, f
 * started. */
static void tf_bound(struct ttrace_tracefile *f)
{
	if (f->kind != TTRACE_READ_STREAM)
		return;
	f->kind = TTRACE_READ_RAW;
	for (uint32_t c = 0; c < f->v.num_cpus; c++) {
		f->cpu[c].end = ttrace_ring_end(f->t, c);
		ttrace_run_patience(f->kind, &f->cpu[c].wait);
	}
	ttrace_image_end(&f->pipe.gen);
}

/* A stream read: its end (tf_bound()). The write that says so moves the
 * file offset by written bytes: the next read continues there. */
void ttrace_tracefile_end(struct ttrace_tracefile *f, size_t written)
{
	spin_lock(&f->lock);
	if (!f->started)
		tf_start(f, NULL);
	tf_bound(f);
	f->pipe.off += written;
	spin_unlock(&f->lock);
}

/*
 * The in-kernel drain (drain.c): writes f's next piece straight to w, no
 * pipe (w for the whole file: the first step binds it); with end set,
 * bounds a stream first (tf_bound()). Returns ttrace_image_step()'s
 * TTRACE_IMAGE_MORE, _WAIT (a stream with nothing new, or a slot in
 * flight: a step never spins) or _DONE (the file is complete, or w
 * failed). Process context; nobody reads f.
 */
int ttrace_tracefile_step(struct ttrace_tracefile *f,
			  struct ttrace_file_writer *w, bool end, bool simd)
{
	int r;

	spin_lock(&f->lock);
	f->copy = simd ? TTRACE_COPY_CRC_SIMD : TTRACE_COPY_CRC;
	f->busy = TTRACE_BUSY_RETURN;
	if (!f->started)
		tf_start(f, w);
	if (end)
		tf_bound(f);
	r = ttrace_image_step(&f->pipe.gen);
	spin_unlock(&f->lock);
	return r;
}
