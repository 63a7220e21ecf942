/*
 * tttracedat_linux.c: the events of a trace that Linux has too, written to
 * the trace.dat as Linux writes them (its event names, systems, fields
 * and print fmts: ../shared/reference/answer-formats.md, section A), so
 * trace-cmd report's plugins, -w (wakeup latency), --profile and
 * KernelShark's sched plugin read them as a Linux trace's:
 *
 *	ours			Linux's
 *	sched_switch		sched/sched_switch (prev_state: R+ when
 *				preempted, S sleeping, Z dead)
 *	sched_waking, _wakeup, _wakeup_new	sched/ the same names
 *	proc_create		sched/sched_process_fork
 *	proc_exec		sched/sched_process_exec
 *	proc_exit, proc_free	sched/sched_process_exit, _free
 *	task_newtask, task_rename	task/ the same names (task_rename
 *				in its form before Linux 6.13, with pid)
 *	irq_enter, irq_exit	irq/irq_handler_entry, _exit (named)
 *	cpu_idle		power/cpu_idle
 *	user_marker		ftrace/print (trace_marker's record)
 *	func_entry, func_exit	ftrace/funcgraph_entry, _exit (with retval
 *				when the trace has it)
 *
 * An event maps only when its arguments are the ones the record is made
 * from (a trace of an older kernel keeps its own form, in the system
 * ttrace). The IDs are Linux's for ftrace's events, fixed ones of ours
 * for the others.
 */
#include <stdlib.h>
#include <string.h>

#include "ttexport.h"
#include "tttracedat.h"

typedef size_t (*td_write_fn)(struct td_export *x, uint8_t *rec,
			      const struct ttrace_event_view *ev, uint64_t ns);

struct td_linux {
	const char *ours;		/* our event */
	const char *args;		/* its first arguments' names */
	const char *system, *name;	/* Linux's */
	unsigned id;
	const char *format;		/* the fields and print fmt */
	td_write_fn write;
};

#define LINUX_PREEMPTED	0x100		/* TASK_REPORT_MAX: "R+" */
#define LINUX_SLEEPING	0x1		/* TASK_INTERRUPTIBLE: "S" */
#define LINUX_ZOMBIE	0x20		/* EXIT_ZOMBIE: "Z" */
#define LINUX_SIGCHLD	0x11		/* task_newtask: a process (no
					   CLONE_THREAD) */
#define LINUX_IDLE_EXIT	0xffffffffu	/* cpu_idle: PWR_EVENT_EXIT */

/* ---- records ------------------------------------------------------------- */

static void put(uint8_t *rec, size_t at, const void *v, size_t n)
{
	memcpy(rec + at, v, n);
}

static void put32(uint8_t *rec, size_t at, uint32_t v)
{
	put(rec, at, &v, 4);
}

/* Appends the name (tag, ident) at ts to rec (n bytes so far) as a
 * __data_loc string whose word is at loc; returns the new size. */
static size_t put_loc(struct td_export *x, uint8_t *rec, size_t n, size_t loc,
		      unsigned tag, uint64_t ident, uint64_t ts)
{
	uint32_t len = (uint32_t)ttexport_name((char *)rec + n, TD_NAME_MAX,
					       x->t, tag, ident, ts,
					       TTEXPORT_PRINTABLE) + 1;

	put32(rec, loc, len << 16 | (uint32_t)n);
	return n + len;
}

/* Linux's prev_state for the state our switch record names. */
static uint64_t linux_state(struct td_export *x, uint64_t state, uint64_t ts)
{
	const char *s;
	size_t len = ttload_resolve(x->t, TTRACE_AUX_STATE_NAME, state, ts,
				    &s);

	if (len == 8 && !memcmp(s, "sleeping", 8))
		return LINUX_SLEEPING;
	if (len == 4 && !memcmp(s, "dead", 4))
		return LINUX_ZOMBIE;
	return LINUX_PREEMPTED;
}

