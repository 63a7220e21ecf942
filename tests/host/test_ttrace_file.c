/*
 * Host tests of the trace file (kern/trace/lib/file.c) and its loader
 * (tools/load/ttload.c), file format version 3: per-CPU RECORDS and LOSS
 * sections, each a struct ttrace_file_run and (RECORDS) its entries.
 *
 * The sample trace is made the way the kernel and `ttrace stream` make one:
 * events written into private rings through trace_ring (some wrapped, one
 * cleared, one slot left in flight), names through the aux ring, metadata
 * through ttrace_meta_serialise; the rings read with trace_ring_read() as
 * the device's streamN file does (devttrace.c runs_read()), each read
 * turned into sections as user/bin/ttrace/save.c write_runs() does (a LOSS
 * alone, adjacent record runs merged), the CPUs interleaved, and the whole
 * written with the streaming writer and loaded back. Then every single-byte
 * corruption and every truncation must be refused with an offset at or
 * before the damage, hostile files with correct CRCs must be refused by the
 * payload and run checks with a precise message and offset, and random
 * garbage must never crash the loader (run under ASan/UBSan), nor may the
 * loader ever accept a file that breaks the run rules.
 *
 *	test_ttrace_file		run the tests
 *	test_ttrace_file FILE		write the synthetic trace to FILE
 *
 * TTRACE_FUZZ_MS sets the fuzzing time (default 1500 ms).
 */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <ttrace_image.h>
#include <tsc_sync.h>

#include "ttcrc32.h"
#include "ttload.h"

#define NCPU		3		/* cpu2 writes nothing */
#define NENT		32		/* entries per CPU: cpu0's ring wraps */
#define AUX_SIZE	2048
#define TSC_BOOT	100000ULL
#define TSC_HZ		1000000000ULL	/* 1 GHz: 1 tick = 1 ns */
#define POOL		512		/* entries of the sample's RECORDS */
#define MAXSEC		256		/* the sample's RECORDS and LOSS */
#define RUN_HDR		sizeof(struct ttrace_file_run)
/* one read(2) of a streamN file: a run header and up to 10 entries */
#define STREAM_READ	(11 * TTRACE_ENTRY_SIZE)
/* the final reads of a save: up to 32 entries */
#define SAVE_READ	(33 * TTRACE_ENTRY_SIZE)
#define HT_TRY(x)	do { if (x) return 1; } while (0)

enum { EV_BOOT, EV_IRQ, EV_SCHED, EV_MARKER, EV_WIDE, NEV };

/* ---- a small event table, serialised by kern/lib ------------------------ */

static const struct ttrace_arg_meta a_boot[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE, 0, 0 },
	{ "arg", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_irq[] = {
	{ "vector", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_sched[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev_state", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_marker[] = {
	{ "marker", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER, 0, 0 },
};
#define W(n) { "w" #n, TTRACE_ARG_U64, 0, 0, 0 }
static const struct ttrace_arg_meta a_wide[] = {
	W(0), W(1), W(2), W(3), W(4), W(5), W(6), W(7), W(8), W(9), W(10),
	W(11), W(12),
};
static const struct ttrace_event_meta events[NEV] = {
	{ "boot_phase", "%s arg=%#llx", a_boot, EV_BOOT, 0, 1, 2 },
	{ "irq_enter", "vector=%u", a_irq, EV_IRQ, 1, 1, 1 },
	{ "sched_switch", "prev=%s next=%s prev_state=%u", a_sched, EV_SCHED,
	  2, 1, 3 },
	{ "user_marker", "%s", a_marker, EV_MARKER, 3, 1, 1 },
	{ "test_wide", "w0=%llu w1=%llu w2=%llu w3=%llu w4=%llu w5=%llu "
	  "w6=%llu w7=%llu w8=%llu w9=%llu w10=%llu w11=%llu w12=%llu",
	  a_wide, EV_WIDE, 4, 0, 13 },
};
static const struct ttrace_group_meta groups[] = {
	{ "boot", 0, 1 }, { "irq", 1, 1 }, { "sched", 2, 1 }, { "user", 3, 1 },
	{ "test", 4, 0 },
};
static const struct ttrace_meta_table table = { events, groups, NEV, 5 };

#define WIDE_NARGS	13
#define WIDE_SLOTS	3		/* a first entry and 2 continuations */

/* ---- writing into memory ------------------------------------------------- */

struct obuf {
	uint8_t *p;
	size_t len, cap;
	int fail_at;		/* fail the nth write (1-based), 0 never */
	int writes;
};

static int obuf_out(void *arg, const void *buf, uint64_t len)
{
	struct obuf *o = arg;

	if (++o->writes == o->fail_at)
		return -1;
	if (o->len + len > o->cap) {
		o->cap = (o->len + len) * 2;
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			abort();
	}
	memcpy(o->p + o->len, buf, len);
	o->len += len;
	return 0;
}

/* ---- reading rings as the guest does ------------------------------------- */

/*
 * One read(2) of the device's streamN (or rawN) file of ring r into buf (n
 * bytes, 64-byte aligned): whole runs while one more fits, each a struct
 * ttrace_file_run and, for records, its entries (devttrace.c runs_read()).
 * Nobody finishes a slot in flight here, so it is given up at once.
 */
static size_t dev_read(const struct trace_ring *r,
		       struct trace_ring_cursor *cur, uint64_t end,
		       uint8_t *buf, size_t n)
{
	const size_t min = RUN_HDR + (1 + TTRACE_MAX_CONT) * TTRACE_ENTRY_SIZE;
	size_t done = 0;

	while (n - done >= min) {
		struct ttrace_file_run *h = (void *)(buf + done);
		struct ttrace_entry *out = (void *)(h + 1);
		struct trace_ring_run run;
		uint32_t k = trace_ring_read(r, cur, end, out, (n - done) /
					     TTRACE_ENTRY_SIZE - 1, &run);

		if (k == TRACE_RUN_NONE)
			break;
		if (k == TRACE_RUN_BUSY) {
			trace_ring_give_up(cur, &run);
			k = TRACE_RUN_LOST;
		}
		ttrace_file_run_init(h, k == TRACE_RUN_RECORDS, run.first,
				     run.count, run.reason);
		done += RUN_HDR + (k == TRACE_RUN_RECORDS ?
				   run.count * TTRACE_ENTRY_SIZE : 0);
	}
	return done;
}

/* Gets one section: cpu, its run header and (RECORDS) h->count entries. */
typedef void (*emit_fn)(void *arg, uint32_t cpu,
			const struct ttrace_file_run *h,
			const struct ttrace_entry *e);

/*
 * Turns one device read (len bytes at buf) into the sections `ttrace save`
 * and `ttrace stream` write for it (user/bin/ttrace/save.c write_runs()): each
 * LOSS alone, each stretch of adjacent record runs as one RECORDS.
 */
static void split_runs(uint32_t cpu, const uint8_t *buf, size_t len,
		       emit_fn emit, void *arg)
{
	static struct ttrace_entry merged[1024];
	size_t pos = 0;

	while (pos < len) {
		struct ttrace_file_run h;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.type == TTRACE_FILE_SEC_LOSS) {
			emit(arg, cpu, &h, NULL);
			pos += RUN_HDR;
			continue;
		}
		h.count = 0;
		while (pos < len) {
			struct ttrace_file_run x;

			memcpy(&x, buf + pos, sizeof(x));
			if (x.type != TTRACE_FILE_SEC_RECORDS)
				break;
			if (h.count + x.count > 1024)
				abort();
			memcpy(&merged[h.count], buf + pos + RUN_HDR,
			       x.count * TTRACE_ENTRY_SIZE);
			h.count += x.count;
			pos += RUN_HDR + x.count * TTRACE_ENTRY_SIZE;
		}
		emit(arg, cpu, &h, merged);
	}
}

/* emit_fn writing each section into a file (arg: the writer). */
static void file_emit(void *arg, uint32_t cpu, const struct ttrace_file_run *h,
		      const struct ttrace_entry *e)
{
	struct ttrace_file_writer *w = arg;
	uint64_t n = h->type == TTRACE_FILE_SEC_RECORDS ? h->count : 0;

	ttrace_file_section_begin(w, h->type, cpu, RUN_HDR +
				  n * TTRACE_ENTRY_SIZE);
	ttrace_file_section_data(w, h, RUN_HDR);
	if (n)
		ttrace_file_section_data(w, e, n * TTRACE_ENTRY_SIZE);
	ttrace_file_section_end(w);
}

static _Alignas(64) uint8_t devbuf[64 * TTRACE_ENTRY_SIZE];

/* Reads ring r from *cur until caught up with end (or its head), in
 * device reads of bufsize bytes, handing the sections to emit. Returns the
 * number of reads that returned something. */
static unsigned drain(const struct trace_ring *r, struct trace_ring_cursor *cur,
		      uint32_t cpu, uint64_t end, size_t bufsize, emit_fn emit,
		      void *arg)
{
	unsigned reads = 0;
	size_t n;

	while ((n = dev_read(r, cur, end, devbuf, bufsize))) {
		split_runs(cpu, devbuf, n, emit, arg);
		reads++;
	}
	return reads;
}

/* ---- writing events ------------------------------------------------------ */

/* Writes event id of n argument words a on ring r of cpu at time ts. */
static void put_event(struct trace_ring *r, uint64_t ts, unsigned cpu,
		      unsigned id, unsigned ctx, uint64_t ctxword,
		      const uint64_t *a, unsigned n)
{
	uint32_t depth = ctx == TTRACE_CTX_IRQ;
	uint64_t type = TTRACE_TYPE(id, ctx, 0, depth, cpu);

	if (n > TTRACE_ENTRY_ARGS)
		trace_ring_write_ext(r, ts, type, ctxword, a, n);
	else
		trace_ring_write(r, ts, type, ctxword, a[0], n > 1 ? a[1] : 0,
				 n > 2 ? a[2] : 0, n > 3 ? a[3] : 0,
				 n > 4 ? a[4] : 0);
}

/* Writes a test_wide event whose words are base, base + 1, ... */
static void put_wide(struct trace_ring *r, uint64_t ts, unsigned cpu,
		     uint64_t base)
{
	uint64_t w[WIDE_NARGS];

	for (unsigned i = 0; i < WIDE_NARGS; i++)
		w[i] = base + i;
	put_event(r, ts, cpu, EV_WIDE, TTRACE_CTX_KTASK, 5, w, WIDE_NARGS);
}

/* A writer that reserved a slot and was stopped before it published it. */
static uint64_t put_in_flight(struct trace_ring *r)
{
	uint64_t idx = trace_ring_reserve(r, 1);

	trace_ring_invalidate(trace_ring_slot(r, idx));
	return idx;
}

/* Sets the seq of entry e (a first entry) to that of index idx. */
static void set_seq(struct ttrace_entry *e, uint64_t idx)
{
	e->type = (e->type & ~TTRACE_TYPE_SEQ_MASK) |
		  (uint64_t)TTRACE_SEQ_OF(idx) << TTRACE_TYPE_SEQ_SHIFT;
}

/* ---- the synthetic trace ------------------------------------------------- */

/* One RECORDS or LOSS section of the sample. */
struct ssec {
	uint32_t cpu;
	uint32_t stype;			/* section type (normally h.type) */
	struct ttrace_file_run h;
	size_t at;			/* RECORDS: entries pool[at..] */
	uint64_t nent;			/* entries written (normally count) */
};

struct sample {
	struct ttrace_version v;
	uint8_t meta[2048];
	size_t meta_len;
	_Alignas(8) uint8_t aux_snap[AUX_SIZE];
	struct ttrace_aux_view aux;
	size_t aux_off;			/* aux.data - aux_snap */
	struct ttrace_entry pool[POOL];
	size_t npool;
	struct ssec sec[MAXSEC];	/* in file order, the CPUs interleaved */
	size_t nsec;
	struct ttrace_file_stats stats[NCPU];
	uint64_t head[NCPU];		/* each ring's head when saved */
	uint64_t records[NCPU];		/* slots in RECORDS */
	uint64_t lost[NCPU][TTRACE_LOSS_NREASONS];
	uint64_t wide_lost;		/* index of cpu0's orphaned wide event */
	uint64_t in_flight;		/* index of cpu1's slot in flight */
};

struct gen {
	struct trace_ring ring[NCPU];
	struct ttrace_entry mem[NCPU][NENT];
	struct trace_ring_cursor cur[NCPU];	/* the stream reader's */
	struct ttrace_aux aux;
	_Alignas(8) uint8_t aux_mem[AUX_SIZE];
	uint64_t ts;
};

static void put_name(struct gen *g, unsigned tag, uint64_t ident,
		     const void *s, size_t n)
{
	uint64_t pos;

	if (ttrace_aux_reserve(&g->aux, tag, 0, n, &pos) == 0) {
		ttrace_aux_fill(&g->aux, pos, g->ts, ident, s, n);
		ttrace_aux_publish(&g->aux, pos);
	}
	g->ts += 16;
}

static void ev(struct gen *g, unsigned cpu, unsigned id, unsigned ctx,
	       uint64_t ctxword, const uint64_t *a, unsigned n)
{
	g->ts += 16;
	put_event(&g->ring[cpu], g->ts, cpu, id, ctx, ctxword, a, n);
}

static void irq(struct gen *g, unsigned cpu, uint64_t vector)
{
	ev(g, cpu, EV_IRQ, TTRACE_CTX_IRQ, vector, (uint64_t[]){ vector }, 1);
}

static void wide(struct gen *g, unsigned cpu, uint64_t base)
{
	g->ts += 16;
	put_wide(&g->ring[cpu], g->ts, cpu, base);
}

/* pid 4 renamed with stamps out of their aux order (writers on several
 * CPUs stamp after they reserve), two of them alike; the clock goes on
 * after the latest. */
static void gen_names_unordered(struct gen *g)
{
	static const int64_t step[] = { 0, -56, 40, -56, 8, -24 };
	uint64_t ts = g->ts;
	char name[8];

	for (size_t i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		g->ts = (uint64_t)((int64_t)g->ts + step[i]);
		snprintf(name, sizeof(name), "o%zu", i);
		put_name(g, TTRACE_AUX_PROC_NAME, 4, name, strlen(name));
	}
	g->ts = ts + 16 * 8;
}

static void gen_names(struct gen *g, const uint8_t *meta, size_t meta_len)
{
	char name[32];

	for (int i = 0; i < 80; i++) {		/* enough to wrap aux */
		snprintf(name, sizeof(name), "proc%d", 100 + i);
		put_name(g, TTRACE_AUX_PROC_NAME, 100 + i, name, strlen(name));
	}
	put_name(g, TTRACE_AUX_EVENT_META, 0, meta, meta_len);
	put_name(g, TTRACE_AUX_SYSCALL_NAME, 1, "write", 5);
	put_name(g, TTRACE_AUX_BOOT_PHASE, 1, "memory", 6);
	put_name(g, TTRACE_AUX_PROC_NAME, 1, "init", 4);
	put_name(g, TTRACE_AUX_PROC_NAME, 2, "sh", 2);
	put_name(g, TTRACE_AUX_KTHREAD_NAME, 5, "kworker", 7);
	put_name(g, TTRACE_AUX_USER_MARKER, 7, "hello", 5);
	for (int i = 0; i < 12; i++) {		/* pid 3 renamed, in time */
		snprintf(name, sizeof(name), "r%d", i);
		put_name(g, TTRACE_AUX_PROC_NAME, 3, name, strlen(name));
	}
	gen_names_unordered(g);
	/* symbols out of address order, another tag between them */
	put_name(g, TTRACE_AUX_KSYM_NAME, 0x3000, "c_fn", 4);
	put_name(g, TTRACE_AUX_PROC_NAME, 6, "p6", 2);
	put_name(g, TTRACE_AUX_KSYM_NAME, 0x1000, "a_fn", 4);
	put_name(g, TTRACE_AUX_KSYM_NAME, 0x2000, "b_fn", 4);
}

/* emit_fn keeping each section in the sample (arg: the sample). */
static void sample_emit(void *arg, uint32_t cpu,
			const struct ttrace_file_run *h,
			const struct ttrace_entry *e)
{
	struct sample *s = arg;
	uint64_t n = h->type == TTRACE_FILE_SEC_RECORDS ? h->count : 0;
	struct ssec *x;

	if (s->nsec == MAXSEC || s->npool + n > POOL)
		abort();
	x = &s->sec[s->nsec++];
	x->cpu = cpu;
	x->stype = h->type;
	x->h = *h;
	x->at = s->npool;
	x->nent = n;
	if (n) {
		memcpy(&s->pool[s->npool], e, n * TTRACE_ENTRY_SIZE);
		s->npool += n;
		s->records[cpu] += n;
	} else {
		s->lost[cpu][h->reason] += h->count;
	}
}

/* The stream reader's pass over every CPU in turn, as `ttrace stream`. */
static void stream_pass(struct sample *s, struct gen *g, size_t bufsize,
			bool to_head)
{
	for (uint32_t c = 0; c < NCPU; c++)
		drain(&g->ring[c], &g->cur[c], c,
		      to_head ? trace_ring_head(&g->ring[c]) : UINT64_MAX,
		      bufsize, sample_emit, s);
}

/*
 * The events, in three phases with a stream pass after each:
 * 1. boot events, irqs, a wide event on cpu1, and on cpu0 a wide event
 *    interrupted between its timestamp and its reservation (the irq gets
 *    the earlier index with the later time: one reordered event);
 * 2. cpu1: 3 irqs, a clear, 2 irqs, a slot left in flight, a wide event
 *    and an irq; cpu0 wraps its ring far past the reader, ending with a
 *    wide event whose first entry is overwritten while its continuations
 *    are the oldest slots (lost as overwritten, never returned);
 * 3. the events the formatted lines check.
 */
static void gen_events(struct sample *s, struct gen *g)
{
	uint64_t sys = TTRACE_CTX_PIDWORD(2, 1), outer;

	ev(g, 0, EV_BOOT, TTRACE_CTX_BOOT, 0, (uint64_t[]){ 1, 0x1234 }, 2);
	ev(g, 1, EV_BOOT, TTRACE_CTX_BOOT, 1, (uint64_t[]){ 1, 0x99 }, 2);
	wide(g, 1, 300);
	for (unsigned i = 0; i < 4; i++)
		irq(g, 0, 32 + i);
	outer = g->ts += 16;
	irq(g, 0, 40);				/* the interrupt, nested */
	put_wide(&g->ring[0], outer, 0, 500);	/* ... in this event */
	irq(g, 0, 41);
	stream_pass(s, g, STREAM_READ, false);

	for (unsigned i = 0; i < 3; i++)
		irq(g, 1, 50 + i);
	trace_ring_clear(&g->ring[1]);
	irq(g, 1, 53);
	irq(g, 1, 54);
	s->in_flight = put_in_flight(&g->ring[1]);
	wide(g, 1, 3500);
	irq(g, 1, 55);
	for (unsigned i = 0; i < 40; i++) {
		irq(g, 0, 60 + i);
		if (i % 8 == 3)
			wide(g, 0, 1000 + i * 100);
	}
	s->wide_lost = trace_ring_head(&g->ring[0]);
	wide(g, 0, 9000);
	for (unsigned i = 0; i < NENT - WIDE_SLOTS + 1; i++)
		irq(g, 0, 100 + i);
	stream_pass(s, g, STREAM_READ, false);

	ev(g, 0, EV_SCHED, TTRACE_CTX_SYSC, sys, (uint64_t[]){ 1, 2, 0 }, 3);
	ev(g, 1, EV_SCHED, TTRACE_CTX_IDLE, 0, (uint64_t[]){ 2, 1, 1 }, 3);
	ev(g, 0, EV_MARKER, TTRACE_CTX_SYSC, sys, (uint64_t[]){ 7 }, 1);
	stream_pass(s, g, SAVE_READ, true);	/* the final passes */
}

static void fill_version(struct ttrace_version *v, const struct sample *s,
			 const struct gen *g)
{
	ttrace_version_init(v);
	v->num_cpus = NCPU;
	v->entries_per_cpu = NENT;
	v->tsc_hz = TSC_HZ;
	v->tsc_boot = TSC_BOOT;
	v->aux_size = AUX_SIZE;
	v->aux_mask = AUX_SIZE - 1;
	v->aux_first = g->aux.first;
	v->aux_last = g->aux.last;
	v->event_count = NEV;
	v->group_mask = 0xf;
	v->tsc_now = g->ts;
	v->meta_size = (uint32_t)s->meta_len;
}

/* Builds the sample trace with kern/lib, as the kernel and ttrace would. */
static void sample_build(struct sample *s)
{
	static struct gen g;

	memset(s, 0, sizeof(*s));
	memset(&g, 0, sizeof(g));
	g.ts = TSC_BOOT + 1000;
	s->meta_len = ttrace_meta_serialise(&table, s->meta, sizeof(s->meta));
	for (int c = 0; c < NCPU; c++)
		trace_ring_init(&g.ring[c], g.mem[c], sizeof(g.mem[c]),
				TRACE_RING_OVERWRITE);
	ttrace_aux_init(&g.aux, g.aux_mem, AUX_SIZE);
	gen_names(&g, s->meta, s->meta_len);
	gen_events(s, &g);
	for (int c = 0; c < NCPU; c++) {
		struct trace_ring_stats st;

		trace_ring_stats(&g.ring[c], &st);
		ttrace_image_stats(&s->stats[c], &st);
		s->head[c] = st.head;
	}
	ttrace_aux_snapshot(&g.aux, NULL, s->aux_snap, sizeof(s->aux_snap),
			    &s->aux);
	s->aux_off = (size_t)(s->aux.data - s->aux_snap);
	fill_version(&s->v, s, &g);
}

/* Streams len bytes at p into the open section in chunks of `chunk`. */
static void put_chunks(struct ttrace_file_writer *w, const void *p,
		       uint64_t len, size_t chunk)
{
	for (uint64_t off = 0; off < len; off += chunk)
		ttrace_file_section_data(w, (const uint8_t *)p + off,
					 MIN(chunk, len - off));
}

static size_t sample_pad;	/* bytes of a section type 77 before END */

/*
 * Writes s as `ttrace stream` does: VERSION, META, the runs in the order
 * they were read, AUX, STATS, END; payloads streamed in chunks of `chunk`;
 * sample_pad bytes of a type this code skips before END when not 0.
 */
static int sample_write(const struct sample *s, struct obuf *o, size_t chunk)
{
	struct ttrace_file_writer w;
	struct ttrace_file_aux a = { s->aux.first, s->aux.last };

	ttrace_file_writer_init(&w, obuf_out, o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &s->v,
				  sizeof(s->v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, s->meta,
				  s->meta_len);
	for (size_t i = 0; i < s->nsec; i++) {
		const struct ssec *x = &s->sec[i];

		ttrace_file_section_begin(&w, x->stype, x->cpu, RUN_HDR +
					  x->nent * TTRACE_ENTRY_SIZE);
		ttrace_file_section_data(&w, &x->h, RUN_HDR);
		put_chunks(&w, &s->pool[x->at], x->nent * TTRACE_ENTRY_SIZE,
			   chunk);
		ttrace_file_section_end(&w);
	}
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + s->aux.len);
	ttrace_file_section_data(&w, &a, sizeof(a));
	put_chunks(&w, s->aux_snap + s->aux_off, s->aux.len, chunk);
	ttrace_file_section_end(&w);
	for (uint32_t c = 0; c < NCPU; c++)
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, c,
					  &s->stats[c], sizeof(s->stats[c]));
	if (sample_pad) {
		void *pad = calloc(1, sample_pad);

		if (!pad)
			abort();
		ttrace_file_write_section(&w, 77, 0, pad, sample_pad);
		free(pad);
	}
	if (ttrace_file_write_end(&w) < 0)
		return w.error;
	if (w.offset != o->len || w.file_crc != ttrace_crc32(0, o->p, o->len))
		return -100;
	return 0;
}

static struct sample sample;
static struct obuf good;

static int good_file(void)
{
	if (good.p)
		return 0;
	sample_build(&sample);
	return sample_write(&sample, &good, 1000);
}

/* Index in s->sec of the nth section of cpu whose run type is type. */
static size_t sec_of(const struct sample *s, uint32_t cpu, uint32_t type,
		     unsigned nth)
{
	for (size_t i = 0; i < s->nsec; i++)
		if (s->sec[i].cpu == cpu && s->sec[i].h.type == type &&
		    nth-- == 0)
			return i;
	abort();
}

/* Index in s->pool of cpu's nth first entry (cont: continuation). */
static size_t ent_of(const struct sample *s, uint32_t cpu, bool cont,
		     unsigned nth)
{
	for (size_t i = 0; i < s->nsec; i++) {
		const struct ssec *x = &s->sec[i];

		for (uint64_t k = 0; x->cpu == cpu && k < x->nent; k++)
			if (ttrace_ts_is_cont(s->pool[x->at + k].timestamp) ==
			    cont && nth-- == 0)
				return x->at + k;
	}
	abort();
}

/* ---- checks on a loaded trace -------------------------------------------- */

/* Slots of the event whose first entry is e. */
static uint64_t ev_slots(const struct ttrace_entry *e)
{
	return 1 + TTRACE_TYPE_NCONT(e->type);
}

/*
 * cpu c's runs are contiguous and checked: each RECORDS run holds whole
 * events, each first entry's seq is its index's, each continuation carries
 * its parent's timestamp | 1; the counts in check and lost[] add up.
 */
static int check_runs(const struct ttload *t, uint32_t c)
{
	const struct ttload_cpu *cpu = &t->cpus[c];
	uint64_t firsts = 0, conts = 0, slots = 0, lost = 0;
	uint64_t bylost[TTRACE_LOSS_NREASONS] = { 0 }, nloss = 0;

	for (uint64_t r = 0; r < cpu->nruns; r++) {
		const struct ttload_run *run = &cpu->runs[r];

		HT_CHECK(run->count > 0);
		HT_CHECK(r == 0 || run->first == cpu->runs[r - 1].first +
				   cpu->runs[r - 1].count);
		HT_CHECK(run->first + run->count >= run->first);
		if (run->type == TTRACE_FILE_SEC_LOSS) {
			HT_CHECK(run->reason > 0 &&
				 run->reason < TTRACE_LOSS_NREASONS);
			bylost[run->reason] += run->count;
			lost += run->count;
			nloss++;
			continue;
		}
		HT_CHECK(run->type == TTRACE_FILE_SEC_RECORDS && !run->reason);
		HT_CHECK((uintptr_t)run->entries % TTRACE_ENTRY_SIZE == 0);
		/* in the loader's buffer, perhaps moved down over the
		 * framing of the cpu's sections before it */
		HT_CHECK(run->entries >= (const struct ttrace_entry *)t->buf &&
			 (const void *)run->entries <=
			 (const void *)(t->buf + run->offset));
		slots += run->count;
		for (uint64_t i = 0; i < run->count;) {
			const struct ttrace_entry *e = &run->entries[i];
			uint64_t n = ev_slots(e);

			HT_CHECK(ttrace_ts_valid(e->timestamp) &&
				 !ttrace_ts_is_cont(e->timestamp));
			HT_CHECK(TTRACE_TYPE_SEQ(e->type) ==
				 TTRACE_SEQ_OF(run->first + i));
			HT_CHECK(TTRACE_TYPE_CPU(e->type) == c);
			HT_CHECK(i + n <= run->count);
			for (uint64_t k = 1; k < n; k++)
				HT_CHECK(e[k].timestamp ==
					 (e->timestamp | TTRACE_TS_CONT));
			firsts++;
			conts += n - 1;
			i += n;
		}
	}
	HT_CHECK(cpu->slots == slots && cpu->check.firsts == firsts &&
		 cpu->check.conts == conts && firsts + conts == slots);
	HT_CHECK(cpu->nlosses == nloss);
	HT_CHECK(!memcmp(bylost, cpu->lost, sizeof(bylost)));
	if (cpu->nruns)
		HT_CHECK(cpu->check.end_index - cpu->check.first_index ==
			 slots + lost &&
			 cpu->check.first_index == cpu->runs[0].first);
	else
		HT_CHECK(!cpu->check.first_index && !cpu->check.end_index);
	return 0;
}

/* Sum of the CRCs of every event (first entry and continuations) of the
 * n slots at v, which hold whole events. */
static uint64_t event_sum(const struct ttrace_entry *v, uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i += ev_slots(&v[i]))
		sum += ttrace_crc32(0, &v[i], MIN(ev_slots(&v[i]), n - i) *
				    TTRACE_ENTRY_SIZE);
	return sum;
}

