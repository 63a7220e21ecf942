/*
 * Host tests of the trace file (kern/lib/ttrace_file.c) and its loader
 * (tools/ttload.c): a synthetic trace made the way the kernel makes one
 * (entries through trace_ring, names through the aux ring, metadata through
 * ttrace_meta_serialise) is written with the streaming writer and read
 * back. Then every single-byte corruption and every truncation of it must
 * be refused with an offset at or before the damage, hostile files with
 * correct CRCs must be refused by the payload checks, and random garbage
 * must never crash the reader (run under ASan/UBSan).
 *
 *	test_ttrace_file		run the tests
 *	test_ttrace_file FILE		write the synthetic trace to FILE
 *
 * TTRACE_FUZZ_MS sets the fuzzing time (default 3000 ms).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include "ttload.h"

#define NCPU		2
#define NENT		32		/* entries per CPU: the ring wraps */
#define AUX_SIZE	4096
#define TSC_BOOT	100000ULL
#define TSC_HZ		1000000000ULL	/* 1 GHz: 1 tick = 1 ns */

enum { EV_BOOT, EV_IRQ, EV_SCHED, EV_MARKER, EV_WIDE, NEV };

/* ---- a small event table, serialised by kern/lib ------------------------ */

static const struct ttrace_arg_meta a_boot[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE },
	{ "arg", TTRACE_ARG_U64, 0 },
};
static const struct ttrace_arg_meta a_irq[] = {
	{ "vector", TTRACE_ARG_U32, 0 },
};
static const struct ttrace_arg_meta a_sched[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME },
	{ "prev_state", TTRACE_ARG_U32, 0 },
};
static const struct ttrace_arg_meta a_marker[] = {
	{ "marker", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER },
};
#define W(n) { "w" #n, TTRACE_ARG_U64, 0 }
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

/* ---- the synthetic trace ------------------------------------------------- */

struct sample {
	struct ttrace_version v;
	uint8_t meta[2048];
	size_t meta_len;
	_Alignas(8) uint8_t aux_snap[AUX_SIZE];
	struct ttrace_aux_view aux;
	size_t aux_off;			/* aux.data - aux_snap */
	struct ttrace_entry raw[NCPU][NENT];
	struct ttrace_file_stats stats[NCPU];
	uint64_t live_events[NCPU];	/* whole events the raw ring holds */
};

struct gen {
	struct trace_ring ring[NCPU];
	struct ttrace_entry mem[NCPU][NENT];
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
	uint64_t type = TTRACE_TYPE(id, ctx, 0, ctx == TTRACE_CTX_IRQ, cpu);

	g->ts += 16;
	if (n > TTRACE_ENTRY_ARGS)
		trace_ring_write_ext(&g->ring[cpu], g->ts, type, ctxword, a, n);
	else
		trace_ring_write(&g->ring[cpu], g->ts, type, ctxword,
				 a[0], n > 1 ? a[1] : 0, n > 2 ? a[2] : 0,
				 n > 3 ? a[3] : 0, n > 4 ? a[4] : 0);
}

/* Records the events; cpu0's ring wraps, cpu1's does not. */
static void gen_events(struct gen *g)
{
	uint64_t sys = TTRACE_CTX_PIDWORD(2, 1), wide[13];

	ev(g, 0, EV_BOOT, TTRACE_CTX_BOOT, 0, (uint64_t[]){ 1, 0x1234 }, 2);
	ev(g, 1, EV_BOOT, TTRACE_CTX_BOOT, 1, (uint64_t[]){ 1, 0x99 }, 2);
	for (unsigned i = 0; i < 40; i++) {
		ev(g, 0, EV_IRQ, TTRACE_CTX_IRQ, 32, (uint64_t[]){ 32 + i }, 1);
		if (i % 8 == 3) {
			for (unsigned w = 0; w < 13; w++)
				wide[w] = i * 100 + w;
			ev(g, i % 16 == 3, EV_WIDE, TTRACE_CTX_KTASK, 5, wide, 13);
		}
	}
	ev(g, 0, EV_SCHED, TTRACE_CTX_SYSC, sys, (uint64_t[]){ 1, 2, 0 }, 3);
	ev(g, 1, EV_SCHED, TTRACE_CTX_IDLE, 0, (uint64_t[]){ 2, 1, 1 }, 3);
	ev(g, 0, EV_MARKER, TTRACE_CTX_SYSC, sys, (uint64_t[]){ 7 }, 1);
}

