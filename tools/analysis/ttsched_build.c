/*
 * ttsched_build.c: the scheduling model (ttsched.h) of a loaded trace,
 * out of its records in time order (ttmerge). Events and their fields
 * are found by name in the trace's own metadata, so a trace without a
 * record kind (an older kernel's: no sched_waking) gives a model without
 * those facts, never a misread one:
 *
 *	sched_switch		prev_pid/next_pid (else prev/next) and
 *				prev_state: the thread left RUNNABLE
 *				(preempted), BLOCKED or DEAD
 *	sched_waking, sched_wakeup	pid woken, onto target_cpu; the
 *				waker is the record's context: an IRQ's
 *				vector, a syscall's or trap's pid, else the
 *				thread running on the record's CPU (before
 *				its first switch: its idle thread, the boot)
 *	sched_wakeup_new	pid made runnable new, by the same waker
 *	sched_blocked_reason	pid, caller, chan (when the record has it)
 *	syscall_enter/_exit	the running thread's syscall
 */
#include <string.h>

#include "ttmerge.h"
#include "ttmodel.h"
#include "ttsched.h"

#define NO_ARG	UINT32_MAX

/* The kthread states sched_switch's str:state prev_state names
 * (kern/include/proc.h's enum kthread_state). */
enum { KT_RUNNABLE, KT_RUNNING, KT_SLEEPING, KT_DEAD };

/* Linux's prev_state bits (include/linux/sched.h), for a numeric one. */
#define LINUX_EXIT_DEAD		0x10
#define LINUX_EXIT_ZOMBIE	0x20
#define LINUX_PREEMPTED		0x100

enum role { R_SWITCH, R_WAKING, R_WAKEUP, R_WAKEUP_NEW, R_BLOCKED,
	    R_SYS_ENTER, R_SYS_EXIT, NROLES };

static const char *const role_names[NROLES] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_blocked_reason", "syscall_enter", "syscall_exit",
};

struct builder {
	struct ttsched *s;
	const struct ttload *t;
	uint32_t role[NROLES];
	uint32_t prev, next, state;	/* sched_switch's fields */
	bool state_is_kt;		/* prev_state is a str:state */
	uint32_t pid[NROLES], cpu[NROLES]; /* wakeups' pid, target_cpu */
	uint32_t caller, chan;		/* sched_blocked_reason's */
};

/* The id of the event called name in t, or UINT32_MAX. */
uint32_t ttsched_event_id(const struct ttload *t, const char *name)
{
	for (uint32_t i = 0; i < t->meta.nevents; i++)
		if (t->meta.events[i].name &&
		    !strcmp(t->meta.events[i].name, name))
			return i;
	return UINT32_MAX;
}

/* The index of event id's argument called name, or NO_ARG. */
uint32_t ttsched_arg(const struct ttload *t, uint32_t id, const char *name)
{
	const struct ttrace_event_meta *e;

	if (id >= t->meta.nevents)
		return NO_ARG;
	e = &t->meta.events[id];
	for (uint32_t i = 0; i < e->nargs; i++)
		if (e->args[i].name && !strcmp(e->args[i].name, name))
			return i;
	return NO_ARG;
}

/* The first of two names event id has an argument by. */
static uint32_t arg2(const struct ttload *t, uint32_t id, const char *a,
		     const char *b)
{
	uint32_t i = ttsched_arg(t, id, a);

	return i != NO_ARG ? i : ttsched_arg(t, id, b);
}

static void bind(struct builder *b)
{
	const struct ttload *t = b->t;
	uint32_t sw;

	for (uint32_t r = 0; r < NROLES; r++) {
		b->role[r] = ttsched_event_id(t, role_names[r]);
		b->pid[r] = ttsched_arg(t, b->role[r], "pid");
		b->cpu[r] = ttsched_arg(t, b->role[r], "target_cpu");
	}
	sw = b->role[R_SWITCH];
	b->prev = arg2(t, sw, "prev_pid", "prev");
	b->next = arg2(t, sw, "next_pid", "next");
	b->state = ttsched_arg(t, sw, "prev_state");
	b->state_is_kt = b->state != NO_ARG &&
		t->meta.events[sw].args[b->state].aux_tag ==
		TTRACE_AUX_STATE_NAME;
	b->caller = ttsched_arg(t, b->role[R_BLOCKED], "caller");
	b->chan = arg2(t, b->role[R_BLOCKED], "chan", "wchan");
}

/* What a thread switched out with prev_state v is left in. */
static enum ttsched_state left_in(const struct builder *b, uint64_t v)
{
	if (b->state_is_kt)
		return v == KT_SLEEPING ? TTSCHED_BLOCKED :
		       v == KT_DEAD ? TTSCHED_DEAD : TTSCHED_RUNNABLE;
	if (v & (LINUX_EXIT_DEAD | LINUX_EXIT_ZOMBIE))
		return TTSCHED_DEAD;
	return !v || (v & LINUX_PREEMPTED) ? TTSCHED_RUNNABLE :
	       TTSCHED_BLOCKED;
}

