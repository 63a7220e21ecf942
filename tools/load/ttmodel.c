/*
 * ttmodel.c: the one model of a trace (see ttmodel.h). The events of every
 * CPU come in time order from ttmerge; each goes to the track it belongs
 * to (its CPU's, its thread's, or its CPU's boot track), where a stack of
 * open spans pairs enters and exits. Threads are found by pid in a small
 * open-addressing table of track indices.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttmerge.h"
#include "ttmodel.h"

enum role { R_SYS_ENTER, R_SYS_EXIT, R_IRQ_ENTER, R_IRQ_EXIT, R_EXCEPTION,
	    R_SWITCH, R_BOOT, R_BOOT_AT, R_FUNC_ENTRY, R_FUNC_EXIT,
	    R_PROC_EXIT, NROLES };

static const char *const role_names[NROLES] = {
	"syscall_enter", "syscall_exit", "irq_enter", "irq_exit", "exception",
	"sched_switch", "boot_phase", "boot_phase_at", "func_entry",
	"func_exit", "proc_exit",
};

_Static_assert(NROLES <= sizeof(((struct ttmodel *)0)->role) /
	       sizeof(uint32_t), "role table");

/* ---- tracks -------------------------------------------------------------- */

/* Appends a track of kind/id; returns its index, or -1 (out of memory). */
static int64_t add_track(struct ttmodel *m, uint32_t kind, uint32_t id)
{
	if (m->ntracks == m->cap) {
		uint32_t cap = m->cap ? 2 * m->cap : 16;
		struct ttmodel_track *t = realloc(m->tracks, cap * sizeof(*t));

		if (!t)
			return -1;
		m->tracks = t;
		m->cap = cap;
	}
	m->tracks[m->ntracks] = (struct ttmodel_track){ .kind = kind, .id = id,
							.running_on = -1 };
	return m->ntracks++;
}

/* Doubles the pid table. Returns 0 or -1. */
static int grow_pids(struct ttmodel *m)
{
	uint32_t bits = m->pid_bits ? m->pid_bits + 1 : 6;
	uint32_t mask = (1u << bits) - 1;
	uint32_t *slots = calloc(mask + 1, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i < m->ntracks; i++) {
		uint32_t s;

		if (m->tracks[i].kind != TTMODEL_THREAD)
			continue;
		for (s = hash_word(m->tracks[i].id, bits); slots[s];
		     s = (s + 1) & mask)
			;
		slots[s] = i + 1;
	}
	free(m->pid_slots);
	m->pid_slots = slots;
	m->pid_bits = bits;
	return 0;
}

/* The track of thread pid, made if new; NULL if out of memory. */
static struct ttmodel_track *thread(struct ttmodel *m, uint32_t pid)
{
	uint32_t mask, s;
	int64_t i;

	if (2 * (m->ntracks + 1) > (m->pid_slots ? 1u << m->pid_bits : 0) &&
	    grow_pids(m) < 0)
		return NULL;
	mask = (1u << m->pid_bits) - 1;
	for (s = hash_word(pid, m->pid_bits); m->pid_slots[s];
	     s = (s + 1) & mask)
		if (m->tracks[m->pid_slots[s] - 1].id == pid)
			return &m->tracks[m->pid_slots[s] - 1];
	if ((i = add_track(m, TTMODEL_THREAD, pid)) < 0)
		return NULL;
	m->pid_slots[s] = (uint32_t)i + 1;
	return &m->tracks[i];
}

/* ---- spans --------------------------------------------------------------- */

/* Appends span s to track k at depth; returns its index + 1, or 0 when
 * out of memory. */
static uint32_t append_span(struct ttmodel *m, struct ttmodel_track *k,
			    struct ttmodel_span s, uint32_t depth)
{
	if (k->nspans == k->cap) {
		uint64_t cap = k->cap ? 2 * k->cap : 64;
		struct ttmodel_span *p = cap < UINT32_MAX ?
			realloc(k->spans, cap * sizeof(*p)) : NULL;

		if (!p) {
			m->oom = true;
			return 0;
		}
		k->spans = p;
		k->cap = cap;
	}
	s.depth = depth;
	s.end = s.start;
	k->spans[k->nspans] = s;
	return (uint32_t)++k->nspans;
}