static size_t w_switch(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns)
{
	uint32_t prev = td_pid(ev->args[0]), next = td_pid(ev->args[1]);
	uint64_t state = linux_state(x, ev->args[2], ev->timestamp);

	(void)ns;
	put32(rec, 4, prev);		/* common_pid: the one leaving */
	td_comm(x, rec + 8, ev->args[0], ev->timestamp);
	put32(rec, 24, prev);
	put32(rec, 28, ttexport_switch_prio(&x->prios, x->t, ev, 0));
	put(rec, 32, &state, 8);
	td_comm(x, rec + 40, ev->args[1], ev->timestamp);
	put32(rec, 56, next);
	put32(rec, 60, ttexport_switch_prio(&x->prios, x->t, ev, 1));
	x->pid = next;
	return 64;
}

/* sched_waking, sched_wakeup, sched_wakeup_new: (comm, pid, prio,
 * target_cpu) */
static size_t w_wakeup(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	td_comm(x, rec + 8, ev->args[1], ev->timestamp);
	put32(rec, 24, td_pid(ev->args[1]));
	put32(rec, 28, (uint32_t)ev->args[2]);
	put32(rec, 32, (uint32_t)ev->args[3]);
	return 36;
}

/* proc_create (pid, name, parent) */
static size_t w_fork(struct td_export *x, uint8_t *rec,
		     const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	td_comm(x, rec + 8, ev->args[2], ev->timestamp);
	put32(rec, 24, td_pid(ev->args[2]));
	td_comm(x, rec + 28, ev->args[0], ev->timestamp);
	put32(rec, 44, td_pid(ev->args[0]));
	return 48;
}

/* proc_exec (pid, filename, pid_nr) */
static size_t w_exec(struct td_export *x, uint8_t *rec,
		     const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	put32(rec, 12, td_pid(ev->args[2]));
	put32(rec, 16, td_pid(ev->args[2]));
	return put_loc(x, rec, 20, 8, TTRACE_AUX_PROC_NAME, ev->args[1],
		       ev->timestamp);
}

/* proc_exit (pid, status, pid_nr): a process is its only thread, so the
 * group dies with it */
static size_t w_exit(struct td_export *x, uint8_t *rec,
		     const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	td_comm(x, rec + 8, ev->args[0], ev->timestamp);
	put32(rec, 24, td_pid(ev->args[2]));
	put32(rec, 28, ttexport_prio(&x->prios, ev->args[0], ev->timestamp));
	rec[32] = 1;
	return 33;
}

/* proc_free (pid, pid_nr) */
static size_t w_free(struct td_export *x, uint8_t *rec,
		     const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	td_comm(x, rec + 8, ev->args[0], ev->timestamp);
	put32(rec, 24, td_pid(ev->args[1]));
	put32(rec, 28, ttexport_prio(&x->prios, ev->args[0], ev->timestamp));
	return 32;
}

/* task_newtask (comm, pid, parent) */
static size_t w_newtask(struct td_export *x, uint8_t *rec,
			const struct ttrace_event_view *ev, uint64_t ns)
{
	uint64_t flags = LINUX_SIGCHLD;

	(void)ns;
	put32(rec, 8, td_pid(ev->args[1]));
	td_comm(x, rec + 12, ev->args[0], ev->timestamp);
	put(rec, 32, &flags, 8);
	return 42;
}

/* task_rename (pid, oldcomm, newcomm) */
static size_t w_rename(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	put32(rec, 8, td_pid(ev->args[0]));
	td_comm(x, rec + 12, ev->args[1], ev->timestamp);
	td_comm(x, rec + 28, ev->args[2], ev->timestamp);
	return 46;
}

/* irq_enter (vector, name) */
static size_t w_irq_entry(struct td_export *x, uint8_t *rec,
			  const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)ns;
	put32(rec, 8, (uint32_t)ev->args[0]);
	return put_loc(x, rec, 16, 12, TTRACE_AUX_IRQ_NAME, ev->args[1],
		       ev->timestamp);
}

/* irq_exit (vector, name): handled */
static size_t w_irq_exit(struct td_export *x, uint8_t *rec,
			 const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)x;
	(void)ns;
	put32(rec, 8, (uint32_t)ev->args[0]);
	put32(rec, 12, 1);
	return 16;
}

