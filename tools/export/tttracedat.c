/*
 * tttracedat.c: `ttdecode tracedat TRACE OUT.dat`, a trace as a trace-cmd
 * trace.dat, version 6 (docs/exports.md; the layout: man 5
 * trace-cmd.dat.v6 and Linux's kernel/trace/ring_buffer.c), which
 * `trace-cmd report` and KernelShark read:
 *
 *	header		17 08 44 "tracing" "6", little endian, long 8, page 4096
 *	header_page, header_event	the ring buffer's page and event headers
 *			(kern/trace/lib/ftrace_event.c's, tracefs's)
 *	ftrace formats	print, funcgraph_entry, funcgraph_exit (Linux's)
 *	event formats	Linux's systems (sched, task, irq, power: the events
 *			of ours Linux has too, tttracedat_linux.c);
 *			system "ttrace": every other event of the trace's own
 *			metadata in the generic form (ttrace_ftevent.h), the
 *			text the kernel's tracefs serves for it
 *	kallsyms	the function names of the aux buffer (tag func)
 *	printk		empty
 *	cmdlines	"PID NAME" per named process (idle is pid 0)
 *	options, flyrecord	per CPU the offset and size of its pages
 *
 * A CPU's events become Linux's ring buffer pages, written by
 * kern/trace/lib/ftrace_page.c (ttrace_ftpage.h has the layout; the
 * kernel's trace_pipe_raw writes the same), times in ns since boot (the
 * trace's TSC rate). Each declared loss ends the page and the next one
 * carries its count, so `trace-cmd report` says "CPU:N [N EVENTS
 * DROPPED]" exactly between the two events it fell between.
 *
 * A record is the common header (u16 type, u8 flags, u8 preempt count,
 * s32 pid: the process running on the CPU, from the context word or the
 * last context switch; idle is 0) and the fields, written by
 * kern/trace/lib/ftrace_linux.c (Linux's events) or ftrace_event.c (the
 * generic form), as the kernel's trace_pipe_raw writes them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"
#include "tttracedat.h"

/* ---- the header sections ------------------------------------------------- */

void td_put(struct td_export *x, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, x->f) != n)
		x->failed = true;
}

static void td_u16(struct td_export *x, uint16_t v) { td_put(x, &v, 2); }
void td_u32(struct td_export *x, uint32_t v) { td_put(x, &v, 4); }
void td_u64(struct td_export *x, uint64_t v) { td_put(x, &v, 8); }

