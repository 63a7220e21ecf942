/*
 * ttstats.c: `ttdecode stats [--from NS] [--to NS] TRACE`, a summary of a
 * trace from the slices of ttspan.h:
 *
 *	per CPU: events, declared losses, time span;
 *	syscalls, the 20 most frequent: count, total, mean, p99 and max
 *	latency (enter to exit, across the context switches of a blocking
 *	syscall);
 *	per process: CPU time (its runs between context switches) and
 *	syscalls;
 *	per interrupt and exception vector: count and time;
 *	what could not be paired (clipped slices, exits without enter).
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
#include "ttmerge.h"
#include "ttspan.h"

#define TOP_SYSCALLS	20

/* One syscall number, process or vector. */
struct stat_rec {
	uint64_t key;
	uint64_t count;
	uint64_t time;			/* ticks */
	uint64_t syscalls;		/* processes */
	uint64_t *lat;			/* syscalls: latencies in ticks */
	uint64_t nlat, cap;
	uint64_t last_ts;		/* for the name */
	uint32_t kind;			/* vectors: TTSPAN_IRQ or _EXCEPTION */
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
	uint64_t *cpu_events;
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

static void on_slice(void *arg, const struct ttspan_slice *s)
{
	struct stats *st = arg;
	uint64_t start = MAX(s->start, st->f->from_ts);
	uint64_t end = MIN(s->end, st->f->to_ts);
	struct stat_rec *r = NULL, *p = NULL;

	if (start > end)
		return;
	switch (s->kind) {
	case TTSPAN_RUN:
		if ((r = map_get(&st->procs, s->ident))) {
			r->time += end - start;
			r->last_ts = s->start;
		}
		break;
	case TTSPAN_SYSCALL:
		if (!(r = map_get(&st->sys, s->ident)) ||
		    (s->pid && !(p = map_get(&st->procs, s->pid)))) {
			r = NULL;
			break;
		}
		r->last_ts = s->start;
		if (!(s->flags & TTSPAN_RESUMED)) {
			r->count++;
			if (s->pid) {
				p->syscalls++;
				p->last_ts = s->start;
			}
		}
		if ((s->flags & TTSPAN_DONE) &&
		    add_latency(r, s->end - s->entered) < 0)
			st->oom = true;
		break;
	case TTSPAN_IRQ:
	case TTSPAN_EXCEPTION:
		if ((r = map_get(&st->vecs, s->ident | (uint64_t)s->kind << 32))) {
			r->count++;
			r->time += end - start;
			r->kind = s->kind;
			r->last_ts = s->start;
		}
		break;
	default:
		return;
	}
	if (!r)
		st->oom = true;
}

static void on_point(void *arg, uint32_t cpu, const struct ttrace_event_view *ev)
{
	(void)arg, (void)cpu, (void)ev;
}

static void on_loss(void *arg, uint32_t cpu, uint64_t ts,
		    const struct ttload_loss *l)
{
	(void)arg, (void)cpu, (void)ts, (void)l;
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

static void print_cpus(const struct stats *st)
{
	const struct ttload *t = st->t;

	printf("%-6s %10s %10s %14s\n", "cpu", "events", "lost", "span_us");
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		const struct ttload_cpu *cpu = &t->cpus[c];
		uint64_t lost = 0, span = 0;

		for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
			lost += cpu->lost[r];
		if (cpu->nsorted)
			span = cpu->sorted[cpu->nsorted - 1].timestamp -
			       cpu->sorted[0].timestamp;
		printf("cpu%-3u %10llu %10llu %14.3f\n", c,
		       ull(st->cpu_events[c]), ull(lost), us(t, span));
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

static void print_syscalls(struct stats *st)
{
	struct stat_map *m = &st->sys;
	char buf[64];

	if (m->n)	/* qsort's base may not be NULL, even for 0 */
		qsort(m->recs, m->n, sizeof(*m->recs), by_count);
	printf("\nsyscalls (top %d by count; latency enter to exit, us)\n"
	       "%-16s %8s %12s %10s %10s %10s\n", TOP_SYSCALLS, "syscall",
	       "count", "total", "mean", "p99", "max");
	for (uint64_t i = 0; i < m->n && i < TOP_SYSCALLS; i++) {
		struct stat_rec *r = &m->recs[i];
		uint64_t total = 0;

		if (r->nlat)
			qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
		for (uint64_t k = 0; k < r->nlat; k++)
			total += r->lat[k];
		printf("%-16s %8llu %12.3f %10.3f %10.3f %10.3f\n",
		       name(st->t, TTRACE_AUX_SYSCALL_NAME, r->key, r->last_ts,
			    buf, sizeof(buf)), ull(r->count), us(st->t, total),
		       r->nlat ? us(st->t, total) / (double)r->nlat : 0.0,
		       r->nlat ? us(st->t, r->lat[(r->nlat * 99 + 99) / 100 - 1]) :
		       0.0, r->nlat ? us(st->t, r->lat[r->nlat - 1]) : 0.0);
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

		printf("%-10s %6u %-16s %8llu %12.3f\n", r->kind == TTSPAN_IRQ ?
		       "irq" : "exception", vec, name(st->t, TTRACE_AUX_IRQ_NAME,
		       vec, r->last_ts, buf, sizeof(buf)), ull(r->count),
		       us(st->t, r->time));
	}
}

/* ---- the command --------------------------------------------------------- */

static int stats_run(struct stats *st)
{
	struct ttspan_out out = { on_slice, on_point, on_loss, st };
	struct ttmerge m;
	struct ttmerge_item it;
	struct ttspan sp;

	if (ttmerge_init(&m, st->t) < 0)
		return -1;
	if (ttspan_init(&sp, st->t, &out) < 0) {
		ttmerge_free(&m);
		return -1;
	}
	ttmerge_progress(&m, ttmerge_progress_wanted(st->t));
	while (ttmerge_next(&m, &it)) {
		if (it.loss) {
			ttspan_loss(&sp, it.cpu, it.loss);
			continue;
		}
		st->cpu_events[it.cpu] += ttfilter_time(st->f, it.ev->timestamp);
		ttspan_event(&sp, it.cpu, it.ev, it.entry);
	}
	ttspan_finish(&sp);
	print_cpus(st);
	print_syscalls(st);
	print_procs(st);
	print_vectors(st);
	printf("\npairing: %llu slices clipped (an end lost or cut), %llu "
	       "exits without enter dropped, %llu enters too deep\n",
	       ull(sp.counts.clipped), ull(sp.counts.unmatched_exits),
	       ull(sp.counts.too_deep));
	ttspan_free(&sp);
	ttmerge_free(&m);
	return st->oom ? -1 : 0;
}

int ttdecode_stats(int argc, char **argv)
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
	st.cpu_events = calloc(t.version.num_cpus, sizeof(*st.cpu_events));
	rc = st.cpu_events ? stats_run(&st) : -1;
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	map_free(&st.sys);
	map_free(&st.procs);
	map_free(&st.vecs);
	free(st.cpu_events);
	ttdecode_close(&f, &t);
	return rc < 0 ? 1 : ttdecode_finish_output(stdout, "stdout");
}