/* cpu_idle (state, cpu_id) */
static size_t w_idle(struct td_export *x, uint8_t *rec,
		     const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)x;
	(void)ns;
	put32(rec, 8, (uint32_t)ev->args[0]);
	put32(rec, 12, (uint32_t)ev->args[1]);
	return 16;
}

/* user_marker (marker): the text with the newline trace_marker adds */
static size_t w_print(struct td_export *x, uint8_t *rec,
		      const struct ttrace_event_view *ev, uint64_t ns)
{
	size_t n = ttexport_name((char *)rec + 16, TD_NAME_MAX - 1, x->t,
				 TTRACE_AUX_USER_MARKER, ev->args[0],
				 ev->timestamp, TTEXPORT_PRINTABLE);

	(void)ns;
	rec[16 + n] = '\n';
	return 16 + n + 2;
}

/* func_entry (fn, depth) */
static size_t w_fg_entry(struct td_export *x, uint8_t *rec,
			 const struct ttrace_event_view *ev, uint64_t ns)
{
	(void)x;
	(void)ns;
	put(rec, 8, &ev->args[0], 8);
	put32(rec, 16, (uint32_t)ev->args[1]);
	return 24;
}

static int by_end(const void *a, const void *b)
{
	const struct td_call *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* The time an exit's call began: its entry on its own thread (the
 * model's pairing, td_calls), else the exit's own time ns. */
static uint64_t calltime(struct td_export *x,
			 const struct ttrace_event_view *ev, uint64_t ns)
{
	struct td_call key = { ev->timestamp, ev->args[0], 0 }, *call;

	call = x->ncalls ? bsearch(&key, x->calls, x->ncalls,
				   sizeof(*x->calls), by_end) : NULL;
	return call ? ttexport_ns(x->t, call->start) : ns;
}

/* func_exit (fn, depth, retval) */
static size_t w_fg_retval(struct td_export *x, uint8_t *rec,
			  const struct ttrace_event_view *ev, uint64_t ns)
{
	uint64_t call = calltime(x, ev, ns);

	put(rec, 8, &ev->args[0], 8);
	put(rec, 16, &ev->args[2], 8);
	put32(rec, 24, (uint32_t)ev->args[1]);
	put(rec, 32, &call, 8);
	put(rec, 40, &ns, 8);
	return 48;
}

/* func_exit (fn, depth) of a trace without return values */
static size_t w_fg_exit(struct td_export *x, uint8_t *rec,
			const struct ttrace_event_view *ev, uint64_t ns)
{
	uint64_t call = calltime(x, ev, ns);

	put(rec, 8, &ev->args[0], 8);
	put32(rec, 16, (uint32_t)ev->args[1]);
	put(rec, 24, &call, 8);
	put(rec, 32, &ns, 8);
	return 40;
}

/* ---- the table ----------------------------------------------------------- */

#define F(decl, off, size, sgn)	"\tfield:" decl ";\toffset:" #off \
				";\tsize:" #size ";\tsigned:" #sgn ";\n"
#define PRINT(fmt)		"\nprint fmt: " fmt "\n"

#define WAKEUP_FORMAT							\
	F("char comm[16]", 8, 16, 0) F("pid_t pid", 24, 4, 1)		\
	F("int prio", 28, 4, 1) F("int target_cpu", 32, 4, 1)		\
	PRINT("\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "	\
	      "REC->pid, REC->prio, REC->target_cpu")

/* prev_state's print as Linux 6.12 prints it (R+ preempted, S, Z...) */
#define STATE_MASK	"((((0x00000000 | 0x00000001 | 0x00000002 | "	\
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "		\
	"0x00000040) + 1) << 1) - 1)"

