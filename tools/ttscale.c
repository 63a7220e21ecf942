/*
 * ttscale.c: `ttdecode scale N TRACE OUT`, a bigger trace made from a real
 * one, for measuring the decoder (make bench): every CPU's runs repeated N
 * times one after the other, copy k with its logical indices moved by k
 * times the CPU's index span (so each first entry's seq is still its
 * index's) and its timestamps by k times the whole trace's time span (so
 * the copies follow each other on every CPU in the same order). Adjacent
 * RECORDS copies are written as one section, as `ttrace save` does, with
 * entries_per_cpu raised to hold them (up to 2^23); the names, metadata,
 * TSC offsets and STATS counters are the original's (not the ring they
 * name: its indices are not the copies'), the RANGE the copies'.
 * `ttdecode verify` accepts the result whenever it accepts the original.
 */
#include <stdlib.h>
#include <string.h>

#include "ttdecode.h"

#define SCALE_CHUNK	1024		/* entries transformed at a time */

struct scale {
	const struct ttload *t;
	struct ttrace_file_writer w;
	uint64_t n;			/* copies */
	uint64_t period;		/* timestamp shift per copy, even */
	uint64_t per_section;		/* entries a RECORDS section holds */
};

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* The even time span that separates two copies: the trace's whole span
 * and a gap. */
static uint64_t scale_period(const struct ttload *t)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		const struct ttload_cpu *cpu = &t->cpus[c];

		if (!cpu->nsorted)
			continue;
		lo = MIN(lo, cpu->sorted[0].timestamp);
		hi = MAX(hi, cpu->sorted[cpu->nsorted - 1].timestamp);
	}
	return lo > hi ? 2 : ROUNDUP(hi - lo + 1000, 2);
}

/* Writes the entries of run r, copy k, into the open section: the TSC
 * offset put back (the loader took it off), timestamps and seqs moved. */
static void put_copy(struct scale *s, uint32_t c, const struct ttload_run *r,
		     uint64_t k)
{
	static struct ttrace_entry buf[SCALE_CHUNK];
	const struct ttload_cpu *cpu = &s->t->cpus[c];
	uint64_t span = cpu->check.end_index - cpu->check.first_index;
	uint64_t off = s->t->tsc ? (uint64_t)s->t->tsc[c].offset & ~1ULL : 0;

	for (uint64_t i = 0; i < r->count; i += SCALE_CHUNK) {
		uint64_t m = MIN((uint64_t)SCALE_CHUNK, r->count - i);

		memcpy(buf, &r->entries[i], m * sizeof(*buf));
		for (uint64_t j = 0; j < m; j++) {
			uint64_t idx = r->first + i + j + k * span;

			buf[j].timestamp += k * s->period + off;
			if (!ttrace_ts_is_cont(buf[j].timestamp))
				buf[j].type = (buf[j].type &
					       ~TTRACE_TYPE_SEQ_MASK) |
					      (uint64_t)TTRACE_SEQ_OF(idx) <<
					      TTRACE_TYPE_SEQ_SHIFT;
		}
		ttrace_file_section_data(&s->w, buf, m * sizeof(*buf));
	}
}

/* A stretch of cpu c's runs: runs [r0, r1), all RECORDS, adjacent. */
struct stretch {
	uint32_t c;
	uint64_t r0, r1;
	uint64_t slots;
};

/* Writes copies [k0, k1) of stretch st as one section. */
static void put_records(struct scale *s, const struct stretch *st,
			uint64_t k0, uint64_t k1)
{
	const struct ttload_cpu *cpu = &s->t->cpus[st->c];
	uint64_t span = cpu->check.end_index - cpu->check.first_index;
	struct ttrace_file_run h = { .first = cpu->runs[st->r0].first +
					      k0 * span,
				     .count = (k1 - k0) * st->slots,
				     .type = TTRACE_FILE_SEC_RECORDS };

	ttrace_file_section_begin(&s->w, h.type, st->c, sizeof(h) +
				  h.count * TTRACE_ENTRY_SIZE);
	ttrace_file_section_data(&s->w, &h, sizeof(h));
	for (uint64_t k = k0; k < k1; k++)
		for (uint64_t r = st->r0; r < st->r1; r++)
			put_copy(s, st->c, &cpu->runs[r], k);
	ttrace_file_section_end(&s->w);
}

/* Writes every copy of cpu c's runs. A CPU without losses is one stretch
 * whose copies follow each other: they go into sections as big as a
 * ring; otherwise each copy of each run is a section of its own. */