static void gen_names(struct gen *g, const uint8_t *meta, size_t meta_len)
{
	char name[32];

	for (int i = 0; i < 120; i++) {		/* enough to wrap aux */
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
}

static void fill_version(struct sample *s, const struct gen *g)
{
	memset(&s->v, 0, sizeof(s->v));
	s->v.magic = TTRACE_MAGIC;
	s->v.header_version = TTRACE_HEADER_VERSION;
	s->v.aux_version = TTRACE_AUX_VERSION;
	s->v.percpu_version = TTRACE_PERCPU_VERSION;
	s->v.header_size = sizeof(s->v);
	s->v.num_cpus = NCPU;
	s->v.entry_size = TTRACE_ENTRY_SIZE;
	s->v.entries_per_cpu = NENT;
	s->v.tsc_hz = TSC_HZ;
	s->v.tsc_boot = TSC_BOOT;
	s->v.aux_size = AUX_SIZE;
	s->v.aux_mask = AUX_SIZE - 1;
	s->v.aux_first = g->aux.first;
	s->v.aux_last = g->aux.last;
	s->v.event_count = NEV;
	s->v.group_mask = 0xf;
	s->v.tsc_now = g->ts;
	s->v.meta_size = (uint32_t)s->meta_len;
}

/* Builds the sample trace with kern/lib, as the kernel would. */
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
	gen_events(&g);
	for (int c = 0; c < NCPU; c++) {
		struct trace_ring_stats st;

		trace_ring_read_raw(&g.ring[c], 0, s->raw[c], sizeof(s->raw[c]));
		trace_ring_stats(&g.ring[c], &st);
		s->stats[c] = (struct ttrace_file_stats){ st.written,
							  st.overwritten,
							  st.dropped };
	}
	ttrace_aux_snapshot(&g.aux, NULL, s->aux_snap, sizeof(s->aux_snap),
			    &s->aux);
	s->aux_off = (size_t)(s->aux.data - s->aux_snap);
	fill_version(s, &g);
}

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

/* Writes s as a trace file, streaming the rings in chunks of `chunk`. */
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
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + s->aux.len);
	ttrace_file_section_data(&w, &a, sizeof(a));
	ttrace_file_section_data(&w, s->aux_snap + s->aux_off, s->aux.len);
	ttrace_file_section_end(&w);
	for (uint32_t c = 0; c < NCPU; c++) {
		const uint8_t *p = (const uint8_t *)s->raw[c];

		ttrace_file_section_begin(&w, TTRACE_FILE_SEC_RING, c,
					  sizeof(s->raw[c]));
		for (size_t off = 0; off < sizeof(s->raw[c]); off += chunk)
			ttrace_file_section_data(&w, p + off,
						 MIN(chunk, sizeof(s->raw[c]) - off));
		ttrace_file_section_end(&w);
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_STATS, c,
					  &s->stats[c], sizeof(s->stats[c]));
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

/* ---- basics -------------------------------------------------------------- */

static int test_crc32(void)
{
	const char *s = "123456789";

	HT_CHECK(ttrace_crc32(0, s, 9) == 0xcbf43926);	/* the check value */
	HT_CHECK(ttrace_crc32(ttrace_crc32(0, s, 4), s + 4, 5) == 0xcbf43926);
	HT_CHECK(ttrace_crc32(0, "", 0) == 0);
	HT_CHECK(ttrace_file_pad(48) == 0 && ttrace_file_pad(52) == 60);
	HT_CHECK(ttrace_file_pad(112) == 0 && ttrace_file_pad(113) == 63);
	return 0;
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

static int test_layout(void)
{
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	struct ttrace_file_error e;
	int n = 0, rc;

	HT_CHECK(good_file() == 0);
	HT_CHECK(!memcmp(good.p, "\x89TTR\r\n\x1a\n\x04\x03\x02\x01", 12));
	HT_CHECK(ttrace_file_open(&r, good.p, good.len, &e) == 0);
	while ((rc = ttrace_file_next(&r, &s, &e)) > 0) {
		HT_CHECK(s.payload_offset % TTRACE_FILE_ALIGN == 0);
		HT_CHECK(s.offset % TTRACE_FILE_ALIGN == 48);
		n++;
	}
	HT_CHECK(rc == 0 && n == 3 + 2 * NCPU && r.nsections == (uint32_t)n);
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

		ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted);
		while (ttrace_pair_next(&it, &ev)) {
			ttrace_format_line(line, sizeof(line), &t->meta, &ev,
					   t->has_aux ? ttrace_aux_resolve : NULL,
					   &t->aux);
			hits += want && strstr(line, want) != NULL;
		}
	}
	return hits;
}

