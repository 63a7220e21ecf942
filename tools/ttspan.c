/*
 * ttspan.c: slices from the merged events of a trace (see ttspan.h). Each
 * CPU has a stack of its open slices and a FIFO of items in start order;
 * the stack holds positions in the FIFO, where an open slice waits to be
 * completed. Processes blocked in a syscall are found by pid in a small
 * open-addressing table.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttspan.h"

enum role { R_SYS_ENTER, R_SYS_EXIT, R_IRQ_ENTER, R_IRQ_EXIT, R_EXCEPTION,
	    R_SWITCH, R_BOOT, R_BOOT_AT };

static const char *const role_names[TTSPAN_NROLES] = {
	"syscall_enter", "syscall_exit", "irq_enter", "irq_exit", "exception",
	"sched_switch", "boot_phase", "boot_phase_at",
};

enum { Q_SLICE, Q_POINT, Q_LOSS };

struct qitem {
	uint8_t type;
	bool complete;
	struct ttspan_slice s;		/* Q_SLICE */
	const struct ttrace_entry *e;	/* Q_POINT: first entry */
	const struct ttload_loss *loss;	/* Q_LOSS, at s.start */
};

struct ttspan_cpu {
	struct qitem *q;		/* FIFO: [head, len) not handed out */
	uint64_t head, len, cap;
	uint64_t stack[TTSPAN_MAX_DEPTH]; /* open slices: positions in q */
	uint32_t depth;
	uint64_t last_ts;
	bool scheduling;		/* a context switch was seen */
};

/* A process with a syscall suspended by a context switch. */
struct ttspan_pid {
	uint32_t pid;
	bool used, suspended;
	uint64_t nr, entered;
};

int ttspan_init(struct ttspan *sp, const struct ttload *t,
		const struct ttspan_out *out)
{
	memset(sp, 0, sizeof(*sp));
	sp->t = t;
	sp->out = *out;
	sp->pid_bits = 8;
	sp->cpus = calloc(t->version.num_cpus, sizeof(*sp->cpus));
	sp->pids = calloc(1u << sp->pid_bits, sizeof(*sp->pids));
	if (!sp->cpus || !sp->pids) {
		ttspan_free(sp);
		return -1;
	}
	for (uint32_t r = 0; r < TTSPAN_NROLES; r++) {
		sp->role[r] = UINT32_MAX;
		for (uint32_t i = 0; i < t->meta.nevents; i++)
			if (t->meta.events[i].name &&
			    !strcmp(t->meta.events[i].name, role_names[r]))
				sp->role[r] = i;
	}
	return 0;
}

void ttspan_free(struct ttspan *sp)
{
	if (sp->cpus)
		for (uint32_t c = 0; c < sp->t->version.num_cpus; c++)
			free(sp->cpus[c].q);
	free(sp->cpus);
	free(sp->pids);
	sp->cpus = NULL;
	sp->pids = NULL;
}

/* ---- processes ----------------------------------------------------------- */

/* The table entry of pid, made if absent; NULL if out of memory. */
static struct ttspan_pid *pid_slot(struct ttspan *sp, uint32_t pid)
{
	uint32_t mask = (1u << sp->pid_bits) - 1;

	if (2 * (sp->npids + 1) > mask + 1) {	/* keep it half empty */
		struct ttspan_pid *old = sp->pids;
		uint32_t n = mask + 1;

		sp->pids = calloc(2 * n, sizeof(*sp->pids));
		if (!sp->pids) {
			sp->pids = old;
			return NULL;
		}
		sp->pid_bits++;
		sp->npids = 0;
		for (uint32_t i = 0; i < n; i++)
			if (old[i].used)
				*pid_slot(sp, old[i].pid) = old[i];
		free(old);
		mask = 2 * n - 1;
	}
	for (uint32_t i = hash_word(pid, sp->pid_bits);; i = (i + 1) & mask) {
		if (sp->pids[i].used && sp->pids[i].pid == pid)
			return &sp->pids[i];
		if (!sp->pids[i].used) {
			sp->pids[i].used = true;
			sp->pids[i].pid = pid;
			sp->npids++;
			return &sp->pids[i];
		}
	}
}

/* ---- the FIFO and the stack ---------------------------------------------- */

/* Appends an item to cpu c's FIFO; returns its position, or UINT64_MAX if
 * out of memory. */
static uint64_t q_push(struct ttspan_cpu *c, const struct qitem *item)
{
	if (c->len == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 64;
		struct qitem *q = realloc(c->q, cap * sizeof(*q));

		if (!q)
			return UINT64_MAX;
		c->q = q;
		c->cap = cap;
	}
	c->q[c->len] = *item;
	return c->len++;
}

