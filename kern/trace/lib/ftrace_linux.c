/*
 * ftrace_linux.c: our events that Linux has too, as Linux's
 * (ttrace_ftlinux.h): the table (our event and the arguments its record
 * is made from -> Linux's system, name, ID and format text) and the
 * record writers, side by side so a format and its records cannot
 * disagree. Pure: what a record needs beyond its own words comes through
 * the caller's ops; every record is bounded by TTRACE_FTPAGE_REC_MAX by
 * construction (the static_assert below).
 *
 * A writer reads our record's arguments by name through the event's
 * metadata (fl_arg), so a record that gains or reorders words maps on.
 *
 * The IDs are Linux's for ftrace's events (print 5, funcgraph_exit 10,
 * funcgraph_entry 11), fixed ones of ours (316..328) for the others.
 */
#include <string.h>

#include <ttrace_ftlinux.h>
#include <ttrace_ftpage.h>

struct fl_rec;
typedef size_t (*fl_write_fn)(const struct fl_rec *r);

struct ttrace_ftlinux {
	const char *ours;		/* our event */
	const char *args;		/* the arguments its record needs */
	const char *system, *name;	/* Linux's */
	unsigned id;
	const char *format;		/* the fields and print fmt */
	fl_write_fn write;
};

/* A record being written. */
struct fl_rec {
	uint8_t *rec;
	const struct ttrace_event_meta *e;
	const struct ttrace_event_view *ev;
	uint64_t ns;
	uint32_t *pid;
	const struct ttrace_ftlinux_ops *o;
};

#define FL_NAME_MAX	TTRACE_FTEVENT_STR_MAX	/* a __data_loc's bytes */
#define FL_COMM		16		/* Linux's TASK_COMM_LEN */
#define FL_FIXED	64		/* the largest fixed part */
static_assert(FL_FIXED + FL_NAME_MAX + 2 <= TTRACE_FTPAGE_REC_MAX,
	      "a Linux record fits a page");

#define LINUX_PREEMPTED	0x100		/* TASK_REPORT_MAX: "R+" */
#define LINUX_SLEEPING	0x1		/* TASK_INTERRUPTIBLE: "S" */
#define LINUX_ZOMBIE	0x20		/* EXIT_ZOMBIE: "Z" */
#define LINUX_SIGCHLD	0x11		/* task_newtask: a process (no
					   CLONE_THREAD) */

/* ---- our arguments, by name ------------------------------------------- */

/* The index of e's argument named the n bytes at name, or -1. */
static int fl_index(const struct ttrace_event_meta *e, const char *name,
		    size_t n)
{
	for (unsigned a = 0; a < e->nargs; a++)
		if (e->args[a].name && strlen(e->args[a].name) == n &&
		    !memcmp(e->args[a].name, name, n))
			return (int)a;
	return -1;
}

/* The word of r's argument name (one fl_has() found). */
static uint64_t fl_arg(const struct fl_rec *r, const char *name)
{
	int a = fl_index(r->e, name, strlen(name));

	return a >= 0 && (unsigned)a < r->ev->nwords ? r->ev->args[a] : 0;
}

/* Whether e has every argument the words ("a b c") name. */
static bool fl_has(const struct ttrace_event_meta *e, const char *words)
{
	for (const char *w = words; *w;) {
		size_t n = 0;

		while (w[n] && w[n] != ' ')
			n++;

		if (fl_index(e, w, n) < 0)
			return false;
		w += n + (w[n] == ' ');
	}
	return true;
}

/* ---- records ----------------------------------------------------------- */

static void put(uint8_t *rec, size_t at, const void *v, size_t n)
{
	memcpy(rec + at, v, n);
}

static void put32(uint8_t *rec, size_t at, uint32_t v)
{
	put(rec, at, &v, 4);
}

/* The name (tag, ident) at ev's time into dst (size bytes); its length. */
static size_t fl_name(const struct fl_rec *r, char *dst, size_t size,
		      unsigned tag, uint64_t ident)
{
	return ttrace_ftevent_name(dst, size, r->o->resolve, r->o->rarg, tag,
				   ident, r->ev->timestamp);
}

/* Appends the name (tag, ident) to the record (n bytes so far) as a
 * __data_loc string whose word is at loc; returns the new size. */
