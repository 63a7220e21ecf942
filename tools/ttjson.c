/*
 * ttjson.c: `ttdecode json [--from NS] [--to NS] TRACE OUT.json`, the
 * trace as Chrome Trace Event JSON for Perfetto UI and chrome://tracing
 * (facts in ../shared/reference/export-formats.md):
 *
 *	{"traceEvents":[
 *	{"ph":"M","name":"process_name","pid":1,"tid":1,"args":{"name":"kernel"}},
 *	{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"CPU 0"}},
 *	{"ph":"X","name":"read","cat":"syscall","ts":12.345,"dur":1.500,
 *	 "pid":1,"tid":1,"args":{"pid":3,"process":"ls"}},
 *	...],"displayTimeUnit":"ns"}
 *
 * One process "kernel" (pid 1), one thread track per CPU (tid cpu + 1,
 * "CPU n"). The slices of ttspan.h become X events (a process's run named
 * by the process, syscalls by the syscall, interrupts and exceptions by
 * the aux irq name or vector, boot phases by phase), properly nested per
 * track and, per track, in rising start order; every other event is an
 * instant (a marker named by its text), and so is each declared loss;
 * lock waits and page allocations also feed counter tracks. Times are
 * microseconds since boot with three decimals (exact ns). --from/--to
 * keep a window, clipping the slices that cross its edges.
 *
 * The file is written as a stream through one 1 MiB buffer (appends are
 * memcpy, not stdio calls); nothing holds the whole output.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttfilter.h"
#include "ttmerge.h"
#include "ttspan.h"

#define JSON_PID	1

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
	struct ttout o;
	bool first;			/* no event written yet */
	uint32_t counter_id[NCOUNTERS];	/* event id per counter, or max */
	int64_t pages;			/* COUNT_PAGES running sum */
	uint64_t slices, points, losses;
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

/* ts in nanoseconds since boot (negative before boot). */
static int64_t ns_of(const struct json *j, uint64_t ts)
{
	uint64_t boot = j->t->version.tsc_boot, hz = j->t->version.tsc_hz;
	uint64_t d = ts >= boot ? ts - boot : boot - ts;
	int64_t ns = (int64_t)(hz ? ttrace_ticks_to_ns(d, hz) : d);

	return ts >= boot ? ns : -ns;
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
	put_us(j, ns_of(j, ts));
}

static void put_dur(struct json *j, uint64_t start, uint64_t end)
{
	put_us(j, ns_of(j, end) - ns_of(j, start));
}

/* Starts an event: {"ph":PH,"name":NAME (len bytes),"cat":CAT,"pid":1,
 * "tid":cpu+1,"ts":TS; the caller adds the rest and the closing brace. */
