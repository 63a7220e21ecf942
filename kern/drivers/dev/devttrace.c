/*
 * #ttrace: the tracer as files (docs/ttrace-device.md), bound at
 * /dev/ttrace. This file only translates file operations into calls on the
 * tracer core (kern/src/ttrace.c, ttrace_control.c) and the pure decoders
 * in kern/lib; it holds no ring or aux logic.
 *
 *	ctl	commands in, state out	events	event list
 *	stats	counters		marker	user annotations in
 *	version	binary header		meta	metadata blob
 *	aux	header + aux snapshot	cpuN	CPU N's records as text
 *	rawN	CPU N's records, binary	streamN	... consumed as they come
 *	tsc	each CPU's TSC offset from CPU 0's (struct ttrace_file_tsc)
 *	probes	the built-in probes and their results (docs/probes.md)
 *	snapN	CPU N's ring as a snapshot probe copied it, as rawN
 *	counters the counters' current values (ttrace_counters.c)
 *
 * Each open of cpuN, rawN or streamN has its own cursor (struct tt_file,
 * made at open, so processes sharing the open file share it under its
 * lock). rawN and cpuN end at the head the ring had at the first read: a
 * snapshot of that moment. streamN never ends: a read returns what is
 * there, or nothing yet. rawN and streamN return runs: a struct
 * ttrace_file_run, then for RECORDS its entries; every logical index comes
 * once, as a record or inside a declared loss. A slot still being written
 * is waited for (briefly), then declared lost as in flight.
 */
#include <ns.h>
#include <module.h>
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <trace_ring.h>
#include <buddy.h>
#include <kmalloc.h>
#include <pmem.h>
#include <printfmt.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "../../src/ttrace_internal.h"

enum { Qdir, Qctl, Qevents, Qstats, Qmarker, Qversion, Qmeta, Qaux, Qtsc,
       Qfuncs, Qprobes, Qcounters,
       Qcpu = 0x100, Qraw = 0x200, Qstream = 0x300, Qsnap = 0x400 };

#define NFIXED		12
#define NPERCPU		4
#define PROBES_TEXT_ORDER 5	/* 128 KiB: 16 probes of 64 keys' bars */
#define LINE_MAX	512	/* one text line, newline included */
#define TEXT_EVENTS	16	/* events formatted per refill of cpuN text */
#define SNAP_WAIT_NS	20000000	/* wait for a slot in flight: 20 ms */
#define STREAM_WAIT_NS	200000000	/* ... in a stream, across reads */
#define RUN_MIN		(sizeof(struct ttrace_file_run) + \
			 (1 + TTRACE_MAX_CONT) * sizeof(struct ttrace_entry))

static struct dirtab tt_tab[NFIXED + NPERCPU * CONFIG_MAX_NUM_CPUS];
static size_t tt_ntab;
static char tt_names[NPERCPU * CONFIG_MAX_NUM_CPUS][12];

/* Pages of caller-chosen size: aux snapshots and text buffers. */
struct snap {
	char *data;
	size_t len;
	unsigned order;
};

/* One open of cpuN, rawN, streamN or aux. */
struct tt_file {
	struct spinlock lock;
	bool started;
	uint32_t cpu;
	struct trace_ring_cursor cur;
	uint64_t end;			/* snapshot bound; UINT64_MAX: stream */
	bool snap;			/* snapN: the snapshot probe's copy */
	uint64_t busy_since;		/* TSC when slot cur.next got stuck */
	struct snap *aux;		/* aux: the snapshot; cpuN: names */
	struct ttrace_aux_view names;
	struct snap *text;		/* cpuN: formatted, not yet read */
	size_t text_pos;
	struct ttrace_entry ev[TEXT_EVENTS * (1 + TTRACE_MAX_CONT)];
};

