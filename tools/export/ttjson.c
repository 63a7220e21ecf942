/*
 * ttjson.c: `ttdecode json [--from NS] [--to NS] TRACE OUT.json`, the
 * trace as Chrome Trace Event JSON for Perfetto UI and chrome://tracing
 * (what it writes: docs/ttdecode.md, "json"; the format: Chromium's "Trace
 * Event Format" document, phases M, X, i and C):
 *
 *	{"traceEvents":[
 *	{"ph":"M","name":"process_name","pid":0,"tid":2147483648,
 *	 "args":{"name":"kernel"}},
 *	{"ph":"M","name":"thread_name","pid":0,"tid":2147483648,
 *	 "args":{"name":"CPU 0"}},
 *	{"ph":"X","name":"read","cat":"syscall","ts":12.345,"dur":1.500,
 *	 "pid":3,"tid":3,"args":{"cpu":0,"pid":3,"process":"ls"}},
 *	...],"displayTimeUnit":"ns"}
 *
 * The tracks are those of the trace's model (ttmodel.h, one for every
 * export): the process "kernel" (pid 0, Linux's) with a thread per CPU
 * ("CPU n", tid: the trace's id of the CPU's idle task,
 * TTRACE_IDLE_PID(n)) holding the processes' runs (named by the
 * process), interrupts, exceptions, kernel functions outside a process,
 * each declared loss as a slice over the time it fell in, and every other
 * event as an instant named by its event (a marker by its text), and a
 * thread per CPU ("CPU n boot", tid TTRACE_IDLE_PID(n) | 0x40000000)
 * holding its boot phases; and per traced process (its own pid, "NAME
 * [pid]") its syscalls, each one slice from enter to exit, and its
 * kernel functions.
 * Each wakeup (sched_waking) is a flow arrow (phases s and f, one id)
 * from the waker's slice on its CPU's track to the wakee's next run.
 * A span cut by a loss or the trace's end has "unfinished":true, one an
 * enclosing span's end cut "clipped":true. Slices nest per track and
 * come, per track, in rising start order; lock waits and page
 * allocations also feed counter tracks. Times are microseconds since
 * boot with three decimals (exact ns). --from/--to keep a window,
 * clipping the slices that cross its edges.
 *
 * The file is written as a stream through one 64 KiB buffer (appends are
 * memcpy, not stdio calls); nothing holds the whole output.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttfilter.h"
#include "ttmodel.h"

#define JSON_PID	0		/* "kernel" (Linux's pid 0): a thread
					   per CPU and per CPU's boot */
#define JSON_CPU_TID(c)	TTRACE_IDLE_PID(c) /* "CPU n": its idle task's id */
#define JSON_BOOT_TID(c) (TTRACE_IDLE_PID(c) | 0x40000000u) /* "CPU n boot" */

/* Counter tracks: an event's argument as a value, or pages as a delta, or
 * (the counter event, docs/probes.md) a value on the track its first
 * argument names (aux tag counter). */
enum { COUNT_VALUE, COUNT_PAGES_UP, COUNT_PAGES_DOWN, COUNT_NAMED };

static const struct counter_def {
	const char *event, *track, *series;
	unsigned arg;			/* the argument word */
	int how;
} counters[] = {
	{ "spin_contended", "lock wait", "cycles", 1, COUNT_VALUE },
	{ "rwlock_contended", "lock wait", "cycles", 1, COUNT_VALUE },
	{ "page_alloc", "pages allocated (net)", "pages", 0, COUNT_PAGES_UP },
	{ "page_free", "pages allocated (net)", "pages", 1, COUNT_PAGES_DOWN },
	{ "counter", NULL, "value", 1, COUNT_NAMED },
};
#define NCOUNTERS	(sizeof(counters) / sizeof(counters[0]))