static size_t put_loc(const struct fl_rec *r, size_t n, size_t loc,
		      unsigned tag, uint64_t ident)
{
	uint32_t len = (uint32_t)fl_name(r, (char *)r->rec + n, FL_NAME_MAX,
					 tag, ident) + 1;

	put32(r->rec, loc, len << 16 | (uint32_t)n);
	return n + len;
}

/* The name of our pid at ev's time as Linux's char[16] at rec + at
 * (zeroed): at most 15 bytes; an unnamed idle thread is "idle". */
static void put_comm(const struct fl_rec *r, size_t at, uint64_t pid)
{
	char name[FL_NAME_MAX];
	const char *s;
	size_t n;

	if (!ttrace_ftlinux_pid(pid) && !(r->o->resolve &&
	    r->o->resolve(r->o->rarg, TTRACE_AUX_PROC_NAME, pid,
			  r->ev->timestamp, &s)))
		memcpy(name, "idle", n = 4);
	else
		n = fl_name(r, name, sizeof(name), TTRACE_AUX_PROC_NAME, pid);
	put(r->rec, at, name, MIN(n, (size_t)FL_COMM - 1));
}

/* The prio of our pid: the record's field named field if it has one,
 * else the caller's. */
static uint32_t fl_prio(const struct fl_rec *r, const char *field,
			uint64_t pid)
{
	if (fl_index(r->e, field, strlen(field)) >= 0)
		return (uint32_t)fl_arg(r, field);
	return r->o->prio(r->o->arg, pid, r->ev->timestamp);
}

/* Linux's prev_state for the state our switch record names. */
static uint64_t fl_state(const struct fl_rec *r, uint64_t state)
{
	char s[16];
	size_t len = fl_name(r, s, sizeof(s), TTRACE_AUX_STATE_NAME, state);

	if (len == 8 && !memcmp(s, "sleeping", 8))
		return LINUX_SLEEPING;
	if (len == 4 && !memcmp(s, "dead", 4))
		return LINUX_ZOMBIE;
	return LINUX_PREEMPTED;
}

/* sched_switch (prev, next, prev_state) */
static size_t fl_switch(const struct fl_rec *r)
{
	uint64_t prev = fl_arg(r, "prev"), next = fl_arg(r, "next");
	uint64_t state = fl_state(r, fl_arg(r, "prev_state"));

	put32(r->rec, 4, ttrace_ftlinux_pid(prev));	/* the one leaving */
	put_comm(r, 8, prev);
	put32(r->rec, 24, ttrace_ftlinux_pid(prev));
	put32(r->rec, 28, fl_prio(r, "prev_prio", prev));
	put(r->rec, 32, &state, 8);
	put_comm(r, 40, next);
	put32(r->rec, 56, ttrace_ftlinux_pid(next));
	put32(r->rec, 60, fl_prio(r, "next_prio", next));
	*r->pid = ttrace_ftlinux_pid(next);
	return 64;
}

/* sched_waking, sched_wakeup, sched_wakeup_new (comm, pid, prio,
 * target_cpu) */
static size_t fl_wakeup(const struct fl_rec *r)
{
	put_comm(r, 8, fl_arg(r, "pid"));
	put32(r->rec, 24, ttrace_ftlinux_pid(fl_arg(r, "pid")));
	put32(r->rec, 28, (uint32_t)fl_arg(r, "prio"));
	put32(r->rec, 32, (uint32_t)fl_arg(r, "target_cpu"));
	return 36;
}

/* proc_create (pid, name, parent) */
static size_t fl_fork(const struct fl_rec *r)
{
	put_comm(r, 8, fl_arg(r, "parent"));
	put32(r->rec, 24, ttrace_ftlinux_pid(fl_arg(r, "parent")));
	put_comm(r, 28, fl_arg(r, "pid"));
	put32(r->rec, 44, ttrace_ftlinux_pid(fl_arg(r, "pid")));
	return 48;
}

/* proc_exec (pid, filename, pid_nr) */
static size_t fl_exec(const struct fl_rec *r)
{
	put32(r->rec, 12, ttrace_ftlinux_pid(fl_arg(r, "pid_nr")));
	put32(r->rec, 16, ttrace_ftlinux_pid(fl_arg(r, "pid_nr")));
	return put_loc(r, 20, 8, TTRACE_AUX_PROC_NAME, fl_arg(r, "filename"));
}

/* proc_exit (pid, status, pid_nr): a process is its only thread, so the
 * group dies with it */
