/*
 * Host tests for tools/analysis/ (docs/analysis.md): the critical path,
 * the wakeup latencies and the errno origins on hand-built scheduling
 * models and graph returns, whose right answers are known by
 * construction; and the tiling itself (pieces that add up to the window
 * to the nanosecond, WAITs tiled by what they announce) on random
 * stories.
 */
#include "htest.h"

#include "ttcrit.h"
#include "tterrno.h"

enum { A = 1, B = 2, C = 3, X = 4, IDLE0 = 100, IDLE1 = 101 };

#define THREAD(pid)	((struct ttsched_waker){ TTSCHED_WAKER_THREAD, pid })
#define IRQ(v)		((struct ttsched_waker){ TTSCHED_WAKER_IRQ, v })

/* A piece expected: [start, end) of pid in state, depth (behind: the
 * thread on the CPU for a runnable piece, else 0). */
struct want {
	int64_t start, end;
	uint32_t pid, state, depth, behind;
};

/* Checks p's pieces (WAITs skipped) against the n wanted, in order. */
static int check_pieces(const struct ttcrit_path *p, const struct want *w,
			unsigned n)
{
	unsigned k = 0;

	for (uint64_t i = 0; i < p->n; i++) {
		const struct ttcrit_entry *e = &p->e[i];

		if (e->kind != TTCRIT_PIECE)
			continue;
		if (k == n)
			HT_FAIL("piece %u [%lld, %lld) pid %u beyond the %u "
				"wanted", k, (long long)e->start,
				(long long)e->end, e->pid, n);
		if (e->start != w[k].start || e->end != w[k].end ||
		    e->pid != w[k].pid || e->state != w[k].state ||
		    e->depth != w[k].depth ||
		    (w[k].behind && e->behind != w[k].behind))
			HT_FAIL("piece %u: [%lld, %lld) pid %u %s depth %u "
				"behind %u, want [%lld, %lld) pid %u %s depth "
				"%u behind %u", k, (long long)e->start,
				(long long)e->end, e->pid,
				ttsched_state_name(e->state), e->depth,
				e->behind, (long long)w[k].start,
				(long long)w[k].end, w[k].pid,
				ttsched_state_name(w[k].state), w[k].depth,
				w[k].behind);
		k++;
	}
	if (k != n)
		HT_FAIL("%u pieces, want %u", k, n);
	return 0;
}

/*
 * A waits on a pipe for B, B for C; C computes, preempted once by X:
 *	cpu0: A [0, 100) (read from 50), idle, A again from 545
 *	cpu1: B [0, 120), C [120, 300), X [300, 350), C [350, 510),
 *	      B [510, ...)
 * C wakes B at 500, B wakes A at 540.
 */
static void chain_story(struct ttsched *s)
{
	ttsched_init(s, 2, 0);
	ttsched_syscall(s, 50, 0, A, 1 + 63);
	ttsched_blocked(s, A, 0xffff1000, 0xabc);	/* before the switch */
	ttsched_switch(s, 100, 0, A, TTSCHED_BLOCKED, IDLE0);
	ttsched_switch(s, 120, 1, B, TTSCHED_BLOCKED, C);
	ttsched_switch(s, 300, 1, C, TTSCHED_RUNNABLE, X);
	ttsched_switch(s, 350, 1, X, TTSCHED_BLOCKED, C);
	ttsched_wake(s, 500, B, 1, THREAD(C));
	ttsched_switch(s, 510, 1, C, TTSCHED_BLOCKED, B);
	ttsched_blocked(s, C, 0xffff2000, 0xdef);	/* after it */
	ttsched_wake(s, 540, A, 0, THREAD(B));
	ttsched_switch(s, 545, 0, IDLE0, TTSCHED_RUNNABLE, A);
	ttsched_finish(s, 600);
}