static int test_roundtrip(void)
{
	struct ttrace_file_error e;
	struct ttload t;
	struct ttload_ring_check rc;

	HT_CHECK(good_file() == 0);
	if (ttload_buffer(&t, good.p, good.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	HT_CHECK(!memcmp(&t.version, &sample.v, sizeof(sample.v)));
	HT_CHECK(t.meta.nevents == NEV && t.meta_len == sample.meta_len);
	HT_CHECK(t.has_aux && t.aux.len == sample.aux.len && t.aux.first > 0);
	HT_CHECK(t.file_crc == ttrace_crc32(0, good.p, good.len));
	for (int c = 0; c < NCPU; c++) {
		HT_CHECK(!memcmp(t.cpus[c].raw, sample.raw[c], sizeof(sample.raw[c])));
		HT_CHECK(t.cpus[c].has_stats);
		HT_CHECK(!memcmp(&t.cpus[c].stats, &sample.stats[c],
				 sizeof(sample.stats[c])));
		HT_CHECK(ttload_check_ring(&t, c, &rc, &e) == 0);
		HT_CHECK(rc.firsts + rc.conts + rc.invalid == NENT);
		HT_CHECK(rc.events == rc.firsts && rc.incomplete == 0);
		HT_CHECK(rc.reordered == 0 && rc.before_boot == 0);
	}
	HT_CHECK(sample.stats[0].overwritten > 0 && t.cpus[1].ninvalid > 0);
	HT_CHECK(count_lines(&t, "sys:sh[2]:write sched_switch: prev=init "
			     "next=sh prev_state=0") == 1);
	HT_CHECK(count_lines(&t, "user_marker: hello") == 1);
	HT_CHECK(count_lines(&t, "boot:memory boot_phase: #1 arg=0x99") == 0);
	HT_CHECK(count_lines(&t, "cpu1 boot:memory boot_phase: memory "
			     "arg=0x99") == 1);
	HT_CHECK(count_lines(&t, "kt:kworker test_wide: w0=300 w1=301") == 1);
	HT_CHECK(count_lines(&t, "w12=3512") == 1);	/* both continuations */
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
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	uint8_t *copy;

	HT_CHECK(good_file() == 0);
	copy = malloc(good.len);
	memcpy(copy, good.p, good.len);
	for (size_t i = 0; i < good.len; i++) {
		for (size_t f = 0; f < sizeof(flips); f++) {
			copy[i] ^= flips[f];
			if (must_fail(copy, good.len, i, "flip", i)) {
				free(copy);
				return 1;
			}
			copy[i] ^= flips[f];
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

	HT_CHECK(good_file() == 0);
#define CASE(change, want)						\
	do {								\
		s = sample;						\
		change;							\
		if (hostile(&s, want))					\
			return 1;					\
	} while (0)
	CASE(s.v.num_cpus = 0, "bad number of cpus");
	CASE(s.v.num_cpus = 1, "for cpu 1, but the trace has 1 cpus");
	CASE(s.v.entries_per_cpu = 64, "not entries_per_cpu");
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
	CASE(s.raw[0][5].type ^= 1ULL << 29, "reserved type bits");
	CASE(s.raw[0][5].type |= 0xfULL << 16, "context kind");
	CASE(s.raw[1][0].type ^= 1ULL << 32, "written by cpu 0");
	CASE(s.raw[1][0].type |= 0xffff, "event id 65535");
	CASE(s.raw[1][0].type |= 1ULL << 20, "announces 1 continuations");
	return 0;
#undef CASE
}

/* aux malformed needs the iterator's walk; make sure a bad chain is seen. */
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
	o.len = 0;
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, sample.meta,
				  sample.meta_len);
	ttrace_file_write_section(&w, 77, 3, big, sizeof(big));
	HT_CHECK(ttrace_file_write_end(&w) == 0);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) == 0);
	HT_CHECK(t.nunknown == 1 && !t.has_aux && !t.cpus[0].raw);
	HT_CHECK(count_lines(&t, NULL) == 0);
	ttload_free(&t);
	/* the example of the brief: a RING that runs past the end */
	o.len = 0;
	ttrace_file_writer_init(&w, obuf_out, &o);
	ttrace_file_write_header(&w);
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_RING, 0, 1048576);
	HT_CHECK(ttload_buffer(&t, o.p, o.len, &e) < 0);
	HT_CHECK(e.offset == 48 && !strcmp(e.msg, "section RING length 1048576 "
					   "runs past end of file (size 64)"));
	free(o.p);
	return 0;
}

