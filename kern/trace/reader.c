/*
 * reader.c: the readers behind the #ttrace files that keep state
 * between reads (internal.h): cpuN, rawN, streamN and snapN with a
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
 * spinning. cpuN formats events as text lines with the decoder's line
 * format, names resolved from an aux snapshot and the event metadata as
 * of the first read (metasnap.c), into a block (a seqbuf)
 * while a whole line still fits: a run longer than the block goes on at
 * the next refill, so no line is cut by the block nor lost. A line longer
 * than LINE_MAX is cut, and ends with seqbuf's mark.
 * A pages reader (tracefs's per_cpu/cpuN/trace_pipe_raw) consumes: it
 * writes the CPU's events as Linux's ring-buffer pages (ttrace_ftpage.h)
 * of Linux event records (ttrace_ftevent.h), a page at a time, from where
 * the last consumer of the CPU (trace_pipe's readers too) stopped, and
 * moves that position past what the page holds (tracefs_pipe_consumed()).
 * An event that does not fit waits for the next page, and a declared
 * loss ends the page, the next one carrying its count. Each page that
 * finds new records takes a fresh snapshot of the names first and ends
 * at the head it saw then, so every string it carries resolves; a slot in
 * flight is waited for across reads, as a stream's.
 */
#include <kmalloc.h>
#include "module.h"
#include <ns.h>
#include <pmem.h>
#include <proc.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <ttrace_ftevent.h>
#include <ttrace_ftlinux.h>
#include <ttrace_ftpage.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

#define PROBES_TEXT_ORDER 5	/* 128 KiB: 16 probes of 64 keys' bars */
#define LINE_MAX	512	/* one text line, newline included */
#define TEXT_EVENTS	16	/* events read per run by cpuN */
#define TEXT_BYTES	(TEXT_EVENTS * LINE_MAX)	/* cpuN's text block */
#define SNAP_WAIT_NS	20000000	/* wait for a slot in flight: 20 ms */
#define STREAM_WAIT_NS	200000000	/* ... in a stream, across reads */
/* A stream the writer lapped resumes this fraction of the ring past the
 * oldest record (trace_ring_cursor's lap_skip): runs long enough to pay
 * for their framing before the writer catches up again. */
#define STREAM_LAP_SKIP_DIV	2
#define GRAPH_DEPTH	64	/* pages: open calls kept per depth */
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
	struct ttrace *t;		/* the tracer read */
	enum ttrace_read_kind kind;
	bool started;
	uint32_t cpu;
	struct trace_ring_cursor cur;
	uint64_t end;			/* snapshot bound; UINT64_MAX: stream */
	struct trace_ring_patience wait;
	struct ttrace_snap_view view;	/* snapN: the snapshot probe's copy */
	struct snap *aux;		/* aux, probes: the snapshot; cpuN:
					   the names */
	struct ttrace_aux_view names;
	struct ttrace_meta_snap *meta;	/* cpuN, pages: the events' names */
	struct snap *text;		/* cpuN: the block of lines; pages:
					 * the page, then a record's room */
	struct seqbuf lines;		/* cpuN: over text, as formatted */
	size_t text_pos;		/* ... the first not yet read */
	bool in_run;			/* cpuN: it has events of ev left */
	bool held;			/* pages: pev is not in a page yet */
	bool gave;			/* pages: a page was read */
	uint64_t lost;			/* pages: ... nor this loss */
	uint64_t run_first;		/* pages: the run's first slot */
	uint64_t at, pev_at;		/* pages: the slot of the next
					   event, of pev */
	uint32_t pid;			/* pages: the last process seen */
	struct {			/* pages: the last call begun at each
					   depth (funcgraph_exit's calltime) */
		uint64_t fn, context, ns;
		uint32_t ctx_kind;
	} calls[GRAPH_DEPTH];
	struct ttrace_event_view pev;
	struct ttrace_pair_iter it;
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

