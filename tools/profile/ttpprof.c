/*
 * ttpprof.c: `ttdecode pprof TRACE OUT.pb.gz [--off-cpu|--wall] [--pid N]`,
 * the profile (ttprof.h) as pprof's profile.proto (google/pprof
 * proto/profile.proto; field numbers in docs/exports.md), gzip'd by zlib,
 * which `go tool pprof` reads (-top, -traces, -svg...).
 *
 *	sample_type	[samples count, cpu|off-cpu|wall nanoseconds]
 *	sample		one per (process, stack) of ttprof_rows(): its
 *			locations leaf first, values [samples, ns], labels
 *			pid (num, unit "pid", so that pid 0 stays) and comm
 *	location	one per frame (id = frame + 1), one line: the function
 *	function	one per frame (id = frame + 1), its name
 *	mapping		one per mapping (id = mapping + 1), has_functions set
 *			(pprof then symbolizes nothing itself)
 *	string_table	"", the fixed strings, then every mapping's path, frame
 *			name and process name, in that order
 *
 * Written by hand, a varint writer and no protobuf library: each nested
 * message is built in a scratch buffer and copied out with its length
 * (they are all small), the whole profile in memory, then compressed.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ttdecode.h"
#include "ttprof.h"

enum {	/* profile.proto's field numbers */
	P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION,
	P_STRING_TABLE, P_DURATION = 10, P_PERIOD_TYPE, P_PERIOD,
	VT_TYPE = 1, VT_UNIT,
	S_LOCATION = 1, S_VALUE, S_LABEL,
	L_KEY = 1, L_STR, L_NUM, L_NUM_UNIT,
	M_ID = 1, M_START, M_LIMIT, M_OFFSET, M_FILENAME, M_HAS_FUNCTIONS = 7,
	LOC_ID = 1, LOC_MAPPING, LOC_ADDRESS, LOC_LINE,
	LINE_FUNCTION = 1,
	F_ID = 1, F_NAME, F_SYSTEM_NAME,
};

/* The fixed strings, at string_table[1..]. */
enum { S_SAMPLES = 1, S_COUNT, S_TYPE, S_NANOSECONDS, S_PID, S_COMM,
       S_FIXED };

struct pbuf {
	uint8_t *b;
	size_t len, cap;
	bool oom;
};

static void put(struct pbuf *p, const void *s, size_t n)
{
	if (p->len + n > p->cap && !p->oom) {
		size_t cap = p->cap * 2 > p->len + n ? p->cap * 2 :
			     p->len + n + 4096;
		uint8_t *b = realloc(p->b, cap);

		if (!b)
			p->oom = true;
		else
			p->b = b, p->cap = cap;
	}
	if (!p->oom) {
		memcpy(p->b + p->len, s, n);
		p->len += n;
	}
}

static void put_varint(struct pbuf *p, uint64_t v)
{
	uint8_t b[10], n = 0;

	for (; v > 0x7f; v >>= 7)
		b[n++] = (uint8_t)(v | 0x80);
	b[n++] = (uint8_t)v;
	put(p, b, n);
}

static void put_uint(struct pbuf *p, unsigned field, uint64_t v)
{
	put_varint(p, field << 3);
	put_varint(p, v);
}

static void put_bytes(struct pbuf *p, unsigned field, const void *s, size_t n)
{
	put_varint(p, field << 3 | 2);
	put_varint(p, n);
	put(p, s, n);
}

/* Appends message m as field of p, and empties m for the next one. */
static void put_msg(struct pbuf *p, unsigned field, struct pbuf *m)
{
	put_bytes(p, field, m->b, m->len);
	p->oom |= m->oom;
	m->len = 0;
}

static void value_type(struct pbuf *out, struct pbuf *m, unsigned field,
		       uint64_t type, uint64_t unit)
{
	put_uint(m, VT_TYPE, type);
	put_uint(m, VT_UNIT, unit);
	put_msg(out, field, m);
}

/* The index in string_table of process pid's name, 0 if it has none. */
static uint64_t comm_string(const struct ttprof *p, uint32_t pid)
{
	for (uint32_t i = 0; i < p->ncomms; i++)
		if (p->comm_pids[i] == pid && p->comms[i])
			return S_FIXED + p->nmappings + p->nframes + i;
	return 0;
}

/* One Sample per row: locations leaf first (packed), values, labels. */
static void samples(const struct ttprof *p, const struct ttprof_row *r,
		    uint64_t n, struct pbuf *out, struct pbuf *m)
{
	struct pbuf v = { 0 }, l = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		const struct ttprof_stack *s = &p->stacks[r[i].stack];
		uint64_t comm = comm_string(p, r[i].pid);

		for (uint32_t k = 0; k < s->n; k++)
			put_varint(&v, p->stack_frames[s->first + k] + 1ull);
		put_msg(m, S_LOCATION, &v);
		put_varint(&v, r[i].samples);
		put_varint(&v, r[i].ns);
		put_msg(m, S_VALUE, &v);
		put_uint(&l, L_KEY, S_PID);
		put_uint(&l, L_NUM, r[i].pid);
		put_uint(&l, L_NUM_UNIT, S_PID);
		put_msg(m, S_LABEL, &l);
		if (comm) {
			put_uint(&l, L_KEY, S_COMM);
			put_uint(&l, L_STR, comm);
			put_msg(m, S_LABEL, &l);
		}
		put_msg(out, P_SAMPLE, m);
	}
	out->oom |= v.oom || l.oom;
	free(v.b);
	free(l.b);
}

