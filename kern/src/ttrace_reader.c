/*
 * ttrace_reader.c: the readers behind the #ttrace files that keep state
 * between reads (ttrace_dev.h): cpuN, rawN, streamN and snapN with a
 * cursor in a ring, aux and probes with a snapshot taken at the first read.
 * The device makes one per open, so processes sharing the open file share
 * it, under its lock.
 *
 * rawN and cpuN end at the head the ring had at the first read: a snapshot
 * of that moment. streamN never ends: a read returns what is there, or
 * nothing yet. rawN and streamN return runs: a struct ttrace_file_run,
 * then for RECORDS its entries; every logical index comes once, as a
 * record or inside a declared loss. A slot still being written is waited
 * for, briefly (trace_ring_wait(): the ring's rule, host-tested), then
 * declared lost as in flight; a stream waits across reads instead of
 * spinning. cpuN formats each run's events as text lines with the
 * decoder's line format, names resolved from an aux snapshot.
 */
#include <kmalloc.h>
#include <module.h>
#include <ns.h>
#include <pmem.h>
#include <printfmt.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "ttrace_internal.h"

#define PROBES_TEXT_ORDER 5	/* 128 KiB: 16 probes of 64 keys' bars */
#define LINE_MAX	512	/* one text line, newline included */
#define TEXT_EVENTS	16	/* events formatted per refill of cpuN text */
#define SNAP_WAIT_NS	20000000	/* wait for a slot in flight: 20 ms */
#define STREAM_WAIT_NS	200000000	/* ... in a stream, across reads */
#define RUN_MIN		(sizeof(struct ttrace_file_run) + \
			 (1 + TTRACE_MAX_CONT) * sizeof(struct ttrace_entry))

/* Pages of caller-chosen size: aux snapshots and text buffers. */
struct snap {
	char *data;
	size_t len;
	unsigned order;
};

struct ttrace_reader {
	struct spinlock lock;
	enum ttrace_read_kind kind;
	bool started;
	uint32_t cpu;
	struct trace_ring_cursor cur;
	uint64_t end;			/* snapshot bound; UINT64_MAX: stream */
	struct trace_ring_patience wait;
	struct snap *aux;		/* aux, probes: the snapshot; cpuN:
					   the names */
	struct ttrace_aux_view names;
	struct snap *text;		/* cpuN: formatted, not yet read */
	size_t text_pos;
	struct ttrace_entry ev[TEXT_EVENTS * (1 + TTRACE_MAX_CONT)];
};

static struct snap *snap_alloc(size_t bytes)
{
	struct snap *s = kzmalloc(sizeof(*s));
	unsigned order = ttrace_order_for(bytes);

	if (!s || ((size_t)PGSIZE << order) < bytes ||
	    !(s->data = get_cont_pages(order, 0))) {
		kfree(s);
		return NULL;
	}
	s->order = order;
	return s;
}

static void snap_free(struct snap *s)
{
	if (s) {
		free_cont_pages(s->data, s->order);
		kfree(s);
	}
}

struct ttrace_reader *ttrace_reader_new(enum ttrace_read_kind kind,
					uint32_t cpu)
{
	struct ttrace_reader *r = kzmalloc(sizeof(*r));

	if (r) {
		spinlock_init(&r->lock, "ttrace_reader");
		r->kind = kind;
		r->cpu = cpu;
	}
	return r;
}

void ttrace_reader_free(struct ttrace_reader *r)
{
	if (r) {
		snap_free(r->aux);
		snap_free(r->text);
		kfree(r);
	}
}

/* The aux file: the version header, then the linear aux snapshot. */
static struct snap *aux_snapshot(void)
{
	struct ttrace_version v;
	struct ttrace_aux_view view;
	uint64_t bytes, size, dropped;
	struct snap *s;

	ttrace_aux_usage(&bytes, &size, &dropped);
	s = snap_alloc(sizeof(v) + size);
	if (!s)
		return NULL;
	if (ttrace_aux_read(s->data + sizeof(v), size, &view)) {
		snap_free(s);
		return NULL;
	}
	ttrace_fill_version(&v);
	v.aux_first = view.first;
	v.aux_last = view.last;
	memcpy(s->data, &v, sizeof(v));
	s->len = sizeof(v) + view.len;
	return s;
}

/* The probes file: their results as text at the first read (they change
 * as they are read: cat's own syscalls count). */
static struct snap *probes_snapshot(void)
{
	size_t size = (size_t)PGSIZE << PROBES_TEXT_ORDER;
	struct snap *s = snap_alloc(size);

	static const char cut[] = "\n-- truncated: more than 128 KiB --\n";
	size_t len;

	if (!s)
		return NULL;
	len = ttrace_probes_text(s->data, size);
	len += module_text(s->data + MIN(len, size), size - MIN(len, size));
	s->len = MIN(len, size - 1);
	if (len > s->len)	/* said, never silent */
		memcpy(s->data + s->len - (sizeof(cut) - 1), cut, sizeof(cut) - 1);
	return s;
}

