/*
 * tracefs_trace.c: the tree's trace, trace_pipe, per_cpu/cpuN/trace and
 * trace_pipe (docs/tracefs.md): every CPU's records merged by time, in
 * ftrace's text format (the `# tracer:` header, then
 * `TASK-PID [CPU] FLAGS SECS.USECS: NAME: ARGS` lines), read through the
 * same runs the cpuN files read (reader.c's ttrace_run_start/next) and
 * the same argument formatter (lib/decode.c's ttrace_format_args).
 *
 * With current_tracer function_graph at the first read, func_entry and
 * func_exit print as ftrace's function graph (`CPU) DURATION | fn() {`,
 * `}`, a leaf `fn();`: an entry whose CPU's next event is its exit), the
 * other events as comments.
 *
 * trace is a snapshot: each CPU up to its head at the first read.
 * snapshot reads the frozen copy (snapset.c) the tree's `echo 1 >
 * snapshot` or a snapshot trigger took, the same way.
 * trace_pipe is a stream that consumes: it starts where the last reader
 * of trace_pipe stopped (per CPU, pipe_next[]), and a read with nothing
 * new sleeps until there is (^C, a kill, ends it with EINTR). Its readers
 * take their blocks one at a time (pipe_lock), each first catching up
 * with the position the others (trace_pipe_raw's too) left, and claim a
 * run of records as they copy it, so two readers never show one record;
 * a block ends at the heads seen when it took the names, so every record
 * in it is named (a marker's text, its process).
 */
#include <kmalloc.h>
#include <pmem.h>
#include <proc.h>
#include <sched.h>
#include <seqbuf.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <abi/errno.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"
#include "tracefs.h"

#define RUN_EVENTS	16		/* events copied per run */
#define LINE_MAX	512
#define BLOCK		(RUN_EVENTS * LINE_MAX)
#define PIPE_NAP_NS	20000000	/* trace_pipe with nothing new: 20 ms */
#define GRAPH_DEPTH	64		/* entry times kept per CPU */

struct tfs_cpu {
	struct trace_ring_cursor cur;
	uint64_t end;
	struct trace_ring_patience wait;
	struct ttrace_pair_iter it;
	bool in_run;
	bool have;			/* ev is the next event */
	struct ttrace_event_view ev;
	uint64_t ts;			/* ev's time on CPU 0's clock */
	uint64_t entry_ts[GRAPH_DEPTH];	/* graph: each depth's open call */
	struct ttrace_entry buf[RUN_EVENTS * (1 + TTRACE_MAX_CONT)];
};

struct tracefs_trace {
	struct spinlock lock;
	bool pipe, started, header_done;
	bool snap;			/* the snapshot's copy: view */
	struct ttrace_snap_view view;
	bool graph;			/* function_graph's view */
	uint32_t func_entry, func_exit;	/* their ids (graph) */
	uint32_t cpu;			/* TRACEFS_ALL_CPUS or one */
	char *aux;			/* the names: an aux snapshot */
	unsigned aux_order;
	struct ttrace_aux_view names;
	struct ttrace_meta_snap *meta;
	char block[BLOCK];		/* lines made, not yet read */
	struct seqbuf lines;
	size_t pos;
	struct tfs_cpu *cpus;		/* [num_cpus] */
};

/* Where trace_pipe's and trace_pipe_raw's readers stopped, per CPU (0:
 * the clear point). */
static uint64_t pipe_next[CONFIG_MAX_NUM_CPUS];
/* Events they consumed, per CPU (stats' "read events"). */
uint64_t tracefs_read_events[CONFIG_MAX_NUM_CPUS];
/* Serialises trace_pipe's blocks: one reader catches up and claims at a
 * time. */
static struct spinlock pipe_lock = SPINLOCK_INIT("trace_pipe");

struct tracefs_trace *tracefs_trace_new(bool pipe, uint32_t cpu)
{
	struct tracefs_trace *t = kzmalloc(sizeof(*t));

	if (!t)
		return NULL;
	if (!(t->cpus = kzmalloc(num_cpus * sizeof(*t->cpus)))) {
		kfree(t);
		return NULL;
	}
	spinlock_init(&t->lock, "tracefs_trace");
	t->pipe = pipe;
	t->cpu = cpu;
	seqbuf_init(&t->lines, t->block, BLOCK);
	return t;
}