static int test_chain(void)
{
	static const struct want w[] = {
		{ 0, 50, A, TTSCHED_RUNNING, 0, 0 },
		{ 50, 100, A, TTSCHED_RUNNING, 0, 0 },
		{ 100, 120, B, TTSCHED_RUNNING, 1, 0 },
		{ 120, 300, C, TTSCHED_RUNNING, 2, 0 },
		{ 300, 350, C, TTSCHED_RUNNABLE, 2, X },
		{ 350, 500, C, TTSCHED_RUNNING, 2, 0 },
		{ 500, 510, B, TTSCHED_RUNNABLE, 1, C },
		{ 510, 540, B, TTSCHED_RUNNING, 1, 0 },
		{ 540, 545, A, TTSCHED_RUNNABLE, 0, IDLE0 },
		{ 545, 600, A, TTSCHED_RUNNING, 0, 0 },
	};
	const struct ttsched_thread *c;
	struct ttsched s;
	struct ttcrit_path p;
	int rc;

	chain_story(&s);
	HT_CHECK(!s.oom && ttcrit_path(&p, &s, A, 0, 600) == 0);
	rc = check_pieces(&p, w, sizeof(w) / sizeof(w[0]));
	/* the waits: A's on B (with why), then B's on C */
	HT_CHECK(p.e[2].kind == TTCRIT_WAIT && p.e[2].pid == A &&
		 p.e[2].start == 100 && p.e[2].end == 540 &&
		 p.e[2].caller == 0xffff1000 && p.e[2].chan == 0xabc &&
		 p.e[2].waker.id == B && p.e[2].woken == 540);
	HT_CHECK(p.e[4].kind == TTCRIT_WAIT && p.e[4].pid == B &&
		 p.e[4].start == 120 && p.e[4].end == 500 && !p.e[4].caller);
	c = ttsched_thread(&s, C);
	HT_CHECK(c && c->iv[c->n - 1].state == TTSCHED_BLOCKED &&
		 c->iv[c->n - 1].chan == 0xdef);
	HT_CHECK(p.e[1].sys == 64 && p.e[0].sys == 0);
	ttcrit_path_free(&p);
	ttsched_free(&s);
	return rc;
}

/* A window inside the story: cut at both ends, the wait not yet over. */
static int test_window(void)
{
	static const struct want w[] = {
		{ 80, 100, A, TTSCHED_RUNNING, 0, 0 },
		{ 100, 200, A, TTSCHED_BLOCKED, 0, 0 },
	};
	struct ttsched s;
	struct ttcrit_path p;
	int rc;

	chain_story(&s);
	HT_CHECK(ttcrit_path(&p, &s, A, 80, 200) == 0);
	rc = check_pieces(&p, w, 2);
	HT_CHECK(p.e[1].woken == 540);	/* after the window: not yet */
	ttcrit_path_free(&p);
	/* X blocks at 350 for good: the trace's end is no wakeup */
	HT_CHECK(ttcrit_path(&p, &s, X, 400, 600) == 0);
	HT_CHECK(p.n == 1 && p.e[0].state == TTSCHED_BLOCKED &&
		 p.e[0].woken == INT64_MAX);
	ttcrit_path_free(&p);
	ttsched_free(&s);
	return rc;
}

/* S runnable on one CPU behind a CPU-bound Y until Y's slice ends. */
static int test_starved(void)
{
	enum { Y = 7, S = 8 };
	static const struct want w[] = {
		{ 0, 10, Y, TTSCHED_RUNNING, 1, 0 },
		{ 10, 1000, S, TTSCHED_RUNNABLE, 0, Y },
		{ 1000, 1050, S, TTSCHED_RUNNING, 0, 0 },
		{ 1050, 1100, S, TTSCHED_RUNNING, 0, 0 },
	};
	struct ttsched s;
	struct ttcrit_path p;
	int rc;

	ttsched_init(&s, 1, 0);
	ttsched_syscall(&s, 0, 0, Y, 0);
	ttsched_wake(&s, 10, S, 0, THREAD(Y));
	ttsched_switch(&s, 1000, 0, Y, TTSCHED_RUNNABLE, S);
	ttsched_syscall(&s, 1050, 0, S, 1 + 60);	/* exit */
	ttsched_switch(&s, 1100, 0, S, TTSCHED_DEAD, Y);
	ttsched_switch(&s, 1200, 0, Y, TTSCHED_RUNNABLE, S);	/* pid reused */
	ttsched_finish(&s, 1300);
	HT_CHECK(ttsched_thread(&s, S)->iv[ttsched_thread(&s, S)->n - 1].sys
		 == 0);
	HT_CHECK(ttcrit_path(&p, &s, S, 0, 1100) == 0);
	rc = check_pieces(&p, w, 4);
	ttcrit_path_free(&p);
	ttsched_free(&s);
	return rc;
}

/* Woken by an IRQ: a blocked piece naming it; before the first record:
 * untraced; a thread created: its creator's path. */