static size_t fl_exit(const struct fl_rec *r)
{
	put_comm(r, 8, fl_arg(r, "pid"));
	put32(r->rec, 24, ttrace_ftlinux_pid(fl_arg(r, "pid_nr")));
	put32(r->rec, 28, fl_prio(r, "prio", fl_arg(r, "pid")));
	r->rec[32] = 1;
	return 33;
}

/* proc_free (pid, pid_nr) */
static size_t fl_free(const struct fl_rec *r)
{
	put_comm(r, 8, fl_arg(r, "pid"));
	put32(r->rec, 24, ttrace_ftlinux_pid(fl_arg(r, "pid_nr")));
	put32(r->rec, 28, fl_prio(r, "prio", fl_arg(r, "pid")));
	return 32;
}

/* task_newtask (comm, pid, parent) */
static size_t fl_newtask(const struct fl_rec *r)
{
	uint64_t flags = LINUX_SIGCHLD;

	put32(r->rec, 8, ttrace_ftlinux_pid(fl_arg(r, "pid")));
	put_comm(r, 12, fl_arg(r, "comm"));
	put(r->rec, 32, &flags, 8);
	return 42;
}

/* task_rename (pid, oldcomm, newcomm) */
static size_t fl_rename(const struct fl_rec *r)
{
	put32(r->rec, 8, ttrace_ftlinux_pid(fl_arg(r, "pid")));
	put_comm(r, 12, fl_arg(r, "oldcomm"));
	put_comm(r, 28, fl_arg(r, "newcomm"));
	return 46;
}

/* irq_enter (vector, name) */
static size_t fl_irq_entry(const struct fl_rec *r)
{
	put32(r->rec, 8, (uint32_t)fl_arg(r, "vector"));
	return put_loc(r, 16, 12, TTRACE_AUX_IRQ_NAME, fl_arg(r, "name"));
}

/* irq_exit (vector, name): handled */
static size_t fl_irq_exit(const struct fl_rec *r)
{
	put32(r->rec, 8, (uint32_t)fl_arg(r, "vector"));
	put32(r->rec, 12, 1);
	return 16;
}

/* cpu_idle (state, cpu_id) */
static size_t fl_idle(const struct fl_rec *r)
{
	put32(r->rec, 8, (uint32_t)fl_arg(r, "state"));
	put32(r->rec, 12, (uint32_t)fl_arg(r, "cpu_id"));
	return 16;
}

/* user_marker (marker): the text with the newline trace_marker adds */
static size_t fl_print(const struct fl_rec *r)
{
	size_t n = fl_name(r, (char *)r->rec + 16, FL_NAME_MAX - 1,
			   TTRACE_AUX_USER_MARKER, fl_arg(r, "marker"));

	r->rec[16 + n] = '\n';
	return 16 + n + 2;
}

/* func_entry (fn, depth) */
static size_t fl_fg_entry(const struct fl_rec *r)
{
	uint64_t fn = fl_arg(r, "fn");
	uint32_t depth = (uint32_t)fl_arg(r, "depth");

	put(r->rec, 8, &fn, 8);
	put32(r->rec, 16, depth);
	if (r->o->entered)
		r->o->entered(r->o->arg, r->ev, fn, depth, r->ns);
	return 24;
}

/* The time func_exit's call began (the caller's), and its end. */
static void fl_fg_times(const struct fl_rec *r, size_t at)
{
	uint64_t call = r->o->calltime(r->o->arg, r->ev, fl_arg(r, "fn"),
				       (uint32_t)fl_arg(r, "depth"), r->ns);

	put(r->rec, at, &call, 8);
	put(r->rec, at + 8, &r->ns, 8);
}

/* func_exit (fn, depth, retval) */
static size_t fl_fg_retval(const struct fl_rec *r)
{
	uint64_t fn = fl_arg(r, "fn"), ret = fl_arg(r, "retval");

	put(r->rec, 8, &fn, 8);
	put(r->rec, 16, &ret, 8);
	put32(r->rec, 24, (uint32_t)fl_arg(r, "depth"));
	fl_fg_times(r, 32);
	return 48;
}

/* func_exit (fn, depth) of a trace without return values */
static size_t fl_fg_exit(const struct fl_rec *r)
{
	uint64_t fn = fl_arg(r, "fn");

	put(r->rec, 8, &fn, 8);
	put32(r->rec, 16, (uint32_t)fl_arg(r, "depth"));
	fl_fg_times(r, 24);
	return 40;
}