struct json {
	const struct ttload *t;
	const struct ttfilter *f;
	const struct ttmodel *m;
	struct ttout o;
	bool first;			/* no event written yet */
	uint32_t counter_id[NCOUNTERS];	/* event id per counter, or max */
	uint32_t marker_id;		/* user_marker's id, or max */
	uint32_t waking_id;		/* sched_waking's (comm pid ...),
					   or max */
	struct json_run *runs;		/* the processes' runs on the CPUs,
					   by (pid, start) */
	uint64_t nruns;
	int64_t pages;			/* COUNT_PAGES running sum */
	uint64_t slices, points, losses, flows;
};

/* A thread's run on a CPU (the model's run spans). */
struct json_run {
	uint64_t pid, start;
	uint32_t cpu;
};

/* ---- writing ------------------------------------------------------------- */

static void put_n(struct json *j, const char *s, size_t n)
{
	ttout_write(&j->o, s, n);
}

static void put_c(struct json *j, char c)
{
	ttout_putc(&j->o, c);
}

static void put(struct json *j, const char *s)
{
	put_n(j, s, strlen(s));
}

static void put_u64(struct json *j, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_n(j, p, (size_t)(buf + sizeof(buf) - p));
}

/* A JSON string of the len bytes at s: quotes and backslashes escaped,
 * control and non-ASCII bytes as '?', as the text decoder shows them. */
static void put_str(struct json *j, const char *s, size_t len)
{
	put_c(j, '"');
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '"' || c == '\\')
			put_c(j, '\\');
		put_c(j, c >= 0x20 && c <= 0x7e ? c : '?');
	}
	put_c(j, '"');
}

/* ns as microseconds with 3 decimals (exact). */
static void put_us(struct json *j, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	char frac[5] = { '.', (char)('0' + a / 100 % 10),
			 (char)('0' + a / 10 % 10), (char)('0' + a % 10), 0 };

	if (ns < 0)
		put_c(j, '-');
	put_u64(j, a / 1000);
	put(j, frac);
}

/* ts as microseconds since boot; a duration as the difference of its
 * ends' times, so that ts + dur is exactly the end's time. */
static void put_time(struct json *j, uint64_t ts)
{
	put_us(j, ttmodel_ns(j->t, ts));
}

static void put_dur(struct json *j, uint64_t start, uint64_t end)
{
	put_us(j, (int64_t)ttmodel_span_ns(j->t, start, end));
}

/* Starts an event: {"ph":PH,"name":NAME (len bytes),"cat":CAT,"pid":PID,
 * "tid":TID,"ts":TS; the caller adds the rest and the closing brace. */