static void tab_add(const char *name, uint64_t path, uint32_t perm)
{
	struct dirtab *t = &tt_tab[tt_ntab++];

	t->name = name;
	t->qid.path = path;
	t->qid.type = path == Qdir ? QTDIR : path >= Qcpu ? QTSTREAM : QTFILE;
	t->perm = perm;
	t->length = path == Qversion ? sizeof(struct ttrace_version) :
		    path == Qmeta ? ttrace_meta_blob_size :
		    path == Qtsc ? num_cpus * sizeof(struct ttrace_file_tsc) : 0;
}

/* Builds the directory once the CPUs are known (ns_init runs after SMP). */
static void tt_init(void)
{
	static const char *const kind[NPERCPU] = { "cpu", "raw", "stream",
						   "snap" };

	tab_add(".", Qdir, S_IFDIR | 0555);
	tab_add("ctl", Qctl, S_IFREG | 0644);
	tab_add("events", Qevents, S_IFREG | 0444);
	tab_add("stats", Qstats, S_IFREG | 0444);
	tab_add("marker", Qmarker, S_IFREG | 0222);
	tab_add("version", Qversion, S_IFREG | 0444);
	tab_add("meta", Qmeta, S_IFREG | 0444);
	tab_add("aux", Qaux, S_IFREG | 0444);
	tab_add("tsc", Qtsc, S_IFREG | 0444);
	tab_add("funcs", Qfuncs, S_IFREG | 0644);
	tab_add("probes", Qprobes, S_IFREG | 0444);
	tab_add("counters", Qcounters, S_IFREG | 0444);
	for (uint32_t c = 0; c < num_cpus; c++)
		for (uint32_t k = 0; k < NPERCPU; k++) {
			char *name = tt_names[NPERCPU * c + k];

			fmt_snprintf(name, sizeof(tt_names[0]), "%s%u", kind[k], c);
			tab_add(name, Qcpu + 0x100 * k + c, S_IFREG | 0444);
		}
}

static int tt_attach(struct chan *c)
{
	return devgen_attach(c, tt_tab);
}

static int tt_walk(struct chan *c, const char *name)
{
	return devgen_walk(c, name, tt_tab, tt_ntab);
}

static bool is_raw(uint64_t path)
{
	return path >= Qraw && path < Qstream;
}

static bool is_snap(uint64_t path)
{
	return path >= Qsnap;
}

/* rawN's size is the ring's, as it is now (bufsize changes it). */
static int tt_stat(struct chan *c, struct stat *st)
{
	int r = devgen_stat(c, st, tt_tab, tt_ntab);

	if (!r && is_raw(c->qid.path))
		st->size = ttrace_ring_bytes();
	return r;
}

/* Entry i of the listing is tt_tab[i + 1] (entry 0 is "."). */
static int tt_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	int r = devgen_readdir(c, i, de, tt_tab, tt_ntab);

	if (r > 0 && is_raw(tt_tab[i + 1].qid.path))
		de->size = ttrace_ring_bytes();
	return r;
}

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

/* Per-open state for the files that keep a cursor or a snapshot. */
static int tt_open(struct chan *c, int omode)
{
	uint64_t q = c->qid.path;
	struct tt_file *f;
	int r = devgen_open(c, omode, tt_tab, tt_ntab);

	if (r < 0 || (q != Qaux && q != Qprobes && q < Qcpu))
		return r;
	f = kzmalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	spinlock_init(&f->lock, "tt_file");
	f->cpu = (uint32_t)(q & 0xff);
	c->aux = f;
	return 0;
}