/* Opens span s on track k at the next depth. */
static void open_span(struct ttmodel *m, struct ttmodel_track *k,
		      struct ttmodel_span s)
{
	uint32_t i;

	if (k->depth == TTMODEL_MAX_DEPTH)
		m->counts.too_deep++;
	else if ((i = append_span(m, k, s, k->depth)))
		k->stack[k->depth++] = i;
}

static struct ttmodel_span *top(struct ttmodel_track *k, uint32_t level)
{
	return &k->spans[k->stack[level] - 1];
}

/* Closes track k's innermost open span at ts (at least its start). */
static void close_top(struct ttmodel *m, struct ttmodel_track *k, uint64_t ts,
		      enum ttmodel_end how)
{
	struct ttmodel_span *s = top(k, --k->depth);

	s->end = ts > s->start ? ts : s->start;
	s->how = how;
	m->counts.clipped += how == TTMODEL_CLIPPED;
	m->counts.unfinished += how == TTMODEL_UNFINISHED;
}

/* Closes every span of k above level at ts, the way how. */
static void close_above(struct ttmodel *m, struct ttmodel_track *k,
			uint32_t level, uint64_t ts, enum ttmodel_end how)
{
	while (k->depth > level)
		close_top(m, k, ts, how);
}

/* Closes k's innermost open span of kind and ident (clipping those above
 * it) at ts; an exit with none open is dropped and counted. */
static void close_exit(struct ttmodel *m, struct ttmodel_track *k,
		       uint32_t kind, uint64_t ident, uint64_t ts)
{
	for (uint32_t l = k->depth; l-- > 0;) {
		const struct ttmodel_span *s = top(k, l);

		if (s->kind == kind && s->ident == ident) {
			close_above(m, k, l + 1, ts, TTMODEL_CLIPPED);
			close_top(m, k, ts, TTMODEL_DONE);
			return;
		}
	}
	m->counts.unmatched_exits++;
}

/* ---- events -------------------------------------------------------------- */

/* The process ev ran in: its context's pid, else the process running on
 * its cpu (0 if none). */
static uint32_t ev_pid(const struct ttmodel *m, uint32_t c,
		       const struct ttrace_event_view *ev)
{
	const struct ttmodel_track *k = &m->tracks[m->cpus[c].track];

	if ((ev->ctx_kind == TTRACE_CTX_SYSC || ev->ctx_kind == TTRACE_CTX_TRAP)
	    && TTRACE_CTX_PID(ev->context))
		return TTRACE_CTX_PID(ev->context);
	if (k->depth && k->spans[k->stack[0] - 1].kind == TTMODEL_RUN)
		return (uint32_t)k->spans[k->stack[0] - 1].ident;
	return 0;
}

/* The track a kernel function's entry or exit belongs to: its thread's
 * when it ran in a process's syscall or trap, else its CPU's. */
static struct ttmodel_track *func_track(struct ttmodel *m, uint32_t c,
					const struct ttrace_event_view *ev)
{
	if ((ev->ctx_kind == TTRACE_CTX_SYSC || ev->ctx_kind == TTRACE_CTX_TRAP)
	    && TTRACE_CTX_PID(ev->context))
		return thread(m, TTRACE_CTX_PID(ev->context));
	return &m->tracks[m->cpus[c].track];
}

/* A context switch on c at ts from prev to next: everything open on the
 * CPU's track ends (the run normally, what it interrupted clipped), prev
 * stops running there and next's run begins. */