static const struct td_linux linux_events[] = {
	{ "sched_switch", "prev next prev_state", "sched", "sched_switch",
	  316, F("char prev_comm[16]", 8, 16, 0) F("pid_t prev_pid", 24, 4, 1)
	  F("int prev_prio", 28, 4, 1) F("long prev_state", 32, 8, 1)
	  F("char next_comm[16]", 40, 16, 0) F("pid_t next_pid", 56, 4, 1)
	  F("int next_prio", 60, 4, 1)
	  PRINT("\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s "
		"==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
		"REC->prev_pid, REC->prev_prio, (REC->prev_state & " STATE_MASK
		") ? __print_flags(REC->prev_state & " STATE_MASK ", \"|\", "
		"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, "
		"\"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, "
		"{ 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, "
		"\"I\" }) : \"R\", REC->prev_state & (" STATE_MASK " + 1) ? "
		"\"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio"),
	  w_switch },
	{ "sched_waking", "comm pid prio target_cpu", "sched", "sched_waking",
	  317,
	  WAKEUP_FORMAT, w_wakeup },
	{ "sched_wakeup", "comm pid prio target_cpu", "sched", "sched_wakeup",
	  318,
	  WAKEUP_FORMAT, w_wakeup },
	{ "sched_wakeup_new", "comm pid prio target_cpu", "sched",
	  "sched_wakeup_new", 319, WAKEUP_FORMAT, w_wakeup },
	{ "proc_create", "pid name parent", "sched", "sched_process_fork", 320,
	  F("char parent_comm[16]", 8, 16, 0) F("pid_t parent_pid", 24, 4, 1)
	  F("char child_comm[16]", 28, 16, 0) F("pid_t child_pid", 44, 4, 1)
	  PRINT("\"comm=%s pid=%d child_comm=%s child_pid=%d\", "
		"REC->parent_comm, REC->parent_pid, REC->child_comm, "
		"REC->child_pid"), w_fork },
	{ "proc_exec", "pid filename pid_nr", "sched", "sched_process_exec",
	  321, F("__data_loc char[] filename", 8, 4, 0) F("pid_t pid", 12, 4, 1)
	  F("pid_t old_pid", 16, 4, 1)
	  PRINT("\"filename=%s pid=%d old_pid=%d\", __get_str(filename), "
		"REC->pid, REC->old_pid"), w_exec },
	{ "proc_exit", "pid status pid_nr", "sched", "sched_process_exit", 322,
	  F("char comm[16]", 8, 16, 0) F("pid_t pid", 24, 4, 1)
	  F("int prio", 28, 4, 1) F("bool group_dead", 32, 1, 0)
	  PRINT("\"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, "
		"REC->pid, REC->prio, REC->group_dead ? \"true\" : \"false\""),
	  w_exit },
	{ "proc_free", "pid pid_nr", "sched", "sched_process_free", 323,
	  F("char comm[16]", 8, 16, 0) F("pid_t pid", 24, 4, 1)
	  F("int prio", 28, 4, 1)
	  PRINT("\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio"),
	  w_free },
	{ "task_newtask", "comm pid parent", "task", "task_newtask", 324,
	  F("pid_t pid", 8, 4, 1) F("char comm[16]", 12, 16, 0)
	  F("u64 clone_flags", 32, 8, 0) F("short oom_score_adj", 40, 2, 1)
	  PRINT("\"pid=%d comm=%s clone_flags=%llx oom_score_adj=%hd\", "
		"REC->pid, REC->comm, REC->clone_flags, REC->oom_score_adj"),
	  w_newtask },
	{ "task_rename", "pid oldcomm newcomm", "task", "task_rename", 328,
	  F("pid_t pid", 8, 4, 1) F("char oldcomm[16]", 12, 16, 0)
	  F("char newcomm[16]", 28, 16, 0) F("short oom_score_adj", 44, 2, 1)
	  PRINT("\"pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd\", "
		"REC->pid, REC->oldcomm, REC->newcomm, REC->oom_score_adj"),
	  w_rename },
	{ "irq_enter", "vector name", "irq", "irq_handler_entry", 325,
	  F("int irq", 8, 4, 1) F("__data_loc char[] name", 12, 4, 0)
	  PRINT("\"irq=%d name=%s\", REC->irq, __get_str(name)"), w_irq_entry },
	{ "irq_exit", "vector name", "irq", "irq_handler_exit", 326,
	  F("int irq", 8, 4, 1) F("int ret", 12, 4, 1)
	  PRINT("\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : "
		"\"unhandled\""), w_irq_exit },
	{ "cpu_idle", "state cpu_id", "power", "cpu_idle", 327,
	  F("u32 state", 8, 4, 0) F("u32 cpu_id", 12, 4, 0)
	  PRINT("\"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
		"(unsigned long)REC->cpu_id"), w_idle },
	{ "user_marker", "marker", "ftrace", "print", 5,
	  F("unsigned long ip", 8, 8, 0) F("char buf[]", 16, 0, 0)
	  PRINT("\"%ps: %s\", (void *)REC->ip, REC->buf"), w_print },
	{ "func_entry", "fn depth", "ftrace", "funcgraph_entry", 11,
	  F("unsigned long func", 8, 8, 0) F("int depth", 16, 4, 1)
	  PRINT("\"--> %ps (%d)\", (void *)REC->func, REC->depth"),
	  w_fg_entry },
	{ "func_exit", "fn depth retval", "ftrace", "funcgraph_exit", 10,
	  F("unsigned long func", 8, 8, 0) F("unsigned long retval", 16, 8, 0)
	  F("int depth", 24, 4, 1) F("unsigned int overrun", 28, 4, 0)
	  F("unsigned long long calltime", 32, 8, 0)
	  F("unsigned long long rettime", 40, 8, 0)
	  PRINT("\"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: "
		"%lx\", (void *)REC->func, REC->depth, REC->calltime, "
		"REC->rettime, REC->depth, REC->retval"), w_fg_retval },
	{ "func_exit", "fn depth", "ftrace", "funcgraph_exit", 10,
	  F("unsigned long func", 8, 8, 0) F("int depth", 16, 4, 1)
	  F("unsigned int overrun", 20, 4, 0)
	  F("unsigned long long calltime", 24, 8, 0)
	  F("unsigned long long rettime", 32, 8, 0)
	  PRINT("\"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", "
		"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, "
		"REC->overrun"), w_fg_exit },
};
#define NLINUX	(sizeof(linux_events) / sizeof(linux_events[0]))