/* snapN and probes read the kernel's built-in probes, whatever t is. */
struct ttrace_reader *ttrace_reader_open(struct ttrace *t,
					 enum ttrace_read_kind kind,
					 uint32_t cpu)
{
	struct ttrace_reader *r = kzmalloc(sizeof(*r));

	if (r) {
		spinlock_init(&r->lock, "ttrace_reader");
		r->t = t;
		r->kind = kind;
		r->cpu = cpu;
	}
	return r;
}

struct ttrace_reader *ttrace_reader_new(enum ttrace_read_kind kind,
					uint32_t cpu)
{
	return ttrace_reader_open(&ttrace_main, kind, cpu);
}

void ttrace_reader_free(struct ttrace_reader *r)
{
	if (r) {
		ttrace_snap_view_end(&r->view);
		ttrace_meta_reader_end(r->meta);
		snap_free(r->aux);
		snap_free(r->text);
		kfree(r);
	}
}

/* The aux file: the version header, then the linear aux snapshot. */
static struct snap *aux_snapshot(struct ttrace *t)
{
	struct ttrace_version v;
	struct ttrace_aux_view view;
	uint64_t bytes, size, dropped;
	struct snap *s;

	ttrace_aux_usage(t, &bytes, &size, &dropped);
	s = snap_alloc(sizeof(v) + size);
	if (!s)
		return NULL;
	if (ttrace_aux_read(t, s->data + sizeof(v), size, &view)) {
		snap_free(s);
		return NULL;
	}
	ttrace_version_of(t, &v);
	v.aux_first = view.first;
	v.aux_last = view.last;
	memcpy(s->data, &v, sizeof(v));
	s->len = sizeof(v) + view.len;
	return s;
}

/* The probes file: their results as text at the first read (they change
 * as they are read: cat's own syscalls count), keys named from a snapshot
 * of t's aux (numbers only, when there is no memory for it). */
static struct snap *probes_snapshot(struct ttrace *t)
{
	size_t size = (size_t)PGSIZE << PROBES_TEXT_ORDER;
	struct snap *s = snap_alloc(size), *aux;
	struct ttrace_aux_view names;
	uint64_t bytes, aux_size, dropped;
	struct seqbuf text;

	if (!s)
		return NULL;
	ttrace_aux_usage(t, &bytes, &aux_size, &dropped);
	aux = snap_alloc(aux_size);
	if (aux && ttrace_aux_read(t, aux->data, aux_size, &names)) {
		snap_free(aux);
		aux = NULL;
	}
	seqbuf_init(&text, s->data, size);
	ttrace_probes_text(&text, aux ? &names : NULL);
	module_text(&text);
	seqbuf_mark_cut(&text);		/* said, never silent */
	s->len = seqbuf_used(&text);
	snap_free(aux);
	return s;
}

/* wait's patience with a slot in flight for a read of kind: a stream's
 * waits across reads, the others' within one (internal.h). */
void ttrace_run_patience(enum ttrace_read_kind kind,
			 struct trace_ring_patience *wait)
{
	uint64_t wait_ns = kind == TTRACE_READ_STREAM ? STREAM_WAIT_NS :
							SNAP_WAIT_NS;

	wait->limit = wait_ns / 1000 * (tsc_freq_hz / 1000000);
}

/* Starts reading t's cpu's runs of kind (rawN, streamN, snapN: the
 * TTRACE_READ_* of a ring): wait's patience, and for a ring the cursor at
 * its clear point (the records it overwrote before the read come first,
 * declared lost) and the end (a snapshot's head, or none: a stream). */
void ttrace_run_start(struct ttrace *t, enum ttrace_read_kind kind,
		      uint32_t cpu, struct trace_ring_cursor *cur,
		      uint64_t *end, struct trace_ring_patience *wait)
{
	ttrace_run_patience(kind, wait);
	if (kind == TTRACE_READ_SNAP)
		return;		/* cursor and end set by the first read */
	ttrace_ring_since_clear(t, cpu, cur);
	*end = kind == TTRACE_READ_STREAM ? UINT64_MAX :
					    ttrace_ring_end(t, cpu);
	if (kind == TTRACE_READ_STREAM) {	/* lapped: a quarter ahead */
		struct trace_ring_stats st;

		ttrace_ring_get_stats(t, cpu, &st);
		cur->lap_skip = st.nentries / STREAM_LAP_SKIP_DIV;
	}
}