/* First read: fix the snapshot bound, take the snapshots. */
static int reader_start(struct ttrace_reader *r)
{
	uint64_t size, bytes, dropped, wait_ns;

	if (r->kind == TTRACE_READ_AUX)
		return (r->aux = aux_snapshot()) ? 0 : -ENOMEM;
	if (r->kind == TTRACE_READ_PROBES)
		return (r->aux = probes_snapshot()) ? 0 : -ENOMEM;
	wait_ns = r->kind == TTRACE_READ_STREAM ? STREAM_WAIT_NS : SNAP_WAIT_NS;
	r->wait.limit = wait_ns / 1000 * (tsc_freq_hz / 1000000);
	if (r->kind == TTRACE_READ_SNAP)
		return 0;	/* cursor and end set by the first read */
	ttrace_ring_oldest(r->cpu, &r->cur);
	r->end = r->kind == TTRACE_READ_STREAM ? UINT64_MAX :
						  ttrace_ring_end(r->cpu);
	if (r->kind != TTRACE_READ_TEXT)
		return 0;
	ttrace_aux_usage(&bytes, &size, &dropped);
	r->aux = snap_alloc(size);
	r->text = snap_alloc(TEXT_EVENTS * LINE_MAX);
	if (!r->aux || !r->text || ttrace_aux_read(r->aux->data, size, &r->names))
		return -ENOMEM;
	return 0;
}

/* Reads the next run for r into out (max entries), waiting for a slot in
 * flight as trace_ring_wait() says: a stream returns TRACE_RUN_NONE
 * meanwhile, the others spin. */
static uint32_t next_run(struct ttrace_reader *r, struct ttrace_entry *out,
			 size_t max, struct trace_ring_run *run)
{
	uint32_t k;

	for (;;) {
		k = r->kind == TTRACE_READ_SNAP ?
		    ttrace_snap_read(r->cpu, &r->cur, &r->end, out, max, run) :
		    ttrace_ring_read(r->cpu, &r->cur, r->end, out, max, run);
		k = trace_ring_wait(&r->wait, &r->cur, run, k, arch_read_tsc());
		if (k != TRACE_RUN_BUSY)
			return k;
		if (r->kind == TTRACE_READ_STREAM)
			return TRACE_RUN_NONE;
		arch_pause();
	}
}

/* rawN, streamN, snapN: whole runs into buf while one more fits. */
static long runs_read(struct ttrace_reader *r, uint8_t *buf, size_t n)
{
	size_t done = 0;

	if (n < RUN_MIN)
		return -EINVAL;
	while (n - done >= RUN_MIN) {
		struct ttrace_file_run *hdr = (void *)(buf + done);
		struct ttrace_entry *out = (void *)(hdr + 1);
		struct trace_ring_run run;
		uint32_t k = next_run(r, out, (n - done) / sizeof(*out) - 1, &run);

		if (k == TRACE_RUN_NONE)
			break;
		ttrace_file_run_init(hdr, k == TRACE_RUN_RECORDS, run.first,
				     run.count, run.reason);
		done += sizeof(*hdr) + (k == TRACE_RUN_RECORDS ?
					run.count * sizeof(*out) : 0);
	}
	return (long)done;
}

/* Appends one line of len characters and a newline to s (room for
 * LINE_MAX bytes is left by the caller). */
static void add_line(struct snap *s, const char *line, int len)
{
	size_t n = (size_t)MIN(MAX(len, 0), LINE_MAX - 2);

	memcpy(s->data + s->len, line, n);
	s->len += n;
	s->data[s->len++] = '\n';
}

/* Formats the next run of r as text lines into r->text. Returns false at
 * the end of the snapshot. */
static bool text_refill(struct ttrace_reader *r)
{
	struct trace_ring_run run;
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	char line[LINE_MAX];
	uint32_t k = next_run(r, r->ev, ARRAY_SIZE(r->ev), &run);

	r->text->len = 0;
	r->text_pos = 0;
	if (k == TRACE_RUN_NONE)
		return false;
	if (k == TRACE_RUN_LOST) {
		add_line(r->text, line, fmt_snprintf(line, sizeof(line),
			 "-- cpu%u: %lu records lost (%s), slots %lu-%lu --",
			 r->cpu, run.count, ttrace_loss_name(run.reason), run.first,
			 run.first + run.count - 1));
		return true;
	}
	ttrace_pair_init(&it, r->ev, run.count);
	while (ttrace_pair_next(&it, &ev)) {
		ev.timestamp -= (uint64_t)tsc_offset[r->cpu];	/* CPU 0's clock */
		add_line(r->text, line, ttrace_format_timed_line(line,
			 sizeof(line), tsc_freq_hz, tsc_at_boot,
			 &ttrace_meta_builtin, &ev, ttrace_aux_resolve,
			 &r->names));
	}
	return true;
}

/* cpuN: text lines as they are formatted, a run at a time. */
static long text_read(struct ttrace_reader *r, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t k;

		if (r->text_pos == r->text->len && !text_refill(r))
			break;
		k = MIN(n - done, r->text->len - r->text_pos);
		memcpy(buf + done, r->text->data + r->text_pos, k);
		r->text_pos += k;
		done += k;
	}
	return (long)done;
}

long ttrace_reader_read(struct ttrace_reader *r, void *buf, size_t n,
			uint64_t off)
{
	long ret = 0;

	spin_lock(&r->lock);
	if (!r->started) {
		ret = reader_start(r);
		r->started = ret == 0;
	}
	if (ret == 0) {
		if (r->kind == TTRACE_READ_AUX || r->kind == TTRACE_READ_PROBES)
			ret = devgen_readbytes(off, buf, n, r->aux->data,
					       r->aux->len);
		else if (r->kind == TTRACE_READ_TEXT)
			ret = text_read(r, buf, n);
		else
			ret = runs_read(r, buf, n);
	}
	spin_unlock(&r->lock);
	return ret;
}
