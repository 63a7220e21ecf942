/*
 * ttexport.c: the pieces the exporters share (see ttexport.h). Output goes
 * into a directory the exporter creates, or finds empty: the readers
 * (babeltrace2 above all) take every file in it as theirs, so a stale file
 * from an earlier export must never be mixed in.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ttrace_ftevent.h>

#include "ttexport.h"
#include "ttmodel.h"

/* Creates dir, or accepts it if it exists and is empty. Returns 0, or -1
 * after printing why. */
static int ttexport_mkdir(const char *dir)
{
	struct dirent *d;
	DIR *dp;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST || !(dp = opendir(dir))) {
		fprintf(stderr, "ttdecode: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			fprintf(stderr, "ttdecode: %s: not empty (holds %s); "
				"remove it or name a new directory\n", dir,
				d->d_name);
			closedir(dp);
			return -1;
		}
	closedir(dp);
	return 0;
}

/* Opens dir/name for writing with a large buffer. NULL after printing
 * why. */
FILE *ttexport_create(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "ttdecode: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, TTEXPORT_FILE_BUF);
	return f;
}

/* Closes f (dir/name), reporting a write error. Returns 0 or -1. */
int ttexport_close(FILE *f, const char *dir, const char *name)
{
	bool bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "ttdecode: %s/%s: write error\n", dir, name);
		return -1;
	}
	return 0;
}

/*
 * The whole of an export's command, `ttdecode CMD TRACE OUT` (argv[0]
 * TRACE, argv[1] OUT): the trace loaded, its model built, OUT made as a
 * directory when dir, then fn(t, m, TRACE, OUT), which frees what it made
 * itself. Returns the command's exit status: 0, or 1 after saying why.
 */
int ttexport_main(char **argv, bool dir, ttexport_fn fn)
{
	struct ttmodel m;
	struct ttload t;
	int rc = -1;

	if (ttload_open(&t, argv[0]))
		return 1;
	if (ttmodel_build(&m, &t) < 0) {
		fprintf(stderr, "ttdecode: out of memory\n");
		ttload_free(&t);
		return 1;
	}
	if (!dir || ttexport_mkdir(argv[1]) == 0)
		rc = fn(&t, &m, argv[0], argv[1]);
	ttmodel_free(&m);
	ttload_free(&t);
	return rc < 0 ? 1 : 0;
}

/* The id of the event called name in m, or -1 if m has none. */
int ttexport_event_id(const struct ttrace_meta_table *m, const char *name)
{
	for (uint32_t i = 0; i < m->nevents; i++)
		if (m->events[i].name && !strcmp(m->events[i].name, name))
			return (int)i;
	return -1;
}

/*
 * The name aux record (tag, ident) gives at time ts, written into buf
 * (size > 0) NUL terminated with its characters limited to cs; "#IDENT"
 * (TTEXPORT_IDENT: "IDENT") when no record names it, "" for a stack
 * record's frame past its end (tag ksym, 0). Returns its length.
 */
size_t ttexport_name(char *buf, size_t size, const struct ttload *t,
		     unsigned tag, uint64_t ident, uint64_t ts,
		     enum ttexport_charset cs)
{
	const char *s;
	size_t n, i;

	if (cs == TTEXPORT_PRINTABLE)	/* the text trace.dat's records hold */
		return ttrace_ftevent_name(buf, size, ttload_resolve, (void *)t,
					   tag, ident, ts);
	n = ttload_resolve((void *)t, tag, ident, ts, &s);
	if (tag == TTRACE_AUX_KSYM_NAME && !ident) {	/* a stack's frame */
		buf[0] = 0;				/* past its end */
		return 0;
	}
	if (!n) {
		snprintf(buf, size, "%llu", (unsigned long long)ident);
		return strlen(buf);
	}
	for (i = 0; i < n && i + 1 < size; i++) {
		char c = s[i];
		bool ok = c == '_' || (c >= '0' && c <= '9') ||
			  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

		buf[i] = ok ? c : '_';
	}
	buf[i] = 0;
	return i;
}

/* ts (CPU 0's clock) as ns since boot; 0 for a time before boot. */
uint64_t ttexport_ns(const struct ttload *t, uint64_t ts)
{
	if (ts < t->version.tsc_boot || !t->version.tsc_hz)
		return 0;
	return ttrace_ticks_to_ns(ts - t->version.tsc_boot, t->version.tsc_hz);
}

/* Whether event e's first arguments are named as words says ("a b c"):
 * an event whose record an export rebuilds as Linux's has them. */
bool ttexport_args_are(const struct ttrace_event_meta *e, const char *words)
{
	unsigned a = 0;

	for (const char *w = words; *w; a++) {
		size_t n = strcspn(w, " ");

		if (a >= e->nargs || !e->args[a].name ||
		    strlen(e->args[a].name) != n ||
		    memcmp(e->args[a].name, w, n))
			return false;
		w += n + (w[n] == ' ');
	}
	return true;
}