/* ---- the table --------------------------------------------------------- */

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

static const struct ttrace_ftlinux linux_events[] = {
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
	  fl_switch },
	{ "sched_waking", "comm pid prio target_cpu", "sched", "sched_waking",
	  317,
	  WAKEUP_FORMAT, fl_wakeup },
	{ "sched_wakeup", "comm pid prio target_cpu", "sched", "sched_wakeup",
	  318,
	  WAKEUP_FORMAT, fl_wakeup },
	{ "sched_wakeup_new", "comm pid prio target_cpu", "sched",
	  "sched_wakeup_new", 319, WAKEUP_FORMAT, fl_wakeup },
	{ "proc_create", "pid name parent", "sched", "sched_process_fork", 320,
	  F("char parent_comm[16]", 8, 16, 0) F("pid_t parent_pid", 24, 4, 1)
	  F("char child_comm[16]", 28, 16, 0) F("pid_t child_pid", 44, 4, 1)
	  PRINT("\"comm=%s pid=%d child_comm=%s child_pid=%d\", "
		"REC->parent_comm, REC->parent_pid, REC->child_comm, "
		"REC->child_pid"), fl_fork },
	{ "proc_exec", "pid filename pid_nr", "sched", "sched_process_exec",
	  321, F("__data_loc char[] filename", 8, 4, 0) F("pid_t pid", 12, 4, 1)
	  F("pid_t old_pid", 16, 4, 1)
	  PRINT("\"filename=%s pid=%d old_pid=%d\", __get_str(filename), "
		"REC->pid, REC->old_pid"), fl_exec },
	{ "proc_exit", "pid status pid_nr", "sched", "sched_process_exit", 322,
	  F("char comm[16]", 8, 16, 0) F("pid_t pid", 24, 4, 1)
	  F("int prio", 28, 4, 1) F("bool group_dead", 32, 1, 0)
	  PRINT("\"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, "
		"REC->pid, REC->prio, REC->group_dead ? \"true\" : \"false\""),
	  fl_exit },
	{ "proc_free", "pid pid_nr", "sched", "sched_process_free", 323,
	  F("char comm[16]", 8, 16, 0) F("pid_t pid", 24, 4, 1)
	  F("int prio", 28, 4, 1)
	  PRINT("\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio"),
	  fl_free },
	{ "task_newtask", "comm pid parent", "task", "task_newtask", 324,
	  F("pid_t pid", 8, 4, 1) F("char comm[16]", 12, 16, 0)
	  F("u64 clone_flags", 32, 8, 0) F("short oom_score_adj", 40, 2, 1)
	  PRINT("\"pid=%d comm=%s clone_flags=%llx oom_score_adj=%hd\", "
		"REC->pid, REC->comm, REC->clone_flags, REC->oom_score_adj"),
	  fl_newtask },
	{ "task_rename", "pid oldcomm newcomm", "task", "task_rename", 328,
	  F("pid_t pid", 8, 4, 1) F("char oldcomm[16]", 12, 16, 0)
	  F("char newcomm[16]", 28, 16, 0) F("short oom_score_adj", 44, 2, 1)
	  PRINT("\"pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd\", "
		"REC->pid, REC->oldcomm, REC->newcomm, REC->oom_score_adj"),
	  fl_rename },
	{ "irq_enter", "vector name", "irq", "irq_handler_entry", 325,
	  F("int irq", 8, 4, 1) F("__data_loc char[] name", 12, 4, 0)
	  PRINT("\"irq=%d name=%s\", REC->irq, __get_str(name)"), fl_irq_entry },
	{ "irq_exit", "vector name", "irq", "irq_handler_exit", 326,
	  F("int irq", 8, 4, 1) F("int ret", 12, 4, 1)
	  PRINT("\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : "
		"\"unhandled\""), fl_irq_exit },
	{ "cpu_idle", "state cpu_id", "power", "cpu_idle", 327,
	  F("u32 state", 8, 4, 0) F("u32 cpu_id", 12, 4, 0)
	  PRINT("\"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
		"(unsigned long)REC->cpu_id"), fl_idle },
	{ "user_marker", "marker", "ftrace", "print", 5,
	  F("unsigned long ip", 8, 8, 0) F("char buf[]", 16, 0, 0)
	  PRINT("\"%ps: %s\", (void *)REC->ip, REC->buf"), fl_print },
	{ "func_entry", "fn depth", "ftrace", "funcgraph_entry", 11,
	  F("unsigned long func", 8, 8, 0) F("int depth", 16, 4, 1)
	  PRINT("\"--> %ps (%d)\", (void *)REC->func, REC->depth"),
	  fl_fg_entry },
	{ "func_exit", "fn depth retval", "ftrace", "funcgraph_exit", 10,
	  F("unsigned long func", 8, 8, 0) F("unsigned long retval", 16, 8, 0)
	  F("int depth", 24, 4, 1) F("unsigned int overrun", 28, 4, 0)
	  F("unsigned long long calltime", 32, 8, 0)
	  F("unsigned long long rettime", 40, 8, 0)
	  PRINT("\"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: "
		"%lx\", (void *)REC->func, REC->depth, REC->calltime, "
		"REC->rettime, REC->depth, REC->retval"), fl_fg_retval },
	{ "func_exit", "fn depth", "ftrace", "funcgraph_exit", 10,
	  F("unsigned long func", 8, 8, 0) F("int depth", 16, 4, 1)
	  F("unsigned int overrun", 20, 4, 0)
	  F("unsigned long long calltime", 24, 8, 0)
	  F("unsigned long long rettime", 32, 8, 0)
	  PRINT("\"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", "
		"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, "
		"REC->overrun"), fl_fg_exit },
};
#define NLINUX	ARRAY_SIZE(linux_events)