static void begin(struct json *j, const char *ph, const char *name,
		  size_t len, const char *cat, uint32_t cpu, uint64_t ts)
{
	put(j, j->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	j->first = false;
	put(j, ph);
	put(j, "\",\"name\":");
	put_str(j, name, len);
	put(j, ",\"cat\":\"");
	put(j, cat);
	put(j, "\",\"pid\":1,\"tid\":");
	put_u64(j, (uint64_t)cpu + 1);
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

/* ---- slices, points, losses ---------------------------------------------- */

static const char *const kind_cat[TTSPAN_NKINDS] = {
	[TTSPAN_BOOT] = "boot", [TTSPAN_RUN] = "sched",
	[TTSPAN_SYSCALL] = "syscall", [TTSPAN_IRQ] = "irq",
	[TTSPAN_EXCEPTION] = "exception",
};

/* The slice's name: its process, syscall, interrupt or boot phase. */
static size_t slice_name(const struct json *j, const struct ttspan_slice *s,
			 char *buf, size_t n, const char **name)
{
	switch (s->kind) {
	case TTSPAN_BOOT:
		return name_of(j, TTRACE_AUX_BOOT_PHASE, s->ident, s->start,
			       "phase ", buf, n, name);
	case TTSPAN_RUN:
		return name_of(j, TTRACE_AUX_PROC_NAME, s->ident, s->start,
			       "pid ", buf, n, name);
	case TTSPAN_SYSCALL:
		return name_of(j, TTRACE_AUX_SYSCALL_NAME, s->ident, s->start,
			       "syscall ", buf, n, name);
	default:
		return name_of(j, TTRACE_AUX_IRQ_NAME, s->ident, s->start,
			       s->kind == TTSPAN_IRQ ? "irq " : "exception ",
			       buf, n, name);
	}
}

static void slice_args(struct json *j, const struct ttspan_slice *s)
{
	const char *proc;
	size_t len;

	put(j, ",\"args\":{");
	if (s->kind == TTSPAN_IRQ || s->kind == TTSPAN_EXCEPTION) {
		put(j, "\"vector\":");
		put_u64(j, s->ident);
		put(j, s->pid ? "," : "");
	}
	if (s->pid) {
		put(j, "\"pid\":");
		put_u64(j, s->pid);
		len = ttload_resolve((void *)j->t, TTRACE_AUX_PROC_NAME, s->pid,
				     s->start, &proc);
		if (len) {
			put(j, ",\"process\":");
			put_str(j, proc, len);
		}
	}
	if (s->flags & TTSPAN_CLIPPED)
		put(j, s->pid || s->kind >= TTSPAN_IRQ ? ",\"clipped\":true" :
		       "\"clipped\":true");
	if (s->flags & TTSPAN_RESUMED)
		put(j, ",\"resumed\":true");
	put(j, "}}");
}

static void on_slice(void *arg, const struct ttspan_slice *s)
{
	struct json *j = arg;
	uint64_t start = MAX(s->start, j->f->from_ts);
	uint64_t end = MIN(s->end, j->f->to_ts);
	const char *name;
	char buf[48];
	size_t len;

	if (start > end)
		return;
	len = slice_name(j, s, buf, sizeof(buf), &name);
	begin(j, "X", name, len, kind_cat[s->kind], s->cpu, start);
	put(j, ",\"dur\":");
	put_dur(j, start, end);
	slice_args(j, s);
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
		begin(j, "C", track, len, "counter", cpu, ev->timestamp);
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

static void on_point(void *arg, uint32_t cpu, const struct ttrace_event_view *ev)
{
	struct json *j = arg;
	const struct ttrace_event_meta *m = &j->t->meta.events[ev->id];
	char text[1024], ctx[512];
	const char *name = m->name ? m->name : "event";
	size_t len = strlen(name);

	if (!ttfilter_time(j->f, ev->timestamp))
		return;
	if (m->nargs == 1 && m->args && m->args[0].type == TTRACE_ARG_STR &&
	    m->args[0].aux_tag == TTRACE_AUX_USER_MARKER &&
	    !(len = ttload_resolve((void *)j->t, TTRACE_AUX_USER_MARKER,
				   ev->args[0], ev->timestamp, &name)))
		name = "marker", len = 6;
	begin(j, "i", name, len, "event", cpu, ev->timestamp);
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

static void on_loss(void *arg, uint32_t cpu, uint64_t ts,
		    const struct ttload_loss *l)
{
	struct json *j = arg;
	char name[96];
	int n;

	if (!ttfilter_time(j->f, ts))
		return;
	n = snprintf(name, sizeof(name), "%llu records lost (%s)",
		     ull(l->count), ttrace_loss_name(l->reason));
	begin(j, "i", name, (size_t)n, "loss", cpu, ts);
	put(j, ",\"s\":\"t\",\"args\":{\"count\":");
	put_u64(j, l->count);
	put(j, ",\"reason\":\"");
	put(j, ttrace_loss_name(l->reason));
	put(j, "\"}}");
	j->losses++;
}

/* ---- the command --------------------------------------------------------- */

static void metadata(struct json *j)
{
	char name[32];

	begin(j, "M", "process_name", 12, "meta", 0, j->t->version.tsc_boot);
	put(j, ",\"args\":{\"name\":\"kernel\"}}");
	for (uint32_t c = 0; c < j->t->version.num_cpus; c++) {
		int n = snprintf(name, sizeof(name), "CPU %u", c);

		begin(j, "M", "thread_name", 11, "meta", c, j->t->version.tsc_boot);
		put(j, ",\"args\":{\"name\":");
		put_str(j, name, (size_t)n);
		put(j, "}}");
	}
}

static void find_counters(struct json *j)
{
	for (size_t k = 0; k < NCOUNTERS; k++) {
		j->counter_id[k] = UINT32_MAX;
		for (uint32_t i = 0; i < j->t->meta.nevents; i++)
			if (j->t->meta.events[i].name &&
			    !strcmp(j->t->meta.events[i].name, counters[k].event))
				j->counter_id[k] = i;
	}
}

/* Writes the whole JSON file of t to j->o. Returns 0 or -1 (memory). */
static int json_write(struct json *j)
{
	struct ttspan_out out = { on_slice, on_point, on_loss, j };
	struct ttmerge m;
	struct ttmerge_item it;
	struct ttspan sp;

	find_counters(j);
	if (ttmerge_init(&m, j->t) < 0)
		return -1;
	if (ttspan_init(&sp, j->t, &out) < 0) {
		ttmerge_free(&m);
		return -1;
	}
	ttmerge_progress(&m, ttmerge_progress_wanted(j->t));
	put(j, "{\"traceEvents\":[");
	metadata(j);
	while (ttmerge_next(&m, &it)) {
		if (it.loss)
			ttspan_loss(&sp, it.cpu, it.loss);
		else
			ttspan_event(&sp, it.cpu, it.ev, it.entry);
	}
	ttspan_finish(&sp);
	put(j, "\n],\"displayTimeUnit\":\"ns\"}\n");
	ttout_flush(&j->o);
	printf("json: %llu slices, %llu instants, %llu losses; %llu slices "
	       "clipped, %llu exits without enter dropped, %llu enters too "
	       "deep\n", ull(j->slices), ull(j->points), ull(j->losses),
	       ull(sp.counts.clipped), ull(sp.counts.unmatched_exits),
	       ull(sp.counts.too_deep));
	ttspan_free(&sp);
	ttmerge_free(&m);
	return 0;
}

int ttdecode_json(int argc, char **argv)
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