/* The calls of the model's function spans that returned (their exit
 * pairs with their own thread's entry, wherever each ran), by (end, fn).
 * Returns 0 or -1 (memory). */
static int find_calls(struct td_export *x)
{
	const struct ttmodel *m = x->m;
	uint64_t n = 0;

	for (uint32_t i = 0; i < m->ntracks; i++)
		for (uint64_t k = 0; k < m->tracks[i].nspans; k++)
			n += m->tracks[i].spans[k].kind == TTMODEL_FUNC &&
			     m->tracks[i].spans[k].how == TTMODEL_DONE;
	if (n && !(x->calls = malloc(n * sizeof(*x->calls))))
		return -1;
	for (uint32_t i = 0; i < m->ntracks; i++)
		for (uint64_t k = 0; k < m->tracks[i].nspans; k++) {
			const struct ttmodel_span *s = &m->tracks[i].spans[k];

			if (s->kind == TTMODEL_FUNC && s->how == TTMODEL_DONE)
				x->calls[x->ncalls++] = (struct td_call){
					s->end, s->ident, s->start };
		}
	if (n)
		qsort(x->calls, n, sizeof(*x->calls), by_end);
	return 0;
}

/*
 * Finds which events of the trace are Linux's (x->linux_of), each
 * thread's prio (x->prios) and the function calls an exit's calltime
 * comes from. Returns 0 or -1 (memory).
 */
int td_linux_init(struct td_export *x)
{
	const struct ttrace_meta_table *m = &x->t->meta;

	x->linux_of = calloc(m->nevents ? m->nevents : 1,
			     sizeof(*x->linux_of));
	if (!x->linux_of)
		return -1;
	for (uint32_t i = 0; i < m->nevents; i++)
		for (size_t k = 0; k < NLINUX && !x->linux_of[i]; k++)
			if (m->events[i].name &&
			    !strcmp(m->events[i].name, linux_events[k].ours) &&
			    ttexport_args_are(&m->events[i],
					      linux_events[k].args))
				x->linux_of[i] = &linux_events[k];
	if (ttexport_prios_init(&x->prios, x->t) < 0)
		return -1;
	return find_calls(x);
}