static int test_irq_untraced_new(void)
{
	static const struct want w[] = {
		{ 0, 20, A, TTCRIT_UNTRACED, 0, 0 },
		{ 20, 50, A, TTSCHED_RUNNING, 0, 0 },
		{ 50, 90, A, TTSCHED_BLOCKED, 0, 0 },
		{ 90, 100, A, TTSCHED_RUNNING, 0, 0 },
	};
	static const struct want wn[] = {
		{ 0, 20, A, TTCRIT_UNTRACED, 1, 0 },
		{ 20, 30, A, TTSCHED_RUNNING, 1, 0 },
	};
	struct ttsched s;
	struct ttcrit_path p;
	int rc;

	ttsched_init(&s, 1, 0);
	ttsched_switch(&s, 20, 0, IDLE0, TTSCHED_RUNNABLE, A);
	ttsched_wake_new(&s, 30, B, 0, THREAD(A));
	ttsched_switch(&s, 50, 0, A, TTSCHED_BLOCKED, IDLE0);
	ttsched_wake(&s, 90, A, 0, IRQ(32));
	ttsched_switch(&s, 90, 0, IDLE0, TTSCHED_BLOCKED, A);
	ttsched_finish(&s, 100);
	/* B is runnable from 30 and never runs: its path is its queue */
	HT_CHECK(ttcrit_path(&p, &s, A, 0, 100) == 0);
	rc = check_pieces(&p, w, 4);
	HT_CHECK(rc || (p.e[2].waker.kind == TTSCHED_WAKER_IRQ &&
			p.e[2].waker.id == 32 && p.e[2].woken == 90));
	ttcrit_path_free(&p);
	HT_CHECK(ttcrit_path(&p, &s, B, 0, 30) == 0);
	rc = rc || check_pieces(&p, wn, 2);
	HT_CHECK(rc || (p.e[0].kind == TTCRIT_WAIT &&
			p.e[0].state == TTSCHED_NEW && p.e[0].waker.id == A));
	ttcrit_path_free(&p);
	ttsched_free(&s);
	return rc;
}

/* ---- the tiling, on random stories -------------------------------------- */

#define RT_THREADS	6
#define RT_CPUS		3

/* A random but consistent story: threads 1..RT_THREADS on RT_CPUS CPUs
 * (idle pids 100+), switching, blocking, waking each other and by IRQ;
 * its model kept from keep_from (INT64_MIN: all of it). */
static void random_story(struct ttsched *s, uint64_t *seed, int64_t *end,
			 int64_t keep_from)
{
	uint32_t cur[RT_CPUS], state[RT_THREADS + 1] = { 0 };
	int64_t ns = 0;

	ttsched_init(s, RT_CPUS, 0);
	s->keep_from = keep_from;
	for (uint32_t c = 0; c < RT_CPUS; c++)
		cur[c] = 100 + c;
	for (uint32_t i = 1; i <= RT_THREADS; i++)
		state[i] = TTSCHED_BLOCKED;
	for (int step = 0; step < 400; step++) {
		uint32_t c = (uint32_t)(ht_rand(seed) % RT_CPUS);
		uint32_t th = 1 + (uint32_t)(ht_rand(seed) % RT_THREADS);
		uint32_t r = (uint32_t)(ht_rand(seed) % 4);

		ns += (int64_t)(ht_rand(seed) % 3);	/* ties too */
		if (state[th] == TTSCHED_BLOCKED && r < 2) {
			ttsched_wake(s, ns, th, c, r ? IRQ(33) :
				     THREAD(cur[c]));
			state[th] = TTSCHED_RUNNABLE;
		} else if (state[th] == TTSCHED_RUNNABLE) {
			uint32_t prev = cur[c];
			uint32_t how = prev >= 100 || r & 1 ?
				       TTSCHED_RUNNABLE : TTSCHED_BLOCKED;

			ttsched_switch(s, ns, c, prev, how, th);
			if (prev < 100)
				state[prev] = how;
			state[th] = TTSCHED_RUNNING;
			cur[c] = th;
		} else if (state[th] == TTSCHED_RUNNING && r == 3) {
			ttsched_syscall(s, ns, c, th, ht_rand(seed) % 2);
		}
	}
	*end = ns + 5;
	ttsched_finish(s, *end);
}

/* Whether p tiles [from, to): pieces contiguous from from to to, each
 * WAIT tiled by the deeper pieces right after it. */
