/*
 * tterrno.c: the origin of each failing syscall's error (tterrno.h).
 * Threads are kept sorted by pid (a binary search per record: a trace
 * has tens of processes, its graph records millions).
 */
#include <stdlib.h>
#include <string.h>

#include "tterrno.h"
#include "ttsched.h"

void tterrno_init(struct tterrno *e, tterrno_report_fn report, void *arg)
{
	memset(e, 0, sizeof(*e));
	e->report = report;
	e->arg = arg;
}

void tterrno_free(struct tterrno *e)
{
	free(e->th);
	memset(e, 0, sizeof(*e));
}

/*
 * The error a function's return value (rax, 64 bits) says: -1 .. -4095
 * as a 64-bit value, or as a 32-bit one with the upper half clear (an
 * int return leaves it so); 0 for anything else.
 */
int64_t tterrno_value(uint64_t retval)
{
	int64_t v = (int64_t)retval;

	if (v < 0 && v >= -TTERRNO_MAX)
		return v;
	v = (int32_t)(uint32_t)retval;
	if (!(retval >> 32) && v < 0 && v >= -TTERRNO_MAX)
		return v;
	return 0;
}

/* pid's state, made if new; NULL when out of memory (noted). */
static struct tterrno_thread *thread(struct tterrno *e, uint32_t pid)
{
	uint32_t lo = 0, hi = e->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->th[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < e->n && e->th[lo].pid == pid)
		return &e->th[lo];
	if (ttsched_grow(&e->th, e->n, &e->cap, sizeof(*e->th)) < 0) {
		e->oom = true;
		return NULL;
	}
	memmove(&e->th[lo + 1], &e->th[lo], (e->n - lo) * sizeof(*e->th));
	e->n++;
	memset(&e->th[lo], 0, sizeof(*e->th));
	e->th[lo].pid = pid;
	return &e->th[lo];
}

/* pid enters a syscall at ns: no origin yet. */
void tterrno_sys_enter(struct tterrno *e, uint32_t pid, int64_t ns)
{
	struct tterrno_thread *th = thread(e, pid);

	if (!th)
		return;
	th->in_sys = true;
	th->sys_start = ns;
	th->norigins = 0;
}

/* th's origin of err in its syscall, or NULL. */
static const struct tterrno_origin *origin(const struct tterrno_thread *th,
					   int64_t err)
{
	for (uint32_t i = 0; i < th->norigins; i++)
		if (th->origins[i].err == err)
			return &th->origins[i];
	return NULL;
}

/* pid's syscall nr returns ret at ns: reported when ret is an error
 * (a syscall whose enter is not in the trace: from the trace's start). */
void tterrno_sys_exit(struct tterrno *e, uint32_t pid, int64_t ns,
		      uint64_t nr, int64_t ret)
{
	struct tterrno_thread *th = thread(e, pid);
	struct tterrno_report r = { .pid = pid, .nr = nr, .ret = ret,
				    .ns = ns, .start = INT64_MIN };
	const struct tterrno_origin *o;

	if (!th)
		return;
	if ((o = ret < 0 && ret >= -TTERRNO_MAX ? origin(th, ret) : NULL)) {
		r.found = true;
		r.at = o->at;
		r.nchain = o->nchain;
		memcpy(r.chain, o->chain, o->nchain * sizeof(*r.chain));
	}
	if (th->in_sys)
		r.start = th->sys_start;
	th->in_sys = false;
	th->norigins = 0;
	if (ret >= 0 || ret < -TTERRNO_MAX)
		return;
	e->failed++;
	e->untraced += !r.found;
	e->report(e->arg, &r);
}

/* pid enters fn at graph depth. */
void tterrno_entry(struct tterrno *e, uint32_t pid, uint64_t fn,
		   uint32_t depth)
{
	struct tterrno_thread *th = thread(e, pid);

	if (th && depth < TTERRNO_DEPTH)
		th->stack[depth] = fn;
}

/* pid's fn at depth returns retval at ns: the origin of its error, if
 * the first return of it in the syscall (tterrno.h). */
void tterrno_exit(struct tterrno *e, uint32_t pid, int64_t ns, uint64_t fn,
		  uint32_t depth, uint64_t retval)
{
	struct tterrno_thread *th = thread(e, pid);
	int64_t err = tterrno_value(retval);
	uint32_t d = depth < TTERRNO_DEPTH ? depth : TTERRNO_DEPTH - 1;
	struct tterrno_origin *o;

	if (!th || !err || origin(th, err) || th->norigins == TTERRNO_ORIGINS)
		return;
	o = &th->origins[th->norigins++];
	o->err = err;
	o->at = ns;
	memcpy(o->chain, th->stack, d * sizeof(*o->chain));
	o->chain[d] = fn;
	o->nchain = d + 1;
}