/* Who a record of cpu c (in ev's context) acts for, as a waker. */
static struct ttsched_waker waker_of(const struct builder *b, uint32_t c,
				     const struct ttrace_event_view *ev,
				     int64_t ns)
{
	const struct ttsched_cpu *cpu = &b->s->cpus[c];
	uint32_t pid = TTRACE_CTX_PID(ev->context);

	if (ev->ctx_kind == TTRACE_CTX_IRQ)
		return (struct ttsched_waker){ TTSCHED_WAKER_IRQ,
					       TTRACE_CTX_LOW(ev->context) };
	if ((ev->ctx_kind == TTRACE_CTX_SYSC ||
	     ev->ctx_kind == TTRACE_CTX_TRAP) && pid)
		return (struct ttsched_waker){ TTSCHED_WAKER_THREAD, pid };
	if (cpu->n && cpu->runs[cpu->n - 1].start <= ns)
		return (struct ttsched_waker){ TTSCHED_WAKER_THREAD,
					       cpu->runs[cpu->n - 1].pid };
	/* before the CPU's first switch: its idle thread, which runs the
	 * boot (docs/scheduler.md) */
	return (struct ttsched_waker){ TTSCHED_WAKER_THREAD,
				       TTRACE_IDLE_PID(c) };
}

/* An argument word of ev, or dflt when the event has no such field. */
static uint64_t arg(const struct ttrace_event_view *ev, uint32_t i,
		    uint64_t dflt)
{
	return i < ev->nwords ? ev->args[i] : dflt;
}

static void event(struct builder *b, uint32_t c,
		  const struct ttrace_event_view *ev)
{
	int64_t ns = ttmodel_ns(b->t, ev->timestamp);
	uint32_t id = ev->id, pid = TTRACE_CTX_PID(ev->context);
	struct ttsched *s = b->s;

	if (id == b->role[R_SWITCH]) {
		ttsched_switch(s, ns, c, (uint32_t)arg(ev, b->prev, 0),
			       left_in(b, arg(ev, b->state, KT_RUNNABLE)),
			       (uint32_t)arg(ev, b->next, 0));
	} else if (id == b->role[R_WAKING] || id == b->role[R_WAKEUP]) {
		uint32_t r = id == b->role[R_WAKING] ? R_WAKING : R_WAKEUP;

		ttsched_wake(s, ns, (uint32_t)arg(ev, b->pid[r], 0),
			     (uint32_t)arg(ev, b->cpu[r], TTSCHED_NO_CPU),
			     waker_of(b, c, ev, ns));
	} else if (id == b->role[R_WAKEUP_NEW]) {
		ttsched_wake_new(s, ns,
				 (uint32_t)arg(ev, b->pid[R_WAKEUP_NEW], 0),
				 (uint32_t)arg(ev, b->cpu[R_WAKEUP_NEW],
					       TTSCHED_NO_CPU),
				 waker_of(b, c, ev, ns));
	} else if (id == b->role[R_BLOCKED]) {
		ttsched_blocked(s, (uint32_t)arg(ev, b->pid[R_BLOCKED], 0),
				arg(ev, b->caller, 0), arg(ev, b->chan, 0));
	} else if ((id == b->role[R_SYS_ENTER] || id == b->role[R_SYS_EXIT])
		   && ev->ctx_kind == TTRACE_CTX_SYSC && pid) {
		ttsched_syscall(s, ns, c, pid, id == b->role[R_SYS_ENTER] ?
				arg(ev, 0, 0) + 1 : 0);
	}
}

/* The first (dir 1) or last (dir -1) whole event of the n sorted
 * entries at v, or NULL. */
static const struct ttrace_entry *end_event(const struct ttrace_entry *v,
					    uint64_t n, int dir)
{
	for (uint64_t i = 0; i < n; i++) {
		const struct ttrace_entry *e = &v[dir > 0 ? i : n - 1 - i];

		if (ttrace_ts_valid(e->timestamp) &&
		    !ttrace_ts_is_cont(e->timestamp))
			return e;
	}
	return NULL;
}

/* The times of t's first and last events into s->start and *last (0
 * when it has none): the trace's span, whatever the events modelled. */
static void trace_span(struct ttsched *s, const struct ttload *t,
		       int64_t *last)
{
	bool any = false;

	*last = 0;
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		const struct ttload_cpu *cpu = &t->cpus[c];
		const struct ttrace_entry *a = end_event(cpu->sorted,
							 cpu->nsorted, 1);
		const struct ttrace_entry *z = end_event(cpu->sorted,
							 cpu->nsorted, -1);
		int64_t ns;

		if (!a)
			continue;
		ns = ttmodel_ns(t, a->timestamp);
		s->start = any && s->start < ns ? s->start : ns;
		ns = ttmodel_ns(t, z->timestamp);
		*last = any && *last > ns ? *last : ns;
		any = true;
	}
	s->end = s->start;
}

/*
 * The model of t into s, for analyses of a window that begins at from
 * (s->keep_from). Only the records of the roles are merged (ttmerge
 * steps over the others by their type word). Returns 0, or -1 when out
 * of memory (s is then freed).
 */
int ttsched_build(struct ttsched *s, const struct ttload *t, int64_t from)
{
	struct builder b = { .s = s, .t = t };
	struct ttmerge_ids roles = { { 0 } };
	struct ttmerge mg;
	struct ttmerge_item it;
	int64_t last;

	bind(&b);
	for (uint32_t r = 0; r < NROLES; r++)
		ttmerge_ids_add(&roles, b.role[r]);
	if (ttsched_init(s, t->version.num_cpus, 0) < 0 ||
	    ttmerge_init_only(&mg, t, &roles) < 0) {
		ttsched_free(s);
		return -1;
	}
	s->keep_from = from;
	trace_span(s, t, &last);
	while (!s->oom && ttmerge_next(&mg, &it))
		if (!it.loss)	/* shown by the commands, ttmodel's */
			event(&b, it.cpu, it.ev);
	ttmerge_free(&mg);
	ttsched_finish(s, last);
	if (s->oom) {
		ttsched_free(s);
		return -1;
	}
	return 0;
}