/* The kind r's runs are read as: pages read a stream, to the head each
 * page saw (page_catch_up()). */
static enum ttrace_read_kind run_kind(const struct ttrace_reader *r)
{
	return r->kind == TTRACE_READ_PAGES ? TTRACE_READ_STREAM : r->kind;
}

/* cpuN, pages: a snapshot of the names (aux) now, in r->aux (grown if
 * aux has). 0, or -ENOMEM with r->aux freed. */
static int names_take(struct ttrace_reader *r)
{
	uint64_t size, bytes, dropped;

	ttrace_aux_usage(r->t, &bytes, &size, &dropped);
	if (r->aux && ((size_t)PGSIZE << r->aux->order) < size) {
		snap_free(r->aux);
		r->aux = NULL;
	}
	if (!r->aux)
		r->aux = snap_alloc(size);
	if (r->aux && !ttrace_aux_read(r->t, r->aux->data, size, &r->names))
		return 0;
	snap_free(r->aux);
	r->aux = NULL;
	return -ENOMEM;
}

/* First read: fix the snapshot bound, take the snapshots. */
static int reader_start(struct ttrace_reader *r)
{
	if (r->kind == TTRACE_READ_AUX)
		return (r->aux = aux_snapshot(r->t)) ? 0 : -ENOMEM;
	if (r->kind == TTRACE_READ_PROBES)
		return (r->aux = probes_snapshot(r->t)) ? 0 : -ENOMEM;
	ttrace_run_start(r->t, run_kind(r), r->cpu, &r->cur, &r->end, &r->wait);
	if (r->kind == TTRACE_READ_PAGES)
		r->end = r->cur.next;	/* page_catch_up() moves it */
	if (r->kind == TTRACE_READ_SNAP)
		ttrace_snap_view_begin(&r->view, TTRACE_SNAP_PROBE);
	if (r->kind != TTRACE_READ_TEXT && r->kind != TTRACE_READ_PAGES)
		return 0;
	r->text = snap_alloc(r->kind == TTRACE_READ_TEXT ? TEXT_BYTES :
			     TTRACE_FTPAGE_SIZE + TTRACE_FTPAGE_REC_MAX);
	if (!r->text || (r->kind == TTRACE_READ_TEXT && names_take(r))) {
		snap_free(r->aux);	/* the next read starts afresh */
		snap_free(r->text);
		r->aux = r->text = NULL;
		return -ENOMEM;
	}
	seqbuf_init(&r->lines, r->text->data, 0);
	r->meta = ttrace_meta_reader_begin();
	return 0;
}

/* Reads cpu's next run of kind (as ttrace_run_start() began it; of a
 * snapshot: in view's copy) into out (max entries), copied as how says,
 * waiting for a slot in flight as trace_ring_wait()
 * says: a stream returns TRACE_RUN_NONE meanwhile, the others spin or
 * return TRACE_RUN_BUSY as busy says. */
uint32_t ttrace_run_next(struct ttrace *t, enum ttrace_read_kind kind,
			 struct ttrace_snap_view *view, uint32_t cpu,
			 struct trace_ring_cursor *cur, uint64_t *end,
			 struct trace_ring_patience *wait,
			 struct ttrace_entry *out, size_t max,
			 struct trace_ring_run *run, enum ttrace_copy how,
			 enum ttrace_busy busy)
{
	uint32_t k;