static void names_drop(struct tracefs_trace *t)
{
	if (t->aux)
		free_cont_pages(t->aux, t->aux_order);
	t->aux = NULL;
}

struct tracefs_trace *tracefs_trace_snap(void)
{
	struct tracefs_trace *t = tracefs_trace_new(false, TRACEFS_ALL_CPUS);

	if (t)
		t->snap = true;
	return t;
}

void tracefs_trace_free(struct tracefs_trace *t)
{
	if (!t)
		return;
	ttrace_snap_view_end(&t->view);
	names_drop(t);
	ttrace_meta_reader_end(t->meta);
	kfree(t->cpus);
	kfree(t);
}

/* A fresh snapshot of the names (aux): a pipe takes one whenever a ring
 * moved (pipe_catch_up()), so processes born meanwhile are named. */
static int names_take(struct tracefs_trace *t)
{
	names_drop(t);
	t->aux = tracefs_aux_take(&t->names, &t->aux_order);
	return t->aux ? 0 : -ENOMEM;
}

char *tracefs_aux_take(struct ttrace_aux_view *v, unsigned *order)
{
	uint64_t bytes, size, dropped;
	char *mem;

	ttrace_aux_usage(&ttrace_main, &bytes, &size, &dropped);
	*order = ttrace_order_for(size);
	if (!(mem = get_cont_pages(*order, 0)))
		return NULL;
	if (ttrace_aux_read(&ttrace_main, mem, size, v)) {
		free_cont_pages(mem, *order);
		return NULL;
	}
	return mem;
}

static bool reads_cpu(const struct tracefs_trace *t, uint32_t c)
{
	return t->cpu == TRACEFS_ALL_CPUS || t->cpu == c;
}

static enum ttrace_read_kind kind_of(const struct tracefs_trace *t)
{
	return t->pipe ? TTRACE_READ_STREAM : t->snap ? TTRACE_READ_SNAP :
	       TTRACE_READ_RAW;
}

static void start(struct tracefs_trace *t)
{
	if (t->snap)
		ttrace_snap_view_begin(&t->view, TTRACE_SNAP_PROBE);
	for (uint32_t c = 0; c < num_cpus; c++) {
		struct tfs_cpu *p = &t->cpus[c];

		if (!reads_cpu(t, c))
			continue;
		ttrace_run_start(&ttrace_main, kind_of(t), c, &p->cur, &p->end,
				 &p->wait);
		if (t->pipe && p->cur.next < tracefs_pipe_from(c)) {
			p->cur.next = tracefs_pipe_from(c);
			p->cur.after_loss = 1;
		}
	}
	t->meta = ttrace_meta_reader_begin();
	t->func_entry = t->func_exit = UINT32_MAX;
	for (uint32_t e = 0; e < t->meta->table->nevents; e++) {
		if (!strcmp(t->meta->table->events[e].name, "func_entry"))
			t->func_entry = e;
		if (!strcmp(t->meta->table->events[e].name, "func_exit"))
			t->func_exit = e;
	}
	t->graph = !strcmp(tracefs_current_tracer(), "function_graph");
}

/* The ftrace header of trace (none for trace_pipe). */
static void header(struct tracefs_trace *t)
{
	uint64_t in = 0, written = 0;

	for (uint32_t c = 0; c < num_cpus; c++) {
		struct trace_ring_stats st;

		if (!reads_cpu(t, c))
			continue;
		ttrace_ring_get_stats(&ttrace_main, c, &st);
		in += st.live;
		written += st.written;
	}
	if (t->graph) {
		seqbuf_printf(&t->lines, "# tracer: function_graph\n#\n"
			      "# CPU %s DURATION                  FUNCTION CALLS\n"
			      "# |   %s  |   |                     |   |   |   |\n",
			      tracefs_option_on(TFS_OPT_FUNCGRAPH_PROC) ?
			      "  TASK/PID      " : "",
			      tracefs_option_on(TFS_OPT_FUNCGRAPH_PROC) ?
			      "   |    |       " : "");
		return;
	}
	seqbuf_printf(&t->lines, "# tracer: %s\n#\n"
		"# entries-in-buffer/entries-written: %lu/%lu   #P:%u\n#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n",
		tracefs_current_tracer(), in, written, num_cpus);
}

/* Makes c's next event t->cpus[c].ev, or a loss line; false when c has
 * nothing more now. */