static void do_switch(struct ttmodel *m, uint32_t c, uint32_t prev,
		      uint32_t next, uint64_t ts)
{
	struct ttmodel_track *k = &m->tracks[m->cpus[c].track], *p;

	while (k->depth)	/* before thread(): it may move the tracks */
		close_top(m, k, ts, top(k, k->depth - 1)->kind == TTMODEL_RUN ?
			  TTMODEL_DONE : TTMODEL_CLIPPED);
	if (prev && (p = thread(m, prev))) {
		p->last_ts = ts;	/* it ran until here */
		if (p->running_on == (int32_t)c)
			p->running_on = -1;
	}
	if (!next)
		return;
	if ((p = thread(m, next)))
		p->running_on = (int32_t)c;
	else
		m->oom = true;
	open_span(m, &m->tracks[m->cpus[c].track], (struct ttmodel_span){
		  .kind = TTMODEL_RUN, .start = ts, .ident = next, .pid = next,
		  .cpu = c });
}

/*
 * Where boot phase record ev of cpu c says its phase began, on CPU 0's
 * clock: its timestamp, or for boot_phase_at the TSC it carries (read on
 * c's clock: put on CPU 0's by the rule the loader applies to c's
 * records, ttrace_ts_on_cpu0()). The boot profile places phases the same
 * way.
 */
uint64_t ttmodel_boot_start(const struct ttload *t, uint32_t c,
			    const struct ttrace_event_view *ev, bool at)
{
	int64_t off = t->tsc ? t->tsc[c].offset : 0;

	return at ? ttrace_ts_on_cpu0(ev->args[1], off) : ev->timestamp;
}

/* A boot phase record of c: a mark on c's boot track, made a phase when
 * the trace ends (boot_lanes). */
static void boot_phase(struct ttmodel *m, uint32_t c,
		       const struct ttrace_event_view *ev, bool at)
{
	struct ttmodel_track *k = &m->tracks[m->cpus[c].boot_track];

	if (ev->nwords < (at ? 3u : 2u))
		return;
	append_span(m, k, (struct ttmodel_span){ .kind = TTMODEL_BOOT,
		    .start = ttmodel_boot_start(m->t, c, ev, at),
		    .ident = ev->args[0], .cpu = c }, 0);
}

/* Ends c's open exception, at the last event inside it, once ev is not
 * in its trap context. */
static void exception_end(struct ttmodel *m, uint32_t c,
			  const struct ttrace_event_view *ev)
{
	struct ttmodel_track *k = &m->tracks[m->cpus[c].track];
	const struct ttmodel_span *s;

	if (!k->depth)
		return;
	s = top(k, k->depth - 1);
	if (s->kind == TTMODEL_EXCEPTION &&
	    (ev->ctx_kind != TTRACE_CTX_TRAP ||
	     TTRACE_CTX_LOW(ev->context) != s->ident))
		close_top(m, k, m->cpus[c].last_ts, TTMODEL_DONE);
}

/* Process pid ended at ts: what it had open ends there, its syscall
 * (exit, which never returns) normally, anything inside that clipped. */
static void proc_exit(struct ttmodel *m, uint32_t pid, uint64_t ts)
{
	struct ttmodel_track *k = pid ? thread(m, pid) : NULL;

	if (!k) {
		m->oom |= pid != 0;
		return;
	}
	while (k->depth)
		close_top(m, k, ts, top(k, k->depth - 1)->kind ==
			  TTMODEL_SYSCALL ? TTMODEL_DONE : TTMODEL_CLIPPED);
	k->running_on = -1;
}

/* Opens a span of kind for ev's first argument on track k (NULL: out of
 * memory). */
static void enter(struct ttmodel *m, struct ttmodel_track *k, uint32_t kind,
		  uint32_t c, uint32_t pid, const struct ttrace_event_view *ev)
{
	if (!k)
		m->oom = true;
	else
		open_span(m, k, (struct ttmodel_span){ .kind = kind, .cpu = c,
			  .start = ev->timestamp, .ident = ev->args[0],
			  .pid = pid });
}

static void leave(struct ttmodel *m, struct ttmodel_track *k, uint32_t kind,
		  const struct ttrace_event_view *ev)
{
	if (!k)
		m->oom = true;
	else
		close_exit(m, k, kind, ev->args[0], ev->timestamp);
}