static int check_tiling(const struct ttcrit_path *p, int64_t from, int64_t to)
{
	int64_t t = from;

	for (uint64_t i = 0; i < p->n; i++) {
		const struct ttcrit_entry *e = &p->e[i];

		if (e->start != t && e->kind == TTCRIT_PIECE)
			HT_FAIL("piece %llu starts at %lld, not %lld",
				(unsigned long long)i, (long long)e->start,
				(long long)t);
		if (e->end <= e->start)
			HT_FAIL("entry %llu is empty", (unsigned long long)i);
		if (e->kind == TTCRIT_WAIT) {
			int64_t u = e->start;

			for (uint64_t k = i + 1; k < p->n && u < e->end; k++)
				if (p->e[k].depth > e->depth &&
				    p->e[k].kind == TTCRIT_PIECE)
					u = p->e[k].end;
			if (e->start != t || u != e->end)
				HT_FAIL("wait %llu [%lld, %lld) not tiled",
					(unsigned long long)i,
					(long long)e->start,
					(long long)e->end);
			continue;
		}
		t = e->end;
	}
	if (t != to)
		HT_FAIL("pieces end at %lld, not %lld", (long long)t,
			(long long)to);
	return 0;
}

static int test_tiling_random(void)
{
	uint64_t seed = 0x5eed2929, waits = 0;

	for (int round = 0; round < 200; round++) {
		struct ttsched s;
		int64_t end;

		random_story(&s, &seed, &end, INT64_MIN);
		HT_CHECK(!s.oom);
		for (uint32_t pid = 1; pid <= RT_THREADS; pid++) {
			int64_t from = (int64_t)(ht_rand(&seed) % (uint64_t)end);
			int64_t to = from + 1 + (int64_t)(ht_rand(&seed) %
					     (uint64_t)(end - from));
			struct ttcrit_path p;
			int rc;

			HT_CHECK(ttcrit_path(&p, &s, pid, from, to) == 0);
			rc = check_tiling(&p, from, to);
			for (uint64_t i = 0; i < p.n; i++)
				waits += p.e[i].kind == TTCRIT_WAIT;
			ttcrit_path_free(&p);
			if (rc)
				return rc;
		}
		ttsched_free(&s);
	}
	HT_CHECK(waits > 100);	/* the stories do chain wakeups */
	return 0;
}

/* ---- a model kept from a window's start ---------------------------------- */

/* Whether the n intervals at a are the same as the n at b. */
static bool same_ivs(const struct ttsched_iv *a, const struct ttsched_iv *b,
		     uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (a[i].start != b[i].start || a[i].end != b[i].end ||
		    a[i].state != b[i].state || a[i].cpu != b[i].cpu ||
		    a[i].waker.kind != b[i].waker.kind ||
		    a[i].waker.id != b[i].waker.id || a[i].sys != b[i].sys ||
		    a[i].caller != b[i].caller || a[i].chan != b[i].chan)
			return false;
	return true;
}

/* Whether the n entries at a are the same as the n at b. */
static bool same_entries(const struct ttcrit_entry *a,
			 const struct ttcrit_entry *b, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (a[i].start != b[i].start || a[i].end != b[i].end ||
		    a[i].kind != b[i].kind || a[i].depth != b[i].depth ||
		    a[i].pid != b[i].pid || a[i].state != b[i].state ||
		    a[i].cpu != b[i].cpu || a[i].behind != b[i].behind ||
		    a[i].sys != b[i].sys || a[i].caller != b[i].caller ||
		    a[i].chan != b[i].chan ||
		    a[i].waker.kind != b[i].waker.kind ||
		    a[i].waker.id != b[i].waker.id || a[i].woken != b[i].woken)
			return false;
	return true;
}

/* The kept model k (from from) against the whole one w of the same
 * story: k holds only states that end after from, at most one run per
 * CPU from before it, each the same as w's last ones. */
