/*
 * ttrace_ftlinux.h: the events of ours that Linux has too, as Linux's
 * (kern/trace/lib/ftrace_linux.c): their system, name, ID, format text
 * (../shared/reference/answer-formats.md, section A) and records, so
 * the tree's events/GROUP/EVENT/format and per_cpu/cpuN/trace_pipe_raw
 * (the kernel) and `ttdecode tracedat`'s trace.dat (the host) carry one
 * text and one layout for each, and Linux's tools (libtraceevent's
 * plugins, trace-cmd report, KernelShark) read them as Linux's:
 *
 *	ours			Linux's
 *	sched_switch		sched/sched_switch
 *	sched_waking, _wakeup, _wakeup_new	sched/ the same names
 *	proc_create		sched/sched_process_fork
 *	proc_exec		sched/sched_process_exec
 *	proc_exit, proc_free	sched/sched_process_exit, _free
 *	task_newtask, task_rename	task/ the same names
 *	irq_enter, irq_exit	irq/irq_handler_entry, _exit
 *	cpu_idle		power/cpu_idle
 *	user_marker		ftrace/print
 *	func_entry, func_exit	ftrace/funcgraph_entry, _exit
 *
 * An event maps when it has every argument its Linux record is made
 * from, found by name in its metadata (a trace of an older kernel keeps
 * the generic form, ttrace_ftevent.h). The writers read the arguments by
 * name, never by position. What a record needs beyond its own words
 * comes from the caller's ttrace_ftlinux_ops: names at a time (the aux),
 * a thread's prio when the record has none, the time a returning call
 * began (funcgraph_exit's calltime).
 *
 * Usage:
 *	const struct ttrace_ftlinux *l = ttrace_ftlinux_find(e);
 *	ttrace_ftlinux_event_format(&s, e);	// Linux's text or generic
 *	id = ttrace_ftlinux_event_id(e);
 *	n = l ? ttrace_ftlinux_record(rec, l, e, &ev, ns, &pid, &ops) : ...;
 */
#ifndef TTRACE_FTLINUX_H
#define TTRACE_FTLINUX_H

#include <ttrace_ftevent.h>

struct ttrace_ftlinux;

/* What a Linux record needs that its own words do not hold. */
struct ttrace_ftlinux_ops {
	ttrace_resolve_fn resolve;	/* names (tag, ident) at a time */
	void *rarg;
	/* pid's prio at ts, for a record without one of its own */
	uint32_t (*prio)(void *arg, uint64_t pid, uint64_t ts);
	/* the time (ns) the call of fn at depth that ev returns from
	 * began, ev's own time ns when that is not known */
	uint64_t (*calltime)(void *arg, const struct ttrace_event_view *ev,
			     uint64_t fn, uint32_t depth, uint64_t ns);
	/* a call of fn at depth began at ns (NULL: not wanted) */
	void (*entered)(void *arg, const struct ttrace_event_view *ev,
			uint64_t fn, uint32_t depth, uint64_t ns);
	void *arg;
};

/* The Linux event of ours e maps onto, or NULL. */
const struct ttrace_ftlinux *ttrace_ftlinux_find(
	const struct ttrace_event_meta *e);
/* The table's k-th entry, or NULL past its end (for a writer of every
 * Linux system's formats). */
const struct ttrace_ftlinux *ttrace_ftlinux_at(size_t k);
/* Its system, its Linux name, the name of our event it is made from,
 * its ID. */
const char *ttrace_ftlinux_system(const struct ttrace_ftlinux *l);
const char *ttrace_ftlinux_name(const struct ttrace_ftlinux *l);
const char *ttrace_ftlinux_ours(const struct ttrace_ftlinux *l);
unsigned ttrace_ftlinux_id(const struct ttrace_ftlinux *l);
/* Its format file text. */
void ttrace_ftlinux_format(struct seqbuf *s, const struct ttrace_ftlinux *l);

/* Event e's ID and format file: Linux's when it maps, else generic. */
unsigned ttrace_ftlinux_event_id(const struct ttrace_event_meta *e);
void ttrace_ftlinux_event_format(struct seqbuf *s,
				 const struct ttrace_event_meta *e);

/* pid as Linux numbers it: an idle thread is 0. */
uint32_t ttrace_ftlinux_pid(uint64_t pid);

/*
 * Event ev (of metadata e, which maps onto l) at ns as l's record into
 * rec (TTRACE_FTPAGE_REC_MAX bytes); *pid is the process running on the
 * CPU (the common_pid), which a sched_switch changes. Returns its bytes,
 * 0 when ev lacks words its metadata has (the caller writes it generic).
 */
size_t ttrace_ftlinux_record(uint8_t *rec, const struct ttrace_ftlinux *l,
			     const struct ttrace_event_meta *e,
			     const struct ttrace_event_view *ev, uint64_t ns,
			     uint32_t *pid, const struct ttrace_ftlinux_ops *o);

#endif /* TTRACE_FTLINUX_H */