/* Takes one event of cpu c (events come in time order). */
static void model_event(struct ttmodel *m, uint32_t c,
			const struct ttrace_event_view *ev)
{
	const uint32_t *role = m->role;
	struct ttmodel_track *cpu, *th = NULL;
	uint32_t id = ev->id, pid;

	exception_end(m, c, ev);
	pid = ev_pid(m, c, ev);
	if (pid) {
		if (!(th = thread(m, pid))) {
			m->oom = true;
			return;
		}
		th->running_on = (int32_t)c;
		th->last_ts = ev->timestamp;
	}
	cpu = &m->tracks[m->cpus[c].track];	/* thread() may move tracks */
	if (!th)
		th = cpu;	/* a syscall outside any process */
	if (id == role[R_SYS_ENTER])
		enter(m, th, TTMODEL_SYSCALL, c, pid, ev);
	else if (id == role[R_SYS_EXIT])
		leave(m, th, TTMODEL_SYSCALL, ev);
	else if (id == role[R_IRQ_ENTER])
		enter(m, cpu, TTMODEL_IRQ, c, 0, ev);
	else if (id == role[R_IRQ_EXIT])
		leave(m, cpu, TTMODEL_IRQ, ev);
	else if (id == role[R_EXCEPTION])
		enter(m, cpu, TTMODEL_EXCEPTION, c, pid, ev);
	else if (id == role[R_FUNC_ENTRY])
		enter(m, func_track(m, c, ev), TTMODEL_FUNC, c, pid, ev);
	else if (id == role[R_FUNC_EXIT])
		leave(m, func_track(m, c, ev), TTMODEL_FUNC, ev);
	else if (id == role[R_SWITCH])
		do_switch(m, c, (uint32_t)ev->args[0], (uint32_t)ev->args[1],
			  ev->timestamp);
	else if (id == role[R_BOOT] || id == role[R_BOOT_AT])
		boot_phase(m, c, ev, id == role[R_BOOT_AT]);
	else if (id == role[R_PROC_EXIT])
		proc_exit(m, (uint32_t)ev->args[0], ev->timestamp);
	m->cpus[c].events++;
	m->cpus[c].last_ts = ev->timestamp;
}

/* ---- losses -------------------------------------------------------------- */

/* Appends a loss to cpu c's list. */
static void add_loss(struct ttmodel *m, uint32_t c, struct ttmodel_loss l)
{
	struct ttmodel_cpu *cpu = &m->cpus[c];

	if (cpu->nlosses == cpu->cap) {
		uint64_t cap = cpu->cap ? 2 * cpu->cap : 16;
		struct ttmodel_loss *p = realloc(cpu->losses, cap * sizeof(*p));

		if (!p) {
			m->oom = true;
			return;
		}
		cpu->losses = p;
		cpu->cap = cap;
	}
	cpu->losses[cpu->nlosses++] = l;
}

/* Cuts, at ts (or a later start), what a loss on cpu c may have ended:
 * everything open on c's track, and the open spans of every thread not
 * known to run on another CPU (it may have run on c unseen). */
static void cut(struct ttmodel *m, uint32_t c, uint64_t ts)
{
	close_above(m, &m->tracks[m->cpus[c].track], 0, ts,
		    TTMODEL_UNFINISHED);
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ttmodel_track *k = &m->tracks[i];
		uint64_t last = k->last_ts;

		if (k->kind != TTMODEL_THREAD || !k->depth ||
		    (k->running_on >= 0 && k->running_on != (int32_t)c))
			continue;
		close_above(m, k, 0, last > ts ? last : ts, TTMODEL_UNFINISHED);
		k->running_on = -1;
	}
}

/* Takes a declared loss of cpu c: from the CPU's last event to the event
 * it was placed before. One overwritten (or, in a frozen copy, not
 * copied) before the CPU's first event (the file's runs begin at the
 * ring's clear point, so the slots it lapped before the read are its
 * first LOSS run) is before_trace. */