static int check_kept(const struct ttsched *k, const struct ttsched *w,
		      int64_t from)
{
	HT_CHECK(k->nthreads == w->nthreads);
	for (uint32_t i = 0; i < k->nthreads; i++) {
		const struct ttsched_thread *a = &k->threads[i];
		const struct ttsched_thread *b = ttsched_thread(w, a->pid);

		for (uint64_t j = 0; j < a->n; j++)
			if (a->iv[j].end <= from)
				HT_FAIL("pid %u keeps [%lld, %lld) before %lld",
					a->pid, (long long)a->iv[j].start,
					(long long)a->iv[j].end,
					(long long)from);
		HT_CHECK(b && b->n >= a->n &&
			 same_ivs(a->iv, b->iv + b->n - a->n, a->n));
	}
	for (uint32_t c = 0; c < k->ncpus; c++) {
		const struct ttsched_cpu *a = &k->cpus[c], *b = &w->cpus[c];

		if (a->n > 1 && a->runs[1].start <= from)
			HT_FAIL("cpu%u keeps two runs from before %lld", c,
				(long long)from);
		HT_CHECK(b->n >= a->n);
		for (uint64_t j = 0; j < a->n; j++)
			HT_CHECK(a->runs[j].start == b->runs[b->n - a->n + j].start &&
				 a->runs[j].pid == b->runs[b->n - a->n + j].pid);
	}
	return 0;
}

/* Critpath and wakeup latencies of windows from a random time on: the
 * model kept from the window's start (what `ttdecode critpath --from`
 * builds) gives the whole model's answers, and holds nothing that ends
 * before the window. */
static int test_kept_random(void)
{
	uint64_t seed = 0x6b657074, kept = 0, whole = 0;

	for (int round = 0; round < 200; round++) {
		uint64_t again = seed, pick;
		struct ttsched s, w;
		int64_t end, from;

		random_story(&w, &seed, &end, INT64_MIN);
		pick = ht_rand(&seed);
		from = (int64_t)(pick % (uint64_t)end);
		seed = again;
		random_story(&s, &seed, &end, from);
		HT_CHECK(ht_rand(&seed) == pick && !s.oom && !w.oom);
		if (check_kept(&s, &w, from))
			return 1;
		for (uint32_t i = 0; i < s.nthreads; i++) {
			kept += s.threads[i].n;
			whole += w.threads[i].n;
		}
		for (uint32_t pid = 1; pid <= RT_THREADS; pid++) {
			int64_t to = from + 1 + (int64_t)(ht_rand(&seed) %
					     (uint64_t)(end - from));
			const struct ttsched_thread *th = ttsched_thread(&s,
									 pid);
			struct ttcrit_latency la, lb;
			struct ttcrit_path p, q;
			bool same;

			HT_CHECK(ttcrit_path(&p, &s, pid, from, to) == 0);
			HT_CHECK(ttcrit_path(&q, &w, pid, from, to) == 0);
			same = p.n == q.n && same_entries(p.e, q.e, p.n);
			ttcrit_path_free(&p);
			ttcrit_path_free(&q);
			if (!same)
				HT_FAIL("round %d pid %u [%lld, %lld): the "
					"paths differ", round, pid,
					(long long)from, (long long)to);
			if (!th)
				continue;
			HT_CHECK(ttcrit_latency(&s, th, from, to, &la) == 0);
			HT_CHECK(ttcrit_latency(&w, ttsched_thread(&w, pid),
						from, to, &lb) == 0);
			HT_CHECK(!memcmp(&la, &lb, sizeof(la)));
		}
		ttsched_free(&s);
		ttsched_free(&w);
	}
	HT_CHECK(2 * kept < whole);	/* the windows did drop states */
	return 0;
}

/* ---- wakeup latencies ---------------------------------------------------- */

static int test_latency(void)
{
	struct ttsched s;
	struct ttcrit_latency l;

	/* A waits 10, 20, ... 100 ns for cpu0 ten times (B runs there) */
	ttsched_init(&s, 1, 0);
	for (int i = 1; i <= 10; i++) {
		int64_t t0 = 1000 * i;

		ttsched_wake(&s, t0, A, TTSCHED_NO_CPU, THREAD(B));
		ttsched_wake(&s, t0 + 1, A, 0, THREAD(B));	/* its wakeup */
		ttsched_switch(&s, t0 + 10 * i, 0, B, TTSCHED_RUNNABLE, A);
		ttsched_switch(&s, t0 + 500, 0, A, TTSCHED_BLOCKED, B);
	}
	ttsched_wake(&s, 15000, B, 0, THREAD(A));	/* running: spurious */
	ttsched_finish(&s, 20000);
	if (s.counts.spurious != 1)
		HT_FAIL("spurious %llu", (unsigned long long)s.counts.spurious);
	HT_CHECK(ttcrit_latency(&s, ttsched_thread(&s, A), 0, 20000, &l) == 0);
	HT_CHECK(l.count == 10 && l.p50 == 50 && l.p99 == 100 &&
		 l.max == 100 && l.max_at == 10000);
	HT_CHECK(l.running == 10 * 500 - 550);
	/* B was preempted by A each time: its delays are A's runs */
	HT_CHECK(ttcrit_latency(&s, ttsched_thread(&s, B), 0, 20000, &l) == 0);
	HT_CHECK(l.count == 10 && l.max == 500 - 10);
	ttsched_free(&s);
	return 0;
}

