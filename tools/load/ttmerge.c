/*
 * ttmerge.c: the time-ordered merge of a loaded trace's CPUs (see
 * ttmerge.h). The heap holds the CPUs that have an item left, ordered by
 * the timestamp of that item and then by cpu number, so equal timestamps
 * come out in cpu order and a run is reproducible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ttmerge.h"

#define PROGRESS_MIN_SIZE	(64ULL << 20)	/* files smaller: no progress */
#define PROGRESS_STEP		65536		/* events between checks */

enum { PENDING_NONE, PENDING_EVENT, PENDING_LOSS };

/* Whether stream s's next item is a loss (else an event); it has one. */
static bool next_is_loss(const struct ttmerge_stream *s)
{
	return s->nextloss < s->nlosses &&
	       (!s->have || s->losses[s->nextloss].ts <= s->ev.timestamp);
}

static bool has_item(const struct ttmerge_stream *s)
{
	return s->have || s->nextloss < s->nlosses;
}

/* Moves stream s to its next event that m merges (m->only), decoded in
 * s->ev; returns whether it has one. The others, and the continuations
 * that follow them, are stepped over by their first word and type word. */
static bool stream_next(const struct ttmerge *m, struct ttmerge_stream *s)
{
	struct ttrace_pair_iter *it = &s->it;

	while (m->only && it->pos < it->n) {
		const struct ttrace_entry *e = &it->v[it->pos];
		uint32_t id = TTRACE_TYPE_ID(e->type);

		if (ttrace_ts_valid(e->timestamp) &&
		    !ttrace_ts_is_cont(e->timestamp) &&
		    (m->only->bits[id / 64] >> (id % 64) & 1))
			break;
		it->pos++;
	}
	return ttrace_pair_next(it, &s->ev);
}

/* Stream c in a heap slot, keyed by the timestamp of its next item (it
 * must have one), so that the heap's comparisons read only the heap. */
static struct ttmerge_slot slot_of(const struct ttmerge *m, uint32_t c)
{
	const struct ttmerge_stream *s = &m->s[c];

	if (next_is_loss(s))
		return (struct ttmerge_slot){ s->losses[s->nextloss].ts, c };
	return (struct ttmerge_slot){ s->ev.timestamp, c };
}

static bool before(const struct ttmerge_slot *a, const struct ttmerge_slot *b)
{
	return a->key < b->key || (a->key == b->key && a->cpu < b->cpu);
}

/* Restores the heap order below position i. */
static void sift_down(struct ttmerge *m, uint32_t i)
{
	struct ttmerge_slot *h = m->heap;
	uint32_t n = m->nheap;

	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, best = i;

		if (l < n && before(&h[l], &h[best]))
			best = l;
		if (r < n && before(&h[r], &h[best]))
			best = r;
		if (best == i)
			return;
		struct ttmerge_slot tmp = h[i];

		h[i] = h[best];
		h[best] = tmp;
		i = best;
	}
}

/*
 * Sets m up to merge every CPU of t (which must outlive m). Returns 0, or
 * -1 if out of memory (m is then empty).
 */
int ttmerge_init(struct ttmerge *m, const struct ttload *t)
{
	return ttmerge_init_only(m, t, NULL);
}

/* As ttmerge_init(), merging only the events whose ids only holds (and
 * every loss); only (NULL: all) must outlive m. */
int ttmerge_init_only(struct ttmerge *m, const struct ttload *t,
		      const struct ttmerge_ids *only)
{
	uint32_t n = t->version.num_cpus;

	m->t = t;
	m->only = only;
	m->s = calloc(n, sizeof(*m->s));
	m->heap = calloc(n, sizeof(*m->heap));
	m->nheap = 0;
	m->top_pending = PENDING_NONE;
	m->done = 0;
	m->next_report = UINT64_MAX;
	m->percent = -1;
	if (!m->s || !m->heap) {
		ttmerge_free(m);
		return -1;
	}
	for (uint32_t c = 0; c < n; c++) {
		ttrace_pair_init(&m->s[c].it, t->cpus[c].sorted,
				 t->cpus[c].nsorted, &t->meta);
		m->s[c].losses = t->cpus[c].losses;
		m->s[c].nlosses = t->cpus[c].nlosses;
		m->s[c].have = stream_next(m, &m->s[c]);
		if (has_item(&m->s[c]))
			m->heap[m->nheap++] = slot_of(m, c);
	}
	for (uint32_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

/* Moves the top stream past the item returned last, re-placing it: a
 * stream whose next item still comes first (a CPU's burst) stays on top
 * without a sift. */
static void advance_top(struct ttmerge *m)
{
	struct ttmerge_slot *h = m->heap;
	uint32_t c = h[0].cpu;
	struct ttmerge_stream *s = &m->s[c];

	if (m->top_pending == PENDING_LOSS)
		s->nextloss++;
	else
		s->have = stream_next(m, s);
	m->top_pending = PENDING_NONE;
	if (!has_item(s)) {
		h[0] = h[--m->nheap];
		sift_down(m, 0);
		return;
	}
	h[0] = slot_of(m, c);
	if ((m->nheap > 1 && before(&h[1], &h[0])) ||
	    (m->nheap > 2 && before(&h[2], &h[0])))
		sift_down(m, 0);
}

/* Writes the percentage of events done when it changed. */
static void report_progress(struct ttmerge *m, bool end)
{
	int pct;

	if (m->percent < 0) {
		m->next_report = UINT64_MAX;
		return;
	}
	m->next_report = m->done + PROGRESS_STEP;
	pct = m->t->nevents ? (int)(m->done * 100 / m->t->nevents) : 100;
	if (end)
		fprintf(stderr, "\r%*s\r", 16, "");
	else if (pct != m->percent)
		fprintf(stderr, "\rttdecode: %3d%%", pct);
	m->percent = pct;
}

/*
 * The next item in time order in *item (its ev valid until the next
 * call), or false when every CPU is done.
 */
bool ttmerge_next(struct ttmerge *m, struct ttmerge_item *item)
{
	uint32_t c;

	if (m->top_pending != PENDING_NONE)
		advance_top(m);
	if (!m->nheap) {
		report_progress(m, true);
		m->percent = -1;
		return false;
	}
	c = m->heap[0].cpu;
	item->cpu = c;
	if (next_is_loss(&m->s[c])) {
		item->loss = &m->s[c].losses[m->s[c].nextloss];
		item->ev = NULL;
		item->entry = NULL;
		m->top_pending = PENDING_LOSS;
	} else {
		item->loss = NULL;
		item->ev = &m->s[c].ev;
		/* the pair iterator stands right after the first entry */
		item->entry = &m->s[c].it.v[m->s[c].it.pos - 1];
		m->top_pending = PENDING_EVENT;
		if (++m->done >= m->next_report)
			report_progress(m, false);
	}
	return true;
}

void ttmerge_free(struct ttmerge *m)
{
	free(m->s);
	free(m->heap);
	m->s = NULL;
	m->heap = NULL;
	m->nheap = 0;
}

/* Whether a merge of t should show progress: a big file, and standard
 * error a terminal. */
bool ttmerge_progress_wanted(const struct ttload *t)
{
	return t->size > PROGRESS_MIN_SIZE && isatty(STDERR_FILENO);
}

/* Turns the percentage on standard error on or off. */
void ttmerge_progress(struct ttmerge *m, bool on)
{
	m->percent = on ? 0 : -1;
	m->next_report = on ? m->done : UINT64_MAX;
}