/*
 * cpu c's sorted view holds exactly the events of its runs, by time, each
 * continuation right after its parent; each loss sits before the first
 * event after it in index order (UINT64_MAX: after the last).
 */
static int check_sorted(const struct ttload *t, uint32_t c)
{
	const struct ttload_cpu *cpu = &t->cpus[c];
	uint64_t prev = 0, sum = 0, l = 0, next_ts = UINT64_MAX;

	HT_CHECK(cpu->nsorted == cpu->slots);
	for (uint64_t i = 0; i < cpu->nsorted;) {
		const struct ttrace_entry *e = &cpu->sorted[i];
		uint64_t n = ev_slots(e);

		HT_CHECK(!ttrace_ts_is_cont(e->timestamp) &&
			 e->timestamp >= prev && i + n <= cpu->nsorted);
		for (uint64_t k = 1; k < n; k++)
			HT_CHECK(e[k].timestamp == (e->timestamp | 1));
		prev = e->timestamp;
		i += n;
	}
	for (uint64_t r = 0; r < cpu->nruns; r++)
		if (cpu->runs[r].type == TTRACE_FILE_SEC_RECORDS)
			sum += event_sum(cpu->runs[r].entries,
					 cpu->runs[r].count);
	HT_CHECK(sum == event_sum(cpu->sorted, cpu->nsorted));
	for (uint64_t r = cpu->nruns; r-- > 0;) {
		const struct ttload_run *run = &cpu->runs[r];

		if (run->type == TTRACE_FILE_SEC_RECORDS) {
			next_ts = run->entries[0].timestamp;
			continue;
		}
		l++;
		HT_CHECK(l <= cpu->nlosses);
		HT_CHECK(cpu->losses[cpu->nlosses - l].first == run->first &&
			 cpu->losses[cpu->nlosses - l].count == run->count &&
			 cpu->losses[cpu->nlosses - l].reason == run->reason);
		/* (ttload places a loss before an event at time 0 last) */
		HT_CHECK(cpu->losses[cpu->nlosses - l].ts == next_ts ||
			 (!next_ts &&
			  cpu->losses[cpu->nlosses - l].ts == UINT64_MAX));
	}
	HT_CHECK(l == cpu->nlosses);
	return 0;
}

/* Everything check_runs and check_sorted check, for every cpu, and the
 * stored check equals a new ttload_check_ring(). */
static int check_loaded(const struct ttload *t)
{
	struct ttrace_file_error e;

	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		struct ttload_ring_check rc;

		HT_TRY(check_runs(t, c));
		HT_TRY(check_sorted(t, c));
		HT_CHECK(ttload_check_ring(t, c, &rc, &e) == 0);
		HT_CHECK(!memcmp(&rc, &t->cpus[c].check, sizeof(rc)));
	}
	return 0;
}

/* ---- basics -------------------------------------------------------------- */

static int test_crc32(void)
{
	const char *s = "123456789";

	HT_CHECK(ttrace_crc32(0, s, 9) == 0xe3069283);	/* the check value */
	HT_CHECK(ttrace_crc32(ttrace_crc32(0, s, 4), s + 4, 5) == 0xe3069283);
	HT_CHECK(ttrace_crc32(0, "", 0) == 0);
	for (uint32_t i = 0, a = 0, b = 0; i < 1000; i++) {
		uint8_t buf[1000];	/* sixteen at a time = one at a time */

		buf[i] = (uint8_t)(i * 131 + 7);
		b = ttrace_crc32(b, &buf[i], 1);
		a = ttrace_crc32(0, buf, i + 1);
		HT_CHECK(a == b);
	}
	HT_CHECK(ttrace_file_pad(48) == 0 && ttrace_file_pad(52) == 60);
	HT_CHECK(ttrace_file_pad(112) == 0 && ttrace_file_pad(113) == 63);
	return 0;
}

/* The crc32 instruction (tools/load/ttcrc32.c), one stream or three,
 * gives the tables' CRC for every length and alignment, chained or not;
 * without SSE4.2 it is the tables. */
static int test_crc32_hw(void)
{
	static uint8_t buf[20000];
	static uint32_t want[64][4];
	uint32_t seed = 1;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = (uint8_t)(seed >> 16);
	}
	ttrace_crc32_set_hw(false);
	for (uint32_t l = 0; l < 64; l++)
		for (uint32_t o = 0; o < 4; o++)
			want[l][o] = ttrace_crc32(l * 0x9e3779b9u, buf + o * 5,
						  l * l * 4 + l);
	if (!ttcrc32_install())
		return 0;
	HT_CHECK(ttrace_crc32(0, "123456789", 9) == 0xe3069283);
	for (uint32_t l = 0; l < 64; l++)
		for (uint32_t o = 0; o < 4; o++)
			HT_CHECK(ttrace_crc32(l * 0x9e3779b9u, buf + o * 5,
					      l * l * 4 + l) == want[l][o]);
	HT_CHECK(ttrace_crc32(ttrace_crc32(0, buf, 1000), buf + 1000, 3000) ==
		 ttrace_crc32(0, buf, 4000));
	return 0;
}

/* CRC-32C a bit at a time: the definition, for the tests below. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* ttrace_crc32 (tables, then the instruction if the host has it) is the
 * bitwise CRC on random bytes for every length 0..300 at every alignment
 * 0..15, from random starting CRCs, and on lengths around the three
 * streams' block (3 x 2048). */
static int test_crc32_bitwise(void)
{
	static uint8_t buf[13000 + 16];
	static const size_t longs[] = { 6143, 6144, 6145, 6151, 12288, 12999 };
	uint32_t seed = 7;

	for (int hw = 0; hw < 2; hw++) {
		if (hw && !ttcrc32_install())
			break;
		for (size_t len = 0; len <= 300 + ARRAY_SIZE(longs); len++)
			for (size_t al = 0; al < 16; al++) {
				size_t n = len <= 300 ? len : longs[len - 301];
				uint32_t c0;

				for (size_t i = 0; i < n + 16; i++) {
					seed = seed * 1103515245 + 12345;
					buf[i] = (uint8_t)(seed >> 16);
				}
				c0 = seed;
				HT_CHECK(ttrace_crc32(c0, buf + al, n) ==
					 crc32_bitwise(c0, buf + al, n));
			}
	}
	ttrace_crc32_set_hw(false);
	return 0;
}

/* Ends w's file (in o) and walks it with the reader: every section's CRC
 * and the file's check. Frees o's bytes. */
static int end_and_walk(struct ttrace_file_writer *w, struct obuf *o)
{
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	struct ttrace_file_error e;
	int rc;

	HT_CHECK(ttrace_file_write_end(w) == 0);
	HT_CHECK(ttrace_file_open(&r, o->p, o->len, &e) == 0);
	while ((rc = ttrace_file_next(&r, &s, &e)) > 0)
		;
	free(o->p);
	if (rc < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	return 0;
}

/* Long sections (their CRCs combined into the file's, the shift operator
 * kept while sizes repeat) of repeating and changing sizes: the file CRC
 * is the CRC of the bytes written after each, and the reader (which
 * combines too) accepts the file. */
static int test_writer_combine_sizes(void)
{
	static const uint32_t sizes[] = { 2048, 16016, 16016, 16016, 4097,
					  16016, 65536, 65536, 2049, 300000 };
	static uint8_t payload[300000 + ARRAY_SIZE(sizes)];
	struct ttrace_file_writer w;
	struct obuf o = { 0 };

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 2654435761u >> 13);
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		HT_CHECK(ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0,
						   payload + i, sizes[i]) == 0);
		HT_CHECK(w.file_crc == crc32_bitwise(0, o.p, o.len));
	}
	return end_and_walk(&w, &o);
}