/* ---- errno origins ------------------------------------------------------- */

struct got {
	struct tterrno_report r[8];
	unsigned n;
};

static void got_report(void *arg, const struct tterrno_report *r)
{
	struct got *g = arg;

	if (g->n < 8)
		g->r[g->n++] = *r;
}

enum { SYS_OPEN = 0x10, LOOKUP = 0x20, WALK = 0x30, CHECK = 0x40,
       COPY = 0x50, ERRSTR = 0x60 };

static int test_errno(void)
{
	struct tterrno e;
	struct got g = { .n = 0 };

	tterrno_init(&e, got_report, &g);
	/* open: walk returns -ENOENT (as a 32-bit int), lookup hands it up
	 * through a pointer (returns NULL), an errstr_set() returns it
	 * again */
	tterrno_sys_enter(&e, 5, 0);
	tterrno_entry(&e, 5, SYS_OPEN, 0);
	tterrno_entry(&e, 5, LOOKUP, 1);
	tterrno_entry(&e, 5, CHECK, 2);
	tterrno_exit(&e, 5, 4, CHECK, 2, (uint32_t)-22);  /* swallowed */
	tterrno_entry(&e, 5, WALK, 2);
	tterrno_exit(&e, 5, 6, WALK, 2, (uint32_t)-2);
	tterrno_exit(&e, 5, 7, LOOKUP, 1, 0);
	tterrno_entry(&e, 5, ERRSTR, 1);
	tterrno_exit(&e, 5, 7, ERRSTR, 1, (uint64_t)-2);
	tterrno_exit(&e, 5, 8, SYS_OPEN, 0, (uint64_t)-2);
	tterrno_sys_exit(&e, 5, 9, 2, -2);
	/* read: the function returns another error than its callee's */
	tterrno_sys_enter(&e, 5, 10);
	tterrno_entry(&e, 5, SYS_OPEN, 0);
	tterrno_entry(&e, 5, COPY, 1);
	tterrno_exit(&e, 5, 13, COPY, 1, (uint64_t)-14);
	tterrno_exit(&e, 5, 14, SYS_OPEN, 0, (uint64_t)-9);
	tterrno_sys_exit(&e, 5, 15, 0, -9);
	/* an error no traced function returned; a success */
	tterrno_sys_enter(&e, 6, 16);
	tterrno_sys_exit(&e, 6, 17, 1, -22);
	tterrno_sys_enter(&e, 6, 18);
	tterrno_sys_exit(&e, 6, 19, 1, 3);
	HT_CHECK(g.n == 3 && e.failed == 3 && e.untraced == 1);
	HT_CHECK(g.r[0].found && g.r[0].ret == -2 && g.r[0].nchain == 3 &&
		 g.r[0].chain[0] == SYS_OPEN && g.r[0].chain[1] == LOOKUP &&
		 g.r[0].chain[2] == WALK && g.r[0].at == 6);
	HT_CHECK(g.r[1].found && g.r[1].ret == -9 && g.r[1].nchain == 1 &&
		 g.r[1].chain[0] == SYS_OPEN);
	HT_CHECK(!g.r[2].found && g.r[2].pid == 6 && g.r[2].ret == -22);
	HT_CHECK(tterrno_value((uint64_t)-4095) == -4095 &&
		 tterrno_value((uint64_t)-4096) == 0 &&
		 tterrno_value(0xfffffffeu) == -2 &&
		 tterrno_value(0x1fffffffeull) == 0 && tterrno_value(5) == 0);
	tterrno_free(&e);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_chain, "critpath_chain" },
	{ test_window, "critpath_window" },
	{ test_starved, "critpath_starved" },
	{ test_irq_untraced_new, "critpath_irq_untraced_new" },
	{ test_tiling_random, "critpath_tiling_random" },
	{ test_kept_random, "critpath_kept_random" },
	{ test_latency, "wakeup_latency" },
	{ test_errno, "errno_origin" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