/* Mappings, then a Location and a Function per frame. */
static void symbols(const struct ttprof *p, struct pbuf *out, struct pbuf *m)
{
	struct pbuf line = { 0 };

	for (uint32_t i = 0; i < p->nmappings; i++) {
		put_uint(m, M_ID, i + 1ull);
		put_uint(m, M_START, p->mappings[i].start);
		put_uint(m, M_LIMIT, p->mappings[i].end);
		put_uint(m, M_FILENAME, S_FIXED + i);
		put_uint(m, M_HAS_FUNCTIONS, 1);
		put_msg(out, P_MAPPING, m);
	}
	for (uint32_t i = 0; i < p->nframes; i++) {
		uint64_t name = S_FIXED + p->nmappings + i;

		put_uint(m, LOC_ID, i + 1ull);
		put_uint(m, LOC_MAPPING, p->frames[i].mapping + 1ull);
		put_uint(m, LOC_ADDRESS, p->frames[i].addr);
		put_uint(&line, LINE_FUNCTION, i + 1ull);
		put_msg(m, LOC_LINE, &line);
		put_msg(out, P_LOCATION, m);
		put_uint(m, F_ID, i + 1ull);
		put_uint(m, F_NAME, name);
		put_uint(m, F_SYSTEM_NAME, name);
		put_msg(out, P_FUNCTION, m);
	}
	out->oom |= line.oom;
	free(line.b);
}

static void strings(const struct ttprof *p, const struct ttprof_opts *o,
		    struct pbuf *out)
{
	static const char *const type[] = { "cpu", "off-cpu", "wall" };
	const char *fixed[S_FIXED] = { "", "samples", "count", type[o->view],
				       "nanoseconds", "pid", "comm" };

	for (int i = 0; i < S_FIXED; i++)
		put_bytes(out, P_STRING_TABLE, fixed[i], strlen(fixed[i]));
	for (uint32_t i = 0; i < p->nmappings; i++)
		put_bytes(out, P_STRING_TABLE, p->mappings[i].path,
			  strlen(p->mappings[i].path));
	for (uint32_t i = 0; i < p->nframes; i++)
		put_bytes(out, P_STRING_TABLE, p->frames[i].name,
			  p->frames[i].len);
	for (uint32_t i = 0; i < p->ncomms; i++)
		put_bytes(out, P_STRING_TABLE, p->comms[i] ? p->comms[i] : "",
			  p->comms[i] ? strlen(p->comms[i]) : 0);
}

/* The time the samples span. */
static uint64_t duration(const struct ttprof *p)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (uint64_t i = 0; i < p->nsamples; i++) {
		const struct ttprof_sample *s = &p->samples[i];
		bool on = s->kind == TTPROF_ON_CPU;
		uint64_t start = on ? s->ts - MIN(s->ns, s->ts) : s->ts;
		uint64_t end = on ? s->ts : s->ts + s->ns;

		lo = start < lo ? start : lo;
		hi = end > hi ? end : hi;
	}
	return hi > lo ? hi - lo : 0;
}

/* Compresses the n bytes at b as one gzip member into f. */
static int gzip_out(const uint8_t *b, size_t n, FILE *f)
{
	uint8_t chunk[1 << 16];
	z_stream z = { 0 };
	int rc = 0, zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (uint8_t *)b;
	z.avail_in = (uInt)n;	/* a profile is well under 4 GiB */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, f) !=
		    sizeof(chunk) - z.avail_out)
			rc = -1;
	} while (zr == Z_OK);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? rc : -1;
}

/* Writes p's samples that o wants to f as a gzip'd profile.proto.
 * Returns 0, or -1 (out of memory, or a write failed). */
int ttprof_write_pprof(const struct ttprof *p, const struct ttprof_opts *o,
		       FILE *f)
{
	struct pbuf out = { 0 }, m = { 0 };
	uint64_t n;
	struct ttprof_row *r = ttprof_rows(p, o, &n);
	int rc;

	if (!r)
		return -1;
	value_type(&out, &m, P_SAMPLE_TYPE, S_SAMPLES, S_COUNT);
	value_type(&out, &m, P_SAMPLE_TYPE, S_TYPE, S_NANOSECONDS);
	samples(p, r, n, &out, &m);
	symbols(p, &out, &m);
	strings(p, o, &out);
	put_uint(&out, P_DURATION, duration(p));
	value_type(&out, &m, P_PERIOD_TYPE, S_TYPE, S_NANOSECONDS);
	put_uint(&out, P_PERIOD, p->period_ns);
	rc = out.oom || m.oom ? -1 : gzip_out(out.b, out.len, f);
	free(out.b);
	free(m.b);
	free(r);
	return rc;
}

#define PPROF_USAGE "pprof TRACE OUT.pb.gz" TTPROF_OPTIONS

static int ttdecode_pprof(int argc, char **argv)
{
	return ttprof_command(argc, argv, 1, PPROF_USAGE, ttprof_write_pprof);
}

static const struct ttdecode_command cmd_pprof = {
	"pprof", 2, ttdecode_pprof, PPROF_USAGE };
TTDECODE_COMMAND(cmd_pprof);