static bool cpu_next(struct tracefs_trace *t, uint32_t c)
{
	struct tfs_cpu *p = &t->cpus[c];
	struct trace_ring_run run;
	uint32_t k;

	while (!p->have) {
		if (p->in_run && ttrace_pair_next(&p->it, &p->ev)) {
			p->ts = ttrace_ts_on_cpu0(p->ev.timestamp,
						  tsc_offset[c]);
			p->have = true;
			break;
		}
		p->in_run = false;
		k = ttrace_run_next(&ttrace_main, kind_of(t), &t->view, c,
				    &p->cur, &p->end, &p->wait, p->buf,
				    ARRAY_SIZE(p->buf), &run, TTRACE_COPY_PLAIN,
				    TTRACE_BUSY_SPIN);
		if (k == TRACE_RUN_NONE)
			return false;
		if (k == TRACE_RUN_LOST) {	/* ftrace's own words */
			seqbuf_printf(&t->lines, "CPU:%u [LOST %lu EVENTS]\n", c,
				      run.count);
			continue;
		}
		ttrace_pair_init(&p->it, p->buf, run.count, t->meta->table);
		p->in_run = true;
		if (t->pipe)	/* claimed: no other reader shows them */
			tracefs_pipe_consumed(c, p->cur.next, 0);
	}
	return true;
}

/* The TASK-PID and the hardirq flag of ev's context. */
static void task_of(struct tracefs_trace *t, const struct ttrace_event_view *ev,
		    char *comm, size_t size, uint32_t *pid, char *irq)
{
	const char *s;
	size_t n = 0;
	unsigned tag = 0;

	*pid = 0;
	*irq = '.';
	switch (ev->ctx_kind) {
	case TTRACE_CTX_SYSC:
	case TTRACE_CTX_TRAP:
		*pid = TTRACE_CTX_PID(ev->context);
		tag = TTRACE_AUX_PROC_NAME;
		break;
	case TTRACE_CTX_KTASK:
		*pid = (uint32_t)ev->context;
		tag = TTRACE_AUX_KTHREAD_NAME;
		break;
	case TTRACE_CTX_IRQ:
		*irq = 'h';
		strlcpy(comm, "<irq>", size);
		return;
	case TTRACE_CTX_IDLE:
		strlcpy(comm, "<idle>", size);
		return;
	default:
		strlcpy(comm, "<boot>", size);
		return;
	}
	if (t->aux)
		n = ttrace_aux_resolve(&t->names, tag, *pid, ev->timestamp, &s);
	if (!n) {
		strlcpy(comm, "<...>", size);
		return;
	}
	n = MIN(n, size - 1);
	memcpy(comm, s, n);
	comm[n] = 0;
}

/* See internal.h. */
uint64_t tracefs_pipe_from(uint32_t cpu)
{
	return __atomic_load_n(&pipe_next[cpu], __ATOMIC_RELAXED);
}