static void model_loss(struct ttmodel *m, uint32_t c,
		       const struct ttload_loss *l)
{
	struct ttmodel_cpu *cpu = &m->cpus[c];
	uint64_t start = cpu->events ? cpu->last_ts : l->ts;
	uint64_t end = l->ts == UINT64_MAX ? cpu->last_ts : l->ts;

	if (start == UINT64_MAX)
		start = end = 0;	/* a CPU with losses and no event */
	cut(m, c, start);
	add_loss(m, c, (struct ttmodel_loss){ .start = start,
		 .end = end > start ? end : start, .count = l->count,
		 .reason = l->reason, .before_trace = !cpu->events &&
		 (l->reason == TTRACE_LOSS_OVERWRITTEN ||
		  l->reason == TTRACE_LOSS_NOT_COPIED) });
}

/* ---- the model ----------------------------------------------------------- */

/* Whether boot span s is the mark called name (an end, not a phase). */
static bool boot_mark(const struct ttmodel *m, const struct ttmodel_span *s,
		      const char *name)
{
	const char *str;
	size_t n = ttmodel_span_name(m, s, &str);

	return n == strlen(name) && !memcmp(str, name, n);
}

static int by_start(const void *a, const void *b)
{
	const struct ttmodel_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The boot phases, as the boot profile sees them (docs/boot-profile.md):
 * each CPU's marks sorted by start, a phase lasting until the CPU's next
 * mark; shell_ready (the prompt, the boot's end) and ap_ready (an AP's
 * end) are marks of no length that end a lane; a CPU's last phase ends at
 * its ap_ready, else at the prompt, else it is unfinished at the trace's
 * end.
 */
static void boot_lanes(struct ttmodel *m, uint64_t end)
{
	uint64_t prompt = UINT64_MAX;

	for (uint32_t c = 0; c < m->t->version.num_cpus; c++) {
		struct ttmodel_track *k = &m->tracks[m->cpus[c].boot_track];

		if (k->nspans)
			qsort(k->spans, k->nspans, sizeof(*k->spans),
			      by_start);
		for (uint64_t i = 0; i < k->nspans; i++)
			if (boot_mark(m, &k->spans[i], "shell_ready") &&
			    k->spans[i].start < prompt)
				prompt = k->spans[i].start;
	}
	for (uint32_t c = 0; c < m->t->version.num_cpus; c++) {
		struct ttmodel_track *k = &m->tracks[m->cpus[c].boot_track];

		for (uint64_t i = 0; i < k->nspans; i++) {
			struct ttmodel_span *s = &k->spans[i];
			bool mark = boot_mark(m, s, "shell_ready") ||
				    boot_mark(m, s, "ap_ready");
			uint64_t to = i + 1 < k->nspans ? k->spans[i + 1].start :
				      prompt != UINT64_MAX ? prompt : end;

			s->end = mark || to < s->start ? s->start : to;
			s->how = !mark && i + 1 == k->nspans &&
				 prompt == UINT64_MAX ? TTMODEL_UNFINISHED :
				 TTMODEL_DONE;
			m->counts.unfinished += s->how == TTMODEL_UNFINISHED;
		}
	}
}

/* Closes what is still open when the trace ends: a CPU's at its last
 * event, a thread's at the last event of the CPU it runs on, or of the
 * trace. */
static void finish(struct ttmodel *m)
{
	uint64_t end = 0;

	for (uint32_t c = 0; c < m->t->version.num_cpus; c++)
		if (m->cpus[c].events && m->cpus[c].last_ts > end)
			end = m->cpus[c].last_ts;
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ttmodel_track *k = &m->tracks[i];
		uint64_t ts = end;

		if (k->kind == TTMODEL_CPU)
			ts = m->cpus[k->id].last_ts;
		else if (k->running_on >= 0)
			ts = m->cpus[k->running_on].last_ts;
		close_above(m, k, 0, ts, TTMODEL_UNFINISHED);
	}
	boot_lanes(m, end);
}