static int test_writer_misuse(void)
{
	struct ttrace_file_writer w;
	struct obuf o = { 0 };

	ttrace_file_writer_init(&w, obuf_out, &o);
	HT_CHECK(ttrace_file_section_begin(&w, 1, 0, 4) == TTRACE_FILE_ESTATE);
	HT_CHECK(ttrace_file_write_header(&w) == TTRACE_FILE_ESTATE); /* sticky */
	ttrace_file_writer_init(&w, obuf_out, &o);
	HT_CHECK(ttrace_file_write_header(&w) == 0);
	HT_CHECK(ttrace_file_section_begin(&w, 1, 0, 4) == 0);
	HT_CHECK(ttrace_file_section_data(&w, "abc", 3) == 0);
	HT_CHECK(ttrace_file_section_end(&w) == TTRACE_FILE_ESTATE);
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_section_begin(&w, 1, 0, 2);
	HT_CHECK(ttrace_file_section_data(&w, "abc", 3) == TTRACE_FILE_ESTATE);
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	HT_CHECK(ttrace_file_section_begin(&w, TTRACE_FILE_SEC_END, 0, 16) ==
		 TTRACE_FILE_ESTATE);
	o.fail_at = o.writes + 3;
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, 9, 0, "x", 1);
	HT_CHECK(w.error == TTRACE_FILE_EIO);
	HT_CHECK(ttrace_file_write_end(&w) == TTRACE_FILE_EIO);
	free(o.p);
	return 0;
}

/* Chunk size must not change a single byte of the file. */
static int test_streaming(void)
{
	struct obuf a = { 0 }, b = { 0 };

	HT_CHECK(good_file() == 0);
	HT_CHECK(sample_write(&sample, &a, 64) == 0);
	HT_CHECK(sample_write(&sample, &b, 7) == 0);
	HT_CHECK(a.len == good.len && b.len == good.len);
	HT_CHECK(!memcmp(a.p, good.p, a.len) && !memcmp(b.p, good.p, b.len));
	free(a.p);
	free(b.p);
	return 0;
}

/* Sections on both sides of the writer's combine threshold, streamed in
 * odd chunks: END's file CRC is the CRC-32 of every byte before it
 * (long sections' CRCs are combined into it at their end, short ones'
 * bytes fed to it as they come), and the reader accepts the file. */
static int test_writer_combine(void)
{
	static const uint64_t lens[] = { 0, 100, 2047, 2048, 5000, 70001 };
	static uint8_t payload[70001];
	struct ttrace_file_writer w;
	struct obuf o = { 0 };
	uint32_t crc;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 131 + 7);
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	for (size_t k = 0; k < ARRAY_SIZE(lens); k++) {
		ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0, lens[k]);
		for (uint64_t at = 0; at < lens[k]; at += 777)
			ttrace_file_section_data(&w, payload + at,
						 MIN(777, lens[k] - at));
		ttrace_file_section_end(&w);
	}
	crc = ttrace_crc32(0, o.p, o.len);
	HT_CHECK(w.file_crc == crc);
	return end_and_walk(&w, &o);
}

static int test_layout(void)
{
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	struct ttrace_file_error e;
	uint32_t n = 0, nruns = 0, switches = 0, last_cpu = 0;
	int rc;

	HT_CHECK(offsetof(struct ttrace_file_run, count) == 8 &&
		 offsetof(struct ttrace_file_run, type) == 16 &&
		 offsetof(struct ttrace_file_run, reason) == 20 &&
		 offsetof(struct ttrace_file_run, reserved) == 24);
	HT_CHECK(TTRACE_FILE_VERSION == 3);
	HT_CHECK(!strcmp(ttrace_file_sec_name(TTRACE_FILE_SEC_RECORDS),
			 "RECORDS") &&
		 !strcmp(ttrace_file_sec_name(TTRACE_FILE_SEC_LOSS), "LOSS") &&
		 !strcmp(ttrace_file_sec_name(4), "RING") &&
		 !strcmp(ttrace_file_sec_name(77), "UNKNOWN"));
	HT_CHECK(good_file() == 0);
	HT_CHECK(!memcmp(good.p, "\x89TTR\r\n\x1a\n\x04\x03\x02\x01\x03\x00",
			 14));
	{	/* a version 2 file (CRC-32) is named as such at offset 12 */
		uint8_t old[TTRACE_FILE_HDR_SIZE];

		memcpy(old, good.p, sizeof(old));
		old[12] = 2;
		HT_CHECK(ttrace_file_open(&r, old, sizeof(old), &e) == -1 &&
			 e.offset == 12 && strstr(e.msg, "version 2 (CRC-32)"));
	}
	HT_CHECK(ttrace_file_open(&r, good.p, good.len, &e) == 0);
	while ((rc = ttrace_file_next(&r, &s, &e)) > 0) {
		HT_CHECK(s.payload_offset % TTRACE_FILE_ALIGN == 0);
		HT_CHECK(s.offset % TTRACE_FILE_ALIGN == 48);
		if (s.type == TTRACE_FILE_SEC_RECORDS ||
		    s.type == TTRACE_FILE_SEC_LOSS) {
			const struct ssec *x = &sample.sec[nruns++];
			struct ttrace_file_run h;

			HT_CHECK(nruns <= sample.nsec);
			HT_CHECK(s.type == x->h.type && s.cpu == x->cpu);
			HT_CHECK(s.length == RUN_HDR +
				 x->nent * TTRACE_ENTRY_SIZE);
			memcpy(&h, s.payload, sizeof(h));
			HT_CHECK(!memcmp(&h, &x->h, sizeof(h)));
			HT_CHECK(!h.reserved[0] && !h.reserved[4]);
			switches += nruns > 1 && s.cpu != last_cpu;
			last_cpu = s.cpu;
		}
		n++;
	}
	HT_CHECK(rc == 0 && nruns == sample.nsec);
	HT_CHECK(n == 3 + sample.nsec + NCPU && r.nsections == n);
	HT_CHECK(switches > NCPU);	/* a stream: the cpus interleave */
	HT_CHECK(r.pos + TTRACE_FILE_END_SIZE == good.len);
	HT_CHECK(ttrace_file_next(&r, &s, &e) == 0);	/* stays at the end */
	return 0;
}

/* ---- reading back -------------------------------------------------------- */

/* Formats every event of t; returns how many lines contain want. */
static int count_lines(struct ttload *t, const char *want)
{
	char line[1024];
	int hits = 0;

	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		struct ttrace_pair_iter it;
		struct ttrace_event_view ev;

		ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted,
				 &t->meta);
		while (ttrace_pair_next(&it, &ev)) {
			ttrace_format_line(line, sizeof(line), &t->meta, &ev,
					   t->has_aux ? ttrace_aux_resolve : NULL,
					   &t->aux);
			hits += want && strstr(line, want) != NULL;
		}
	}
	return hits;
}

/* The sample's sections of cpu c are t's runs of cpu c, byte for byte. */
static int same_runs(const struct ttload *t, uint32_t c)
{
	const struct ttload_cpu *cpu = &t->cpus[c];
	uint64_t r = 0;

	for (size_t i = 0; i < sample.nsec; i++) {
		const struct ssec *x = &sample.sec[i];
		const struct ttload_run *run;

		if (x->cpu != c)
			continue;
		HT_CHECK(r < cpu->nruns);
		run = &cpu->runs[r++];
		HT_CHECK(run->first == x->h.first && run->count == x->h.count &&
			 run->type == x->h.type && run->reason == x->h.reason);
		if (run->type == TTRACE_FILE_SEC_RECORDS)
			HT_CHECK(!memcmp(good.p + run->offset,
					 &sample.pool[x->at],
					 x->nent * TTRACE_ENTRY_SIZE) &&
				 !memcmp(run->entries, &sample.pool[x->at],
					 x->nent * TTRACE_ENTRY_SIZE));
	}
	HT_CHECK(r == cpu->nruns);
	return 0;
}

static int test_roundtrip(void)
{
	struct ttrace_file_error e;
	struct ttload t;
	const struct ttload_cpu *c0, *c1, *c2;
	uint64_t w;

	HT_CHECK(good_file() == 0);
	w = sample.wide_lost;	/* the sample exists from here on */
	if (ttload_buffer(&t, good.p, good.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	HT_CHECK(!memcmp(&t.version, &sample.v, sizeof(sample.v)));
	HT_CHECK(t.meta.nevents == NEV && t.meta_len == sample.meta_len);
	HT_CHECK(t.has_aux && t.aux.len == sample.aux.len && t.aux.first > 0);
	HT_CHECK(t.file_crc == ttrace_crc32(0, good.p, good.len));
	HT_CHECK(t.nsections == 3 + sample.nsec + NCPU && t.nunknown == 0);
	if (check_loaded(&t)) {
		ttload_free(&t);
		return 1;
	}
	for (uint32_t c = 0; c < NCPU; c++) {
		const struct ttload_cpu *cpu = &t.cpus[c];
		uint64_t lost = 0;

		HT_TRY(same_runs(&t, c));
		HT_CHECK(cpu->has_stats);
		HT_CHECK(!memcmp(&cpu->stats, &sample.stats[c],
				 sizeof(sample.stats[c])));
		HT_CHECK(!memcmp(cpu->lost, sample.lost[c],
				 sizeof(sample.lost[c])));
		for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
			lost += cpu->lost[r];
		/* the stream read every index exactly once */
		HT_CHECK(cpu->slots == sample.records[c]);
		HT_CHECK(cpu->slots + lost == sample.head[c]);
		HT_CHECK(cpu->check.end_index == sample.head[c]);
		HT_CHECK(cpu->check.before_boot == 0);
	}
	c0 = &t.cpus[0];
	c1 = &t.cpus[1];
	c2 = &t.cpus[2];
	/* cpu0: lapped, its oldest two slots the orphaned continuations */
	HT_CHECK(c0->check.first_index == 0 && c0->check.reordered == 1);
	HT_CHECK(sample.stats[0].overwritten > 0);
	HT_CHECK(c0->lost[TTRACE_LOSS_OVERWRITTEN] == w + WIDE_SLOTS - 10 &&
		 c0->nlosses == 3);
	HT_CHECK(c0->losses[0].first == 10 && c0->losses[0].count == w - 9 &&
		 c0->losses[1].first == w + 1 && c0->losses[1].count == 1 &&
		 c0->losses[2].first == w + 2 && c0->losses[2].count == 1);
	HT_CHECK(c0->losses[0].ts == c0->losses[2].ts &&
		 c0->losses[2].ts != UINT64_MAX);
	/* cpu1: cleared, and a slot given up in flight */
	HT_CHECK(c1->check.first_index == 0 && c1->check.reordered == 0);
	HT_CHECK(c1->lost[TTRACE_LOSS_CLEARED] == 3 &&
		 c1->lost[TTRACE_LOSS_IN_FLIGHT] == 1 && c1->nlosses == 2);
	HT_CHECK(c1->losses[1].first == sample.in_flight &&
		 c1->losses[1].count == 1);
	HT_CHECK(c1->check.firsts == 7 && c1->check.conts == 4);
	/* cpu2: nothing at all */
	HT_CHECK(c2->nruns == 0 && c2->nsorted == 0 && c2->nlosses == 0);
	HT_CHECK(count_lines(&t, "sys:sh[2]:write sched_switch: prev=init "
			     "next=sh prev_state=0") == 1);
	HT_CHECK(count_lines(&t, "user_marker: hello") == 1);
	HT_CHECK(count_lines(&t, "boot:memory boot_phase: #1 arg=0x99") == 0);
	HT_CHECK(count_lines(&t, "cpu1 boot:memory boot_phase: memory "
			     "arg=0x99") == 1);
	HT_CHECK(count_lines(&t, "kt:kworker test_wide: w0=300 w1=301") == 1);
	HT_CHECK(count_lines(&t, "w0=500 ") == 1);	/* the interrupted one */
	HT_CHECK(count_lines(&t, "w12=3512") == 1);	/* both continuations */
	HT_CHECK(count_lines(&t, "w0=9000") == 0);	/* lost */
	HT_CHECK(count_lines(&t, "(incomplete)") == 0);
	ttload_free(&t);
	return 0;
}

/* ---- damage -------------------------------------------------------------- */

/* Loads buf; must fail with an offset at or before limit and a message. */
static int must_fail(const uint8_t *buf, size_t len, uint64_t limit,
		     const char *what, size_t where)
{
	struct ttrace_file_error e;
	struct ttload t;

	memset(&e, 0, sizeof(e));
	if (ttload_buffer(&t, buf, len, &e) == 0) {
		ttload_free(&t);
		HT_FAIL("%s at %zu accepted", what, where);
	}
	if (e.offset > limit || !e.msg[0])
		HT_FAIL("%s at %zu: offset %llu: '%s'", what, where,
			(unsigned long long)e.offset, e.msg);
	return 0;
}

static int test_every_byte(void)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff, 0x10, 0x02, 0x40,
					 0x08, 0x04, 0x20 };
	uint8_t *copy;

	HT_CHECK(good_file() == 0);
	copy = malloc(good.len);
	memcpy(copy, good.p, good.len);
	for (size_t i = 0; i < good.len; i++) {
		/* one flip a byte (a CRC-32 sees them all), every bit and a
		 * whole byte in turn; each header byte gets three */
		for (size_t f = 0; f < (i < TTRACE_FILE_HDR_SIZE ? 3 : 1); f++) {
			uint8_t x = flips[(i + f) % sizeof(flips)];

			copy[i] ^= x;
			if (must_fail(copy, good.len, i, "flip", i)) {
				free(copy);
				return 1;
			}
			copy[i] ^= x;
		}
	}
	free(copy);
	return 0;
}

static int test_every_truncation(void)
{
	HT_CHECK(good_file() == 0);
	for (size_t n = 0; n < good.len; n++)
		if (must_fail(good.p, n, n, "truncation", n))
			return 1;
	/* and a byte too many */
	good.p = realloc(good.p, good.len + 1);
	good.p[good.len] = 0;
	return must_fail(good.p, good.len + 1, good.len, "extension", good.len);
}

/* A file whose CRCs are right but whose content is not. */
static int hostile(struct sample *s, const char *want)
{
	struct obuf o = { 0 };
	struct ttrace_file_error e;
	struct ttload t;
	int rc;

	HT_CHECK(sample_write(s, &o, 4096) == 0);
	rc = ttload_buffer(&t, o.p, o.len, &e);
	if (rc == 0) {
		struct ttload_aux_check ac;

		rc = ttload_check_aux(&t, &ac, &e);
		for (uint32_t c = 0; c < t.version.num_cpus && rc == 0; c++) {
			struct ttload_ring_check rcheck;

			rc = ttload_check_ring(&t, c, &rcheck, &e);
		}
		ttload_free(&t);
	}
	free(o.p);
	if (rc == 0)
		HT_FAIL("hostile file accepted (wanted '%s')", want);
	if (!strstr(e.msg, want) || e.offset >= o.len)
		HT_FAIL("wanted '%s', got offset %llu: %s", want,
			(unsigned long long)e.offset, e.msg);
	return 0;
}

static int test_hostile(void)
{
	static struct sample s;
	size_t loss1, rec0, rec1, boot1, irq0, cont0;

	HT_CHECK(good_file() == 0);
	loss1 = sec_of(&sample, 1, TTRACE_FILE_SEC_LOSS, 0);	/* [4, 7) */
	rec0 = sec_of(&sample, 0, TTRACE_FILE_SEC_RECORDS, 0);	/* [0, 9) */
	rec1 = sec_of(&sample, 1, TTRACE_FILE_SEC_RECORDS, 0);
	boot1 = ent_of(&sample, 1, false, 0);
	irq0 = ent_of(&sample, 0, false, 1);
	cont0 = ent_of(&sample, 0, true, 0);
	HT_CHECK(sample.sec[loss1].h.first == 4 &&
		 sample.sec[loss1].h.count == 3 &&
		 sample.sec[rec0].h.first == 0 && sample.sec[rec0].h.count == 9);
	HT_CHECK(TTRACE_TYPE_ID(sample.pool[irq0].type) == EV_IRQ);
#define CASE(change, want)						\
	do {								\
		s = sample;						\
		change;							\
		if (hostile(&s, want))					\
			return 1;					\
	} while (0)
	CASE(s.v.num_cpus = 0, "bad number of cpus");
	CASE(s.v.num_cpus = 2, "STATS for cpu 2, but the trace has 2 cpus");
	CASE(s.v.entries_per_cpu = 4, "RECORDS: bad count");
	CASE(s.v.entries_per_cpu = 24, "power of two");
	CASE(s.v.magic = TTRACE_MAGIC_SWAPPED, "other byte order");
	CASE(s.v.meta_size++, "meta_size");
	CASE(s.v.event_count = 4, "event count");
	CASE(s.meta[20] ^= 1, "META");
	CASE((s.v.aux_size = 64, s.v.aux_mask = 63, s.v.aux_first = s.v.aux_last),
	     "AUX: counters");
	CASE(s.aux.first += 8, "AUX: counters");
	CASE(memcpy(s.aux_snap + s.aux_off + 4, "\xff\xff\xff\x7f", 4),
	     "AUX: malformed");
	/* entries */
	CASE(s.pool[irq0].type |= 0xfULL << 16, "context kind");
	CASE(s.pool[boot1].type ^= 1ULL << 28, "written by cpu 0 but in the "
	     "ring of cpu 1");
	CASE(s.pool[boot1].type ^= 1ULL << 39, "written by cpu 2049");
	CASE(s.pool[boot1].type |= 0x3ff, "event id 1023");
	CASE(s.pool[boot1].type |= 0x1000, "type flags 0x1000 are reserved");
	CASE(s.pool[irq0].type |= 1ULL << 20, "announces 1 continuations");
	CASE(s.pool[irq0].type ^= 1ULL << 40, "cpu 0 index 1 holds the record "
	     "of seq 0");
	CASE(s.pool[irq0].type ^= 1ULL << 63, "cpu 0 index 1 holds the record "
	     "of seq 8388609");
	CASE(s.pool[irq0].timestamp = TTRACE_TS_INVALID, "invalid timestamp");
	CASE(s.pool[cont0].timestamp ^= 2, "continuation without its first");
	CASE(s.pool[cont0].timestamp &= ~1ULL, "continuation is missing");
	/* runs */
	CASE(s.sec[loss1].h.reason = 0, "LOSS: bad count, reason or length");
	CASE(s.sec[loss1].h.reason = TTRACE_LOSS_NREASONS,
	     "LOSS: bad count, reason or length");
	CASE(s.sec[loss1].h.count = 0, "LOSS: bad count, reason or length");
	CASE(s.sec[loss1].h.count++, "cpu 1: run at 7 overlaps the one before it, which ended at 8");
	CASE(s.sec[loss1].h.count--, "cpu 1: logical indices [6, 7) missing");
	CASE(s.sec[loss1].stype = 99, "cpu 1: logical indices [4, 7) missing");
	CASE(s.sec[loss1].nent = 1, "LOSS: bad count, reason or length");
	CASE(s.sec[rec0].nent--, "RECORDS: bad count, reason or length");
	CASE(s.sec[rec0].h.count++, "RECORDS: bad count, reason or length");
	CASE((s.sec[rec0].h.count--, s.sec[rec0].nent--),
	     "cpu 0: logical indices [8, 9) missing");
	CASE(s.sec[rec1].stype = TTRACE_FILE_SEC_LOSS, "LOSS: no run header "
	     "of its type");
	CASE(s.sec[rec1].h.type = TTRACE_FILE_SEC_LOSS, "RECORDS: no run "
	     "header of its type");
	CASE(s.sec[rec1].h.reason = TTRACE_LOSS_RACED,
	     "RECORDS: bad count, reason or length");
	CASE(s.sec[rec1].cpu = 7, "RECORDS for cpu 7, but the trace has 3 cpus");
	CASE((s.sec[rec0].h.first += 1 << 24, s.sec[rec0].h.count--,
	      s.sec[rec0].nent--), "cpu 0: run at");
	CASE((s.pool[irq0] = sample.pool[irq0 + 1],
	      s.pool[irq0 + 1] = sample.pool[irq0]),
	     "cpu 0 index 1 holds the record of seq 2");
	return 0;
#undef CASE
}