static void tt_close(struct chan *c)
{
	struct tt_file *f = c->aux;

	if (f) {
		snap_free(f->aux);
		snap_free(f->text);
		kfree(f);
		c->aux = NULL;
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

/* First read of an open file: fix the snapshot bound, take snapshots. */
static int file_start(struct chan *c, struct tt_file *f)
{
	uint64_t q = c->qid.path, size, bytes, dropped;

	if (q == Qaux)
		return (f->aux = aux_snapshot()) ? 0 : -ENOMEM;
	if (q == Qprobes)
		return (f->aux = probes_snapshot()) ? 0 : -ENOMEM;
	f->snap = is_snap(q);
	if (f->snap)
		return 0;	/* cursor and end set by the first read */
	ttrace_ring_oldest(f->cpu, &f->cur);
	f->end = q >= Qstream ? UINT64_MAX : ttrace_ring_end(f->cpu);
	if (q >= Qraw)
		return 0;
	ttrace_aux_usage(&bytes, &size, &dropped);
	f->aux = snap_alloc(size);
	f->text = snap_alloc(TEXT_EVENTS * LINE_MAX);
	if (!f->aux || !f->text || ttrace_aux_read(f->aux->data, size, &f->names))
		return -ENOMEM;
	return 0;
}

/*
 * Reads the next run for f into out (max entries). A slot in flight is
 * waited for up to wait_ns (for a stream: counted across reads, and
 * TRACE_RUN_NONE is returned meanwhile), then declared lost.
 */
static uint32_t next_run(struct tt_file *f, struct ttrace_entry *out,
			 size_t max, struct trace_ring_run *run)
{
	bool stream = f->end == UINT64_MAX;
	uint64_t wait = (stream ? STREAM_WAIT_NS : SNAP_WAIT_NS) / 1000 *
			(tsc_freq_hz / 1000000);
	uint32_t k;

	for (;;) {
		k = f->snap ? ttrace_snap_read(f->cpu, &f->cur, &f->end, out,
					       max, run) :
			      ttrace_ring_read(f->cpu, &f->cur, f->end, out, max,
					       run);
		if (k != TRACE_RUN_BUSY) {
			f->busy_since = 0;
			return k;
		}
		if (!f->busy_since)
			f->busy_since = arch_read_tsc();
		if (arch_read_tsc() - f->busy_since > wait) {
			f->busy_since = 0;
			trace_ring_give_up(&f->cur, run);
			return TRACE_RUN_LOST;
		}
		if (stream)
			return TRACE_RUN_NONE;
		arch_pause();
	}
}

/* rawN and streamN: whole runs into buf while one more fits. */
static long runs_read(struct tt_file *f, uint8_t *buf, size_t n)
{
	size_t done = 0;

	if (n < RUN_MIN)
		return -EINVAL;
	while (n - done >= RUN_MIN) {
		struct ttrace_file_run *hdr = (void *)(buf + done);
		struct ttrace_entry *out = (void *)(hdr + 1);
		struct trace_ring_run run;
		uint32_t k = next_run(f, out, (n - done) / sizeof(*out) - 1, &run);

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

/* Formats the next run of f as text lines into f->text. Returns false at
 * the end of the snapshot. */
static bool text_refill(struct tt_file *f)
{
	struct trace_ring_run run;
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	char line[LINE_MAX];
	uint32_t k = next_run(f, f->ev, ARRAY_SIZE(f->ev), &run);

	f->text->len = 0;
	f->text_pos = 0;
	if (k == TRACE_RUN_NONE)
		return false;
	if (k == TRACE_RUN_LOST) {
		add_line(f->text, line, fmt_snprintf(line, sizeof(line),
			 "-- cpu%u: %lu records lost (%s), slots %lu-%lu --",
			 f->cpu, run.count, ttrace_loss_name(run.reason), run.first,
			 run.first + run.count - 1));
		return true;
	}
	ttrace_pair_init(&it, f->ev, run.count);
	while (ttrace_pair_next(&it, &ev)) {
		ev.timestamp -= (uint64_t)tsc_offset[f->cpu];	/* CPU 0's clock */
		add_line(f->text, line, ttrace_format_timed_line(line,
			 sizeof(line), tsc_freq_hz, tsc_at_boot,
			 &ttrace_meta_builtin, &ev, ttrace_aux_resolve,
			 &f->names));
	}
	return true;
}

/* cpuN: text lines as they are formatted, a run at a time. */
static long text_read(struct tt_file *f, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t k;

		if (f->text_pos == f->text->len && !text_refill(f))
			break;
		k = MIN(n - done, f->text->len - f->text_pos);
		memcpy(buf + done, f->text->data + f->text_pos, k);
		f->text_pos += k;
		done += k;
	}
	return (long)done;
}

/* The files with per-open state; f->lock serialises readers sharing it. */
static long file_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	struct tt_file *f = c->aux;
	long r = 0;

	spin_lock(&f->lock);
	if (!f->started) {
		r = file_start(c, f);
		f->started = r == 0;
	}
	if (r == 0) {
		if (c->qid.path == Qaux || c->qid.path == Qprobes)
			r = devgen_readbytes(off, buf, n, f->aux->data, f->aux->len);
		else if (c->qid.path < Qraw)
			r = text_read(f, buf, n);
		else
			r = runs_read(f, buf, n);
	}
	spin_unlock(&f->lock);
	return r;
}

/* The tsc file: tsc_offset[] and its uncertainty, per online CPU. */
static long tsc_read(void *buf, size_t n, uint64_t off)
{
	struct ttrace_file_tsc t[CONFIG_MAX_NUM_CPUS];

	return devgen_readbytes(off, buf, n, t, ttrace_tsc_offsets(t));
}

/* ctl, events and stats: small texts made afresh for each read. */
static long small_text_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	char *text = kmalloc(PGSIZE);
	size_t len = 0;
	long ret;

	if (!text)
		return -ENOMEM;
	if (c->qid.path == Qctl)
		len = ttrace_state_text(text, PGSIZE);
	else if (c->qid.path == Qevents)
		len = ttrace_ctl_list(&ttrace_main.ctl, text, PGSIZE);
	else if (c->qid.path == Qfuncs)
		len = ttrace_funcs_text(text, PGSIZE);
	else if (c->qid.path == Qcounters)
		len = ttrace_counters_text(text, PGSIZE);
	else
		len = ttrace_stats_text(text, PGSIZE);
	ret = devgen_readbytes(off, buf, n, text, MIN(len, (size_t)PGSIZE));
	kfree(text);
	return ret;
}

static long tt_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	uint64_t q = c->qid.path;

	if (q == Qversion) {
		struct ttrace_version v;

		ttrace_fill_version(&v);
		return devgen_readbytes(off, buf, n, &v, sizeof(v));
	}
	if (q == Qmeta)
		return devgen_readbytes(off, buf, n, ttrace_meta_blob,
					ttrace_meta_blob_size);
	if (q == Qtsc)
		return tsc_read(buf, n, off);
	if (c->aux)
		return file_read(c, buf, n, off);
	if (q == Qctl || q == Qevents || q == Qstats || q == Qfuncs ||
	    q == Qcounters)
		return small_text_read(c, buf, n, off);
	return -EBADF;
}

static long tt_write(struct chan *c, const void *buf, size_t n, uint64_t off)
{
	const char *why;

	(void)off;
	switch (c->qid.path) {
	case Qctl:
		if (ttrace_control(buf, n, &why))
			return errstr_device(-EINVAL, why);
		return (long)n;
	case Qmarker:
		ttrace_mark(buf, n);
		return (long)n;
	case Qfuncs:
		if (ttrace_funcs_control(buf, n, &why))
			return errstr_device(-EINVAL, why);
		return (long)n;
	}
	return -EBADF;
}

static const struct dev ttrace_dev = {
	.dc = 'T',
	.name = "ttrace",
	.init = tt_init,
	.attach = tt_attach,
	.walk = tt_walk,
	.stat = tt_stat,
	.open = tt_open,
	.close = tt_close,
	.read = tt_read,
	.write = tt_write,
	.readdir = tt_readdir,
};

DEV_REGISTER(ttrace_dev);
