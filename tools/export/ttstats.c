/*
 * ttstats.c: `ttdecode stats [--from NS] [--to NS] TRACE`, a summary of a
 * trace from its model (ttmodel.h):
 *
 *	per CPU: events, declared losses (those before the trace's first
 *	record apart), time span;
 *	syscalls, the 20 most frequent: completed calls with their count,
 *	total, mean, p99 and max latency (enter to exit, across the context
 *	switches of a blocking syscall; count x mean = total), and apart the
 *	unfinished ones (cut by a loss or the trace's end) with their time
 *	up to the cut;
 *	per process: CPU time (its runs between context switches) and
 *	syscalls;
 *	per interrupt and exception vector: count and time;
 *	what could not be paired (clipped and unfinished spans, exits
 *	without enter).
 *
 * Keys (syscall numbers, pids, vectors) are found through one small
 * open-addressing map each; latencies are kept per syscall and sorted once
 * for the percentile, so the cost is O(n log n) in the syscalls.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttdecode.h"
#include "ttfilter.h"
#include "ttmodel.h"

#define TOP_SYSCALLS	20

/* One syscall number, process or vector. */
struct stat_rec {
	uint64_t key;
	uint64_t count;
	uint64_t time;			/* ticks */
	uint64_t syscalls;		/* processes */
	uint64_t *lat;			/* syscalls: latencies in ns of the
					   completed calls (ttmodel_span_ns) */
	uint64_t unfinished;		/* syscalls cut by a loss or the end */
	uint64_t unfinished_ns;
	uint64_t nlat, cap;
	uint64_t last_ts;		/* for the name */
	uint32_t kind;			/* vectors: TTMODEL_IRQ or _EXCEPTION */
};

/* A map from key to record: open addressing over recs' indices + 1. */
struct stat_map {
	struct stat_rec *recs;
	uint64_t n, cap;
	uint32_t *slots;
	uint32_t bits;
};

struct stats {
	const struct ttload *t;
	const struct ttfilter *f;
	struct stat_map sys, procs, vecs;
	bool oom;
};

/* The record of key in m, made if absent; NULL if out of memory. */
static struct stat_rec *map_get(struct stat_map *m, uint64_t key)
{
	uint32_t mask;

	if (2 * (m->n + 1) > (1ULL << m->bits)) {
		uint32_t bits = m->bits ? m->bits + 1 : 6;
		uint32_t *slots = calloc(1u << bits, sizeof(*slots));
		struct stat_rec *recs = realloc(m->recs, (1ULL << (bits - 1)) *
						sizeof(*recs));

		if (!slots || !recs) {
			free(slots);
			if (recs)
				m->recs = recs;
			return NULL;
		}
		m->recs = recs;
		free(m->slots);
		m->slots = slots;
		m->bits = bits;
		for (uint64_t i = 0; i < m->n; i++) {
			uint32_t s = hash_word(m->recs[i].key, bits);

			while (slots[s])
				s = (s + 1) & ((1u << bits) - 1);
			slots[s] = (uint32_t)i + 1;
		}
	}
	mask = (1u << m->bits) - 1;
	for (uint32_t s = hash_word(key, m->bits);; s = (s + 1) & mask) {
		if (!m->slots[s]) {
			m->recs[m->n] = (struct stat_rec){ .key = key };
			m->slots[s] = (uint32_t)++m->n;
			return &m->recs[m->n - 1];
		}
		if (m->recs[m->slots[s] - 1].key == key)
			return &m->recs[m->slots[s] - 1];
	}
}

static void map_free(struct stat_map *m)
{
	for (uint64_t i = 0; i < m->n; i++)
		free(m->recs[i].lat);
	free(m->recs);
	free(m->slots);
}

static int add_latency(struct stat_rec *r, uint64_t ticks)
{
	if (r->nlat == r->cap) {
		uint64_t cap = r->cap ? 2 * r->cap : 16;
		uint64_t *p = realloc(r->lat, cap * sizeof(*p));

		if (!p)
			return -1;
		r->lat = p;
		r->cap = cap;
	}
	r->lat[r->nlat++] = ticks;
	return 0;
}

/* ---- collecting ---------------------------------------------------------- */

/* A syscall: completed calls keep their latency (for the percentiles),
 * unfinished ones only add up. Counted when it entered inside the
 * window. */