/* See ttrace_ftlinux.h. */
const struct ttrace_ftlinux *ttrace_ftlinux_find(
	const struct ttrace_event_meta *e)
{
	for (size_t k = 0; k < NLINUX; k++)
		if (e->name && !strcmp(e->name, linux_events[k].ours) &&
		    fl_has(e, linux_events[k].args))
			return &linux_events[k];
	return NULL;
}

/* See ttrace_ftlinux.h. */
const struct ttrace_ftlinux *ttrace_ftlinux_at(size_t k)
{
	return k < NLINUX ? &linux_events[k] : NULL;
}

const char *ttrace_ftlinux_system(const struct ttrace_ftlinux *l)
{
	return l->system;
}

const char *ttrace_ftlinux_name(const struct ttrace_ftlinux *l)
{
	return l->name;
}

const char *ttrace_ftlinux_ours(const struct ttrace_ftlinux *l)
{
	return l->ours;
}

unsigned ttrace_ftlinux_id(const struct ttrace_ftlinux *l)
{
	return l->id;
}

/* See ttrace_ftlinux.h. */
void ttrace_ftlinux_format(struct seqbuf *s, const struct ttrace_ftlinux *l)
{
	ttrace_ftevent_head(s, l->name, l->id);
	seqbuf_puts(s, l->format);
}

/* See ttrace_ftlinux.h. */
unsigned ttrace_ftlinux_event_id(const struct ttrace_event_meta *e)
{
	const struct ttrace_ftlinux *l = ttrace_ftlinux_find(e);

	return l ? l->id : TTRACE_FTEVENT_ID_BASE + (unsigned)e->id;
}

/* See ttrace_ftlinux.h. */
void ttrace_ftlinux_event_format(struct seqbuf *s,
				 const struct ttrace_event_meta *e)
{
	const struct ttrace_ftlinux *l = ttrace_ftlinux_find(e);

	if (l)
		ttrace_ftlinux_format(s, l);
	else
		ttrace_ftevent_format(s, e);
}

/* See ttrace_ftlinux.h. */
uint32_t ttrace_ftlinux_pid(uint64_t pid)
{
	return pid >= TTRACE_IDLE_PID(0) ? 0 : (uint32_t)pid;
}

/* See ttrace_ftlinux.h. */
size_t ttrace_ftlinux_record(uint8_t *rec, const struct ttrace_ftlinux *l,
			     const struct ttrace_event_meta *e,
			     const struct ttrace_event_view *ev, uint64_t ns,
			     uint32_t *pid, const struct ttrace_ftlinux_ops *o)
{
	struct fl_rec r = { rec, e, ev, ns, pid, o };

	if (ev->nwords < e->nargs)
		return 0;
	memset(rec, 0, FL_FIXED + FL_NAME_MAX + 2);
	ttrace_ftevent_header(rec, l->id, *pid);
	return l->write(&r);
}