/* See internal.h: the position only moves forward. */
void tracefs_pipe_consumed(uint32_t cpu, uint64_t next, uint64_t events)
{
	uint64_t old = tracefs_pipe_from(cpu);

	while (old < next && !__atomic_compare_exchange_n(&pipe_next[cpu],
		&old, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&tracefs_read_events[cpu], events, __ATOMIC_RELAXED);
}

/* trace_pipe: CPU c's events up to its cursor are consumed. */
static void consumed(struct tracefs_trace *t, uint32_t c)
{
	if (t->pipe)
		tracefs_pipe_consumed(c, t->cpus[c].cur.next, 1);
}

/* One event's line: `TASK-PID [CPU] dNh.. SECS.USECS: NAME: ARGS`:
 * irqs-off and need-resched from the record's context flags, hardirq
 * from its context; preempt-depth and migrate-disable (none here)
 * print '.'. */
static void line(struct tracefs_trace *t, uint32_t c)
{
	struct tfs_cpu *p = &t->cpus[c];
	const struct ttrace_meta_table *m = t->meta->table;
	const struct ttrace_event_meta *e =
		p->ev.id < m->nevents ? &m->events[p->ev.id] : NULL;
	uint64_t ns = ttrace_ticks_to_ns(p->ts - MIN(p->ts, tsc_at_boot),
					 tsc_freq_hz);
	char comm[32], irq, *dst;
	uint32_t pid;
	size_t room;

	task_of(t, &p->ev, comm, sizeof(comm), &pid, &irq);
	seqbuf_printf(&t->lines, "%16s-%-7u [%03u] %c%c%c.. %5lu.%06lu: %s: ",
		      comm, pid, c, p->ev.type & TTRACE_TYPE_IRQS_OFF ? 'd' : '.',
		      p->ev.type & TTRACE_TYPE_NEED_RESCHED ? 'N' : '.', irq,
		      ns / 1000000000,
		      ns % 1000000000 / 1000, e ? e->name : "event");
	room = seqbuf_get_buf(&t->lines, &dst);
	seqbuf_commit(&t->lines, MIN(room, (size_t)ttrace_format_args(dst,
		      room, e, &p->ev, ttrace_aux_resolve,
		      t->aux ? &t->names : NULL)));
	seqbuf_putc(&t->lines, '\n');
	p->have = false;
	consumed(t, c);
}

/* ftrace's duration column: the overhead mark (+ over 10 us, ! over
 * 100 us, # over 1 ms...), then the time in us, or blanks. */
static void duration(struct tracefs_trace *t, uint64_t ns, bool known)
{
	static const struct { uint64_t ns; char mark; } marks[] = {
		{ 1000000000, '$' }, { 100000000, '@' }, { 10000000, '*' },
		{ 1000000, '#' }, { 100000, '!' }, { 10000, '+' },
	};
	char mark = ' ';

	if (!tracefs_option_on(TFS_OPT_FUNCGRAPH_DURATION))
		return;
	if (!known) {
		seqbuf_puts(&t->lines, "               |  ");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(marks) && mark == ' '; i++)
		if (ns > marks[i].ns)
			mark = marks[i].mark;
	seqbuf_printf(&t->lines, "%c %4lu.%03lu us   |  ", mark, ns / 1000,
		      ns % 1000);
}

/* A function-graph line of CPU c's event: `CPU) [TASK-PID] DURATION |`
 * then the call indented by depth: `fn() {`, `fn();` (an entry whose
 * exit is the CPU's next event), `}`; other events as comments. */
static void graph_line(struct tracefs_trace *t, uint32_t c)
{
	struct tfs_cpu *p = &t->cpus[c];
	struct ttrace_event_view ev = p->ev;
	uint32_t depth = (uint32_t)ev.args[1], pid;
	uint64_t ts = p->ts;
	bool entry = ev.id == t->func_entry, exit = ev.id == t->func_exit;
	bool leaf = false;
	const char *fn = NULL;
	char comm[32], irq;
	size_t n = 0;

	p->have = false;
	if (entry && cpu_next(t, c) && p->ev.id == t->func_exit &&
	    p->ev.args[0] == ev.args[0] && (uint32_t)p->ev.args[1] == depth) {
		leaf = true;		/* the exit is this line's */
		p->have = false;
	}
	seqbuf_printf(&t->lines, "%2u) ", c);
	if (tracefs_option_on(TFS_OPT_FUNCGRAPH_PROC)) {
		task_of(t, &ev, comm, sizeof(comm), &pid, &irq);
		seqbuf_printf(&t->lines, "%8.8s-%-6u | ", comm, pid);
	}
	if ((entry || exit) && t->aux)
		n = ttrace_aux_resolve(&t->names, TTRACE_AUX_FUNC_NAME,
				       ev.args[0], ev.timestamp, &fn);
	if (entry && depth < GRAPH_DEPTH)
		p->entry_ts[depth] = ts;
	if (leaf)
		duration(t, ttrace_ticks_to_ns(p->ts - ts, tsc_freq_hz), true);
	else
		duration(t, exit && depth < GRAPH_DEPTH && p->entry_ts[depth] ?
			 ttrace_ticks_to_ns(ts - p->entry_ts[depth],
					    tsc_freq_hz) : 0,
			 exit && depth < GRAPH_DEPTH && p->entry_ts[depth]);
	for (uint32_t d = 0; (entry || exit) && d < MIN(depth, GRAPH_DEPTH);
	     d++)
		seqbuf_puts(&t->lines, "  ");
	if (entry || exit) {	/* an exit as funcgraph-tail prints it */
		seqbuf_puts(&t->lines, exit ? "} /* " : "");
		if (!n)
			seqbuf_printf(&t->lines, "%#lx", ev.args[0]);
		else
			seqbuf_printf(&t->lines, "%.*s", (int)n, fn);
		seqbuf_puts(&t->lines, exit ? " */\n" : leaf ? "();\n" :
			    "() {\n");
	} else {
		const struct ttrace_meta_table *m = t->meta->table;
		char *dst;
		size_t room;

		seqbuf_printf(&t->lines, "/* %s: ", ev.id < m->nevents ?
			      m->events[ev.id].name : "event");
		room = seqbuf_get_buf(&t->lines, &dst);
		seqbuf_commit(&t->lines, MIN(room, (size_t)ttrace_format_args(
			      dst, room, ev.id < m->nevents ?
			      &m->events[ev.id] : NULL, &ev,
			      ttrace_aux_resolve, t->aux ? &t->names : NULL)));
		seqbuf_puts(&t->lines, " */\n");
	}
	if (exit && depth < GRAPH_DEPTH)
		p->entry_ts[depth] = 0;
	consumed(t, c);
}

/* Fills the block with the next lines, oldest first across the CPUs,
 * while a line still fits. */
static void refill(struct tracefs_trace *t)
{
	seqbuf_init(&t->lines, t->block, BLOCK);
	t->pos = 0;
	if (!t->header_done && !t->pipe)
		header(t);
	t->header_done = true;
	while (seqbuf_room(&t->lines) >= 2 * LINE_MAX) {
		uint32_t best = UINT32_MAX;

		for (uint32_t c = 0; c < num_cpus; c++)
			if (reads_cpu(t, c) && cpu_next(t, c) &&
			    (best == UINT32_MAX ||
			     t->cpus[c].ts < t->cpus[best].ts))
				best = c;
		if (best == UINT32_MAX)
			break;
		if (t->graph)
			graph_line(t, best);
		else
			line(t, best);
	}
}

/* Copies what the block holds; refills it when empty. Returns the count,
 * 0 at the end (of trace; trace_pipe: nothing new now). */
static long copy_some(struct tracefs_trace *t, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t k;

		if (t->pos == seqbuf_used(&t->lines)) {
			refill(t);
			if (!seqbuf_used(&t->lines))
				break;
		}
		k = MIN(n - done, seqbuf_used(&t->lines) - t->pos);
		memcpy(buf + done, t->block + t->pos, k);
		t->pos += k;
		done += k;
	}
	return (long)done;
}