/* Hands out cpu c's complete items at the head of its FIFO. */
static void flush(struct ttspan *sp, uint32_t c)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	const struct ttload_cpu *lc = &sp->t->cpus[c];

	for (; cpu->head < cpu->len && cpu->q[cpu->head].complete; cpu->head++) {
		const struct qitem *it = &cpu->q[cpu->head];
		struct ttrace_pair_iter pi;
		struct ttrace_event_view ev;

		if (it->type == Q_SLICE) {
			sp->out.slice(sp->out.arg, &it->s);
		} else if (it->type == Q_LOSS) {
			sp->out.loss(sp->out.arg, c, it->s.start, it->loss);
		} else {
			ttrace_pair_init(&pi, it->e, (size_t)(lc->sorted +
					 lc->nsorted - it->e));
			if (ttrace_pair_next(&pi, &ev))
				sp->out.point(sp->out.arg, c, &ev);
		}
	}
	if (cpu->head == cpu->len && !cpu->depth)
		cpu->head = cpu->len = 0;
}

static void open_slice(struct ttspan *sp, uint32_t c,
		       const struct ttspan_slice *s)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	struct qitem it = { .type = Q_SLICE, .s = *s };
	uint64_t pos;

	if (cpu->depth == TTSPAN_MAX_DEPTH) {
		sp->counts.too_deep++;
		return;
	}
	it.s.cpu = c;
	it.s.depth = cpu->depth;
	pos = q_push(cpu, &it);
	if (pos != UINT64_MAX)
		cpu->stack[cpu->depth++] = pos;
}

/* Closes cpu c's innermost open slice at ts with flags added. */
static void close_top(struct ttspan *sp, uint32_t c, uint64_t ts,
		      uint32_t flags)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	struct qitem *it = &cpu->q[cpu->stack[--cpu->depth]];

	it->s.end = ts;
	it->s.flags |= flags;
	it->complete = true;
	if (flags & TTSPAN_CLIPPED)
		sp->counts.clipped++;
}

/* Clips every slice of cpu c above level at ts. */
static void close_above(struct ttspan *sp, uint32_t c, uint32_t level,
			uint64_t ts)
{
	while (sp->cpus[c].depth > level)
		close_top(sp, c, ts, TTSPAN_CLIPPED);
}

/* The level of cpu c's innermost open slice of kind and ident, or -1. */
static int find_open(const struct ttspan *sp, uint32_t c, uint32_t kind,
		     uint64_t ident)
{
	const struct ttspan_cpu *cpu = &sp->cpus[c];

	for (int l = (int)cpu->depth - 1; l >= 0; l--) {
		const struct ttspan_slice *s = &cpu->q[cpu->stack[l]].s;

		if (s->kind == kind && s->ident == ident)
			return l;
	}
	return -1;
}

/* Closes the open slice of kind/ident (and, clipped, those above it) at
 * ts; an exit with none is dropped and counted. */
static void close_exit(struct ttspan *sp, uint32_t c, uint32_t kind,
		       uint64_t ident, uint64_t ts, uint32_t flags)
{
	int l = find_open(sp, c, kind, ident);

	if (l < 0) {
		sp->counts.unmatched_exits++;
		return;
	}
	close_above(sp, c, (uint32_t)l + 1, ts);
	close_top(sp, c, ts, flags);
}

/* ---- events -------------------------------------------------------------- */

static uint32_t ctx_pid(const struct ttrace_event_view *ev)
{
	return ev->ctx_kind == TTRACE_CTX_SYSC || ev->ctx_kind == TTRACE_CTX_TRAP ?
	       TTRACE_CTX_PID(ev->context) : 0;
}

/* A context switch on c at ts from prev to next: everything open ends
 * (prev's syscall is suspended), next's run begins, and its suspended
 * syscall, if any, resumes. */
static void do_switch(struct ttspan *sp, uint32_t c, uint32_t prev,
		      uint32_t next, uint64_t ts)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	struct ttspan_pid *p;

	cpu->scheduling = true;
	while (cpu->depth) {
		const struct ttspan_slice *s = &cpu->q[cpu->stack[cpu->depth - 1]].s;
		bool normal = s->kind == TTSPAN_RUN || s->kind == TTSPAN_BOOT ||
			      (s->kind == TTSPAN_SYSCALL && s->pid == prev);

		if (s->kind == TTSPAN_SYSCALL && prev && s->pid == prev &&
		    (p = pid_slot(sp, prev))) {
			p->suspended = true;
			p->nr = s->ident;
			p->entered = s->entered;
		}
		close_top(sp, c, ts, normal ? 0 : TTSPAN_CLIPPED);
	}
	flush(sp, c);		/* empties the FIFO: it starts over */
	if (!next)
		return;
	open_slice(sp, c, &(struct ttspan_slice){ .kind = TTSPAN_RUN,
		   .start = ts, .ident = next, .pid = next });
	p = pid_slot(sp, next);
	if (p && p->suspended) {
		p->suspended = false;
		open_slice(sp, c, &(struct ttspan_slice){
			   .kind = TTSPAN_SYSCALL, .start = ts, .ident = p->nr,
			   .pid = next, .flags = TTSPAN_RESUMED,
			   .entered = p->entered });
	}
}