/* ---- fuzzing ------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Loads buf; if it loads, runs everything a decoder would on it. */
static void exercise(const uint8_t *buf, size_t len)
{
	struct ttrace_file_error e;
	struct ttload t;
	struct ttload_ring_check rc;
	struct ttload_aux_check ac;

	if (ttload_buffer(&t, buf, len, &e) < 0)
		return;
	ttload_check_aux(&t, &ac, &e);
	for (uint32_t c = 0; c < t.version.num_cpus; c++)
		ttload_check_ring(&t, c, &rc, &e);
	count_lines(&t, NULL);
	ttload_free(&t);
}

/* Fills junk with one random section's payload; returns its length. */
static size_t random_payload(uint8_t *junk, size_t size, uint32_t *type,
			     uint32_t *cpu)
{
	uint64_t pick = rnd() % 10;
	size_t len = rnd() % size;

	*cpu = (uint32_t)(rnd() % NCPU);
	if (pick < 5) {		/* a real ring with a few bytes changed */
		*type = TTRACE_FILE_SEC_RING;
		len = sizeof(sample.raw[0]);
		memcpy(junk, sample.raw[*cpu], len);
		for (int k = 1 + rnd() % 4; k > 0; k--)
			junk[rnd() % len] = (uint8_t)rnd();
		return len;
	}
	*type = pick < 6 ? TTRACE_FILE_SEC_STATS : pick < 7 ? 99 :
		(uint32_t)(rnd() % 7) + 1;
	if (*type == TTRACE_FILE_SEC_END)
		*type = 100;
	if (*type == TTRACE_FILE_SEC_STATS)
		len = sizeof(struct ttrace_file_stats);
	if (rnd() % 8 == 0)
		*cpu = (uint32_t)rnd();
	for (size_t k = 0; k < len; k++)
		junk[k] = (uint8_t)rnd();
	return len;
}

/* A frame-valid file of random sections, mostly pieces of the sample. */
static void random_sections(struct obuf *o)
{
	struct ttrace_file_writer w;
	static uint8_t junk[4096];
	int n = (int)(rnd() % 6);

	ttrace_file_writer_init(&w, obuf_out, o);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &sample.v,
				  sizeof(sample.v));
	if (rnd() % 8)
		ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0,
					  sample.meta, sample.meta_len);
	for (int i = 0; i < n; i++) {
		uint32_t type, cpu;
		size_t len = random_payload(junk, sizeof(junk), &type, &cpu);

		ttrace_file_write_section(&w, type, cpu, junk, len);
	}
	ttrace_file_write_end(&w);
}

static int test_fuzz(void)
{
	const char *env = getenv("TTRACE_FUZZ_MS");
	long ms = env ? atol(env) : 3000;
	struct timespec t0, t1;
	uint8_t *buf = malloc(good.len + 64);
	uint64_t rounds = 0;

	HT_CHECK(good_file() == 0 && buf);
	rng_state = (uint64_t)time(NULL) | 1;
	fprintf(stderr, "fuzz seed %#llx\n", (unsigned long long)rng_state);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct obuf o = { 0 };
		size_t len = rnd() % (good.len + 64);

		switch (rounds % 3) {
		case 0:		/* garbage, sometimes behind a real header */
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)rnd();
			if (rnd() % 2)
				memcpy(buf, good.p, MIN(len, 48));
			exercise(buf, len);
			break;
		case 1:		/* a real file with a few random bytes */
			memcpy(buf, good.p, good.len);
			for (int k = 1 + rnd() % 4; k > 0; k--)
				buf[rnd() % good.len] = (uint8_t)rnd();
			exercise(buf, good.len);
			break;
		default:	/* right frames, wrong contents */
			random_sections(&o);
			exercise(o.p, o.len);
			free(o.p);
		}
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000 +
		 (t1.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	fprintf(stderr, "fuzz: %llu rounds\n", (unsigned long long)rounds);
	free(buf);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_crc32, "ttrace_file_crc32" },
	{ test_writer_misuse, "ttrace_file_writer_misuse" },
	{ test_streaming, "ttrace_file_streaming" },
	{ test_layout, "ttrace_file_layout" },
	{ test_roundtrip, "ttrace_file_roundtrip" },
	{ test_every_byte, "ttrace_file_every_byte_corruption" },
	{ test_every_truncation, "ttrace_file_every_truncation" },
	{ test_hostile, "ttrace_file_hostile_payloads" },
	{ test_structure, "ttrace_file_structure" },
	{ test_fuzz, "ttrace_file_fuzz" },
	{ 0 },
};

int main(int argc, char **argv)
{
	if (argc == 2) {	/* write the sample trace for ttdecode */
		FILE *f = fopen(argv[1], "wb");

		if (good_file() || !f || fwrite(good.p, 1, good.len, f) !=
		    good.len || fclose(f)) {
			perror(argv[1]);
			return 1;
		}
		return 0;
	}
	return ht_main(tests);
}