static int by_pid_ts(const void *a, const void *b)
{
	const struct ttexport_prio *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Whether event id of t is a wakeup with a prio (comm pid prio ...). */
static bool has_prio(const struct ttload *t, uint32_t id)
{
	const struct ttrace_event_meta *e = &t->meta.events[id];

	return e->name && (!strcmp(e->name, "sched_waking") ||
			   !strcmp(e->name, "sched_wakeup") ||
			   !strcmp(e->name, "sched_wakeup_new")) &&
	       ttexport_args_are(e, "comm pid prio");
}

/* Collects every wakeup's (pid, time, prio) of t. Returns 0 or -1
 * (memory). */
int ttexport_prios_init(struct ttexport_prios *p, const struct ttload *t)
{
	size_t cap = 0;

	memset(p, 0, sizeof(*p));
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		struct ttexport_walk w;
		enum ttexport_item k;

		ttexport_walk_init(&w, t, c);
		while ((k = ttexport_walk_next(&w)) != TTEXPORT_END) {
			const struct ttrace_event_view *ev = w.ev;

			if (k != TTEXPORT_EVENT || ev->id >= t->meta.nevents ||
			    ev->nwords < 3 || !has_prio(t, ev->id))
				continue;
			if (p->n == cap) {
				struct ttexport_prio *v = realloc(
					p->v, (cap = cap ? 2 * cap : 256) *
					sizeof(*v));

				if (!v) {
					ttexport_prios_free(p);
					return -1;
				}
				p->v = v;
			}
			p->v[p->n++] = (struct ttexport_prio){
				ev->args[1], ev->timestamp,
				(uint32_t)ev->args[2] };
		}
	}
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), by_pid_ts);
	return 0;
}

/* sched_switch ev's prio of prev (which 0) or next (1): the record's
 * (prev_prio, next_prio: arguments 5 and 6), or for a kernel's that had
 * none, its thread's wakeups' (ttexport_prio()). */
uint32_t ttexport_switch_prio(const struct ttexport_prios *p,
			      const struct ttload *t,
			      const struct ttrace_event_view *ev,
			      unsigned which)
{
	const struct ttrace_event_meta *e = &t->meta.events[ev->id];

	if (ttexport_args_are(e, "prev next prev_state prev_pid next_pid "
			      "prev_prio next_prio") && ev->nwords > 6)
		return (uint32_t)ev->args[5 + which];
	return ttexport_prio(p, ev->args[which], ev->timestamp);
}

/* pid's prio at ts: its last wakeup's at or before ts, else its first
 * one's (a prio set before the trace began), else the default. */
uint32_t ttexport_prio(const struct ttexport_prios *p, uint64_t pid,
		       uint64_t ts)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {		/* the first entry > (pid, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct ttexport_prio *e = &p->v[mid];

		if (e->pid < pid || (e->pid == pid && e->ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p->v[lo - 1].pid == pid)
		return p->v[lo - 1].prio;
	if (lo < p->n && p->v[lo].pid == pid)
		return p->v[lo].prio;
	return TTEXPORT_PRIO_DEFAULT;
}

void ttexport_prios_free(struct ttexport_prios *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* Starts a walk over cpu's events and declared losses. */
void ttexport_walk_init(struct ttexport_walk *w, const struct ttload *t,
			uint32_t cpu)
{
	memset(w, 0, sizeof(*w));
	w->cpu = &t->cpus[cpu];
	ttrace_pair_init(&w->it, w->cpu->sorted, w->cpu->nsorted, &t->meta);
	w->ev = &w->view[0];
	w->have = ttrace_pair_next(&w->it, &w->view[1]);
}

/*
 * The next item in time order: a loss placed at or before the next event
 * comes first (its time clamped to [previous item, next event]), then the
 * event. Events are returned in *w->ev, losses in *w->loss; w->ts is the
 * item's time. TTEXPORT_END once both are exhausted.
 */
enum ttexport_item ttexport_walk_next(struct ttexport_walk *w)
{
	const struct ttload_cpu *c = w->cpu;
	struct ttrace_event_view *next = w->ev == &w->view[0] ? &w->view[1] :
				       &w->view[0];

	if (w->nextloss < c->nlosses &&
	    (!w->have || c->losses[w->nextloss].ts <= next->timestamp)) {
		w->loss = &c->losses[w->nextloss++];
		if (w->loss->ts > w->ts && w->loss->ts != UINT64_MAX)
			w->ts = w->loss->ts;
		return TTEXPORT_LOSS;
	}
	if (!w->have)
		return TTEXPORT_END;
	w->ev = next;
	if (next->timestamp > w->ts)
		w->ts = next->timestamp;
	w->have = ttrace_pair_next(&w->it, w->ev == &w->view[0] ?
				   &w->view[1] : &w->view[0]);
	return TTEXPORT_EVENT;
}