/* ---- hand-made files ----------------------------------------------------- */

struct fb {
	struct obuf o;
	struct ttrace_file_writer w;
};

/* Starts a file: header, VERSION v, the sample's META. */
static void fb_start(struct fb *f, const struct ttrace_version *v)
{
	memset(f, 0, sizeof(*f));
	ttrace_file_writer_init(&f->w, obuf_out, &f->o);
	ttrace_file_write_header(&f->w);
	ttrace_file_write_section(&f->w, TTRACE_FILE_SEC_VERSION, 0, v,
				  sizeof(*v));
	ttrace_file_write_section(&f->w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
}

/* A section of type stype for cpu: run header h, then n entries e.
 * Returns the file offset of its section header. */
static uint64_t fb_sec(struct fb *f, uint32_t stype, uint32_t cpu,
		       const struct ttrace_file_run *h,
		       const struct ttrace_entry *e, uint64_t n)
{
	uint64_t off = f->w.offset;

	ttrace_file_section_begin(&f->w, stype, cpu, RUN_HDR +
				  n * TTRACE_ENTRY_SIZE);
	ttrace_file_section_data(&f->w, h, RUN_HDR);
	if (n)
		ttrace_file_section_data(&f->w, e, n * TTRACE_ENTRY_SIZE);
	ttrace_file_section_end(&f->w);
	return off;
}

/* RECORDS of cpu: indices [first, first + n), entries e. */
static uint64_t fb_rec(struct fb *f, uint32_t cpu, uint64_t first,
		       const struct ttrace_entry *e, uint64_t n)
{
	struct ttrace_file_run h = { .first = first, .count = n,
				     .type = TTRACE_FILE_SEC_RECORDS };

	return fb_sec(f, h.type, cpu, &h, e, n);
}

/* LOSS of cpu: indices [first, first + count) for reason. */
static uint64_t fb_loss(struct fb *f, uint32_t cpu, uint64_t first,
			uint64_t count, uint32_t reason)
{
	struct ttrace_file_run h = { .first = first, .count = count,
				     .type = TTRACE_FILE_SEC_LOSS,
				     .reason = reason };

	return fb_sec(f, h.type, cpu, &h, NULL, 0);
}

/* Ends the file and loads it into t; returns ttload_buffer's result. */
static int fb_load(struct fb *f, struct ttload *t, struct ttrace_file_error *e)
{
	int rc;

	memset(e, 0, sizeof(*e));
	if (ttrace_file_write_end(&f->w) < 0)
		abort();
	rc = ttload_buffer(t, f->o.p, f->o.len, e);
	free(f->o.p);
	f->o.p = NULL;
	return rc;
}

/* Ends f; loading it must fail at offset off with a message holding want
 * and want2 (if not NULL). line: the caller's. */
static int fb_fails_at(int line, struct fb *f, uint64_t off, const char *want,
		       const char *want2)
{
	struct ttrace_file_error e;
	struct ttload t;

	if (fb_load(f, &t, &e) == 0) {
		ttload_free(&t);
		HT_FAIL("line %d: accepted (wanted '%s')", line, want);
	}
	if (e.offset != off || !strstr(e.msg, want) ||
	    (want2 && !strstr(e.msg, want2)))
		HT_FAIL("line %d: wanted offset %llu: '%s'%s%s, got offset "
			"%llu: %s", line, (unsigned long long)off, want,
			want2 ? " and " : "",
			want2 ? want2 : "", (unsigned long long)e.offset,
			e.msg);
	return 0;
}

#define fb_fails(...)	fb_fails_at(__LINE__, __VA_ARGS__)

/* File offset of entry i of the RECORDS section whose header is at off. */
static uint64_t ent_off(uint64_t off, uint64_t i)
{
	return off + TTRACE_FILE_SEC_HDR_SIZE + RUN_HDR + i * TTRACE_ENTRY_SIZE;
}

#define HM_FIRST	80		/* hand-made records: [80, 140) */
#define HM_N		60
#define HM_WIDE		100		/* a wide event at [100, 103) */
#define HM_NENT		64

static struct ttrace_version hm_v;		/* entries_per_cpu 64 */
static struct ttrace_entry hm[HM_N + 4];	/* hm[i]: index 80 + i */
static struct ttrace_entry tmp[HM_N + 8];

/* The hand-made tests' records: cpu 1's ring of 64 entries restarted at
 * index 80 (its earlier records cleared), irqs with vector = index, and a
 * wide event at 100; read back with trace_ring_collect(). */
static int hm_build(void)
{
	static struct ttrace_entry mem[HM_NENT];
	struct trace_ring r;
	struct trace_ring_tally tally = { 0 };

	HT_CHECK(good_file() == 0);
	hm_v = sample.v;
	hm_v.entries_per_cpu = HM_NENT;
	HT_CHECK(trace_ring_init(&r, mem, sizeof(mem), TRACE_RING_OVERWRITE) ==
		 0);
	trace_ring_restart(&r, HM_FIRST);
	for (uint64_t i = HM_FIRST, ts = TSC_BOOT + 1000; i < HM_FIRST + HM_N;
	     ts += 16) {
		if (i == HM_WIDE)
			put_wide(&r, ts, 1, 7000);
		else
			put_event(&r, ts, 1, EV_IRQ, TTRACE_CTX_IRQ, 32,
				  (uint64_t[]){ i }, 1);
		i = trace_ring_head(&r);
	}
	HT_CHECK(trace_ring_collect(&r, 0, hm, HM_N + 4, &tally) == HM_N);
	HT_CHECK(tally.records == HM_N && tally.lost == HM_FIRST);
	HT_CHECK(TTRACE_TYPE_SEQ(hm[0].type) == HM_FIRST &&
		 hm[0].data[0] == HM_FIRST &&
		 hm[HM_N - 1].data[0] == HM_FIRST + HM_N - 1);
	HT_CHECK(TTRACE_TYPE_NCONT(hm[HM_WIDE - HM_FIRST].type) == 2 &&
		 ttrace_ts_is_cont(hm[HM_WIDE - HM_FIRST + 1].timestamp));
	return 0;
}

#define HMI(idx)	(&hm[(idx) - HM_FIRST])

/* An undeclared hole: cpu 1's records [80, 100) and [120, 140), nothing in
 * between: refused, naming the cpu and the exact range, at the offset of
 * the section after the hole. */
static int test_hole(void)
{
	struct fb f;
	uint64_t off;

	HT_TRY(hm_build());
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_rec(&f, 1, 120, HMI(120), 20);
	HT_TRY(fb_fails(&f, off, "cpu 1", "[100, 120)"));
	/* the same hole after a LOSS, and before one */
	fb_start(&f, &hm_v);
	fb_loss(&f, 1, 70, 10, TTRACE_LOSS_OVERWRITTEN);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_loss(&f, 1, 101, 19, TTRACE_LOSS_RACED);
	HT_TRY(fb_fails(&f, off, "cpu 1: logical indices [100, 101) missing",
			NULL));
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	fb_loss(&f, 1, 100, 19, TTRACE_LOSS_RACED);
	off = fb_rec(&f, 1, 120, HMI(120), 20);
	HT_TRY(fb_fails(&f, off, "cpu 1: logical indices [119, 120) missing",
			NULL));
	return 0;
}

/* The same hole declared by a LOSS section: loads, and the loss is
 * reported exactly, by reason and in time. */
static int test_declared_hole(void)
{
	for (uint32_t reason = 1; reason < TTRACE_LOSS_NREASONS; reason++) {
		struct fb f;
		struct ttrace_file_error e;
		struct ttload t;
		const struct ttload_cpu *c;

		HT_TRY(hm_build());
		fb_start(&f, &hm_v);
		fb_rec(&f, 1, 80, HMI(80), 20);
		fb_loss(&f, 1, 100, 20, reason);
		fb_rec(&f, 1, 120, HMI(120), 20);
		if (fb_load(&f, &t, &e) < 0)
			HT_FAIL("reason %u: offset %llu: %s", reason,
				(unsigned long long)e.offset, e.msg);
		c = &t.cpus[1];
		for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
			HT_CHECK(c->lost[r] == (r == reason ? 20 : 0));
		HT_CHECK(c->nruns == 3 && c->slots == 40 && c->nsorted == 40);
		HT_CHECK(c->nlosses == 1 && c->losses[0].first == 100 &&
			 c->losses[0].count == 20 &&
			 c->losses[0].reason == reason &&
			 c->losses[0].ts == HMI(120)->timestamp);
		HT_CHECK(c->runs[1].type == TTRACE_FILE_SEC_LOSS &&
			 c->runs[1].first == 100 && c->runs[1].count == 20);
		HT_CHECK(c->check.first_index == 80 && c->check.end_index == 140 &&
			 c->check.firsts == 40 && c->check.conts == 0 &&
			 c->check.reordered == 0 && c->check.before_boot == 0);
		HT_CHECK(t.cpus[0].nruns == 0 && t.cpus[2].nruns == 0);
		HT_CHECK(!memcmp(c->sorted, HMI(80), 20 * TTRACE_ENTRY_SIZE) &&
			 !memcmp(c->sorted + 20, HMI(120),
				 20 * TTRACE_ENTRY_SIZE));
		if (check_loaded(&t)) {
			ttload_free(&t);
			return 1;
		}
		ttload_free(&t);
	}
	return 0;
}

/* Losses before, between and after records; a cpu with losses only; the
 * seq wrapping at 2^24; adjacent LOSS sections. */
static int test_losses_in_time(void)
{
	static struct ttrace_entry mem[HM_NENT], wrap[20];
	struct trace_ring r;
	struct fb f;
	struct ttrace_file_error e;
	struct ttload t;
	const struct ttload_cpu *c;
	uint64_t base = (1ULL << 24) - 8;

	HT_TRY(hm_build());
	/* cpu 0's records across seq 2^24 - 1 -> 0, from a real ring */
	HT_CHECK(trace_ring_init(&r, mem, sizeof(mem), TRACE_RING_OVERWRITE) ==
		 0);
	trace_ring_restart(&r, base);
	for (unsigned i = 0; i < 16; i++)
		put_event(&r, TSC_BOOT + 5000 + 16 * i, 0, EV_IRQ,
			  TTRACE_CTX_IRQ, 32, (uint64_t[]){ i }, 1);
	HT_CHECK(trace_ring_collect(&r, base, wrap, 20, NULL) == 16);
	HT_CHECK(TTRACE_TYPE_SEQ(wrap[8].type) == 0);
	fb_start(&f, &hm_v);
	fb_loss(&f, 1, 60, 10, TTRACE_LOSS_CLEARED);
	fb_loss(&f, 1, 70, 10, TTRACE_LOSS_OVERWRITTEN);
	fb_rec(&f, 0, base, wrap, 16);
	fb_rec(&f, 1, 80, HMI(80), 20);
	fb_loss(&f, 1, 100, 3, TTRACE_LOSS_IN_FLIGHT);
	fb_rec(&f, 1, 103, HMI(103), 37);
	fb_loss(&f, 1, 140, 1000, TTRACE_LOSS_RACED);
	fb_loss(&f, 2, 5, 7, TTRACE_LOSS_OVERWRITTEN);
	if (fb_load(&f, &t, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	HT_TRY(check_loaded(&t));
	c = &t.cpus[0];
	HT_CHECK(c->nruns == 1 && c->check.first_index == base &&
		 c->check.end_index == base + 16 && c->check.firsts == 16 &&
		 c->nlosses == 0);
	c = &t.cpus[1];
	HT_CHECK(c->nruns == 6 && c->nlosses == 4 && c->slots == 57);
	HT_CHECK(c->check.first_index == 60 && c->check.end_index == 1140);
	HT_CHECK(c->lost[TTRACE_LOSS_CLEARED] == 10 &&
		 c->lost[TTRACE_LOSS_OVERWRITTEN] == 10 &&
		 c->lost[TTRACE_LOSS_IN_FLIGHT] == 3 &&
		 c->lost[TTRACE_LOSS_RACED] == 1000);
	HT_CHECK(c->losses[0].ts == HMI(80)->timestamp &&
		 c->losses[1].ts == HMI(80)->timestamp &&
		 c->losses[2].ts == HMI(103)->timestamp &&
		 c->losses[3].ts == UINT64_MAX);
	c = &t.cpus[2];
	HT_CHECK(c->nruns == 1 && c->nsorted == 0 && c->slots == 0 &&
		 c->nlosses == 1 && c->losses[0].ts == UINT64_MAX &&
		 c->lost[TTRACE_LOSS_OVERWRITTEN] == 7 &&
		 c->check.first_index == 5 && c->check.end_index == 12 &&
		 c->check.firsts == 0);
	ttload_free(&t);
	return 0;
}

/* A record not at its index (the seq disagrees) is refused with its file
 * offset. */
static int test_seq_mismatch(void)
{
	struct fb f;
	uint64_t off;

	HT_TRY(hm_build());
	/* the whole run moved by one slot */
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, HMI(81), 19);
	HT_TRY(fb_fails(&f, ent_off(off, 0), "cpu 1 index 80 holds the record "
			"of seq 81", NULL));
	/* one record moved by one slot: 91's record at 90 */
	memcpy(tmp, HMI(80), 20 * TTRACE_ENTRY_SIZE);
	tmp[10] = *HMI(91);
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, tmp, 20);
	HT_TRY(fb_fails(&f, ent_off(off, 10), "cpu 1 index 90 holds the record "
			"of seq 91", NULL));
	/* ... and its records duplicated */
	memcpy(tmp, HMI(80), 20 * TTRACE_ENTRY_SIZE);
	tmp[11] = tmp[10];
	fb_start(&f, &hm_v);
	fb_loss(&f, 1, 0, 80, TTRACE_LOSS_OVERWRITTEN);
	off = fb_rec(&f, 1, 80, tmp, 20);
	HT_TRY(fb_fails(&f, ent_off(off, 11), "index 91 holds the record of "
			"seq 90", NULL));
	/* the second run of a cpu shifted by one (a record missing at its
	 * start, none declared) */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_rec(&f, 1, 100, HMI(103), 17);
	HT_TRY(fb_fails(&f, ent_off(off, 0), "cpu 1 index 100 holds the record "
			"of seq 103", NULL));
	return 0;
}

/* Run rules: each break is refused with a clear message and its offset. */
static int test_bad_runs(void)
{
	struct ttrace_file_run h = { .type = TTRACE_FILE_SEC_RECORDS };
	struct fb f;
	uint64_t off;

	HT_TRY(hm_build());
	/* a continuation without its parent */
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, HM_WIDE + 1, HMI(HM_WIDE + 1), 10);
	HT_TRY(fb_fails(&f, ent_off(off, 0), "continuation without its first "
			"entry", NULL));
	/* ... also after a LOSS that took its parent */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	fb_loss(&f, 1, HM_WIDE, 1, TTRACE_LOSS_RACED);
	off = fb_rec(&f, 1, HM_WIDE + 1, HMI(HM_WIDE + 1), 10);
	HT_TRY(fb_fails(&f, ent_off(off, 0), "continuation without its first "
			"entry", NULL));
	/* an event cut at the end of a RECORDS section (even if a LOSS
	 * declares the rest) */
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, HMI(80), HM_WIDE - 80 + 2);
	fb_loss(&f, 1, HM_WIDE + 2, 1, TTRACE_LOSS_RACED);
	HT_TRY(fb_fails(&f, ent_off(off, HM_WIDE - 80 + 2), "section ends "
			"inside an event", NULL));
	/* an event whose continuation is replaced by a first entry */
	memcpy(tmp, HMI(80), 30 * TTRACE_ENTRY_SIZE);
	tmp[22] = *HMI(103);
	set_seq(&tmp[22], 102);
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, tmp, 30);
	HT_TRY(fb_fails(&f, ent_off(off, 22), "continuation is missing", NULL));
	/* an invalid timestamp inside RECORDS */
	memcpy(tmp, HMI(80), 20 * TTRACE_ENTRY_SIZE);
	tmp[5].timestamp = TTRACE_TS_INVALID;
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, tmp, 20);
	HT_TRY(fb_fails(&f, ent_off(off, 5), "invalid timestamp in a RECORDS "
			"section", NULL));
	/* LOSS reasons 0 and TTRACE_LOSS_NREASONS, count 0, with entries */
	for (uint32_t bad = 0; bad < 4; bad++) {
		struct ttrace_file_run l = { .first = 100, .count = 20,
					     .type = TTRACE_FILE_SEC_LOSS,
					     .reason = TTRACE_LOSS_RACED };

		if (bad == 0)
			l.reason = 0;
		else if (bad == 1)
			l.reason = TTRACE_LOSS_NREASONS;
		else if (bad == 2)
			l.count = 0;
		fb_start(&f, &hm_v);
		fb_rec(&f, 1, 80, HMI(80), 20);
		off = fb_sec(&f, l.type, 1, &l, HMI(100), bad == 3);
		HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE,
				"section LOSS: bad count, reason or length",
				NULL));
	}
	/* a LOSS that wraps past 2^64 */
	fb_start(&f, &hm_v);
	off = fb_loss(&f, 1, UINT64_MAX - 5, 10, TTRACE_LOSS_RACED);
	HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section LOSS: bad "
			"count", NULL));
	/* RECORDS whose length does not match count: one short, one long */
	for (int d = -1; d <= 1; d += 2) {
		h.first = 80;
		h.count = 20;
		fb_start(&f, &hm_v);
		off = fb_sec(&f, h.type, 1, &h, HMI(80), (uint64_t)(20 + d));
		HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section "
				"RECORDS: bad count, reason or length", NULL));
	}
	/* RECORDS with count 0, with a reason, longer than a ring */
	h.count = 0;
	fb_start(&f, &hm_v);
	off = fb_sec(&f, h.type, 1, &h, NULL, 0);
	HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section RECORDS: "
			"bad count", NULL));
	h.count = 20;
	h.reason = TTRACE_LOSS_RACED;
	fb_start(&f, &hm_v);
	off = fb_sec(&f, h.type, 1, &h, HMI(80), 20);
	HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section RECORDS: "
			"bad count, reason", NULL));
	h.reason = 0;
	hm_v.entries_per_cpu = 16;
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, 80, HMI(80), 17);
	HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section RECORDS: "
			"bad count", NULL));
	hm_v.entries_per_cpu = HM_NENT;
	/* a run header of the other type, or none at all */
	h.type = TTRACE_FILE_SEC_LOSS;
	fb_start(&f, &hm_v);
	off = fb_sec(&f, TTRACE_FILE_SEC_RECORDS, 1, &h, HMI(80), 20);
	HT_TRY(fb_fails(&f, off, "section RECORDS: no run header of its type",
			NULL));
	h.type = TTRACE_FILE_SEC_RECORDS;
	fb_start(&f, &hm_v);
	off = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_LOSS, 1, &h, 32);
	HT_TRY(fb_fails(&f, off, "section LOSS: no run header", NULL));
	/* overlapping runs: a second run starting inside the first, the
	 * same run twice, a run going backwards */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_rec(&f, 1, 90, HMI(90), 10);
	HT_TRY(fb_fails(&f, off, "cpu 1: run at 90 overlaps the one before it, which ended at 100", NULL));
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_rec(&f, 1, 80, HMI(80), 20);
	HT_TRY(fb_fails(&f, off, "cpu 1: run at 80 overlaps the one before it, which ended at 100", NULL));
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 120, HMI(120), 20);
	fb_loss(&f, 1, 140, 5, TTRACE_LOSS_RACED);
	off = fb_rec(&f, 1, 80, HMI(80), 20);
	HT_TRY(fb_fails(&f, off, "cpu 1: run at 80 overlaps the one before it, which ended at 145", NULL));
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	off = fb_loss(&f, 1, 95, 25, TTRACE_LOSS_OVERWRITTEN);
	HT_TRY(fb_fails(&f, off, "cpu 1: run at 95 overlaps the one before it, which ended at 100", NULL));
	/* records of cpu 1 in a section of cpu 0, and of a cpu out of range */
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 0, 80, HMI(80), 20);
	HT_TRY(fb_fails(&f, ent_off(off, 0), "written by cpu 1 but in the ring "
			"of cpu 0", NULL));
	fb_start(&f, &hm_v);
	off = fb_loss(&f, NCPU, 80, 20, TTRACE_LOSS_RACED);
	HT_TRY(fb_fails(&f, off, "section LOSS for cpu 3, but the trace has 3 "
			"cpus", NULL));
	/* RECORDS whose index range wraps past 2^64 (seqs made to match) */
	memcpy(tmp, HMI(80), 4 * TTRACE_ENTRY_SIZE);
	for (uint64_t i = 0; i < 4; i++)
		set_seq(&tmp[i], UINT64_MAX - 1 + i);
	fb_start(&f, &hm_v);
	off = fb_rec(&f, 1, UINT64_MAX - 1, tmp, 4);
	HT_TRY(fb_fails(&f, off + TTRACE_FILE_SEC_HDR_SIZE, "section RECORDS: "
			"bad count", NULL));
	return 0;
}

