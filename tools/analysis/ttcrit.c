/*
 * ttcrit.c: the critical path and the wakeup latencies over the
 * scheduling model (ttcrit.h). The walk is iterative: a stack of frames,
 * each a thread's path back from t down to lo; following a waker pushes
 * its frame, whose WAIT entry is written when it is done. Entries are
 * written latest first and reversed at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "ttcrit.h"

/* A thread's path still to walk: [lo, t) of pid; wait: the sleep of the
 * frame below that this one stands for (kind TTCRIT_WAIT), if any. */
struct frame {
	uint32_t pid;
	uint32_t depth;
	int64_t lo, t;
	bool has_wait;
	struct ttcrit_entry wait;
};

struct walk {
	const struct ttsched *s;
	struct ttcrit_path *p;
	struct frame *f;
	uint64_t n, cap;
};

static void put(struct ttcrit_path *p, struct ttcrit_entry e)
{
	if (ttsched_grow(&p->e, p->n, &p->cap, sizeof(*p->e)) < 0) {
		p->oom = true;
		return;
	}
	p->e[p->n++] = e;
}

/* Whether iv is th's present state when the trace ends (not ended by
 * anything: its end is the trace's). */
static bool is_last(const struct ttsched_thread *th,
		    const struct ttsched_iv *iv)
{
	return iv == &th->iv[th->n - 1];
}

/* The piece [a, t) of iv, th's state, at depth. */
static struct ttcrit_entry piece(const struct ttsched_thread *th,
				 const struct ttsched_iv *iv, uint32_t depth,
				 int64_t a, int64_t t)
{
	return (struct ttcrit_entry){ .start = a, .end = t, .depth = depth,
		.kind = TTCRIT_PIECE, .pid = th->pid, .state = iv->state,
		.cpu = iv->cpu, .behind = TTCRIT_NO_PID, .sys = iv->sys,
		.caller = iv->caller, .chan = iv->chan, .waker = iv->waker,
		.woken = is_last(th, iv) ? INT64_MAX : iv->end };
}

/* [a, t) of runnable iv, one piece per run of its CPU (latest first). */
static void runnable(struct walk *w, const struct ttsched_thread *th,
		     const struct ttsched_iv *iv, const struct frame *f,
		     int64_t a)
{
	int64_t t = f->t;
	int64_t k = iv->cpu < w->s->ncpus ?
		    ttsched_run_at(w->s, iv->cpu, t) : -1;

	while (t > a) {
		struct ttcrit_entry e = piece(th, iv, f->depth, a, t);

		if (k >= 0) {
			const struct ttsched_run *r = &w->s->cpus[iv->cpu].runs[k--];

			e.behind = r->pid;
			if (r->start > a)
				e.start = r->start;
		}
		put(w->p, e);
		t = e.start;
	}
}

/* Whether the sleep iv (ending at the frame's t) is to be walked through
 * its waker: a thread that ran, or waited for a CPU, just before. */
static bool follow(const struct walk *w, const struct ttsched_thread *th,
		   const struct ttsched_iv *iv, const struct frame *f)
{
	const struct ttsched_thread *waker;
	const struct ttsched_iv *at;

	if (iv->end != f->t || is_last(th, iv) ||
	    iv->waker.kind != TTSCHED_WAKER_THREAD || iv->waker.id == f->pid)
		return false;
	waker = ttsched_thread(w->s, iv->waker.id);
	at = waker ? ttsched_at(waker, f->t) : NULL;
	return at && (at->state == TTSCHED_RUNNING ||
		      at->state == TTSCHED_RUNNABLE);
}

static int push(struct walk *w, struct frame f)
{
	if (ttsched_grow(&w->f, w->n, &w->cap, sizeof(*w->f)) < 0)
		return -1;
	w->f[w->n++] = f;
	return 0;
}

/* One step of the top frame: a piece (or pieces) back from its t, or a
 * waker's frame pushed. Returns 0 or -1 (out of memory). */