/* A boot phase on c: before the CPU schedules, the previous phase ends
 * and this one begins; afterwards it is a point. A boot_phase_at phase
 * starts at its record here, as slices must start in time order (`ttdecode
 * boot` places it at the TSC it carries). Returns whether it was
 * taken as a slice. */
static bool boot_phase(struct ttspan *sp, uint32_t c,
		       const struct ttrace_event_view *ev)
{
	const struct ttspan_cpu *cpu = &sp->cpus[c];

	if (cpu->scheduling)
		return false;
	for (uint32_t l = 0; l < cpu->depth; l++)
		if (cpu->q[cpu->stack[l]].s.kind == TTSPAN_BOOT) {
			close_above(sp, c, l + 1, ev->timestamp);
			close_top(sp, c, ev->timestamp, 0);
			break;
		}
	open_slice(sp, c, &(struct ttspan_slice){ .kind = TTSPAN_BOOT,
		   .start = ev->timestamp, .ident = ev->args[0] });
	return true;
}

/* Ends c's open exception, at the last event inside it, when ev is not in
 * the exception's trap context. */
static void exception_end(struct ttspan *sp, uint32_t c,
			  const struct ttrace_event_view *ev)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	const struct ttspan_slice *s;

	if (!cpu->depth)
		return;
	s = &cpu->q[cpu->stack[cpu->depth - 1]].s;
	if (s->kind == TTSPAN_EXCEPTION &&
	    (ev->ctx_kind != TTRACE_CTX_TRAP ||
	     TTRACE_CTX_LOW(ev->context) != s->ident))
		close_top(sp, c, cpu->last_ts, 0);
}

/* Turns ev into slices; returns false if it is a point. */
static bool span_event(struct ttspan *sp, uint32_t c,
		       const struct ttrace_event_view *ev)
{
	uint64_t ts = ev->timestamp, a0 = ev->args[0];
	uint32_t id = ev->id;
	const uint32_t *role = sp->role;

	if (id == role[R_SYS_ENTER])
		open_slice(sp, c, &(struct ttspan_slice){
			   .kind = TTSPAN_SYSCALL, .start = ts, .ident = a0,
			   .pid = ctx_pid(ev), .entered = ts });
	else if (id == role[R_SYS_EXIT])
		close_exit(sp, c, TTSPAN_SYSCALL, a0, ts, TTSPAN_DONE);
	else if (id == role[R_IRQ_ENTER])
		open_slice(sp, c, &(struct ttspan_slice){ .kind = TTSPAN_IRQ,
			   .start = ts, .ident = a0 });
	else if (id == role[R_IRQ_EXIT])
		close_exit(sp, c, TTSPAN_IRQ, a0, ts, 0);
	else if (id == role[R_EXCEPTION])
		open_slice(sp, c, &(struct ttspan_slice){
			   .kind = TTSPAN_EXCEPTION, .start = ts, .ident = a0,
			   .pid = ctx_pid(ev) });
	else if (id == role[R_SWITCH])
		do_switch(sp, c, (uint32_t)a0, (uint32_t)ev->args[1], ts);
	else if ((id != role[R_BOOT] && id != role[R_BOOT_AT]) ||
		 !boot_phase(sp, c, ev))
		return false;
	return true;
}

/*
 * Takes the next event of the merge: ev on cpu c, whose first entry is
 * entry (in the cpu's sorted view). Events come in time order.
 */
void ttspan_event(struct ttspan *sp, uint32_t c,
		  const struct ttrace_event_view *ev,
		  const struct ttrace_entry *entry)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];

	exception_end(sp, c, ev);
	if (!span_event(sp, c, ev)) {
		struct qitem it = { .type = Q_POINT, .complete = true,
				    .e = entry };

		it.s.start = ev->timestamp;
		q_push(cpu, &it);
	}
	cpu->last_ts = ev->timestamp;
	flush(sp, c);
}

/* Takes a declared loss of cpu c: everything open there is clipped at the
 * CPU's last timestamp, then the loss is an item of its own. */
void ttspan_loss(struct ttspan *sp, uint32_t c, const struct ttload_loss *l)
{
	struct ttspan_cpu *cpu = &sp->cpus[c];
	struct qitem it = { .type = Q_LOSS, .complete = true, .loss = l };

	close_above(sp, c, 0, cpu->last_ts);
	it.s.start = l->ts == UINT64_MAX ? cpu->last_ts : l->ts;
	q_push(cpu, &it);
	flush(sp, c);
}

/* Closes every open slice at its CPU's last timestamp and hands out the
 * rest. */
void ttspan_finish(struct ttspan *sp)
{
	for (uint32_t c = 0; c < sp->t->version.num_cpus; c++) {
		close_above(sp, c, 0, sp->cpus[c].last_ts);
		flush(sp, c);
	}
}