void td_linux_free(struct td_export *x)
{
	ttexport_prios_free(&x->prios);
	free(x->linux_of);
	free(x->calls);
}

/* Whether an event of the trace is Linux's event l. */
static bool mapped(const struct td_export *x, const struct td_linux *l)
{
	for (uint32_t i = 0; i < x->t->meta.nevents; i++)
		if (x->linux_of[i] == l)
			return true;
	return false;
}

/* Whether Linux's event l has its format in the file: when the trace has
 * it; and sched_switch and the function graph's always (a trace without
 * them is still read as Linux's), funcgraph_exit in the form of the
 * trace's func_exit (the last one, without retval, if none). */
static bool wanted(const struct td_export *x, const struct td_linux *l)
{
	if (mapped(x, l))
		return true;
	if (!strcmp(l->ours, "func_exit"))
		return l == &linux_events[NLINUX - 1] &&
		       !mapped(x, &linux_events[NLINUX - 2]);
	return !strcmp(l->ours, "sched_switch") ||
	       !strcmp(l->ours, "func_entry");
}

/* The system of linux_events[k] when it is the first wanted one of its
 * system, else NULL. */
static const char *first_of_system(const struct td_export *x, size_t k)
{
	const struct td_linux *l = &linux_events[k];

	if (!wanted(x, l))
		return NULL;
	for (size_t j = 0; j < k; j++)
		if (!strcmp(linux_events[j].system, l->system) &&
		    wanted(x, &linux_events[j]))
			return NULL;
	return l->system;
}

/* Writes the format files of system sys's wanted events: count, then
 * each. */
static void system_formats(struct td_export *x, struct td_text *b,
			   const char *sys)
{
	uint32_t n = 0;

	for (size_t k = 0; k < NLINUX; k++)
		n += !strcmp(linux_events[k].system, sys) &&
		     wanted(x, &linux_events[k]);
	td_u32(x, n);
	for (size_t k = 0; k < NLINUX; k++) {
		const struct td_linux *l = &linux_events[k];

		if (strcmp(l->system, sys) || !wanted(x, l))
			continue;
		td_format_head(b, l->name, l->id);
		td_printf(b, "%s", l->format);
		td_text_out(x, b, true);
	}
}

/* The ftrace section: the count and formats of ftrace's events. */
void td_linux_ftrace(struct td_export *x, struct td_text *b)
{
	system_formats(x, b, "ftrace");
}

/* How many event systems of Linux's td_linux_systems() writes. */
uint32_t td_linux_nsystems(const struct td_export *x)
{
	uint32_t n = 0;

	for (size_t k = 0; k < NLINUX; k++) {
		const char *sys = first_of_system(x, k);

		n += sys && strcmp(sys, "ftrace");
	}
	return n;
}

/* Each system of Linux's events but ftrace: its name, then its formats. */
void td_linux_systems(struct td_export *x, struct td_text *b)
{
	for (size_t k = 0; k < NLINUX; k++) {
		const char *sys = first_of_system(x, k);

		if (!sys || !strcmp(sys, "ftrace"))
			continue;
		td_put(x, sys, strlen(sys) + 1);
		system_formats(x, b, sys);
	}
}

/* Record ev (at ns) as its Linux event in rec: its size, or 0 if ev is
 * none of Linux's. */
size_t td_linux_record(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns)
{
	const struct td_linux *l = ev->id < x->t->meta.nevents ?
				   x->linux_of[ev->id] : NULL;

	if (!l || ev->nwords < x->t->meta.events[ev->id].nargs)
		return 0;
	memset(rec, 0, 64 + TD_NAME_MAX);
	ttrace_ftevent_header(rec, l->id, x->pid);
	return l->write(x, rec, ev, ns);
}