static void add_syscall(struct stats *st, const struct ttmodel_span *s)
{
	struct stat_rec *r = map_get(&st->sys, s->ident), *p = NULL;

	if (!r || (s->pid && !(p = map_get(&st->procs, s->pid)))) {
		st->oom = true;
		return;
	}
	r->last_ts = s->start;
	r->count++;
	if (p) {
		p->syscalls++;
		p->last_ts = s->start;
	}
	if (s->how != TTMODEL_DONE) {
		r->unfinished++;
		r->unfinished_ns += ttmodel_span_ns(st->t, s->start, s->end);
	} else if (add_latency(r, ttmodel_span_ns(st->t, s->start, s->end)) <
		   0) {
		st->oom = true;
	}
}

/* Adds span s (its part inside the window) to its table. */
static void add_span(struct stats *st, const struct ttmodel_span *s)
{
	uint64_t start = MAX(s->start, st->f->from_ts);
	uint64_t end = MIN(s->end, st->f->to_ts);
	struct stat_rec *r;

	if (start > end)
		return;
	switch (s->kind) {
	case TTMODEL_RUN:
		if (!(r = map_get(&st->procs, s->ident)))
			break;
		r->time += end - start;
		r->last_ts = s->start;
		return;
	case TTMODEL_SYSCALL:
		if (ttfilter_time(st->f, s->start))
			add_syscall(st, s);
		return;
	case TTMODEL_IRQ:
	case TTMODEL_EXCEPTION:
		if (!(r = map_get(&st->vecs, s->ident | (uint64_t)s->kind << 32)))
			break;
		r->count++;
		r->time += end - start;
		r->kind = s->kind;
		r->last_ts = s->start;
		return;
	default:
		return;
	}
	st->oom = true;
}

static void collect(struct stats *st, const struct ttmodel *m)
{
	for (uint32_t i = 0; i < m->ntracks; i++)
		for (uint64_t k = 0; k < m->tracks[i].nspans; k++)
			add_span(st, &m->tracks[i].spans[k]);
}

/* ---- printing ------------------------------------------------------------ */

static double us(const struct ttload *t, uint64_t ticks)
{
	return t->version.tsc_hz ? (double)ttrace_ticks_to_ns(ticks,
				   t->version.tsc_hz) / 1000.0 : (double)ticks;
}

/* The name of (tag, key) at ts as a printable string in buf. */
static const char *name(const struct ttload *t, unsigned tag, uint64_t key,
			uint64_t ts, char *buf, size_t n)
{
	const char *s;
	size_t len = ttload_resolve((void *)t, tag, key, ts, &s);

	if (!len) {
		snprintf(buf, n, "#%llu", ull(key));
		return buf;
	}
	len = MIN(len, n - 1);
	for (size_t i = 0; i < len; i++)
		buf[i] = s[i] >= 0x20 && s[i] <= 0x7e ? s[i] : '?';
	buf[len] = 0;
	return buf;
}

/* Per CPU: events in the window, declared losses (the records
 * overwritten before the trace's first one among them, apart), span. */