static void put_cpu(struct scale *s, uint32_t c)
{
	const struct ttload_cpu *cpu = &s->t->cpus[c];
	uint64_t span = cpu->check.end_index - cpu->check.first_index;
	struct stretch st = { c, 0, cpu->nruns, cpu->slots };

	if (cpu->nruns && cpu->slots == span) {
		uint64_t per = MAX(s->per_section / cpu->slots, 1);

		for (uint64_t k = 0; k < s->n; k += per)
			put_records(s, &st, k, MIN(k + per, s->n));
		return;
	}
	for (uint64_t k = 0; k < s->n; k++)
		for (uint64_t r = 0; r < cpu->nruns; r++) {
			const struct ttload_run *run = &cpu->runs[r];
			struct ttrace_file_run h = { .first = run->first + k * span,
						     .count = run->count,
						     .type = run->type,
						     .reason = run->reason };

			st = (struct stretch){ c, r, r + 1, run->count };
			if (run->type == TTRACE_FILE_SEC_RECORDS)
				put_records(s, &st, k, k + 1);
			else
				ttrace_file_write_section(&s->w, h.type, c, &h,
							  sizeof(h));
		}
}

/* RANGE: each CPU's n copies of its index span, back to back. */
static void put_range(struct scale *s)
{
	uint32_t ncpus = s->t->version.num_cpus;

	ttrace_file_section_begin(&s->w, TTRACE_FILE_SEC_RANGE, 0,
				  ncpus * sizeof(struct ttrace_file_range));
	for (uint32_t c = 0; c < ncpus; c++) {
		const struct ttload_ring_check *rc = &s->t->cpus[c].check;
		struct ttrace_file_range r = { rc->first_index, rc->first_index +
			s->n * (rc->end_index - rc->first_index) };

		ttrace_file_section_data(&s->w, &r, sizeof(r));
	}
	ttrace_file_section_end(&s->w);
}

/* The ring size that holds the biggest CPU's copies (at most 2^23). */
static uint64_t scaled_ring(const struct ttload *t, uint64_t n)
{
	uint64_t most = 0, ring = t->version.entries_per_cpu;

	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		most = MAX(most, t->cpus[c].slots);
	while (ring < TTRACE_MAX_RING_ENTRIES && ring / n < most)
		ring *= 2;
	return ring;
}

static int scale_write(const struct ttload *t, uint64_t n, FILE *out)
{
	struct scale s = { .t = t, .n = n, .period = scale_period(t) };
	struct ttrace_version v = t->version;
	struct ttrace_file_aux a = { t->aux.first, t->aux.last };

	v.entries_per_cpu = s.per_section = scaled_ring(t, n);
	ttrace_file_writer_init(&s.w, file_out, out);
	ttrace_file_write_header(&s.w);
	ttrace_file_write_section(&s.w, TTRACE_FILE_SEC_VERSION, 0, &v,
				  sizeof(v));
	ttrace_file_write_section(&s.w, TTRACE_FILE_SEC_META, 0, t->meta_blob,
				  t->meta_len);
	for (uint32_t c = 0; c < v.num_cpus; c++)
		put_cpu(&s, c);
	put_range(&s);
	if (t->has_aux) {
		ttrace_file_section_begin(&s.w, TTRACE_FILE_SEC_AUX, 0,
					  sizeof(a) + t->aux.len);
		ttrace_file_section_data(&s.w, &a, sizeof(a));
		ttrace_file_section_data(&s.w, t->aux.data, t->aux.len);
		ttrace_file_section_end(&s.w);
	}
	if (t->tsc)
		ttrace_file_write_section(&s.w, TTRACE_FILE_SEC_TSC, 0, t->tsc,
					  v.num_cpus * sizeof(*t->tsc));
	/* the counters without the ring they name: its indices are not the
	 * copies' */
	for (uint32_t c = 0; c < v.num_cpus; c++)
		if (t->cpus[c].has_stats)
			ttrace_file_write_section(&s.w, TTRACE_FILE_SEC_STATS, c,
						  &t->cpus[c].stats,
						  t->cpus[c].has_str_dropped ?
						  TTRACE_FILE_STATS_STR_DROPPED :
						  t->cpus[c].has_filtered ?
						  TTRACE_FILE_STATS_FILTERED :
						  TTRACE_FILE_STATS_MIN);
	return ttrace_file_write_end(&s.w);
}

static int ttdecode_scale(int argc, char **argv)
{
	char *end;
	unsigned long long n = strtoull(argv[0], &end, 10);
	struct ttload t;
	FILE *out;
	int rc;

	if (argc != 3 || *end || n < 1 || n > 1000000)
		return ttdecode_usage_error("scale", "N from 1 to 1000000, "
					    "TRACE and OUT");
	if ((rc = ttload_open(&t, argv[1])))
		return rc;
	out = fopen(argv[2], "wb");
	if (!out) {
		perror(argv[2]);
		ttload_free(&t);
		return 1;
	}
	rc = scale_write(&t, n, out);
	ttload_free(&t);
	if (fclose(out) || rc < 0) {
		fprintf(stderr, "ttdecode: %s: write failed\n", argv[2]);
		return 1;
	}
	return 0;
}

static const struct ttdecode_command cmd_scale = {
	"scale", 3, ttdecode_scale, "scale N TRACE OUT" };
TTDECODE_COMMAND(cmd_scale);