/* A RANGE section for hm_v's cpus: cpu 1 covers [first, end), the
 * others nothing. Returns its section's file offset. */
static uint64_t fb_range(struct fb *f, uint64_t first, uint64_t end)
{
	struct ttrace_file_range r[NCPU] = { [1] = { first, end } };
	uint64_t off = f->w.offset;

	ttrace_file_write_section(&f->w, TTRACE_FILE_SEC_RANGE, 0, r, sizeof(r));
	return off;
}

/* The RANGE section: a run cut from either end of a cpu's (or every run
 * of it) is refused, naming the missing indices at cpu 1's range. */
/*
 * Events of one entry each stamped out of index order (two stamps alike
 * among them) come out sorted by (time, index), the runs left in index
 * order: a few moved back a short way (the loader's insertion sort), and
 * a ring that runs backwards (more moves than that sort allows itself).
 */
static int test_reordered_single(void)
{
	static struct ttrace_entry mem[64], got[64];
	struct trace_ring_tally tally = { 0 };
	struct ttrace_file_error e;
	struct trace_ring r;
	struct ttload t;
	struct fb f;

	HT_TRY(hm_build());
	for (int backwards = 0; backwards < 2; backwards++) {
		uint64_t ts[40], base = TSC_BOOT + 1000;
		uint32_t order[40];
		const struct ttload_cpu *c;

		HT_CHECK(trace_ring_init(&r, mem, sizeof(mem),
					 TRACE_RING_OVERWRITE) == 0);
		for (uint32_t i = 0; i < 40; i++) {
			ts[i] = backwards ? base + 16 * ((40 - i) / 2) :
				base + 16 * i;
			if (!backwards && (i == 10 || i == 30 || i == 31))
				ts[i] = i == 10 ? ts[7] : i == 30 ?
					base + 16 * 25 + 8 : base + 32;
			put_event(&r, ts[i], 1, EV_IRQ, TTRACE_CTX_IRQ, 32,
				  (uint64_t[]){ i }, 1);
		}
		HT_CHECK(trace_ring_collect(&r, 0, got, 44, &tally) == 40);
		fb_start(&f, &hm_v);
		fb_rec(&f, 1, 0, got, 25);
		fb_rec(&f, 1, 25, got + 25, 15);
		HT_CHECK(fb_load(&f, &t, &e) == 0);
		c = &t.cpus[1];
		HT_CHECK(c->check.reordered > 0 && c->nsorted == 40);
		HT_TRY(check_loaded(&t));
		for (uint32_t a = 0; a < 40; a++) {	/* stable, by time */
			uint32_t b = a;

			for (; b > 0 && ts[order[b - 1]] > ts[a]; b--)
				order[b] = order[b - 1];
			order[b] = a;
		}
		for (uint32_t k = 0; k < 40; k++)
			HT_CHECK(c->sorted[k].timestamp == ts[order[k]] &&
				 c->sorted[k].data[0] == order[k]);
		HT_TRY(check_sorted(&t, 1));
		ttload_free(&t);
	}
	return 0;
}

static int test_range(void)
{
	uint64_t at = 0;
	struct ttrace_file_error e;
	struct ttload t;
	struct fb f;

	HT_TRY(hm_build());
	/* the runs cover exactly the range: loads */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	fb_loss(&f, 1, 100, 20, TTRACE_LOSS_RACED);
	fb_rec(&f, 1, 120, HMI(120), 20);
	fb_range(&f, 80, 140);
	HT_CHECK(fb_load(&f, &t, &e) == 0);
	HT_CHECK(t.range && t.range[1].end == 140);
	ttload_free(&t);
	/* the first run cut out */
	fb_start(&f, &hm_v);
	fb_loss(&f, 1, 100, 20, TTRACE_LOSS_RACED);
	fb_rec(&f, 1, 120, HMI(120), 20);
	at = fb_range(&f, 80, 140) + TTRACE_FILE_SEC_HDR_SIZE + 16;
	HT_TRY(fb_fails(&f, at, "cpu 1: logical indices [80, 100) missing",
			NULL));
	/* the last run cut out */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	fb_loss(&f, 1, 100, 20, TTRACE_LOSS_RACED);
	at = fb_range(&f, 80, 140) + TTRACE_FILE_SEC_HDR_SIZE + 16;
	HT_TRY(fb_fails(&f, at, "cpu 1: logical indices [120, 140) missing",
			NULL));
	/* every run cut out */
	fb_start(&f, &hm_v);
	at = fb_range(&f, 80, 140) + TTRACE_FILE_SEC_HDR_SIZE + 16;
	HT_TRY(fb_fails(&f, at, "cpu 1: logical indices [80, 140) missing",
			NULL));
	/* runs beyond the range; a range that ends before it starts */
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), 20);
	at = fb_range(&f, 80, 90) + TTRACE_FILE_SEC_HDR_SIZE + 16;
	HT_TRY(fb_fails(&f, at, "beyond the RANGE section's [80, 90)", NULL));
	fb_start(&f, &hm_v);
	at = fb_range(&f, 90, 80) + TTRACE_FILE_SEC_HDR_SIZE + 16;
	HT_TRY(fb_fails(&f, at, "end before first", NULL));
	/* a second one; one of the wrong length */
	fb_start(&f, &hm_v);
	fb_range(&f, 0, 0);
	at = fb_range(&f, 0, 0);
	HT_TRY(fb_fails(&f, at, "second RANGE section", NULL));
	fb_start(&f, &hm_v);
	at = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_RANGE, 0, tmp, 16);
	HT_TRY(fb_fails(&f, at, "RANGE: length is not one range per cpu",
			NULL));
	return 0;
}

/* Reserved bytes: a non-zero byte in the file header (CRC made to match),
 * a run header or the version header is refused at its offset; so is a
 * format 1 RING section in a format 3 file. */
static int test_reserved(void)
{
	struct ttrace_file_run h = { .first = 80, .count = 20,
				     .type = TTRACE_FILE_SEC_RECORDS };
	struct ttrace_file_error e;
	struct ttload t;
	struct fb f;
	uint64_t at;

	HT_TRY(hm_build());
	for (size_t i = 20; i < 44; i += 11) {	/* flags, reserved */
		uint8_t *p = malloc(good.len);
		uint32_t crc;

		HT_CHECK(p != NULL);
		memcpy(p, good.p, good.len);
		p[i] = 0x40;
		crc = ttrace_crc32(0, p, 44);
		memcpy(p + 44, &crc, sizeof(crc));
		HT_CHECK(ttload_buffer(&t, p, good.len, &e) < 0);
		free(p);
		HT_CHECK(e.offset == i && strstr(e.msg, "file header: flags or "
						 "reserved: byte 0x40 is not "
						 "zero"));
	}
	h.reserved[3] = 1;
	fb_start(&f, &hm_v);
	at = fb_sec(&f, h.type, 1, &h, HMI(80), 20);
	HT_TRY(fb_fails(&f, at + TTRACE_FILE_SEC_HDR_SIZE + 48, "RECORDS: byte "
			"0x1 is not zero (reserved)", NULL));
	h = (struct ttrace_file_run){ .first = 80, .count = 20,
				      .type = TTRACE_FILE_SEC_LOSS,
				      .reason = TTRACE_LOSS_RACED };
	h.reserved[0] = 1ULL << 56;
	fb_start(&f, &hm_v);
	at = fb_sec(&f, h.type, 1, &h, NULL, 0);
	HT_TRY(fb_fails(&f, at + TTRACE_FILE_SEC_HDR_SIZE + 31, "LOSS: byte "
			"0x1 is not zero (reserved)", NULL));
	{
		struct ttrace_version v = hm_v;

		v.reserved[1] = 2;
		fb_start(&f, &v);
		HT_TRY(fb_fails(&f, TTRACE_FILE_HDR_SIZE +
				TTRACE_FILE_SEC_HDR_SIZE + 120, "section VERSION: "
				"flags or reserved: byte 0x2 is not zero "
				"(reserved)", NULL));
	}
	fb_start(&f, &hm_v);
	at = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_RING, 0, tmp, 64);
	HT_TRY(fb_fails(&f, at, "section RING (type 4) is format 1's", NULL));
	return 0;
}

/* An AUX section of one record: tag, path bits added (reserved ones), a
 * 3-byte name. Returns the file offset of the record's path word. */
static uint64_t fb_aux_one(struct fb *f, uint32_t tag, uint64_t bits)
{
	uint8_t rec[32] = { 0 };
	uint64_t path = TTRACE_AUX_PATH(tag, 0, TTRACE_AUX_HDR_SIZE + 3, 1) |
			bits;
	struct ttrace_file_aux a = { 64, 64 + sizeof(rec) };
	uint64_t off;

	memcpy(rec, &path, sizeof(path));
	memcpy(rec + TTRACE_AUX_HDR_SIZE, "abc", 3);
	ttrace_file_section_begin(&f->w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + sizeof(rec));
	off = f->w.offset + sizeof(a);
	ttrace_file_section_data(&f->w, &a, sizeof(a));
	ttrace_file_section_data(&f->w, rec, sizeof(rec));
	ttrace_file_section_end(&f->w);
	return off;
}

/*
 * What docs/trace-file.md and trace-format.md say a file never holds,
 * each in a file otherwise valid, refused with the offset of the byte
 * (or field) at fault: version header flags, aux path bits 1-7 and a tag
 * no list names, a continuation's unused words, a TSC offset applied
 * though its uncertainty covers 0 (and a cpu 0 that is not {0, 0}).
 */
static int test_format_rules(void)
{
	struct ttrace_version v;
	struct ttrace_file_tsc tsc[NCPU] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	struct ttrace_file_error e;
	struct ttload t;
	struct fb f;
	uint64_t at;

	HT_TRY(hm_build());
	v = hm_v;
	v.flags = 0x10;
	fb_start(&f, &v);
	HT_TRY(fb_fails(&f, TTRACE_FILE_HDR_SIZE + TTRACE_FILE_SEC_HDR_SIZE +
			offsetof(struct ttrace_version, flags), "section VERSION: "
			"flags or reserved: byte 0x10 is not zero", NULL));
	/* aux: a good record is taken, reserved bits and tag 13 are not */
	fb_start(&f, &hm_v);
	fb_aux_one(&f, TTRACE_AUX_PROC_NAME, 0);
	HT_CHECK(fb_load(&f, &t, &e) == 0 && t.auxcheck.records == 1);
	ttload_free(&t);
	for (uint64_t bit = 2; bit < 0x100; bit <<= 1) {
		fb_start(&f, &hm_v);
		at = fb_aux_one(&f, TTRACE_AUX_PROC_NAME, bit);
		HT_TRY(fb_fails(&f, at, "section AUX: path word with reserved "
				"bits 1-7 set", NULL));
	}
	fb_start(&f, &hm_v);
	at = fb_aux_one(&f, TTRACE_AUX_NTAGS, 0);
	HT_TRY(fb_fails(&f, at + 1, "section AUX: record of tag 13, which aux "
			"version 1 does not have", NULL));
	fb_start(&f, &hm_v);
	at = fb_aux_one(&f, 0, 0);
	HT_TRY(fb_fails(&f, at + 1, "record of tag 0", NULL));
	/* the wide event at 100 uses word 0 of its second continuation (at
	 * 102) only: words 1-6 must be zero */
	for (unsigned k = 1; k < TTRACE_CONT_ARGS; k++) {
		memcpy(tmp, HMI(80), HM_N * sizeof(*tmp));
		tmp[102 - 80].cont[k] = 1;
		fb_start(&f, &hm_v);
		at = fb_rec(&f, 1, 80, tmp, HM_N);
		HT_TRY(fb_fails(&f, ent_off(at, 102 - 80) + 8 + 8 * k,
				"entry: continuation word", "is not zero"));
	}
	/* TSC: an offset within its uncertainty is not applied: written 0 */
	tsc[1] = (struct ttrace_file_tsc){ -40, 40 };
	fb_start(&f, &hm_v);
	fb_rec(&f, 1, 80, HMI(80), HM_N);
	at = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_TSC, 0, tsc,
				  sizeof(tsc));
	HT_TRY(fb_fails(&f, at + TTRACE_FILE_SEC_HDR_SIZE + sizeof(*tsc),
			"section TSC: cpu 1 offset -40 within its uncertainty "
			"40", NULL));
	tsc[1] = (struct ttrace_file_tsc){ 3, UINT64_MAX };	/* unmeasured */
	fb_start(&f, &hm_v);
	at = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_TSC, 0, tsc,
				  sizeof(tsc));
	HT_TRY(fb_fails(&f, at + TTRACE_FILE_SEC_HDR_SIZE + sizeof(*tsc),
			"section TSC: cpu 1 offset 3", NULL));
	tsc[1] = (struct ttrace_file_tsc){ 41, 40 };		/* applied */
	tsc[0].uncertainty = 1;
	fb_start(&f, &hm_v);
	at = f.w.offset;
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_TSC, 0, tsc,
				  sizeof(tsc));
	HT_TRY(fb_fails(&f, at + TTRACE_FILE_SEC_HDR_SIZE, "section TSC: cpu 0 "
			"is not its own reference", NULL));
	tsc[0].uncertainty = 0;
	fb_start(&f, &hm_v);
	ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_TSC, 0, tsc,
				  sizeof(tsc));
	HT_CHECK(fb_load(&f, &t, &e) == 0 && t.tsc[1].offset == 41);
	ttload_free(&t);
	return 0;
}

