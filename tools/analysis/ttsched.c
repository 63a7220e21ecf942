/*
 * ttsched.c: the scheduling model (ttsched.h): each fact closes the
 * present state of the threads it names and opens their next, and a
 * switch adds a run to its CPU. Threads are found by pid in an
 * open-addressing table of indices, as ttmodel's tracks are.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttsched.h"

static const char *const state_names[TTSCHED_NSTATES] = {
	"running", "runnable", "blocked", "dead", "new",
};

/* state's name ("running"), "?" for none. */
const char *ttsched_state_name(uint32_t state)
{
	return state < TTSCHED_NSTATES ? state_names[state] : "?";
}

/*
 * Makes room for one more element of size bytes in the array *pp of *n
 * used and *cap allocated (doubling it, 16 at first). Returns 0, or -1
 * when out of memory (the array is then as it was). Every growing array
 * of tools/analysis/ grows through it.
 */
int ttsched_grow(void *pp, uint64_t n, uint64_t *cap, size_t size)
{
	void **p = pp, *q;
	uint64_t c = *cap ? 2 * *cap : 16;

	if (n < *cap)
		return 0;
	if (c > SIZE_MAX / size || !(q = realloc(*p, c * size)))
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* The number of elements of the n at base (size bytes each, an int64_t
 * start first, sorted by it) that start before t. */
static uint64_t before(const void *base, uint64_t n, size_t size, int64_t t)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int64_t start;

		memcpy(&start, (const char *)base + mid * size, sizeof(start));
		if (start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- threads ------------------------------------------------------------- */

/* Doubles the pid table. Returns 0 or -1. */
static int grow_slots(struct ttsched *s)
{
	uint32_t bits = s->bits ? s->bits + 1 : 6, mask = (1u << bits) - 1;
	uint32_t *slots = calloc(mask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		uint32_t k = hash_word(s->threads[i].pid, bits);

		while (slots[k])
			k = (k + 1) & mask;
		slots[k] = i + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->bits = bits;
	return 0;
}

/* The slot of pid in the table (holding 0 when pid has no thread). */
static uint32_t *slot_of(const struct ttsched *s, uint32_t pid)
{
	uint32_t mask = (1u << s->bits) - 1, k = hash_word(pid, s->bits);

	while (s->slots[k] && s->threads[s->slots[k] - 1].pid != pid)
		k = (k + 1) & mask;
	return &s->slots[k];
}

/* The thread of pid, or NULL when it has none. */
const struct ttsched_thread *ttsched_thread(const struct ttsched *s,
					    uint32_t pid)
{
	uint32_t i = s->slots ? *slot_of(s, pid) : 0;

	return i ? &s->threads[i - 1] : NULL;
}

/* The thread of pid, made if new; NULL when out of memory (noted). */
static struct ttsched_thread *thread(struct ttsched *s, uint32_t pid)
{
	uint32_t *slot;

	if (2 * (s->nthreads + 1) > (s->slots ? 1u << s->bits : 0) &&
	    grow_slots(s) < 0)
		goto oom;
	slot = slot_of(s, pid);
	if (*slot)
		return &s->threads[*slot - 1];
	if (ttsched_grow(&s->threads, s->nthreads, &s->cap,
			 sizeof(*s->threads)) < 0)
		goto oom;
	s->threads[s->nthreads] = (struct ttsched_thread){ .pid = pid };
	*slot = ++s->nthreads;
	return &s->threads[s->nthreads - 1];
oom:
	s->oom = true;
	return NULL;
}

/* th's present state, NULL before its first. */
static struct ttsched_iv *now(struct ttsched_thread *th)
{
	return th->n ? &th->iv[th->n - 1] : NULL;
}

/*
 * Ends th's present state at ns and begins iv there (iv.start = ns). A
 * state of no length is replaced, so intervals stay contiguous and never
 * empty. A fact older than the present state's start is dropped and
 * counted. Returns the new state, or NULL.
 */
static struct ttsched_iv *begin(struct ttsched *s, struct ttsched_thread *th,
				int64_t ns, struct ttsched_iv iv)
{
	struct ttsched_iv *cur = now(th);

	if (cur && ns < cur->start) {
		s->counts.late++;
		return NULL;
	}
	if (cur && (ns == cur->start || ns <= s->keep_from))
		th->n--;	/* of no length, or before the window */
	else if (cur)
		cur->end = ns;
	if (ttsched_grow(&th->iv, th->n, &th->cap, sizeof(*th->iv)) < 0) {
		s->oom = true;
		return NULL;
	}
	iv.start = iv.end = ns;
	th->iv[th->n] = iv;
	return &th->iv[th->n++];
}

/* ---- cpus ---------------------------------------------------------------- */

static void add_run(struct ttsched *s, uint32_t cpu, int64_t ns, uint32_t pid)
{
	struct ttsched_cpu *c = &s->cpus[cpu];

	if (c->n && (c->runs[c->n - 1].start == ns || ns <= s->keep_from)) {
		c->runs[c->n - 1] = (struct ttsched_run){ .start = ns,
							 .pid = pid };
		return;
	}
	if (ttsched_grow(&c->runs, c->n, &c->cap, sizeof(*c->runs)) < 0) {
		s->oom = true;
		return;
	}
	c->runs[c->n++] = (struct ttsched_run){ .start = ns, .pid = pid };
}

/* The index of cpu's last run that began before t, or -1. */
int64_t ttsched_run_at(const struct ttsched *s, uint32_t cpu, int64_t t)
{
	const struct ttsched_cpu *c = &s->cpus[cpu];

	return (int64_t)before(c->runs, c->n, sizeof(*c->runs), t) - 1;
}

/*
 * pid runs on cpu (a switch out of it, or a record in its context): if cpu
 * has no run yet, pid ran there since the trace began (nothing else can
 * have), and so did the thread, if it is new.
 */
static void on_cpu(struct ttsched *s, uint32_t cpu, uint32_t pid)
{
	struct ttsched_thread *th;

	if (cpu >= s->ncpus || s->cpus[cpu].n)
		return;
	add_run(s, cpu, s->start, pid);
	if ((th = thread(s, pid)) && !th->n)
		begin(s, th, s->start, (struct ttsched_iv){
		      .state = TTSCHED_RUNNING, .cpu = cpu, .sys = th->sys });
}

/* ---- facts --------------------------------------------------------------- */

int ttsched_init(struct ttsched *s, uint32_t ncpus, int64_t start)
{
	memset(s, 0, sizeof(*s));
	s->start = s->end = start;
	s->keep_from = INT64_MIN;
	s->ncpus = ncpus;
	if (!(s->cpus = calloc(ncpus ? ncpus : 1, sizeof(*s->cpus))))
		return -1;
	return 0;
}

void ttsched_free(struct ttsched *s)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		free(s->threads[i].iv);
	for (uint32_t c = 0; s->cpus && c < s->ncpus; c++)
		free(s->cpus[c].runs);
	free(s->cpus);
	free(s->threads);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/*
 * cpu switches from prev (which leaves RUNNABLE: preempted, BLOCKED or
 * DEAD) to next at ns. A thread switched in while blocked was woken
 * unseen: counted.
 */
void ttsched_switch(struct ttsched *s, int64_t ns, uint32_t cpu,
		    uint32_t prev, enum ttsched_state prev_state,
		    uint32_t next)
{
	struct ttsched_thread *th;
	struct ttsched_iv *cur;

	if (cpu >= s->ncpus)
		return;
	on_cpu(s, cpu, prev);
	if ((th = thread(s, prev)) && prev_state == TTSCHED_BLOCKED) {
		begin(s, th, ns, (struct ttsched_iv){ .state = prev_state,
		      .cpu = TTSCHED_NO_CPU, .caller = th->caller,
		      .chan = th->chan });
		th->caller = th->chan = 0;
	} else if (th) {
		begin(s, th, ns, (struct ttsched_iv){ .state = prev_state,
		      .cpu = prev_state == TTSCHED_RUNNABLE ? cpu :
			     TTSCHED_NO_CPU });
		if (prev_state == TTSCHED_DEAD)
			th->sys = 0;	/* its exit syscall ended with it */
	}
	add_run(s, cpu, ns, next);
	if (!(th = thread(s, next)))
		return;
	cur = now(th);
	s->counts.unwoken += cur && cur->state == TTSCHED_BLOCKED;
	begin(s, th, ns, (struct ttsched_iv){ .state = TTSCHED_RUNNING,
	      .cpu = cpu, .sys = th->sys });
}

/*
 * waker wakes pid at ns onto cpu's run queue (TTSCHED_NO_CPU: not said).
 * A thread first seen woken was blocked since the trace began; a wakeup
 * of a thread already woken only names its queue if not known yet (the
 * sched_wakeup after its sched_waking); one of a thread running or
 * preempted is spurious.
 */
void ttsched_wake(struct ttsched *s, int64_t ns, uint32_t pid, uint32_t cpu,
		  struct ttsched_waker waker)
{
	struct ttsched_thread *th = thread(s, pid);
	struct ttsched_iv *cur;

	if (!th)
		return;
	if (!th->n && ns > s->start)
		begin(s, th, s->start, (struct ttsched_iv){
		      .state = TTSCHED_BLOCKED, .cpu = TTSCHED_NO_CPU });
	cur = now(th);
	if (cur && cur->state == TTSCHED_RUNNABLE &&
	    cur->waker.kind != TTSCHED_WAKER_NONE) {
		if (cur->cpu == TTSCHED_NO_CPU)
			cur->cpu = cpu;	/* the queue it went on */
		return;
	}
	if (cur && cur->state != TTSCHED_BLOCKED) {
		s->counts.spurious++;	/* running, or preempted */
		return;
	}
	if (cur)
		cur->waker = waker;
	begin(s, th, ns, (struct ttsched_iv){ .state = TTSCHED_RUNNABLE,
	      .cpu = cpu, .waker = waker });
}

/* pid, new, made runnable on cpu at ns by waker (its creator): it did
 * not exist since the trace began. */
void ttsched_wake_new(struct ttsched *s, int64_t ns, uint32_t pid,
		      uint32_t cpu, struct ttsched_waker waker)
{
	struct ttsched_thread *th = thread(s, pid);

	if (th && !th->n && ns > s->start)
		begin(s, th, s->start, (struct ttsched_iv){
		      .state = TTSCHED_NEW, .cpu = TTSCHED_NO_CPU,
		      .waker = waker });
	if (th)
		begin(s, th, ns, (struct ttsched_iv){
		      .state = TTSCHED_RUNNABLE, .cpu = cpu, .waker = waker });
}

/* Why pid blocks: caller (code address) and chan, recorded before its
 * switch out (kept for it) or after (its present sleep). */
void ttsched_blocked(struct ttsched *s, uint32_t pid, uint64_t caller,
		     uint64_t chan)
{
	struct ttsched_thread *th = thread(s, pid);
	struct ttsched_iv *cur = th ? now(th) : NULL;

	if (cur && cur->state == TTSCHED_BLOCKED) {
		cur->caller = caller;
		cur->chan = chan;
	} else if (th) {
		th->caller = caller;
		th->chan = chan;
	}
}

/* pid, running on cpu, enters syscall sys - 1 (sys 0: returns to user
 * mode) at ns: its running state splits there. */
void ttsched_syscall(struct ttsched *s, int64_t ns, uint32_t cpu,
		     uint32_t pid, uint64_t sys)
{
	struct ttsched_thread *th;
	struct ttsched_iv *cur;

	on_cpu(s, cpu, pid);
	if (!(th = thread(s, pid)))
		return;
	th->sys = sys;
	cur = now(th);
	if (cur && cur->state == TTSCHED_RUNNING && cur->sys != sys)
		begin(s, th, ns, (struct ttsched_iv){
		      .state = TTSCHED_RUNNING, .cpu = cur->cpu, .sys = sys });
}

/* The trace ends at end: every present state lasts until then. */
void ttsched_finish(struct ttsched *s, int64_t end)
{
	s->end = end;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct ttsched_iv *cur = now(&s->threads[i]);

		if (cur && cur->end < end)
			cur->end = end;
	}
}

/* th's state just before t (the one with start < t <= end), or NULL. */
const struct ttsched_iv *ttsched_at(const struct ttsched_thread *th,
				    int64_t t)
{
	uint64_t lo = before(th->iv, th->n, sizeof(*th->iv), t);

	if (!lo || th->iv[lo - 1].end < t)
		return NULL;
	return &th->iv[lo - 1];
}