static void begin(struct json *j, const char *ph, const char *name,
		  size_t len, const char *cat, uint64_t pid, uint64_t tid,
		  uint64_t ts)
{
	put(j, j->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	j->first = false;
	put(j, ph);
	put(j, "\",\"name\":");
	put_str(j, name, len);
	put(j, ",\"cat\":\"");
	put(j, cat);
	put(j, "\",\"pid\":");
	put_u64(j, pid);
	put(j, ",\"tid\":");
	put_u64(j, tid);
	put(j, ",\"ts\":");
	put_time(j, ts);
}

/* The name of (tag, ident) at ts into buf, or fallback and the number. */
static size_t name_of(const struct json *j, unsigned tag, uint64_t ident,
		      uint64_t ts, const char *fallback, char *buf, size_t n,
		      const char **name)
{
	size_t len = ttload_resolve((void *)j->t, tag, ident, ts, name);

	if (len)
		return len;
	*name = buf;
	return (size_t)snprintf(buf, n, "%s%llu", fallback, ull(ident));
}

/* ---- spans, points, losses ---------------------------------------------- */

/* The JSON category of span s: its kind's name, but a process's run is
 * in the sched category, where Perfetto and Chrome look for it. */
static const char *span_cat(const struct ttmodel_span *s)
{
	return s->kind == TTMODEL_RUN ? "sched" : ttmodel_kinds[s->kind].name;
}

/* The JSON process and thread of a model track (docs/exports.md): a
 * process's own pid, or the kernel's threads of a CPU. */
static void track_ids(const struct ttmodel_track *k, uint64_t *pid,
		      uint64_t *tid)
{
	bool proc = k->kind == TTMODEL_THREAD && k->id < TTRACE_IDLE_PID(0);

	*pid = proc ? k->id : JSON_PID;		/* an idle thread: its CPU's */
	*tid = k->kind == TTMODEL_THREAD ? k->id : k->kind == TTMODEL_CPU ?
	       JSON_CPU_TID(k->id) : JSON_BOOT_TID(k->id);
}

static void span_args(struct json *j, const struct ttmodel_span *s)
{
	const char *proc;
	size_t len;

	put(j, ",\"args\":{\"cpu\":");
	put_u64(j, s->cpu);
	if (s->kind == TTMODEL_IRQ || s->kind == TTMODEL_EXCEPTION) {
		put(j, ",\"vector\":");
		put_u64(j, s->ident);
	}
	if (s->pid) {
		put(j, ",\"pid\":");
		put_u64(j, s->pid);
		len = ttload_resolve((void *)j->t, TTRACE_AUX_PROC_NAME, s->pid,
				     s->start, &proc);
		if (len) {
			put(j, ",\"process\":");
			put_str(j, proc, len);
		}
	}
	if (s->how == TTMODEL_CLIPPED)
		put(j, ",\"clipped\":true");
	else if (s->how == TTMODEL_UNFINISHED)
		put(j, ",\"unfinished\":true");
	put(j, "}}");
}

static void put_span(struct json *j, const struct ttmodel_track *k,
		     const struct ttmodel_span *s)
{
	uint64_t start = MAX(s->start, j->f->from_ts);
	uint64_t end = MIN(s->end, j->f->to_ts), pid, tid;
	const char *name;
	char buf[48];
	size_t len;

	if (start > end)
		return;
	if (!(len = ttmodel_span_name(j->m, s, &name))) {
		name = buf;
		len = (size_t)snprintf(buf, sizeof(buf), "%s %llu",
				       ttmodel_kinds[s->kind].ident,
				       ull(s->ident));
	}
	track_ids(k, &pid, &tid);
	begin(j, "X", name, len, span_cat(s), pid, tid, start);
	put(j, ",\"dur\":");
	put_dur(j, start, end);
	span_args(j, s);
	j->slices++;
}

/* A counter sample for ev if it feeds a counter track. */
static void counter(struct json *j, uint32_t cpu,
		    const struct ttrace_event_view *ev)
{
	for (size_t k = 0; k < NCOUNTERS; k++) {
		const struct counter_def *d = &counters[k];
		uint64_t v = ev->args[d->arg];
		bool pages = d->how == COUNT_PAGES_UP ||
			     d->how == COUNT_PAGES_DOWN;
		const char *track = d->track;
		size_t len;
		char buf[32];

		if (ev->id != j->counter_id[k])
			continue;
		if (pages)
			j->pages += (d->how == COUNT_PAGES_UP ? 1 : -1) *
				    (int64_t)(1ULL << (v & 31));
		if (d->how == COUNT_NAMED)
			len = name_of(j, TTRACE_AUX_COUNTER_NAME, ev->args[0],
				      ev->timestamp, "counter#", buf,
				      sizeof(buf), &track);
		else
			len = strlen(track);
		begin(j, "C", track, len, "counter", JSON_PID,
		      JSON_CPU_TID(cpu), ev->timestamp);
		put(j, ",\"args\":{\"");
		put(j, d->series);
		put(j, "\":");
		if (pages && j->pages < 0)
			put_c(j, '-');
		put_u64(j, !pages ? v : j->pages < 0 ?
			(uint64_t)-j->pages : (uint64_t)j->pages);
		put(j, "}}");
	}
}

/* An event that is no span's end: an instant on its CPU's track. */
static void put_point(struct json *j, uint32_t cpu,
		      const struct ttrace_event_view *ev)
{
	const struct ttrace_event_meta *m = &j->t->meta.events[ev->id];
	char text[1024], ctx[512];
	const char *name = m->name ? m->name : "event";
	size_t len = strlen(name);

	if (!ttfilter_time(j->f, ev->timestamp))
		return;
	if (ev->id == j->marker_id && (!ev->nwords ||
	    !(len = ttload_resolve((void *)j->t, TTRACE_AUX_USER_MARKER,
				   ev->args[0], ev->timestamp, &name))))
		name = "marker", len = 6;
	begin(j, "i", name, len, "event", JSON_PID, JSON_CPU_TID(cpu),
	      ev->timestamp);
	ttrace_format_args(text, sizeof(text), m, ev, ttload_resolve,
			   (void *)j->t);
	ttrace_format_ctx(ctx, sizeof(ctx), ev, ttload_resolve, (void *)j->t);
	put(j, ",\"s\":\"t\",\"args\":{\"event\":");
	put_str(j, m->name ? m->name : "?", m->name ? strlen(m->name) : 1);
	put(j, ",\"text\":");
	put_str(j, text, strlen(text));
	put(j, ",\"context\":");
	put_str(j, ctx, strlen(ctx));
	put(j, "}}");
	counter(j, cpu, ev);
	j->points++;
}

/* A declared loss: a slice on its CPU's track over the time it fell in
 * (from the CPU's last event before it to its first after). */
static void put_loss(struct json *j, uint32_t cpu, const struct ttmodel_loss *l)
{
	uint64_t start = MAX(l->start, j->f->from_ts);
	uint64_t end = MIN(l->end, j->f->to_ts);
	char name[96];
	int n;

	if (start > end)
		return;
	n = snprintf(name, sizeof(name), "%llu records lost (%s%s)",
		     ull(l->count), ttrace_loss_name(l->reason),
		     l->before_trace ? " before the trace" : "");
	begin(j, "X", name, (size_t)n, "loss", JSON_PID, JSON_CPU_TID(cpu),
	      start);
	put(j, ",\"dur\":");
	put_dur(j, start, end);
	put(j, ",\"args\":{\"count\":");
	put_u64(j, l->count);
	put(j, ",\"reason\":\"");
	put(j, ttrace_loss_name(l->reason));
	put(j, l->before_trace ? "\",\"before_trace\":true}}" : "\"}}");
	j->losses++;
}

/* ---- the command --------------------------------------------------------- */

/* A process_name or thread_name record. */
static void meta_name(struct json *j, const char *what, uint64_t pid,
		      uint64_t tid, const char *name, size_t len)
{
	begin(j, "M", what, strlen(what), "meta", pid, tid,
	      j->t->version.tsc_boot);
	put(j, ",\"args\":{\"name\":");
	put_str(j, name, len);
	put(j, "}}");
}

/* The names of the processes and threads the tracks are: "kernel" (pid
 * 0) with threads "CPU n" and "CPU n boot" per CPU, and per traced
 * process its name and pid. */
static void metadata(struct json *j)
{
	char name[64];
	int n;

	meta_name(j, "process_name", JSON_PID, JSON_CPU_TID(0), "kernel", 6);
	for (uint32_t c = 0; c < j->t->version.num_cpus; c++) {
		n = snprintf(name, sizeof(name), "CPU %u", c);
		meta_name(j, "thread_name", JSON_PID, JSON_CPU_TID(c), name,
			  (size_t)n);
		n = snprintf(name, sizeof(name), "CPU %u boot", c);
		meta_name(j, "thread_name", JSON_PID, JSON_BOOT_TID(c), name,
			  (size_t)n);
	}
	for (uint32_t i = 0; i < j->m->ntracks; i++) {
		const struct ttmodel_track *k = &j->m->tracks[i];
		uint64_t pid, tid;
		const char *proc;
		size_t len;

		if (k->kind != TTMODEL_THREAD || k->id >= TTRACE_IDLE_PID(0))
			continue;	/* an idle thread is its CPU's track */
		track_ids(k, &pid, &tid);
		len = ttload_resolve((void *)j->t, TTRACE_AUX_PROC_NAME, k->id,
				     k->nspans ? k->spans[0].start : 0, &proc);
		n = snprintf(name, sizeof(name), "%.*s [%u]", (int)MIN(len, 40),
			     len ? proc : "pid", k->id);
		meta_name(j, "process_name", pid, tid, name, (size_t)n);
		meta_name(j, "thread_name", pid, tid, name, (size_t)n);
	}
}

static void find_counters(struct json *j)
{
	j->marker_id = (uint32_t)ttexport_event_id(&j->t->meta,
						   "user_marker");
	for (size_t k = 0; k < NCOUNTERS; k++) {
		j->counter_id[k] = UINT32_MAX;
		for (uint32_t i = 0; i < j->t->meta.nevents; i++)
			if (j->t->meta.events[i].name &&
			    !strcmp(j->t->meta.events[i].name, counters[k].event))
				j->counter_id[k] = i;
	}
}

/* ---- wakeups as flows ----------------------------------------------------- */

static int by_pid_start(const void *a, const void *b)
{
	const struct json_run *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every run span of the CPU tracks, by (pid, start), for wakeup flows;
 * none without sched_waking. Returns 0 or -1 (memory). */
static int find_runs(struct json *j)
{
	const struct ttmodel *m = j->m;
	int id = ttexport_event_id(&j->t->meta, "sched_waking");
	uint64_t n = 0;

	j->waking_id = id >= 0 && ttexport_args_are(&j->t->meta.events[id],
			"comm pid") ? (uint32_t)id : UINT32_MAX;
	if (j->waking_id == UINT32_MAX)
		return 0;
	for (uint32_t c = 0; c < j->t->version.num_cpus; c++)
		n += m->tracks[m->cpus[c].track].nspans;
	if (n && !(j->runs = malloc(n * sizeof(*j->runs))))
		return -1;
	for (uint32_t c = 0; c < j->t->version.num_cpus; c++) {
		const struct ttmodel_track *k = &m->tracks[m->cpus[c].track];

		for (uint64_t i = 0; i < k->nspans; i++)
			if (k->spans[i].kind == TTMODEL_RUN)
				j->runs[j->nruns++] = (struct json_run){
					k->spans[i].ident, k->spans[i].start, c };
	}
	if (j->nruns)
		qsort(j->runs, j->nruns, sizeof(*j->runs), by_pid_start);
	return 0;
}

/* The first run of pid starting at or after ts, or NULL. */
static const struct json_run *next_run(const struct json *j, uint64_t pid,
				       uint64_t ts)
{
	uint64_t lo = 0, hi = j->nruns;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const struct json_run *r = &j->runs[mid];

		if (r->pid < pid || (r->pid == pid && r->start < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->nruns && j->runs[lo].pid == pid ? &j->runs[lo] : NULL;
}

/* A wakeup on CPU c (sched_waking ev) as a flow arrow: from the waker's
 * run (or interrupt) on c's track to the wakee's next run, where its
 * slice begins, on the track of the CPU it ran on. */
static void put_flow(struct json *j, uint32_t c,
		     const struct ttrace_event_view *ev)
{
	const struct json_run *r = next_run(j, ev->args[1], ev->timestamp);

	if (!r || !ttfilter_time(j->f, ev->timestamp) ||
	    !ttfilter_time(j->f, r->start))
		return;
	begin(j, "s", "wakeup", 6, "sched", JSON_PID, JSON_CPU_TID(c),
	      ev->timestamp);
	put(j, ",\"id\":");
	put_u64(j, ++j->flows);
	put(j, "}");
	begin(j, "f", "wakeup", 6, "sched", JSON_PID, JSON_CPU_TID(r->cpu),
	      r->start);
	put(j, ",\"bp\":\"e\",\"id\":");
	put_u64(j, j->flows);
	put(j, "}");
}

/* CPU c's track: its spans, events and losses merged by start time. */
static void cpu_track(struct json *j, uint32_t c)
{
	const struct ttmodel_track *k = &j->m->tracks[j->m->cpus[c].track];
	const struct ttmodel_cpu *mc = &j->m->cpus[c];
	const struct ttload_cpu *lc = &j->t->cpus[c];
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t s = 0, l = 0;
	bool have;

	ttrace_pair_init(&it, lc->sorted, lc->nsorted, &j->t->meta);
	do {
		have = ttrace_pair_next(&it, &ev);
		while (s < k->nspans || l < mc->nlosses) {
			uint64_t ts = have ? ev.timestamp : UINT64_MAX;
			bool span = s < k->nspans && (l == mc->nlosses ||
				    k->spans[s].start <= mc->losses[l].start);

			if ((span ? k->spans[s].start : mc->losses[l].start) > ts)
				break;
			if (span)
				put_span(j, k, &k->spans[s++]);
			else
				put_loss(j, c, &mc->losses[l++]);
		}
		if (have && !ttmodel_is_span_event(j->m, ev.id))
			put_point(j, c, &ev);
		if (have && ev.id == j->waking_id && ev.nwords >= 3)
			put_flow(j, c, &ev);
	} while (have);
}

/* Writes the whole JSON file of t to j->o. Returns 0 or -1 (memory). */
static int json_write(struct json *j)
{
	struct ttmodel m;

	find_counters(j);
	if (ttmodel_build(&m, j->t) < 0)
		return -1;
	j->m = &m;
	if (find_runs(j) < 0) {
		ttmodel_free(&m);
		return -1;
	}
	put(j, "{\"traceEvents\":[");
	metadata(j);
	for (uint32_t c = 0; c < j->t->version.num_cpus; c++)
		cpu_track(j, c);
	for (uint32_t i = 0; i < m.ntracks; i++)
		if (m.tracks[i].kind != TTMODEL_CPU)
			for (uint64_t k = 0; k < m.tracks[i].nspans; k++)
				put_span(j, &m.tracks[i], &m.tracks[i].spans[k]);
	put(j, "\n],\"displayTimeUnit\":\"ns\"}\n");
	ttout_flush(&j->o);
	printf("json: %llu slices, %llu instants, %llu losses, %llu wakeup "
	       "flows; %llu spans clipped, %llu unfinished, %llu exits "
	       "without enter dropped, %llu enters too deep\n",
	       ull(j->slices), ull(j->points), ull(j->losses), ull(j->flows),
	       ull(m.counts.clipped), ull(m.counts.unfinished),
	       ull(m.counts.unmatched_exits), ull(m.counts.too_deep));
	ttmodel_free(&m);
	free(j->runs);
	return 0;
}

static int ttdecode_json(int argc, char **argv)
{
	static char obuf[TTOUT_SIZE];
	struct json j = { .first = true, .o.buf = obuf };
	struct ttfilter f;
	struct ttload t;
	int rc;

	if ((rc = ttdecode_open("json", &argc, argv, TTFILTER_WINDOW, 2,
				"TRACE and OUT.json", &f, &t)))
		return rc;
	j.t = &t;
	j.f = &f;
	j.o.f = fopen(argv[1], "w");
	if (!j.o.f) {
		perror(argv[1]);
		ttdecode_close(&f, &t);
		return 1;
	}
	rc = json_write(&j);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	if (fclose(j.o.f) || rc < 0 || j.o.failed) {
		fprintf(stderr, "ttdecode: %s: write failed\n", argv[1]);
		rc = 1;
	}
	ttdecode_close(&f, &t);
	return rc;
}

static const struct ttdecode_command cmd_json = {
	"json", 2, ttdecode_json, "json [--from NS] [--to NS] TRACE OUT.json" };
TTDECODE_COMMAND(cmd_json);