/*
 * STATS that name their ring (start, entries, mode) against cpu 1's runs
 * [80, 140): the ring the runs ended in, counted from its start, or a
 * later one; one that began before the runs or before their last clear,
 * whose head is short of their end, or whose overwritten does not follow
 * from its size, is refused at the STATS payload.
 */
static int test_stats_ring(void)
{
	static const struct {
		struct ttrace_file_stats st;
		uint64_t cleared;	/* a CLEARED loss [140, this) */
		const char *want;	/* NULL: accepted */
	} cases[] = {
		{ { 60, 0, 0, 0, 0, 80, 64, 0 }, 0, NULL },
		{ { 50, 0, 0, 0, 0, 90, 64, 0 }, 0, NULL },	/* a clear */
		{ { 1000, 936, 0, 0, 0, 80, 64, 0 }, 0, NULL },	/* later */
		{ { 60, 0, 0, 0, 0, 150, 64, 0 }, 150, NULL },
		{ { 60, 0, 0, 0, 0, 79, 64, 0 }, 0, "[79, 139) is not the ring" },
		{ { 59, 0, 0, 0, 0, 80, 64, 0 }, 0, "[80, 139) is not the ring" },
		{ { 60, 0, 0, 0, 0, 145, 64, 0 }, 150, "after their last clear" },
		{ { 100, 35, 0, 0, 0, 80, 64, 0 }, 0, "35 overwritten, but a ring "
		  "of 64 entries that wrote 100 overwrote 36" },
		{ { 60, 1, 0, 0, 0, 80, 64, 1 }, 0, "overwrote 0" },
		{ { 60, 0, 0, 0, 0, 80, 48, 0 }, 0, "bad ring size or mode" },
		{ { 60, 0, 0, 0, 0, 80, 64, 2 }, 0, "bad ring size or mode" },
	};
	struct ttrace_file_error e;
	struct ttload t;
	struct fb f;

	HT_TRY(hm_build());
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t at;

		fb_start(&f, &hm_v);
		fb_rec(&f, 1, 80, HMI(80), HM_N);
		if (cases[i].cleared)
			fb_loss(&f, 1, 140, cases[i].cleared - 140,
				TTRACE_LOSS_CLEARED);
		at = f.w.offset + TTRACE_FILE_SEC_HDR_SIZE;
		ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_STATS, 1,
					  &cases[i].st, sizeof(cases[i].st));
		if (cases[i].want) {
			HT_TRY(fb_fails(&f, at, "section STATS: ",
					cases[i].want));
			continue;
		}
		if (fb_load(&f, &t, &e))
			HT_FAIL("case %zu: offset %llu: %s", i,
				(unsigned long long)e.offset, e.msg);
		HT_CHECK(t.cpus[1].has_ring &&
			 t.cpus[1].stats.start == cases[i].st.start);
		ttload_free(&t);
	}
	return 0;
}

/* ---- a stream across ring resizes and clears ----------------------------- */

#define GROW_SMALL	64		/* the rings when the stream begins */
#define GROW_BIG	1024		/* after `bufsize` */
#define GROW_MAX	1000		/* the drain's runs (tracefile.c) */

/* The stream's source: each CPU's ring as it is now (a resize swaps it
 * for a bigger one that goes on from its head, as the kernel's does). */
struct grow {
	struct trace_ring *ring[NCPU];
	struct trace_ring_cursor cur[NCPU];
	struct ttrace_file_range range[NCPU];
	bool started[NCPU];
};

static uint32_t grow_run(void *arg, uint32_t cpu, struct ttrace_entry *buf,
			 size_t max, struct trace_ring_run *run)
{
	struct grow *g = arg;
	uint32_t k;

	if (!g->started[cpu]) {
		trace_ring_cursor_start(g->ring[cpu], &g->cur[cpu]);
		g->started[cpu] = true;
	}
	k = trace_ring_read_crc(g->ring[cpu], &g->cur[cpu], UINT64_MAX, buf,
				max, run, false);
	if (k != TRACE_RUN_RECORDS && k != TRACE_RUN_LOST)
		return TRACE_RUN_NONE;
	if (g->range[cpu].first == g->range[cpu].end)
		g->range[cpu].first = run->first;
	g->range[cpu].end = run->first + run->count;
	return k;
}

static void grow_range(void *arg, uint32_t cpu, struct ttrace_file_range *r)
{
	*r = ((struct grow *)arg)->range[cpu];
}

static int grow_aux(void *arg, struct ttrace_file_aux *a,
		    const uint8_t *piece[2], uint64_t len[2])
{
	(void)arg, (void)a, (void)piece, (void)len;
	return 0;
}

static void grow_stats(void *arg, uint32_t cpu, struct ttrace_file_stats *fs)
{
	struct trace_ring_stats st;

	trace_ring_stats(((struct grow *)arg)->ring[cpu], &st);
	ttrace_image_stats(fs, &st);
}

static const struct ttrace_image_ops grow_ops = {
	.run = grow_run, .range = grow_range, .aux = grow_aux,
	.stats = grow_stats,
};

/* n events on cpus 0 and 1 of g, every 7th a wide one. */
static void grow_write(struct grow *g, unsigned n, uint64_t *ts)
{
	for (unsigned i = 0; i < n; i++, *ts += 10)
		for (unsigned c = 0; c < 2; c++) {
			if (i % 7 == 3)
				put_wide(g->ring[c], *ts, c, i);
			else
				put_event(g->ring[c], *ts, c, EV_IRQ,
					  TTRACE_CTX_IRQ, 32,
					  (uint64_t[]){ i }, 1);
		}
}

/* Steps gen until it waits (a stream with nothing new) or is done. */
static int grow_steps(struct ttrace_image_gen *gen)
{
	int r;

	while ((r = ttrace_image_step(gen)) == TTRACE_IMAGE_MORE)
		;
	return r;
}

/*
 * A stream (the one writer, as the drain and the stream file run it)
 * begun on 64-entry rings that a bufsize then swaps for 1024-entry ones,
 * cleared once while the reader is behind and once while it is caught
 * up: the file is valid (its runs no longer than its version header's
 * rings; before: 'section RECORDS: bad count, reason or length', runs of
 * up to 1000 entries), every index it covers is a record or a declared
 * loss, and each CPU's STATS name the ring they count, the last one.
 */
static int test_stream_resize(void)
{
	static _Alignas(64) struct ttrace_entry small[NCPU][GROW_SMALL],
		big[NCPU][GROW_BIG], buf[GROW_MAX];
	static struct trace_ring rs[NCPU], rb[NCPU];
	struct ttrace_version v;
	struct grow g = { 0 };
	struct ttrace_file_writer w;
	struct ttrace_image_gen gen;
	struct ttrace_file_error e;
	struct obuf o = { 0 };
	struct ttload t;
	uint64_t ts = TSC_BOOT + 1000, longest = 0;

	HT_CHECK(good_file() == 0);
	v = sample.v;
	v.entries_per_cpu = GROW_SMALL;
	for (unsigned c = 0; c < NCPU; c++) {
		HT_CHECK(trace_ring_init(&rs[c], small[c], sizeof(small[c]),
					 TRACE_RING_OVERWRITE) == 0);
		g.ring[c] = &rs[c];
	}
	ttrace_file_writer_init(&w, obuf_out, &o);
	gen = (struct ttrace_image_gen){ .version = &v, .meta = sample.meta,
		.ops = &grow_ops, .arg = &g, .w = &w, .buf = buf,
		.max = GROW_MAX, .stream = true };
	grow_write(&g, 40, &ts);
	HT_CHECK(grow_steps(&gen) == TTRACE_IMAGE_WAIT);
	for (unsigned c = 0; c < NCPU; c++) {	/* bufsize */
		HT_CHECK(trace_ring_init(&rb[c], big[c], sizeof(big[c]),
					 TRACE_RING_OVERWRITE) == 0);
		trace_ring_restart(&rb[c], trace_ring_head(&rs[c]));
		g.ring[c] = &rb[c];
	}
	grow_write(&g, 700, &ts);
	HT_CHECK(grow_steps(&gen) == TTRACE_IMAGE_WAIT);
	grow_write(&g, 300, &ts);
	for (unsigned c = 0; c < NCPU; c++)	/* a clear, the reader behind */
		trace_ring_clear(&rb[c]);
	grow_write(&g, 500, &ts);
	HT_CHECK(grow_steps(&gen) == TTRACE_IMAGE_WAIT);
	for (unsigned c = 0; c < NCPU; c++)	/* ... and caught up */
		trace_ring_clear(&rb[c]);
	grow_write(&g, 200, &ts);
	ttrace_image_end(&gen);
	HT_CHECK(grow_steps(&gen) == TTRACE_IMAGE_DONE && w.error == 0);
	if (ttload_buffer(&t, o.p, o.len, &e))
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	for (unsigned c = 0; c < 2; c++) {
		const struct ttload_cpu *cpu = &t.cpus[c];
		uint64_t lost = 0;
		struct trace_ring_stats st;

		for (unsigned r = 0; r < TTRACE_LOSS_NREASONS; r++)
			lost += cpu->lost[r];
		for (uint64_t r = 0; r < cpu->nruns; r++)
			if (cpu->runs[r].type == TTRACE_FILE_SEC_RECORDS)
				longest = MAX(longest, cpu->runs[r].count);
		trace_ring_stats(&rb[c], &st);
		HT_CHECK(cpu->nruns && cpu->runs[0].first == 0 &&
			 cpu->slots + lost == st.head);
		HT_CHECK(cpu->lost[TTRACE_LOSS_CLEARED] > 0);
		HT_CHECK(cpu->has_ring && cpu->stats.start == st.start &&
			 cpu->stats.entries == GROW_BIG &&
			 cpu->stats.written == st.written &&
			 st.written < st.head);
	}
	/* runs of whole events, cut at the version header's 64 */
	HT_CHECK(longest <= GROW_SMALL && longest > GROW_SMALL - WIDE_SLOTS);
	ttload_free(&t);
	free(o.p);
	return 0;
}

/* aux malformed needs the iterator's walk; make sure a bad chain is seen. */
/* Starts a file in o: the header, the sample's VERSION and META. */
static void head_file(struct ttrace_file_writer *w, struct obuf *o)
{
	o->len = 0;
	ttrace_file_writer_init(w, obuf_out, o);
	ttrace_file_write_header(w);
	ttrace_file_write_section(w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	ttrace_file_write_section(w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
}

static int test_structure(void)
{
	struct obuf o = { 0 };
	struct ttrace_file_writer w;
	struct ttrace_file_error e;
	struct ttload t;
	char big[100] = { 0 };

	HT_CHECK(good_file() == 0);
	/* a VERSION that is not first, a second META, unknown sections */
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, 77, 0, big, sizeof(big));
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(strstr(e.msg, "first section is not VERSION") && e.offset == 48);
	head_file(&w, &o);
	ttrace_file_write_section(&w, 77, 3, big, sizeof(big));
	ttrace_file_write_section(&w, 78, 0, big, sizeof(big));
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) == 0);
	HT_CHECK(t.nunknown == 2 && !t.has_aux);
	for (uint32_t c = 0; c < NCPU; c++)
		HT_CHECK(!t.cpus[c].nruns && !t.cpus[c].nsorted &&
			 !t.cpus[c].has_stats && !t.cpus[c].check.firsts);
	HT_CHECK(count_lines(&t, NULL) == 0);
	ttload_free(&t);
	/* a second META */
	head_file(&w, &o);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(strstr(e.msg, "second META"));
	/* no META: records cannot be checked */
	o.len = 0;
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(strstr(e.msg, "no META section") && e.offset == 48);
	/* a second STATS for a cpu */
	head_file(&w, &o);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 1,
				  &sample.stats[1], sizeof(sample.stats[1]));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 1,
				  &sample.stats[1], sizeof(sample.stats[1]));
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(strstr(e.msg, "STATS: duplicate"));
	/* a RECORDS that runs past the end */
	o.len = 0;
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_RECORDS, 0, 1048576);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(e.offset == 48 && !strcmp(e.msg, "section RECORDS length "
					   "1048576 runs past end of file "
					   "(size 64)"));
	free(o.p);
	return 0;
}

/* ---- interleaved streams ------------------------------------------------- */

#define IL_NENT		64
#define IL_ROUNDS	12
#define IL_MAXEV	256

struct il_cpu {
	struct trace_ring ring;
	struct trace_ring_cursor cur;
	uint64_t start;			/* the ring's first index */
	uint64_t ts[IL_MAXEV];		/* every event's time and tag, */
	uint64_t tag[IL_MAXEV];		/* in the order written */
	uint32_t nev, nwide, nested;
};

static struct il_cpu il[NCPU];
static struct ttrace_entry il_mem[NCPU][IL_NENT];

/* Writes event tag (an irq, or a wide event if wide) on cpu c at ts. */
static void il_put(uint32_t c, uint64_t ts, uint64_t tag, bool wide)
{
	struct il_cpu *p = &il[c];

	if (wide) {
		put_wide(&p->ring, ts, c, tag * 100);
		p->nwide++;
	} else {
		put_event(&p->ring, ts, c, EV_IRQ, TTRACE_CTX_IRQ, 32,
			  (uint64_t[]){ tag * 100 }, 1);
	}
	p->ts[p->nev] = ts;
	p->tag[p->nev++] = tag;
}

/*
 * STATS with and without filtered (added after the first 24 bytes) and
 * str_dropped (after 32): a reader takes all three, and knows which one
 * it has; shorter or unaligned ones are refused.
 */
static int test_stats_filtered(void)
{
	static const struct ttrace_file_stats st = { .written = 10,
		.overwritten = 2, .dropped = 3, .filtered = 77,
		.str_dropped = 5 };
	struct obuf o = { 0 };
	struct ttrace_file_writer w;
	struct ttrace_file_error e;
	struct ttload t;

	HT_CHECK(good_file() == 0);		/* makes sample */
	head_file(&w, &o);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 0, &st,
				  TTRACE_FILE_STATS_MIN);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 1, &st,
				  TTRACE_FILE_STATS_FILTERED);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 2, &st,
				  TTRACE_FILE_STATS_STR_DROPPED);
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	if (ttload_buffer(&t, o.p, o.len, &e))
		HT_FAIL("%s at %llu", e.msg, (unsigned long long)e.offset);
	HT_CHECK(t.cpus[0].has_stats && !t.cpus[0].has_filtered &&
		 t.cpus[0].stats.written == 10 && t.cpus[0].stats.dropped == 3 &&
		 t.cpus[0].stats.filtered == 0 && !t.cpus[0].has_ring);
	HT_CHECK(t.cpus[1].has_stats && t.cpus[1].has_filtered &&
		 !t.cpus[1].has_str_dropped &&
		 t.cpus[1].stats.overwritten == 2 &&
		 t.cpus[1].stats.filtered == 77 &&
		 t.cpus[1].stats.str_dropped == 0 && !t.cpus[1].has_ring);
	HT_CHECK(t.cpus[2].has_filtered && t.cpus[2].has_str_dropped &&
		 t.cpus[2].stats.filtered == 77 &&
		 t.cpus[2].stats.str_dropped == 5 && !t.cpus[2].has_ring);
	ttload_free(&t);
	for (size_t len = 16; len < sizeof(st); len += 4) {
		if (len >= TTRACE_FILE_STATS_MIN && len % 8 == 0)
			continue;
		head_file(&w, &o);
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, 0, &st,
					  len);
		HT_CHECK(ttrace_file_write_end(&w) == 0);
		HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
		HT_CHECK(strstr(e.msg, "STATS: duplicate or bad length"));
	}
	free(o.p);
	return 0;
}

/*
 * Three CPUs whose rings start at different indices (cpu2's seq wraps)
 * are streamed as `ttrace stream` does, one read per CPU in turn, so their
 * runs interleave in the file; some events are interrupted between their
 * timestamp and their reservation (their index order is not their time
 * order) and cpu2's first event is before boot. The loaded views must
 * have every CPU's runs contiguous, its events in time order with each
 * continuation right after its parent, and count the reordering.
 */