static int step(struct walk *w)
{
	struct frame *f = &w->f[w->n - 1];
	const struct ttsched_thread *th = ttsched_thread(w->s, f->pid);
	const struct ttsched_iv *iv = th ? ttsched_at(th, f->t) : NULL;
	int64_t a;

	if (!iv) {
		put(w->p, (struct ttcrit_entry){ .start = f->lo, .end = f->t,
		    .kind = TTCRIT_PIECE, .depth = f->depth, .pid = f->pid,
		    .state = TTCRIT_UNTRACED, .cpu = TTSCHED_NO_CPU,
		    .behind = TTCRIT_NO_PID });
		f->t = f->lo;
		return 0;
	}
	a = iv->start > f->lo ? iv->start : f->lo;
	if (iv->state == TTSCHED_RUNNABLE) {
		runnable(w, th, iv, f, a);
	} else if ((iv->state == TTSCHED_BLOCKED ||
		    iv->state == TTSCHED_NEW) && follow(w, th, iv, f)) {
		struct frame next = { .pid = iv->waker.id, .lo = a, .t = f->t,
				      .depth = f->depth + 1, .has_wait = true,
				      .wait = piece(th, iv, f->depth, a,
						    f->t) };

		next.wait.kind = TTCRIT_WAIT;
		f->t = a;
		return push(w, next);
	} else {
		put(w->p, piece(th, iv, f->depth, a, f->t));
	}
	f->t = a;
	return 0;
}

/* Reverses p's entries: the walk wrote them latest first. */
static void reverse(struct ttcrit_path *p)
{
	for (uint64_t i = 0, j = p->n; i + 1 < j--; i++) {
		struct ttcrit_entry e = p->e[i];

		p->e[i] = p->e[j];
		p->e[j] = e;
	}
}

/*
 * The critical path of pid over [from, to) into p (ttcrit.h): its
 * pieces tile the window. Returns 0, or -1 when out of memory (p is then
 * freed).
 */
int ttcrit_path(struct ttcrit_path *p, const struct ttsched *s, uint32_t pid,
		int64_t from, int64_t to)
{
	struct walk w = { .s = s, .p = p };
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (to > from)
		rc = push(&w, (struct frame){ .pid = pid, .lo = from,
					      .t = to });
	while (!rc && w.n && !p->oom) {
		struct frame *f = &w.f[w.n - 1];

		if (f->t > f->lo) {
			rc = step(&w);
			continue;
		}
		if (f->has_wait)
			put(p, f->wait);
		w.n--;
	}
	free(w.f);
	if (rc || p->oom) {
		ttcrit_path_free(p);
		return -1;
	}
	reverse(p);
	return 0;
}

void ttcrit_path_free(struct ttcrit_path *p)
{
	free(p->e);
	memset(p, 0, sizeof(*p));
}

/* ---- wakeup latencies ---------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank q-th percentile of the n sorted values v. */
static int64_t percentile(const int64_t *v, uint64_t n, unsigned q)
{
	uint64_t rank = (n * q + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

/*
 * th's delays from runnable to running (each RUNNABLE state that a run
 * ended and that began in [from, to)) into l, and its running time
 * there. Returns 0, or -1 when out of memory.
 */
int ttcrit_latency(const struct ttsched *s, const struct ttsched_thread *th,
		   int64_t from, int64_t to, struct ttcrit_latency *l)
{
	int64_t *d = malloc((th->n ? th->n : 1) * sizeof(*d));

	(void)s;
	if (!d)
		return -1;
	memset(l, 0, sizeof(*l));
	l->pid = th->pid;
	for (uint64_t i = 0; i < th->n; i++) {
		const struct ttsched_iv *iv = &th->iv[i];
		int64_t a = iv->start > from ? iv->start : from;
		int64_t b = iv->end < to ? iv->end : to;

		if (iv->state == TTSCHED_RUNNING && b > a)
			l->running += b - a;
		if (iv->state != TTSCHED_RUNNABLE || i + 1 == th->n ||
		    th->iv[i + 1].state != TTSCHED_RUNNING ||
		    iv->start < from || iv->start >= to)
			continue;
		d[l->count++] = iv->end - iv->start;
		if (iv->end - iv->start > l->max) {
			l->max = iv->end - iv->start;
			l->max_at = iv->start;
		}
	}
	if (l->count) {
		qsort(d, l->count, sizeof(*d), cmp_i64);
		l->p50 = percentile(d, l->count, 50);
		l->p99 = percentile(d, l->count, 99);
	}
	free(d);
	return 0;
}