/* trace_pipe, before its block: each CPU's cursor moves up to where the
 * last consumer stopped, if another went further (what this reader holds
 * it claimed, and shows); when a ring has records past the end this
 * reader saw, each end becomes the head seen now and the names are taken
 * afresh after it (a record's names are in aux before its record is).
 * 0 or -ENOMEM. pipe_lock held. */
static int pipe_catch_up(struct tracefs_trace *t)
{
	uint64_t end[CONFIG_MAX_NUM_CPUS];
	bool newer = !t->aux;

	for (uint32_t c = 0; c < num_cpus; c++) {
		struct tfs_cpu *p = &t->cpus[c];
		uint64_t from = tracefs_pipe_from(c);

		if (!reads_cpu(t, c))
			continue;
		if (from > p->cur.next) {
			p->cur.next = from;
			p->cur.after_loss = 1;
		}
		end[c] = ttrace_ring_end(&ttrace_main, c);
		newer |= end[c] != p->end;
	}
	if (!newer)
		return 0;
	if (names_take(t))
		return -ENOMEM;
	for (uint32_t c = 0; c < num_cpus; c++)
		if (reads_cpu(t, c))
			t->cpus[c].end = end[c];
	return 0;
}

long tracefs_trace_read(struct tracefs_trace *t, void *buf, size_t n)
{
	long r;

	for (;;) {
		spin_lock(&t->lock);
		if (!t->started) {
			start(t);
			t->started = true;
		}
		r = 0;
		if (t->pipe) {
			spin_lock(&pipe_lock);
			r = pipe_catch_up(t);
			if (!r)
				r = copy_some(t, buf, n);
			spin_unlock(&pipe_lock);
		} else {
			if (!t->aux && names_take(t))
				r = -ENOMEM;
			if (!r)
				r = copy_some(t, buf, n);
		}
		spin_unlock(&t->lock);
		if (r || !t->pipe)
			return r;
		if (ksleep_ns(PIPE_NAP_NS) < 0)
			return -EINTR;
	}
}