/* Appends the printf of fmt to b. */
void td_printf(struct td_text *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

/* Writes the text with its size first (a u64 or a u32) and empties it. */
void td_text_out(struct td_export *x, struct td_text *b, bool wide)
{
	if (b->oom)
		x->failed = true;
	if (wide)
		td_u64(x, b->len);
	else
		td_u32(x, (uint32_t)b->len);
	td_put(x, b->s, b->len);
	b->len = 0;
}

/* Writes the format file in s with its size first (a u64); a text cut
 * for want of room fails the export. */
void td_format_out(struct td_export *x, const struct seqbuf *s)
{
	if (seqbuf_overflowed(s))
		x->failed = true;
	td_u64(x, seqbuf_used(s));
	td_put(x, s->buf, seqbuf_used(s));
}

/* The ftrace formats, then the event systems: Linux's
 * (tttracedat_linux.c), then ttrace with every other event in the
 * generic form (ttrace_ftevent.h), the tree's format files' text. */
static void td_formats(struct td_export *x)
{
	const struct ttrace_meta_table *m = &x->t->meta;
	uint32_t own = 0;

	td_linux_ftrace(x);
	for (uint32_t i = 0; i < m->nevents; i++)
		own += !x->linux_of[i];
	td_u32(x, td_linux_nsystems(x) + 1);
	td_linux_systems(x);
	td_put(x, "ttrace", 7);
	td_u32(x, own);
	for (uint32_t i = 0; i < m->nevents; i++) {
		char text[TTRACE_FTEVENT_FORMAT_MAX];
		struct seqbuf s;

		if (x->linux_of[i])
			continue;
		seqbuf_init(&s, text, sizeof(text));
		ttrace_ftevent_format(&s, &m->events[i]);
		td_format_out(x, &s);
	}
}

static int td_by_ident(const void *a, const void *b)
{
	const struct ttload_name *x = *(const struct ttload_name *const *)a;
	const struct ttload_name *y = *(const struct ttload_name *const *)b;

	return x->ident < y->ident ? -1 : x->ident > y->ident;
}

/* Whether aux tag names a kernel address: a function of the graph, a
 * stack's symbol, a kernel message's function. */
static bool td_sym_tag(uint32_t tag)
{
	return tag == TTRACE_AUX_FUNC_NAME || tag == TTRACE_AUX_KSYM_NAME ||
	       tag == TTRACE_AUX_KMSG_NAME;
}

/* kallsyms: every kernel address the trace names (td_sym_tag), each
 * once (its newest name), by address, so report symbolizes a function,
 * a stack frame or a pointer (%pS) in any trace. */
static void td_kallsyms(struct td_export *x, struct td_text *b,
			const struct ttload_name *all, uint64_t nn)
{
	const struct ttload_name **sym = malloc((nn ? nn : 1) * sizeof(*sym));
	uint64_t n = 0;

	if (!sym) {
		x->failed = true;
		return;
	}
	for (uint64_t i = 0; i < nn; i++)
		if (td_sym_tag(all[i].tag) && all[i].ident &&
		    (i + 1 == nn || all[i + 1].tag != all[i].tag ||
		     all[i + 1].ident != all[i].ident))
			sym[n++] = &all[i];	/* the newest of its group */
	qsort(sym, n, sizeof(*sym), td_by_ident);
	for (uint64_t i = 0; i < n; i++)
		if (!i || sym[i]->ident != sym[i - 1]->ident)
			td_printf(b, "%016llx t %.*s\n", ull(sym[i]->ident),
				  (int)sym[i]->len, (const char *)sym[i]->str);
	free(sym);
	td_text_out(x, b, false);
}

/* kallsyms (td_kallsyms), then cmdlines from the process names (the
 * newest name of each pid; idle as pid 0). */
static void td_names(struct td_export *x, struct td_text *b)
{
	const struct ttload *t = x->t;
	uint64_t nn;
	const struct ttload_name *all = ttload_names(t, &nn);
	bool idle = false;

	if (!all)
		x->failed = true;
	td_kallsyms(x, b, all, all ? nn : 0);
	td_u32(x, 0);			/* printk formats: none */
	for (uint64_t i = 0; i < nn; i++) {
		const struct ttload_name *n = &all[i];
		char name[TTRACE_FTEVENT_STR_MAX];

		if (n->tag != TTRACE_AUX_PROC_NAME || n->ident > UINT32_MAX ||
		    (i + 1 < nn && n[1].tag == n->tag &&
		     n[1].ident == n->ident))
			continue;	/* not a pid's (an exec's file name), or
					   not its newest name */
		if (n->ident >= TTRACE_IDLE_PID(0)) {
			if (!idle)
				td_printf(b, "0 idle\n");
			idle = true;
			continue;
		}
		ttexport_name(name, sizeof(name), t, n->tag, n->ident, n->ts,
			      TTEXPORT_PRINTABLE);
		td_printf(b, "%llu %s\n", ull(n->ident), name);
	}
	td_text_out(x, b, true);
}

/* ---- pages ----------------------------------------------------------------- */

/* Writes the page (if one is open) with its commit word. */
static void td_page_end(struct td_export *x)
{
	if (!x->open)
		return;
	ttrace_ftpage_end(&x->p);
	x->lost += x->p.missed;
	td_put(x, x->page, TTRACE_FTPAGE_SIZE);
	x->pages++;
	x->open = false;
}

/* Starts a page carrying the declared losses since the last one. */
static void td_page_start(struct td_export *x)
{
	ttrace_ftpage_init(&x->p, x->page);
	ttrace_ftpage_lost(&x->p, x->missed);
	x->missed = 0;
	x->open = true;
}

/* Appends the record rec (n bytes, n <= TTRACE_FTPAGE_REC_MAX: it fits
 * an empty page) at time ns, in a new page when it does not fit. */
static void td_emit(struct td_export *x, uint64_t ns, const void *rec,
		    size_t n)
{
	if (!x->open)
		td_page_start(x);
	if (!ttrace_ftpage_add(&x->p, ns, rec, n)) {
		td_page_end(x);
		td_page_start(x);
		if (!ttrace_ftpage_add(&x->p, ns, rec, n))
			x->failed = true;
	}
	x->events++;
}

/* ---- records --------------------------------------------------------------- */

/* Linux's common_flags of the context ev was recorded in (report -l's
 * latency column): interrupts off, need resched (the type word's flags),
 * in a hard interrupt. */
static uint8_t td_flags(const struct ttrace_event_view *ev)
{
	return (ev->type & TTRACE_TYPE_IRQS_OFF ? TD_FLAG_IRQS_OFF : 0) |
	       (ev->type & TTRACE_TYPE_NEED_RESCHED ? TD_FLAG_NEED_RESCHED : 0) |
	       (ev->ctx_kind == TTRACE_CTX_IRQ || ev->depth ? TD_FLAG_HARDIRQ :
		0);
}

static void td_event(struct td_export *x, const struct ttrace_event_view *ev)
{
	uint8_t rec[TTRACE_FTPAGE_REC_MAX];
	uint64_t ns = ttexport_ns(x->t, ev->timestamp);
	size_t n;

	if (ev->id >= x->t->meta.nevents) {
		x->unknown++;
		return;
	}
	if (ev->ctx_kind == TTRACE_CTX_SYSC || ev->ctx_kind == TTRACE_CTX_TRAP)
		x->pid = ttrace_ftlinux_pid(TTRACE_CTX_PID(ev->context));
	else if (ev->ctx_kind == TTRACE_CTX_IDLE)
		x->pid = 0;
	if (!(n = td_linux_record(x, rec, ev, ns)))
		n = ttrace_ftevent_record(rec, &x->t->meta.events[ev->id], ev,
					  x->pid, ttload_resolve, x->t);
	rec[2] = td_flags(ev);
	if (x->open && ns < x->p.last)
		ns = x->p.last;		/* a record before boot: time 0 */
	td_emit(x, ns, rec, n);
}

/* Writes cpu's pages: its events with the model's losses in the walk's
 * order; each loss ends the page, the next one carries its count. */
static void td_cpu(struct td_export *x, uint32_t cpu)
{
	const struct ttmodel_cpu *mc = &x->m->cpus[cpu];
	struct ttexport_walk w;
	enum ttexport_item k;
	uint64_t l = 0;

	x->open = false;
	x->missed = 0;
	x->pid = 0;
	ttexport_walk_init(&w, x->t, cpu);
	while ((k = ttexport_walk_next(&w)) != TTEXPORT_END) {
		if (k == TTEXPORT_EVENT) {
			td_event(x, w.ev);
		} else if (l < mc->nlosses) {
			td_page_end(x);
			x->missed += mc->losses[l++].count;
		}
	}
	/* losses after the last event: a page of their own (one holding
	 * events since the last loss is still open: it carries them) */
	if (x->missed && !x->open) {
		td_page_start(x);
		ttrace_ftpage_stamp(&x->p, ttexport_ns(x->t, mc->last_ts));
	}
	td_page_end(x);
}

/* ---- options ------------------------------------------------------------- */

enum {
	TD_OPT_DONE = 0, TD_OPT_CPUSTAT = 2, TD_OPT_TRACECLOCK = 4,
	TD_OPT_UNAME = 5,
};

/* The option id holding the text in b (empties it). */
static void td_option(struct td_export *x, uint16_t id, struct td_text *b)
{
	if (b->oom)
		x->failed = true;
	td_u16(x, id);
	td_u32(x, (uint32_t)b->len);
	td_put(x, b->s, b->len);
	b->len = 0;
}

/* ns as Linux's stats print a time: seconds.microseconds. */
static void td_stat_ts(struct td_text *b, const char *what, uint64_t ns)
{
	td_printf(b, "%s: %5llu.%06llu\n", what, ull(ns / 1000000000),
		  ull(ns / 1000 % 1000000));
}

/*
 * The options trace-cmd report shows: per CPU its stats as Linux's
 * per_cpu/cpuN/stats reads (--stat): read events are its events,
 * overrun the records its declared losses took (report's EVENTS
 * DROPPED, all reasons), dropped events those its ring refused when full
 * (the trace's STATS), entries and bytes (left unread in the ring) 0;
 * the clock (ns: "local", as report reads it); and a uname naming the Linux
 * release whose event formats the file follows.
 */
static void td_options(struct td_export *x, struct td_text *b)
{
	for (uint32_t c = 0; c < x->t->version.num_cpus; c++) {
		const struct ttmodel_cpu *mc = &x->m->cpus[c];
		const struct ttload_cpu *lc = &x->t->cpus[c];
		uint64_t lost = 0;
		uint64_t first = lc->nsorted ? lc->sorted[0].timestamp : 0;

		for (uint64_t l = 0; l < mc->nlosses; l++)
			lost += mc->losses[l].count;
		td_printf(b, "CPU: %u\nentries: 0\noverrun: %llu\n"
			  "commit overrun: 0\nbytes: 0\n", c, ull(lost));
		td_stat_ts(b, "oldest event ts", ttexport_ns(x->t, first));
		td_stat_ts(b, "now ts", ttexport_ns(x->t, mc->last_ts));
		td_printf(b, "dropped events: %llu\nread events: %llu\n",
			  ull(lc->has_stats ? lc->stats.dropped : 0),
			  ull(mc->events));
		td_option(x, TD_OPT_CPUSTAT, b);
	}
	td_printf(b, "[local] global counter uptime perf mono mono_raw boot"
		  "\n");
	td_option(x, TD_OPT_TRACECLOCK, b);
	td_printf(b, "ttrace guest " TD_RELEASE " #1 x86_64");
	td_option(x, TD_OPT_UNAME, b);
	td_u16(x, TD_OPT_DONE);
}

/* Pads the file with zeros to a page boundary. Returns the offset. */
static uint64_t td_align(struct td_export *x)
{
	static const uint8_t zero[TTRACE_FTPAGE_SIZE];
	long off = ftell(x->f);

	if (off < 0) {
		x->failed = true;
		return 0;
	}
	td_put(x, zero, (TTRACE_FTPAGE_SIZE - (size_t)off %
		       TTRACE_FTPAGE_SIZE) % TTRACE_FTPAGE_SIZE);
	return ((uint64_t)off + TTRACE_FTPAGE_SIZE - 1) / TTRACE_FTPAGE_SIZE *
	       TTRACE_FTPAGE_SIZE;
}

static void td_write(struct td_export *x)
{
	uint32_t ncpus = x->t->version.num_cpus;
	struct td_text b = { 0 };
	uint64_t *where = calloc(2 * (size_t)ncpus + 1, 8);
	long table;

	if (!where) {
		x->failed = true;
		return;
	}
	td_put(x, "\x17\x08\x44tracing", 10);
	td_put(x, "6", 2);
	td_put(x, "\0\x08", 2);		/* little endian, long is 8 */
	td_u32(x, TTRACE_FTPAGE_SIZE);
	td_put(x, "header_page", 12);
	td_u64(x, strlen(ttrace_ftevent_header_page));
	td_put(x, ttrace_ftevent_header_page,
	       strlen(ttrace_ftevent_header_page));
	td_put(x, "header_event", 13);
	td_u64(x, strlen(ttrace_ftevent_header_event));
	td_put(x, ttrace_ftevent_header_event,
	       strlen(ttrace_ftevent_header_event));
	td_formats(x);
	td_names(x, &b);
	td_u32(x, ncpus);
	td_put(x, "options  ", 10);
	td_options(x, &b);
	free(b.s);
	td_put(x, "flyrecord", 10);
	table = ftell(x->f);
	td_put(x, where, 16 * (size_t)ncpus);	/* filled in below */
	for (uint32_t c = 0; c < ncpus && !x->failed; c++) {
		where[2 * c] = td_align(x);
		td_cpu(x, c);
		where[2 * c + 1] = (uint64_t)ftell(x->f) - where[2 * c];
	}
	if (table < 0 || fseek(x->f, table, SEEK_SET))
		x->failed = true;
	td_put(x, where, 16 * (size_t)ncpus);
	free(where);
}

/* Writes t (its model m) to the trace.dat out. */
static int td_run(struct ttload *t, const struct ttmodel *m,
		  const char *path, const char *out)
{
	struct td_export *x = calloc(1, sizeof(*x));
	int rc = -1;

	(void)path;
	if (!x) {
		fprintf(stderr, "ttdecode: out of memory\n");
		return -1;
	}
	x->t = t;
	x->m = m;
	if (td_linux_init(x) < 0) {
		fprintf(stderr, "ttdecode: out of memory\n");
	} else if (!(x->f = fopen(out, "wb"))) {
		fprintf(stderr, "ttdecode: %s: %s\n", out, strerror(errno));
	} else {
		setvbuf(x->f, NULL, _IOFBF, TTEXPORT_FILE_BUF);
		td_write(x);
		if (fclose(x->f) || x->failed) {
			fprintf(stderr, "ttdecode: %s: write error\n", out);
		} else {
			printf("tracedat: %s: %llu events in %llu pages on %u "
			       "CPUs, %llu with an unknown id skipped; %llu "
			       "records lost (declared, as missed events)\n",
			       out, ull(x->events), ull(x->pages),
			       t->version.num_cpus, ull(x->unknown),
			       ull(x->lost));
			rc = 0;
		}
	}
	td_linux_free(x);
	free(x);
	return rc;
}

/* ttdecode tracedat TRACE OUT.dat. */
static int tttracedat_main(int argc, char **argv)
{
	(void)argc;
	return ttexport_main(argv, false, td_run);
}

static const struct ttdecode_command cmd_tracedat = {
	"tracedat", 2, tttracedat_main, "tracedat TRACE OUT.dat" };
TTDECODE_COMMAND(cmd_tracedat);