static int test_interleaved(void)
{
	static const uint64_t starts[NCPU] = { 0, 1000, (1ULL << 24) - 6 };
	struct ttrace_file_writer w;
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	struct ttrace_file_error e;
	struct obuf o = { 0 };
	struct ttload t;
	uint64_t ts = TSC_BOOT + 1000, tag = 1;
	uint32_t switches = 0, last = 0, n = 0;
	bool busy;

	HT_TRY(hm_build());
	memset(il, 0, sizeof(il));
	for (uint32_t c = 0; c < NCPU; c++) {
		HT_CHECK(trace_ring_init(&il[c].ring, il_mem[c],
					 sizeof(il_mem[c]),
					 TRACE_RING_OVERWRITE) == 0);
		trace_ring_restart(&il[c].ring, starts[c]);
		il[c].start = il[c].cur.next = starts[c];
	}
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &hm_v,
				  sizeof(hm_v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
	il_put(2, TSC_BOOT - 64, tag++, false);		/* before boot */
	for (uint32_t round = 0; round < IL_ROUNDS; round++) {
		for (uint32_t k = 0; k < NCPU; k++) {
			uint32_t c = (round + k) % NCPU;

			il_put(c, ts += 16, tag++, (round + c) % 3 == 0);
			if ((round + c) % 4 == 1) {	/* nested */
				uint64_t outer = ts += 16;

				il_put(c, ts += 16, tag++, round % 2);
				il_put(c, outer, tag++, !(round % 2));
				il[c].nested++;
			}
			il_put(c, ts += 16, tag++, false);
		}
		for (uint32_t k = 0; k < NCPU; k++) {	/* one read each */
			uint32_t c = (round + 2 * k) % NCPU;
			size_t got = dev_read(&il[c].ring, &il[c].cur,
					      UINT64_MAX, devbuf,
					      12 * TTRACE_ENTRY_SIZE);

			split_runs(c, devbuf, got, file_emit, &w);
		}
	}
	do {				/* the final passes */
		busy = false;
		for (uint32_t c = 0; c < NCPU; c++) {
			size_t got = dev_read(&il[c].ring, &il[c].cur,
					      trace_ring_head(&il[c].ring),
					      devbuf, 7 * TTRACE_ENTRY_SIZE);

			split_runs(c, devbuf, got, file_emit, &w);
			busy |= got > 0;
		}
	} while (busy);
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	/* the sections interleave */
	HT_CHECK(ttrace_file_open(&r, o.p, o.len, &e) == 0);
	while (ttrace_file_next(&r, &s, &e) > 0) {
		if (s.type != TTRACE_FILE_SEC_RECORDS &&
		    s.type != TTRACE_FILE_SEC_LOSS)
			continue;
		switches += n++ && s.cpu != last;
		last = s.cpu;
	}
	HT_CHECK(switches >= 2 * IL_ROUNDS);
	if (ttload_buffer(&t, o.p, o.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	free(o.p);
	HT_TRY(check_loaded(&t));
	for (uint32_t c = 0; c < NCPU; c++) {
		const struct ttload_cpu *cpu = &t.cpus[c];
		struct il_cpu *p = &il[c];
		uint32_t order[IL_MAXEV], i = 0;

		HT_CHECK(cpu->nruns > 2 && cpu->nlosses == 0);
		for (uint32_t r2 = 0; r2 < TTRACE_LOSS_NREASONS; r2++)
			HT_CHECK(cpu->lost[r2] == 0);
		HT_CHECK(cpu->check.first_index == p->start &&
			 cpu->check.end_index == trace_ring_head(&p->ring));
		HT_CHECK(cpu->check.firsts == p->nev &&
			 cpu->check.conts == 2 * p->nwide);
		HT_CHECK(cpu->check.reordered == p->nested);
		HT_CHECK(cpu->check.before_boot == (c == 2));
		/* the expected order: by time (every timestamp differs) */
		for (uint32_t a = 0; a < p->nev; a++) {
			uint32_t b = a;

			while (b > 0 && p->ts[order[b - 1]] > p->ts[a]) {
				order[b] = order[b - 1];
				b--;
			}
			order[b] = a;
		}
		for (uint64_t k = 0; k < cpu->nsorted; i++) {
			const struct ttrace_entry *x = &cpu->sorted[k];

			HT_CHECK(i < p->nev);
			HT_CHECK(x->timestamp == p->ts[order[i]] &&
				 x->data[0] == p->tag[order[i]] * 100);
			HT_CHECK(TTRACE_TYPE_CPU(x->type) == c);
			for (uint64_t m = 1; m <= TTRACE_TYPE_NCONT(x->type);
			     m++)
				HT_CHECK(x[m].timestamp == (x->timestamp | 1) &&
					 x[m].cont[0] == x->data[0] + 5 +
					 (m - 1) * TTRACE_CONT_ARGS);
			k += ev_slots(x);
		}
		HT_CHECK(i == p->nev);
	}
	HT_CHECK(count_lines(&t, "(incomplete)") == 0);
	ttload_free(&t);
	return 0;
}

/* ---- the panic dump's shape ---------------------------------------------- */

/*
 * A snapshot as the panic dump (and rawN) make it: cpu0 wrapped with its
 * oldest slots the continuations of an overwritten event and a slot still
 * in flight; cpu1 cleared and written again; cpu2 in saturate mode, full,
 * with drops. The losses come out exactly and the records at their index.
 */
static int test_dump_snapshot(void)
{
	static struct ttrace_entry mem[NCPU][NENT], buf[8];
	struct trace_ring rings[NCPU];
	struct ttrace_file_writer w;
	struct ttrace_file_aux a;
	struct ttrace_file_error e;
	struct obuf o = { 0 };
	struct ttload t;
	const struct ttload_cpu *c;
	uint64_t ts = TSC_BOOT + 100, wi, fl = 0, head;

	HT_CHECK(good_file() == 0);
	a = (struct ttrace_file_aux){ sample.aux.first, sample.aux.last };
	for (uint32_t i = 0; i < NCPU; i++)
		HT_CHECK(trace_ring_init(&rings[i], mem[i], sizeof(mem[i]),
					 i == 2 ? TRACE_RING_SATURATE :
					 TRACE_RING_OVERWRITE) == 0);
	/* cpu0: each irq's vector is its index */
	for (unsigned i = 0; i < 20; i++)
		put_event(&rings[0], ts += 16, 0, EV_IRQ, TTRACE_CTX_IRQ, 32,
			  (uint64_t[]){ trace_ring_head(&rings[0]) }, 1);
	wi = trace_ring_head(&rings[0]);
	put_wide(&rings[0], ts += 16, 0, 4000);
	for (unsigned i = 0; i < NENT - WIDE_SLOTS + 1; i++) {
		if (i == 14) {
			fl = put_in_flight(&rings[0]);
			continue;
		}
		put_event(&rings[0], ts += 16, 0, EV_IRQ, TTRACE_CTX_IRQ, 32,
			  (uint64_t[]){ trace_ring_head(&rings[0]) }, 1);
	}
	head = trace_ring_head(&rings[0]);
	HT_CHECK(head == wi + NENT + 1);
	/* cpu1: 10 irqs cleared, 5 more */
	for (unsigned i = 0; i < 15; i++) {
		if (i == 10)
			trace_ring_clear(&rings[1]);
		put_event(&rings[1], ts += 16, 1, EV_IRQ, TTRACE_CTX_IRQ, 32,
			  (uint64_t[]){ i }, 1);
	}
	/* cpu2: saturate, 8 refused */
	for (unsigned i = 0; i < NENT + 8; i++)
		put_event(&rings[2], ts += 16, 2, EV_IRQ, TTRACE_CTX_IRQ, 32,
			  (uint64_t[]){ i }, 1);

	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + sample.aux.len);
	ttrace_file_section_data(&w, &a, sizeof(a));
	ttrace_file_section_data(&w, sample.aux_snap + sample.aux_off,
				 sample.aux.len);
	ttrace_file_section_end(&w);
	for (uint32_t i = 0; i < NCPU; i++) {
		struct trace_ring_stats st;
		struct ttrace_file_stats fs;

		ttrace_image_write_ring(&w, &rings[i], i, buf, ARRAY_SIZE(buf));
		trace_ring_stats(&rings[i], &st);
		ttrace_image_stats(&fs, &st);
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, i, &fs,
					  sizeof(fs));
	}
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	if (ttload_buffer(&t, o.p, o.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	free(o.p);
	HT_TRY(check_loaded(&t));
	c = &t.cpus[0];
	/* its runs from the ring's start: what was overwritten before the
	 * read, [0, wi + 1), then the wide event's two orphans */
	HT_CHECK(c->check.first_index == 0 && c->check.end_index == head);
	HT_CHECK(c->lost[TTRACE_LOSS_OVERWRITTEN] == wi + 3 &&
		 c->lost[TTRACE_LOSS_IN_FLIGHT] == 1 && c->nlosses == 4);
	HT_CHECK(c->runs[0].type == TTRACE_FILE_SEC_LOSS &&
		 c->runs[0].first == 0 && c->runs[0].count == wi + 1 &&
		 c->runs[0].reason == TTRACE_LOSS_OVERWRITTEN &&
		 c->runs[1].type == TTRACE_FILE_SEC_LOSS &&
		 c->runs[1].first == wi + 1 && c->runs[1].count == 1 &&
		 c->runs[2].type == TTRACE_FILE_SEC_LOSS &&
		 c->runs[2].first == wi + 2 && c->runs[2].count == 1);
	HT_CHECK(c->losses[3].first == fl && c->losses[3].count == 1 &&
		 c->losses[3].reason == TTRACE_LOSS_IN_FLIGHT);
	HT_CHECK(c->slots == NENT - 3 && c->check.firsts == NENT - 3 &&
		 c->check.conts == 0);
	HT_CHECK(c->stats.written == head && c->stats.overwritten == head - NENT);
	for (uint64_t r = 0; r < c->nruns; r++)
		for (uint64_t i = 0; c->runs[r].type == TTRACE_FILE_SEC_RECORDS &&
		     i < c->runs[r].count; i++)
			HT_CHECK(c->runs[r].entries[i].data[0] ==
				 c->runs[r].first + i);
	c = &t.cpus[1];
	HT_CHECK(c->check.first_index == 10 && c->check.end_index == 15 &&
		 c->nlosses == 0 && c->check.firsts == 5);
	HT_CHECK(c->stats.written == 5 && c->stats.overwritten == 0);
	c = &t.cpus[2];
	HT_CHECK(c->check.first_index == 0 && c->check.end_index == NENT &&
		 c->nlosses == 0 && c->check.firsts == NENT);
	HT_CHECK(c->stats.written == NENT && c->stats.dropped == 8 &&
		 c->stats.overwritten == 0);
	HT_CHECK(count_lines(&t, "w0=4000") == 0);
	ttload_free(&t);
	return 0;
}

/* ---- a live stream ------------------------------------------------------- */

#define LIVE_CPUS	2
#define LIVE_NENT	16
#define LIVE_MS		150		/* reading at least this long, */
#define LIVE_MIN	(64 * LIVE_NENT) /* until every writer wrote this, */
#define LIVE_MAX_MS	3000		/* but no longer than this */
#define LIVE_BYTES	(4 << 20)	/* and no bigger a file than this */

struct live {
	struct trace_ring ring;
	uint32_t cpu;
	int stop;
};

static struct live live[LIVE_CPUS];
static struct ttrace_entry live_mem[LIVE_CPUS][LIVE_NENT];

/* Word k of the event at index idx: what the writer stores there. */
static uint64_t live_word(uint64_t idx, unsigned k)
{
	uint64_t x = idx * 0x9e3779b97f4a7c15ULL + k;

	return x ^ (x >> 29);
}

static uint64_t live_ts(uint64_t idx)
{
	return TSC_BOOT + 16 * idx;
}

/* The ring's owner: every event a function of its index (it is the only
 * writer, so the head it reads is the index its event gets). It writes in
 * bursts of up to 48 events, longer than its ring, then sleeps a little,
 * so the reader sometimes keeps up and sometimes is lapped. */
static void *live_writer(void *arg)
{
	struct live *l = arg;
	uint64_t args[WIDE_NARGS];
	uint64_t n = 0;

	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		uint64_t idx = trace_ring_head(&l->ring);

		n++;
		if (n % 48 == live_word(n / 48, 0) % 48)
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);

		args[0] = idx;
		for (unsigned k = 1; k < WIDE_NARGS; k++)
			args[k] = live_word(idx, k);
		if (idx % 5 == 2)
			trace_ring_write_ext(&l->ring, live_ts(idx),
					     TTRACE_TYPE(EV_WIDE,
							 TTRACE_CTX_KTASK, 0, 0,
							 l->cpu),
					     5, args, WIDE_NARGS);
		else
			trace_ring_write(&l->ring, live_ts(idx),
					 TTRACE_TYPE(EV_IRQ, TTRACE_CTX_IRQ, 0, 1,
						     l->cpu),
					 32, args[0], args[1], args[2], args[3],
					 args[4]);
	}
	return NULL;
}

/* Every record of the loaded cpu c is exactly what its writer wrote at
 * its index: nothing torn, stale or misplaced came through the file. */
static int live_check(const struct ttload *t, uint32_t c, uint64_t head)
{
	const struct ttload_cpu *cpu = &t->cpus[c];
	uint64_t lost = 0;

	for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
		lost += cpu->lost[r];
	HT_CHECK(cpu->check.first_index == 0 && cpu->check.end_index == head);
	HT_CHECK(cpu->slots + lost == head);
	HT_CHECK(cpu->check.reordered == 0 && cpu->check.before_boot == 0);
	for (uint64_t r = 0; r < cpu->nruns; r++) {
		const struct ttload_run *run = &cpu->runs[r];

		for (uint64_t i = 0; run->type == TTRACE_FILE_SEC_RECORDS &&
		     i < run->count; i += ev_slots(&run->entries[i])) {
			const struct ttrace_entry *e = &run->entries[i];
			uint64_t idx = run->first + i;
			uint32_t ncont = idx % 5 == 2 ? 2 : 0;

			HT_CHECK(e->timestamp == live_ts(idx) &&
				 e->data[0] == idx &&
				 TTRACE_TYPE_NCONT(e->type) == ncont);
			for (unsigned k = 1; k < TTRACE_ENTRY_ARGS; k++)
				HT_CHECK(e->data[k] == live_word(idx, k));
			for (unsigned m = 1; m <= ncont; m++)
				for (unsigned k = 0; k < TTRACE_CONT_ARGS; k++) {
					unsigned word = TTRACE_ENTRY_ARGS +
						(m - 1) * TTRACE_CONT_ARGS + k;

					HT_CHECK(e[m].cont[k] == (word < WIDE_NARGS ?
						 live_word(idx, word) : 0));
				}
		}
	}
	return 0;
}

/*
 * Writer threads fill their rings while a stream reader (this thread)
 * turns what trace_ring_read() returns into a file, as `ttrace stream`
 * does: the reader is lapped, races and meets slots in flight. The file
 * must load, account for every index of every cpu exactly once, and hold
 * only records exactly as written.
 */
static int test_live_stream(void)
{
	pthread_t th[LIVE_CPUS];
	struct trace_ring_cursor cur[LIVE_CPUS] = { { 0 } };
	struct ttrace_file_writer w;
	struct ttrace_file_error e;
	struct obuf o = { 0 };
	struct ttload t;
	struct timespec t0, t1;
	uint64_t heads[LIVE_CPUS], ms;
	int rc = 0;
	bool enough;

	HT_TRY(hm_build());
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &hm_v,
				  sizeof(hm_v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
	for (uint32_t c = 0; c < LIVE_CPUS; c++) {
		HT_CHECK(trace_ring_init(&live[c].ring, live_mem[c],
					 sizeof(live_mem[c]),
					 TRACE_RING_OVERWRITE) == 0);
		live[c].cpu = c;
		live[c].stop = 0;
		HT_CHECK(pthread_create(&th[c], NULL, live_writer, &live[c]) ==
			 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (uint32_t c = 0; c < LIVE_CPUS; c++) {
			size_t got = dev_read(&live[c].ring, &cur[c],
					      UINT64_MAX, devbuf,
					      16 * TTRACE_ENTRY_SIZE);

			split_runs(c, devbuf, got, file_emit, &w);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 +
				(t1.tv_nsec - t0.tv_nsec) / 1000000);
		enough = true;
		for (uint32_t c = 0; c < LIVE_CPUS; c++)
			enough &= trace_ring_head(&live[c].ring) >= LIVE_MIN;
		if (!enough)	/* a busy machine: give the writers time */
			sched_yield();
	} while (o.len < LIVE_BYTES && ms < LIVE_MAX_MS &&
		 (ms < LIVE_MS || !enough));
	for (uint32_t c = 0; c < LIVE_CPUS; c++) {
		__atomic_store_n(&live[c].stop, 1, __ATOMIC_RELAXED);
		pthread_join(th[c], NULL);
	}
	for (uint32_t c = 0; c < LIVE_CPUS; c++) {
		heads[c] = trace_ring_head(&live[c].ring);
		drain(&live[c].ring, &cur[c], c, heads[c],
		      16 * TTRACE_ENTRY_SIZE, file_emit, &w);
		HT_CHECK(cur[c].next == heads[c]);
	}
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	if (ttload_buffer(&t, o.p, o.len, &e) < 0) {
		free(o.p);
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	}
	free(o.p);
	rc = check_loaded(&t);
	for (uint32_t c = 0; c < LIVE_CPUS && !rc; c++) {
		const struct ttload_cpu *cpu = &t.cpus[c];

		rc = live_check(&t, c, heads[c]);
		fprintf(stderr, "live: cpu%u: %llu slots, %llu records, lost: "
			"%llu overwritten, %llu raced, %llu in flight\n", c,
			(unsigned long long)heads[c],
			(unsigned long long)cpu->slots,
			(unsigned long long)cpu->lost[TTRACE_LOSS_OVERWRITTEN],
			(unsigned long long)cpu->lost[TTRACE_LOSS_RACED],
			(unsigned long long)cpu->lost[TTRACE_LOSS_IN_FLIGHT]);
	}
	ttload_free(&t);
	return rc;
}

/* ---- fuzzing ------------------------------------------------------------- */

static uint64_t rng_state;

/*
 * Loads buf; if it loads, runs everything a decoder would on it, and
 * checks that what was accepted keeps the rules (contiguous runs, seqs at
 * their indices, whole events, sorted views). Returns 1 if it does not.
 */
static int exercise(const uint8_t *buf, size_t len)
{
	struct ttrace_file_error e;
	struct ttload t;
	struct ttload_aux_check ac;
	int bad;

	if (ttload_buffer(&t, buf, len, &e) < 0)
		return 0;
	ttload_check_aux(&t, &ac, &e);
	bad = check_loaded(&t);
	count_lines(&t, NULL);
	ttload_free(&t);
	return bad;
}

/* Fills junk with one random section's payload; returns its length. */
static size_t random_payload(uint8_t *junk, size_t size, uint32_t *type,
			     uint32_t *cpu)
{
	uint64_t pick = ht_rand(&rng_state) % 10;
	size_t len = ht_rand(&rng_state) % size;

	*cpu = (uint32_t)(ht_rand(&rng_state) % NCPU);
	if (pick < 4) {		/* a real run with a few bytes changed */
		const struct ssec *x = &sample.sec[ht_rand(&rng_state) % sample.nsec];

		*type = x->h.type;
		*cpu = x->cpu;
		memcpy(junk, &x->h, RUN_HDR);
		memcpy(junk + RUN_HDR, &sample.pool[x->at],
		       x->nent * TTRACE_ENTRY_SIZE);
		len = RUN_HDR + x->nent * TTRACE_ENTRY_SIZE;
		for (int k = ht_rand(&rng_state) % 4; k > 0; k--)
			junk[ht_rand(&rng_state) % len] = (uint8_t)ht_rand(&rng_state);
		return len;
	}
	if (pick < 5) {		/* a LOSS with small random numbers */
		struct ttrace_file_run h = { .first = ht_rand(&rng_state) % 200,
					     .count = ht_rand(&rng_state) % 100,
					     .type = TTRACE_FILE_SEC_LOSS,
					     .reason = (uint32_t)(ht_rand(&rng_state) % 6) };

		*type = TTRACE_FILE_SEC_LOSS;
		memcpy(junk, &h, sizeof(h));
		return sizeof(h);
	}
	*type = pick < 6 ? TTRACE_FILE_SEC_STATS : pick < 7 ? 99 :
		(uint32_t)(ht_rand(&rng_state) % 8) + 1;
	if (*type == TTRACE_FILE_SEC_END)
		*type = 100;
	if (*type == TTRACE_FILE_SEC_STATS)
		len = sizeof(struct ttrace_file_stats);
	if (ht_rand(&rng_state) % 8 == 0)
		*cpu = (uint32_t)ht_rand(&rng_state);
	for (size_t k = 0; k < len; k++)
		junk[k] = (uint8_t)ht_rand(&rng_state);
	return len;
}

/* A frame-valid file of random sections, mostly pieces of the sample. */
static void random_sections(struct obuf *o)
{
	struct ttrace_file_writer w;
	static uint8_t junk[POOL * TTRACE_ENTRY_SIZE];
	int n = (int)(ht_rand(&rng_state) % 8);

	ttrace_file_writer_init(&w, obuf_out, o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	if (ht_rand(&rng_state) % 8)
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0,
					  sample.meta, sample.meta_len);
	for (int i = 0; i < n; i++) {
		uint32_t type, cpu;
		size_t len = random_payload(junk, 4096, &type, &cpu);

		ttrace_file_write_section(&w, type, cpu, junk, len);
	}
	ttrace_file_write_end(&w);
}

/* The sample with right CRCs and a few of its run headers' or entries'
 * bytes changed, or a section dropped or repeated. */
static void mutated_sample(struct obuf *o)
{
	static struct sample s;
	uint64_t what = ht_rand(&rng_state) % 4;

	s = sample;
	for (int k = 1 + ht_rand(&rng_state) % 3; k > 0; k--) {
		if (what == 0) {
			struct ssec *x = &s.sec[ht_rand(&rng_state) % s.nsec];
			uint8_t *p = (uint8_t *)&x->h;

			p[ht_rand(&rng_state) % 24] ^= (uint8_t)(1u << (ht_rand(&rng_state) % 8));
		} else if (what == 1) {
			uint8_t *p = (uint8_t *)s.pool;

			p[ht_rand(&rng_state) % (s.npool * TTRACE_ENTRY_SIZE)] =
				(uint8_t)ht_rand(&rng_state);
		} else if (what == 2) {
			s.sec[ht_rand(&rng_state) % s.nsec].stype = 99;	/* dropped */
		} else {
			size_t i = ht_rand(&rng_state) % s.nsec, j = ht_rand(&rng_state) % s.nsec;

			s.sec[i] = s.sec[j];			/* repeated */
		}
	}
	sample_write(&s, o, 4096);
}

static int test_fuzz(void)
{
	const char *env = getenv("TTRACE_FUZZ_MS");
	long ms = env ? atol(env) : 1500;
	struct timespec t0, t1;
	uint8_t *buf;
	uint64_t rounds = 0;

	HT_CHECK(good_file() == 0);
	buf = malloc(good.len + 64);
	HT_CHECK(buf);
	rng_state = (uint64_t)time(NULL) | 1;
	fprintf(stderr, "fuzz seed %#llx\n", (unsigned long long)rng_state);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct obuf o = { 0 };
		size_t len = ht_rand(&rng_state) % (good.len + 64);
		int bad = 0;

		switch (rounds % 4) {
		case 0:		/* garbage, sometimes behind a real header */
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)ht_rand(&rng_state);
			if (ht_rand(&rng_state) % 2)
				memcpy(buf, good.p, MIN(len, 48));
			bad = exercise(buf, len);
			break;
		case 1:		/* a real file with a few random bytes */
			memcpy(buf, good.p, good.len);
			for (int k = 1 + ht_rand(&rng_state) % 4; k > 0; k--)
				buf[ht_rand(&rng_state) % good.len] = (uint8_t)ht_rand(&rng_state);
			bad = exercise(buf, good.len);
			break;
		case 2:		/* right frames, wrong contents */
			random_sections(&o);
			bad = exercise(o.p, o.len);
			break;
		default:	/* right frames, the sample a little wrong */
			mutated_sample(&o);
			bad = exercise(o.p, o.len);
		}
		free(o.p);
		if (bad) {
			free(buf);
			return 1;	/* ht_why says what broke */
		}
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000 +
		 (t1.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	fprintf(stderr, "fuzz: %llu rounds\n", (unsigned long long)rounds);
	free(buf);
	return 0;
}

/*
 * Two CPUs whose TSCs disagree: cpu 1's counts SKEW cycles ahead of cpu
 * 0's. They write in turns, 100 ns apart in true time. With the TSC
 * section the loader puts cpu 1 on cpu 0's clock and the merge alternates;
 * without it cpu 1's records all look later. verify's bound is checked.
 */
#define SKEW	50000

static int skew_file(struct ttload *t, bool with_tsc, int64_t skew)
{
	static _Alignas(64) struct ttrace_entry mem[2][64], rec[2][64];
	const struct ttrace_file_tsc tsc[NCPU] = { { 0, 0 }, { skew, 40 } };
	struct trace_ring r[2];
	struct ttrace_file_error e;
	struct fb f;

	HT_CHECK(good_file() == 0);	/* sample.v, the version header */
	for (unsigned c = 0; c < 2; c++) {
		HT_CHECK(trace_ring_init(&r[c], mem[c], sizeof(mem[c]),
					 TRACE_RING_OVERWRITE) == 0);
		for (uint64_t i = 0; i < 20; i++)
			put_event(&r[c], TSC_BOOT + 1000 + (2 * i + c) * 100 +
				  (c ? (uint64_t)skew : 0), c, EV_IRQ,
				  TTRACE_CTX_IRQ, 32, (uint64_t[]){ i }, 1);
		HT_CHECK(trace_ring_collect(&r[c], 0, rec[c], 64, NULL) == 20);
	}
	fb_start(&f, &sample.v);
	fb_rec(&f, 0, 0, rec[0], 20);
	fb_rec(&f, 1, 0, rec[1], 20);
	if (with_tsc)
		ttrace_file_write_section(&f.w, TTRACE_FILE_SEC_TSC, 0, tsc,
					  sizeof(tsc));
	HT_CHECK(fb_load(&f, t, &e) == 0);
	return 0;
}

static int test_tsc_skew(void)
{
	struct ttload t;
	struct tsc_sync_est est = { SKEW, 40, 1 };

	HT_TRY(skew_file(&t, true, SKEW));
	HT_CHECK(t.tsc && t.tsc[1].offset == SKEW);
	for (uint64_t i = 0; i < 20; i++) {
		HT_CHECK(t.cpus[0].sorted[i].timestamp ==
			 TSC_BOOT + 1000 + 2 * i * 100);
		HT_CHECK(t.cpus[1].sorted[i].timestamp ==
			 TSC_BOOT + 1000 + (2 * i + 1) * 100);
	}
	ttload_free(&t);
	/* an odd offset: cpu 1's stamps lose bit 0 in the ring, the loader
	 * subtracts SKEW (the offset rounded down to even) and they are
	 * back on cpu 0's clock exactly, as the cpuN text puts them */
	HT_TRY(skew_file(&t, true, SKEW + 1));
	for (uint64_t i = 0; i < 20; i++)
		HT_CHECK(t.cpus[1].sorted[i].timestamp ==
			 TSC_BOOT + 1000 + (2 * i + 1) * 100);
	ttload_free(&t);
	HT_TRY(skew_file(&t, false, SKEW));	/* raw TSC: cpu 1 all later */
	HT_CHECK(!t.tsc && t.cpus[1].sorted[0].timestamp >
			   t.cpus[0].sorted[19].timestamp);
	ttload_free(&t);
	/* 50 us of skew at 1 GHz is beyond the 1 us bound; 500 ns is not */
	HT_CHECK(tsc_sync_exceeds(&est, tsc_sync_ns_to_cycles(
					TSC_SYNC_BOUND_NS, TSC_HZ)));
	est.offset = 500;
	HT_CHECK(!tsc_sync_exceeds(&est, tsc_sync_ns_to_cycles(
					 TSC_SYNC_BOUND_NS, TSC_HZ)));
	return 0;
}

/* ttload_resolve, remembering its answers with the times they hold for,
 * gives what a walk of the aux buffer gives, for lookups in any order:
 * a name renamed twelve times, one renamed with stamps out of aux order,
 * names of one record, an unknown one, and pcs named by the symbol at or
 * below them (symbols written out of address order, among other tags). */
/* Whether ttload_resolve on t gives what a walk of t's aux buffer gives,
 * for 20,000 lookups of the sample's names in a random order (a name
 * renamed twelve times, one renamed with stamps out of aux order, names
 * of one record, an unknown one, pcs named by the symbol at or below
 * them). Frees t and fails on the first difference. */
static int resolve_matches_walk(struct ttload *t)
{
	static const struct { unsigned tag; uint64_t ident; } keys[] = {
		{ TTRACE_AUX_PROC_NAME, 3 }, { TTRACE_AUX_PROC_NAME, 1 },
		{ TTRACE_AUX_PROC_NAME, 4 },
		{ TTRACE_AUX_SYSCALL_NAME, 1 }, { TTRACE_AUX_PROC_NAME, 999 },
		{ TTRACE_AUX_PROC_NAME, 170 }, { TTRACE_AUX_PROC_NAME, 6 },
		{ TTRACE_AUX_KSYM_NAME, 0x1010 },
		{ TTRACE_AUX_KSYM_NAME, 0x2fff },
		{ TTRACE_AUX_KSYM_NAME, 0x3000 },
		{ TTRACE_AUX_KSYM_NAME, 0x3500 },
		{ TTRACE_AUX_KSYM_NAME, 0x500 },
	};
	const struct ttload_name *names;
	uint64_t x = 12345, lo = TSC_BOOT, span = 3000, nnames;

	names = ttload_names(t, &nnames);
	if (!names || !nnames) {
		ttload_free(t);
		HT_FAIL("ttload_names: none");
	}
	for (int i = 0; i < 20000; i++) {
		const char *a, *b;
		size_t na, nb;
		unsigned k;
		uint64_t ts;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		k = (unsigned)(x >> 60) % (sizeof(keys) / sizeof(keys[0]));
		ts = lo + (x >> 20) % span;
		if (i % 3 == 0)		/* now and then, the edges */
			ts = names[(x >> 8) % nnames].ts - (x >> 7) % 2;
		na = ttload_resolve(t, keys[k].tag, keys[k].ident, ts, &a);
		nb = ttrace_aux_resolve(&t->aux, keys[k].tag, keys[k].ident, ts,
					&b);
		if (na != nb || (na && memcmp(a, b, na))) {
			ttload_free(t);
			HT_FAIL("tag %u ident %llu at %llu: '%.*s', aux walk "
				"'%.*s'", keys[k].tag,
				(unsigned long long)keys[k].ident,
				(unsigned long long)ts, (int)na, a ? a : "",
				(int)nb, b ? b : "");
		}
	}
	return 0;
}

/* ttload_resolve, remembering its answers with the times they hold for
 * and sorting a name's records on its first lookup, gives what a walk of
 * the aux buffer gives, for lookups in any order. */
static int test_resolve_memo(void)
{
	struct ttrace_file_error e;
	struct ttload t;

	HT_CHECK(good_file() == 0);
	HT_CHECK(ttload_buffer(&t, good.p, good.len, &e) == 0);
	if (resolve_matches_walk(&t))
		return 1;
	ttload_free(&t);
	return 0;
}

/* Whether the names of ttload_names() are every aux record once, grouped
 * by (tag, ident) in the order of each group's first record, each group
 * by (time, position). */
static bool names_grouped(const struct ttload *t)
{
	const struct ttload_name *n;
	const uint8_t *prev_first = NULL;
	uint64_t nn, start = 0;

	n = ttload_names(t, &nn);
	if (!n || nn != t->auxcheck.records)
		return false;
	while (start < nn) {
		const uint8_t *first = n[start].str;
		uint64_t end = start + 1;

		for (; end < nn && n[end].tag == n[start].tag &&
		       n[end].ident == n[start].ident; end++) {
			if (n[end].ts < n[end - 1].ts ||
			    (n[end].ts == n[end - 1].ts &&
			     n[end].str < n[end - 1].str))
				return false;	/* not by (time, position) */
			first = n[end].str < first ? n[end].str : first;
		}
		if (prev_first && first < prev_first)
			return false;	/* not by first record */
		for (uint64_t j = 0; j < start; j++)
			if (n[j].tag == n[start].tag &&
			    n[j].ident == n[start].ident)
				return false;	/* a group in two pieces */
		prev_first = first;
		start = end;
	}
	return true;
}

/*
 * A file of 256 KiB or more sits in huge pages whose spare tail holds the
 * aux index and what ttload_scratch() hands out: blocks apart from the
 * file and from each other, refused when too big; scribbling over them
 * changes neither the file's bytes nor any name ttload_resolve finds.
 */
static int test_spare(void)
{
	struct ttrace_file_error e;
	struct obuf o = { 0 };
	struct ttload t;
	uint8_t *p, *q, *end;
	int rc;

	HT_CHECK(good_file() == 0);
	sample_pad = 300 << 10;
	rc = sample_write(&sample, &o, 1000);
	sample_pad = 0;
	HT_CHECK(rc == 0 && o.len > (256 << 10));
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) == 0);
	free(o.p);
	end = t.buf + t.buf_cap;
	HT_CHECK(t.nunknown == 1 && !t.index_block[0] && !t.index_block[1] &&
		 (uint8_t *)t.lookup >= t.buf + t.size &&
		 (uint8_t *)t.lookup < end && names_grouped(&t));
	p = ttload_scratch(&t, 1000);
	q = ttload_scratch(&t, 64 << 10);
	HT_CHECK(p && q && (uintptr_t)p % 64 == 0 && (uintptr_t)q % 64 == 0 &&
		 p >= t.buf + t.size && q >= p + 1000 && q + (64 << 10) <= end);
	HT_CHECK(!ttload_scratch(&t, t.buf_cap));
	memset(p, 0xa5, 1000);
	memset(q, 0x5a, 64 << 10);
	HT_CHECK(ttrace_crc32(0, t.buf, t.size) == t.file_crc);
	if (resolve_matches_walk(&t))
		return 1;
	HT_CHECK(names_grouped(&t));
	ttload_free(&t);
	/* a small file has no spare tail: the index has blocks of its own */
	HT_CHECK(ttload_buffer(&t, good.p, good.len, &e) == 0);
	HT_CHECK(t.index_block[0] && !ttload_scratch(&t, 64 << 10) &&
		 names_grouped(&t));
	ttload_free(&t);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_crc32, "ttrace_file_crc32" },
	{ test_crc32_hw, "ttrace_file_crc32_hw" },
	{ test_crc32_bitwise, "ttrace_file_crc32_bitwise" },
	{ test_writer_combine_sizes, "ttrace_file_writer_combine_sizes" },
	{ test_writer_misuse, "ttrace_file_writer_misuse" },
	{ test_streaming, "ttrace_file_streaming" },
	{ test_writer_combine, "ttrace_file_writer_combine" },
	{ test_layout, "ttrace_file_layout" },
	{ test_roundtrip, "ttrace_file_roundtrip" },
	{ test_every_byte, "ttrace_file_every_byte_corruption" },
	{ test_every_truncation, "ttrace_file_every_truncation" },
	{ test_hostile, "ttrace_file_hostile_payloads" },
	{ test_structure, "ttrace_file_structure" },
	{ test_stats_filtered, "ttrace_file_stats_filtered" },
	{ test_hole, "ttrace_file_undeclared_hole" },
	{ test_declared_hole, "ttrace_file_declared_hole" },
	{ test_losses_in_time, "ttrace_file_losses_in_time" },
	{ test_seq_mismatch, "ttrace_file_seq_mismatch" },
	{ test_bad_runs, "ttrace_file_bad_runs" },
	{ test_range, "ttrace_file_range" },
	{ test_reordered_single, "ttrace_file_reordered_single" },
	{ test_reserved, "ttrace_file_reserved" },
	{ test_format_rules, "ttrace_file_format_rules" },
	{ test_stats_ring, "ttrace_file_stats_ring" },
	{ test_stream_resize, "ttrace_file_stream_resize" },
	{ test_interleaved, "ttrace_file_interleaved_cpus" },
	{ test_dump_snapshot, "ttrace_file_dump_snapshot" },
	{ test_live_stream, "ttrace_file_live_stream" },
	{ test_fuzz, "ttrace_file_fuzz" },
	{ test_tsc_skew, "ttrace_file_tsc_skew" },
	{ test_resolve_memo, "ttload_resolve_memo_matches_aux_walk" },
	{ test_spare, "ttload_spare_memory_apart_from_file_and_index" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