static int model_init(struct ttmodel *m, const struct ttload *t)
{
	uint32_t n = t->version.num_cpus;

	memset(m, 0, sizeof(*m));
	m->t = t;
	if (!(m->cpus = calloc(n ? n : 1, sizeof(*m->cpus))))
		return -1;
	for (uint32_t c = 0; c < n; c++) {
		int64_t a = add_track(m, TTMODEL_CPU, c);
		int64_t b = add_track(m, TTMODEL_BOOTS, c);

		if (a < 0 || b < 0)
			return -1;
		m->cpus[c].track = (uint32_t)a;
		m->cpus[c].boot_track = (uint32_t)b;
	}
	for (uint32_t r = 0; r < NROLES; r++) {
		m->role[r] = UINT32_MAX;
		for (uint32_t i = 0; i < t->meta.nevents; i++)
			if (t->meta.events[i].name &&
			    !strcmp(t->meta.events[i].name, role_names[r]))
				m->role[r] = i;
	}
	return 0;
}

/*
 * Builds the model of t (which must outlive it). Returns 0, or -1 when
 * out of memory (m is then freed).
 */
int ttmodel_build(struct ttmodel *m, const struct ttload *t)
{
	struct ttmerge mg;
	struct ttmerge_item it;

	if (model_init(m, t) < 0 || ttmerge_init(&mg, t) < 0) {
		ttmodel_free(m);
		return -1;
	}
	ttmerge_progress(&mg, ttmerge_progress_wanted(t));
	while (!m->oom && ttmerge_next(&mg, &it)) {
		if (it.loss)
			model_loss(m, it.cpu, it.loss);
		else
			model_event(m, it.cpu, it.ev);
	}
	ttmerge_free(&mg);
	finish(m);
	if (m->oom) {
		ttmodel_free(m);
		return -1;
	}
	return 0;
}

void ttmodel_free(struct ttmodel *m)
{
	for (uint32_t i = 0; i < m->ntracks; i++)
		free(m->tracks[i].spans);
	if (m->cpus && m->t)
		for (uint32_t c = 0; c < m->t->version.num_cpus; c++)
			free(m->cpus[c].losses);
	free(m->tracks);
	free(m->cpus);
	free(m->pid_slots);
	memset(m, 0, sizeof(*m));
}

/* Whether events of id are shown as (the ends of) spans, not points. */
bool ttmodel_is_span_event(const struct ttmodel *m, uint32_t id)
{
	for (uint32_t r = 0; r < R_PROC_EXIT; r++)	/* proc_exit stays */
		if (m->role[r] == id)
			return true;
	return false;
}

const struct ttmodel_kind_info ttmodel_kinds[TTMODEL_NKINDS] = {
	[TTMODEL_BOOT] = { "boot", "phase", TTRACE_AUX_BOOT_PHASE },
	[TTMODEL_RUN] = { "run", "pid", TTRACE_AUX_PROC_NAME },
	[TTMODEL_SYSCALL] = { "syscall", "syscall", TTRACE_AUX_SYSCALL_NAME },
	[TTMODEL_IRQ] = { "irq", "irq", TTRACE_AUX_IRQ_NAME },
	[TTMODEL_EXCEPTION] = { "exception", "exception", TTRACE_AUX_IRQ_NAME },
	[TTMODEL_FUNC] = { "func", "func", TTRACE_AUX_FUNC_NAME },
};

/* The aux name of span s (its boot phase, process, syscall, vector or
 * function at its start) in *str; returns its length, 0 if it has none. */
size_t ttmodel_span_name(const struct ttmodel *m, const struct ttmodel_span *s,
			 const char **str)
{
	return ttload_resolve((void *)m->t, ttmodel_kinds[s->kind].tag,
			      s->ident, s->start, str);
}

/* ts as nanoseconds since boot (negative before boot). */
int64_t ttmodel_ns(const struct ttload *t, uint64_t ts)
{
	uint64_t boot = t->version.tsc_boot, hz = t->version.tsc_hz;
	uint64_t d = ts >= boot ? ts - boot : boot - ts;
	int64_t ns = (int64_t)(hz ? ttrace_ticks_to_ns(d, hz) : d);

	return ts >= boot ? ns : -ns;
}

/* The duration of [start, end] in ns, as every export shows it: the
 * difference of its ends' times, so that durations add up exactly. */
uint64_t ttmodel_span_ns(const struct ttload *t, uint64_t start, uint64_t end)
{
	return (uint64_t)(ttmodel_ns(t, end) - ttmodel_ns(t, start));
}