static void print_cpus(const struct stats *st, const struct ttmodel *m)
{
	const struct ttload *t = st->t;

	printf("%-6s %10s %10s %10s %14s\n", "cpu", "events", "lost",
	       "before", "span_us");
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		const struct ttload_cpu *cpu = &t->cpus[c];
		uint64_t lost = 0, before = 0, span = 0, events = 0;
		struct ttrace_pair_iter it;
		struct ttrace_event_view ev;

		for (uint64_t i = 0; i < m->cpus[c].nlosses; i++) {
			lost += m->cpus[c].losses[i].count;
			if (m->cpus[c].losses[i].before_trace)
				before += m->cpus[c].losses[i].count;
		}
		ttrace_pair_init(&it, cpu->sorted, cpu->nsorted, &t->meta);
		while (ttrace_pair_next(&it, &ev))
			events += ttfilter_time(st->f, ev.timestamp);
		if (cpu->nsorted)
			span = cpu->sorted[cpu->nsorted - 1].timestamp -
			       cpu->sorted[0].timestamp;
		printf("cpu%-3u %10llu %10llu %10llu %14.3f\n", c, ull(events),
		       ull(lost), ull(before), us(t, span));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_count(const void *a, const void *b)
{
	const struct stat_rec *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Completed calls (count x mean = total) and, apart, the calls a loss
 * or the end of the trace cut (their time up to the cut). */
static void print_syscalls(struct stats *st)
{
	struct stat_map *m = &st->sys;
	char buf[64];

	if (m->n)	/* qsort's base may not be NULL, even for 0 */
		qsort(m->recs, m->n, sizeof(*m->recs), by_count);
	printf("\nsyscalls (top %d by count; completed calls: latency enter to "
	       "exit, us; unfinished: cut by a loss or the trace's end)\n"
	       "%-16s %8s %12s %10s %10s %10s %10s %12s\n", TOP_SYSCALLS,
	       "syscall", "count", "total", "mean", "p99", "max", "unfinished",
	       "unfin_total");
	for (uint64_t i = 0; i < m->n && i < TOP_SYSCALLS; i++) {
		struct stat_rec *r = &m->recs[i];
		uint64_t total = 0;

		if (r->nlat)
			qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
		for (uint64_t k = 0; k < r->nlat; k++)
			total += r->lat[k];
		printf("%-16s %8llu %12.3f %10.3f %10.3f %10.3f %10llu %12.3f\n",
		       name(st->t, TTRACE_AUX_SYSCALL_NAME, r->key, r->last_ts,
			    buf, sizeof(buf)), ull(r->nlat), total / 1e3,
		       r->nlat ? total / 1e3 / (double)r->nlat : 0.0,
		       r->nlat ? r->lat[(r->nlat * 99 + 99) / 100 - 1] / 1e3 :
		       0.0, r->nlat ? r->lat[r->nlat - 1] / 1e3 : 0.0,
		       ull(r->unfinished), r->unfinished_ns / 1e3);
	}
}

static void print_procs(struct stats *st)
{
	char buf[64];

	printf("\nprocesses\n%-8s %-16s %14s %10s\n", "pid", "name", "cpu_us",
	       "syscalls");
	for (uint64_t i = 0; i < st->procs.n; i++) {
		const struct stat_rec *r = &st->procs.recs[i];

		printf("%-8llu %-16s %14.3f %10llu\n", ull(r->key),
		       name(st->t, TTRACE_AUX_PROC_NAME, r->key, r->last_ts, buf,
			    sizeof(buf)), us(st->t, r->time), ull(r->syscalls));
	}
}

static void print_vectors(struct stats *st)
{
	char buf[64];

	printf("\ninterrupts and exceptions\n%-10s %6s %-16s %8s %12s\n",
	       "kind", "vector", "name", "count", "time_us");
	for (uint64_t i = 0; i < st->vecs.n; i++) {
		const struct stat_rec *r = &st->vecs.recs[i];
		uint32_t vec = (uint32_t)r->key;

		printf("%-10s %6u %-16s %8llu %12.3f\n",
		       ttmodel_kinds[r->kind].name, vec,
		       name(st->t, ttmodel_kinds[r->kind].tag, vec, r->last_ts,
			    buf, sizeof(buf)),
		       ull(r->count), us(st->t, r->time));
	}
}

/* ---- the command --------------------------------------------------------- */

static int stats_run(struct stats *st)
{
	struct ttmodel m;

	if (ttmodel_build(&m, st->t) < 0)
		return -1;
	collect(st, &m);
	print_cpus(st, &m);
	print_syscalls(st);
	print_procs(st);
	print_vectors(st);
	printf("\npairing: %llu spans clipped (an enclosing one ended first), "
	       "%llu unfinished (cut by a loss or the end), %llu exits without "
	       "enter dropped, %llu enters too deep\n", ull(m.counts.clipped),
	       ull(m.counts.unfinished), ull(m.counts.unmatched_exits),
	       ull(m.counts.too_deep));
	ttmodel_free(&m);
	return st->oom ? -1 : 0;
}

static int ttdecode_stats(int argc, char **argv)
{
	struct stats st = { 0 };
	struct ttfilter f;
	struct ttload t;
	int rc;

	if ((rc = ttdecode_open("stats", &argc, argv, TTFILTER_WINDOW, 1,
				"one TRACE operand", &f, &t)))
		return rc;
	st.t = &t;
	st.f = &f;
	rc = stats_run(&st);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	map_free(&st.sys);
	map_free(&st.procs);
	map_free(&st.vecs);
	ttdecode_close(&f, &t);
	return rc < 0 ? 1 : ttdecode_finish_output(stdout, "stdout");
}

static const struct ttdecode_command cmd_stats = {
	"stats", 1, ttdecode_stats, "stats [--from NS] [--to NS] TRACE" };
TTDECODE_COMMAND(cmd_stats);