	for (;;) {
		k = kind == TTRACE_READ_SNAP ?
		    ttrace_snap_read(view, cpu, cur, end, out, max, run, how) :
		    ttrace_ring_read(t, cpu, cur, *end, out, max, run, how);
		k = trace_ring_wait(wait, cur, run, k, arch_read_tsc());
		if (k != TRACE_RUN_BUSY)
			return k;
		if (kind == TTRACE_READ_STREAM)
			return TRACE_RUN_NONE;
		if (busy == TTRACE_BUSY_RETURN)
			return k;
		arch_pause();
	}
}

/* r's next run (ttrace_run_next()). */
static uint32_t next_run(struct ttrace_reader *r, struct ttrace_entry *out,
			 size_t max, struct trace_ring_run *run)
{
	return ttrace_run_next(r->t, run_kind(r), &r->view, r->cpu, &r->cur,
			       &r->end,
			       &r->wait, out, max, run, TTRACE_COPY_PLAIN,
			       TTRACE_BUSY_SPIN);
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

/* Starts a line of at most LINE_MAX bytes, its newline included, at the
 * end of out: line is a seqbuf over out's room (no larger). */
static void line_begin(struct seqbuf *out, struct seqbuf *line)
{
	char *dst;
	size_t room = seqbuf_get_buf(out, &dst);

	seqbuf_init(line, dst, MIN(room, (size_t)LINE_MAX + 1));
}

/* Ends line with its newline (a line that did not fit ends with the cut
 * mark instead) and adds it to out. */
static void line_end(struct seqbuf *out, struct seqbuf *line)
{
	seqbuf_putc(line, '\n');
	seqbuf_mark_cut(line);
	seqbuf_commit(out, seqbuf_used(line));
}

/* What event_next() found. */
enum ev_next { EV_END, EV_EVENT, EV_LOST, EV_NONE };

/* r's next event into *ev (its timestamp on CPU 0's clock), or the next
 * run: a loss (*run), or nothing yet but r->it set up for its events.
 * EV_END at the end of the snapshot. */
static enum ev_next event_next(struct ttrace_reader *r,
			       struct ttrace_event_view *ev,
			       struct trace_ring_run *run)
{
	uint32_t k;

	r->at = r->run_first + r->it.pos;
	if (r->in_run && ttrace_pair_next(&r->it, ev)) {
		ev->timestamp = ttrace_ts_on_cpu0(ev->timestamp,
						  tsc_offset[r->cpu]);
		return EV_EVENT;
	}
	r->in_run = false;
	k = next_run(r, r->ev, ARRAY_SIZE(r->ev), run);
	if (k == TRACE_RUN_NONE)
		return EV_END;
	if (k == TRACE_RUN_LOST)
		return EV_LOST;
	ttrace_pair_init(&r->it, r->ev, run->count, r->meta->table);
	r->run_first = run->first;
	r->in_run = true;
	return EV_NONE;
}

/* The line of r's next event, or of a loss (or none: a run begins).
 * Returns false at the end of the snapshot. */
static bool text_next(struct ttrace_reader *r)
{
	struct trace_ring_run run;
	struct ttrace_event_view ev;
	struct seqbuf line;
	char *dst;
	size_t room;
	enum ev_next k = event_next(r, &ev, &run);

	if (k == EV_EVENT) {
		line_begin(&r->lines, &line);
		room = seqbuf_get_buf(&line, &dst);
		seqbuf_commit(&line, (size_t)ttrace_format_timed_line(dst, room,
			      tsc_freq_hz, tsc_at_boot, r->meta->table,
			      &ev, ttrace_aux_resolve, &r->names));
		line_end(&r->lines, &line);
	} else if (k == EV_LOST) {
		line_begin(&r->lines, &line);
		seqbuf_printf(&line, "-- cpu%u: %lu records lost (%s), slots "
			      "%lu-%lu --", r->cpu, run.count,
			      ttrace_loss_name(run.reason), run.first,
			      run.first + run.count - 1);
		line_end(&r->lines, &line);
	}
	return k != EV_END;
}

/* Formats the next lines of r into its block, emptied first, while a
 * whole line fits. Returns false when there are none: the end of the
 * snapshot. */
static bool text_refill(struct ttrace_reader *r)
{
	seqbuf_init(&r->lines, r->text->data, TEXT_BYTES);
	r->text_pos = 0;
	while (seqbuf_room(&r->lines) >= LINE_MAX && text_next(r))
		;
	return seqbuf_used(&r->lines) > 0;
}

/* r->pid, the pid a Linux record names for ev (as trace.dat's): the
 * process of a syscall or trap context, 0 in idle, else the last one seen
 * on the CPU (a sched_switch's next: ttrace_ftlinux_record). */
static void page_pid(struct ttrace_reader *r,
		     const struct ttrace_event_view *ev)
{
	if (ev->ctx_kind == TTRACE_CTX_SYSC || ev->ctx_kind == TTRACE_CTX_TRAP)
		r->pid = ttrace_ftlinux_pid(TTRACE_CTX_PID(ev->context));
	else if (ev->ctx_kind == TTRACE_CTX_IDLE)
		r->pid = 0;
}

/* ops: every thread's prio is KTHREAD_PRIO (one class here), so a
 * record without a prio of its own still has the exact one. */
static uint32_t page_prio(void *arg, uint64_t pid, uint64_t ts)
{
	(void)arg, (void)pid, (void)ts;
	return KTHREAD_PRIO;
}

/* ops: a call of fn at depth began at ns on ev's thread. */
static void page_entered(void *arg, const struct ttrace_event_view *ev,
			 uint64_t fn, uint32_t depth, uint64_t ns)
{
	struct ttrace_reader *r = arg;

	if (depth < GRAPH_DEPTH) {
		r->calls[depth].fn = fn;
		r->calls[depth].context = ev->context;
		r->calls[depth].ctx_kind = ev->ctx_kind;
		r->calls[depth].ns = ns;
	}
}

/* ops: when the call ev returns from began: the entry of fn at depth on
 * ev's thread that this reader's pages held, else (an entry consumed
 * before this open, on another CPU, or overwritten) ev's own time ns. */
static uint64_t page_calltime(void *arg, const struct ttrace_event_view *ev,
			      uint64_t fn, uint32_t depth, uint64_t ns)
{
	struct ttrace_reader *r = arg;

	if (depth >= GRAPH_DEPTH || r->calls[depth].fn != fn ||
	    r->calls[depth].context != ev->context ||
	    r->calls[depth].ctx_kind != ev->ctx_kind || !r->calls[depth].ns)
		return ns;
	return r->calls[depth].ns;
}

/* Adds r->pev to page p as a Linux record (ttrace_ftlinux.h: Linux's
 * layout for the events Linux has too, else the generic one); false if
 * it does not fit (it stays held for the next page). An event of no
 * known metadata is skipped. */
static bool page_add(struct ttrace_reader *r, struct ttrace_ftpage *p)
{
	const struct ttrace_meta_table *m = r->meta->table;
	const struct ttrace_ftlinux_ops ops = {
		.resolve = ttrace_aux_resolve, .rarg = &r->names,
		.prio = page_prio, .calltime = page_calltime,
		.entered = page_entered, .arg = r };
	uint8_t *rec = (uint8_t *)r->text->data + TTRACE_FTPAGE_SIZE;
	uint64_t ts = r->pev.timestamp;
	uint64_t ns = ts > tsc_at_boot ? ttrace_ticks_to_ns(ts - tsc_at_boot,
							    tsc_freq_hz) : 0;
	const struct ttrace_event_meta *e;
	const struct ttrace_ftlinux *l;
	size_t n = 0;

	if (r->pev.id >= m->nevents)
		return true;
	e = &m->events[r->pev.id];
	page_pid(r, &r->pev);
	if ((l = ttrace_ftlinux_find(e)))
		n = ttrace_ftlinux_record(rec, l, e, &r->pev, ns, &r->pid,
					  &ops);
	if (!n)
		n = ttrace_ftevent_record(rec, e, &r->pev, r->pid,
					  ttrace_aux_resolve, &r->names);
	return ttrace_ftpage_add(p, ns, rec, n);
}

/* pages: the slot of the first event r has not put in a page. */
static uint64_t page_pos(const struct ttrace_reader *r)
{
	return r->held ? r->pev_at : r->in_run ? r->run_first + r->it.pos :
	       r->cur.next;
}

/* Before a page: r starts where the CPU's last consumer stopped if that
 * is past r (what r held is consumed), and when the ring has records
 * past r's end, reads the head, takes the names afresh, then makes that
 * head its end (a record's names are in aux before it is, so each record
 * before the head is named). False when the names cannot be taken (no
 * memory): no page now. */
static bool page_catch_up(struct ttrace_reader *r)
{
	uint64_t from = tracefs_pipe_from(r->cpu);

	if (from > page_pos(r)) {
		r->held = r->in_run = false;
		r->lost = 0;
		r->cur.next = from;
		r->cur.after_loss = 1;
	}
	uint64_t end = ttrace_ring_end(r->t, r->cpu);

	if (end == r->end)
		return true;
	if (names_take(r))
		return false;
	r->end = end;
	return true;
}

/* Serialises the pages readers of every CPU: a page is taken from the
 * shared position and moves it as one step. */
static struct spinlock pages_lock = SPINLOCK_INIT("trace_pipe_raw");

/* The next page of r's events into its block (r->lines over it),
 * consumed. Returns false when there is none: nothing new now. */
static bool page_refill(struct ttrace_reader *r)
{
	struct ttrace_ftpage p;
	struct trace_ring_run run;
	enum ev_next k;

	spin_lock(&pages_lock);
	if (!page_catch_up(r)) {
		spin_unlock(&pages_lock);
		return false;
	}
	/* before the page is written: the init's NUL would clear the low
	 * byte of its timestamp */
	seqbuf_init(&r->lines, r->text->data, TTRACE_FTPAGE_SIZE + 1);
	ttrace_ftpage_init(&p, (uint8_t *)r->text->data);
	ttrace_ftpage_lost(&p, r->lost);
	r->lost = 0;
	for (;;) {
		if (!r->held) {
			k = event_next(r, &r->pev, &run);
			if (k == EV_END)
				break;
			if (k == EV_LOST && p.events) {
				r->lost = run.count;	/* the next page's */
				break;
			}
			if (k == EV_LOST)
				ttrace_ftpage_lost(&p, run.count);
			r->held = k == EV_EVENT;
			r->pev_at = r->at;
			if (!r->held)
				continue;
		}
		if (!page_add(r, &p))
			break;
		r->held = false;
	}
	ttrace_ftpage_end(&p);
	tracefs_pipe_consumed(r->cpu, page_pos(r), p.events);
	spin_unlock(&pages_lock);
	r->gave |= p.events || p.missed;
	seqbuf_commit(&r->lines, p.events || p.missed ? TTRACE_FTPAGE_SIZE : 0);
	r->text_pos = 0;
	return p.events || p.missed;
}

/* cpuN: text lines as they are formatted, a block at a time. */
static long text_read(struct ttrace_reader *r, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t k;

		if (r->text_pos == seqbuf_used(&r->lines) &&
		    !(r->kind == TTRACE_READ_TEXT ? text_refill(r) :
		      page_refill(r)))
			break;
		k = MIN(n - done, seqbuf_used(&r->lines) - r->text_pos);
		memcpy(buf + done, r->lines.buf + r->text_pos, k);
		r->text_pos += k;
		done += k;
	}
	return (long)done;
}

bool ttrace_reader_gave(struct ttrace_reader *r)
{
	return READ_ONCE(r->gave);
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
		else if (r->kind == TTRACE_READ_TEXT ||
			 r->kind == TTRACE_READ_PAGES)
			ret = text_read(r, buf, n);
		else
			ret = runs_read(r, buf, n);
	}
	spin_unlock(&r->lock);
	return ret;
}
