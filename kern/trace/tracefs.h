/*
 * tracefs.h: ftrace's tree under /dev/ttrace (tracefs.c; docs/tracefs.md),
 * for the device (devttrace.c): every qid with TFS_Q set is the tree's.
 */
#ifndef TTRACE_TRACEFS_H
#define TTRACE_TRACEFS_H

#include <ns.h>

#define TFS_Q		(1ULL << 32)
#define TRACEFS_ALL_CPUS UINT32_MAX

/* The device's hooks for the tree's files; tracefs_gen also lists the
 * tree's entries of devttrace's root (a chan without TFS_Q). */
int tracefs_gen(struct chan *c, const char *name, uint64_t i,
		struct devdir *e);
int tracefs_open(struct chan *c, int omode);
void tracefs_close(struct chan *c);
long tracefs_read(struct chan *c, void *buf, size_t n, uint64_t off);
long tracefs_write(struct chan *c, const void *buf, size_t n);
int tracefs_truncate(struct chan *c);
/* Whether reading q needs CAP_TRACE (it holds records); whether q is
 * trace_marker (open to every process, as devttrace's marker). */
bool tracefs_needs_right(uint64_t q);
bool tracefs_is_marker(uint64_t q);

/* The text options (tracefs.c): how trace prints; the ones trace reads,
 * by their index in the table. */
enum { TFS_OPT_FUNCGRAPH_PROC = 4, TFS_OPT_FUNCGRAPH_DURATION = 5 };
extern const uint32_t tracefs_noptions;
const char *tracefs_option_name(uint32_t i);
bool tracefs_option_on(uint32_t i);
/* The current tracer's name, as current_tracer reads. */
const char *tracefs_current_tracer(void);

/* trace, trace_pipe and their per-CPU files (tracefs_trace.c). */
struct tracefs_trace;
struct tracefs_trace *tracefs_trace_new(bool pipe, uint32_t cpu);
/* The snapshot file: the newest snapshot copy (tracefs_snap.c). */
struct tracefs_trace *tracefs_trace_snap(void);
void tracefs_trace_free(struct tracefs_trace *t);
long tracefs_trace_read(struct tracefs_trace *t, void *buf, size_t n);
extern uint64_t tracefs_read_events[];
struct ttrace_aux_view;
/* A snapshot of the aux ring (the names) in pages of *order, its view in
 * *v; NULL when memory is short. Free with free_cont_pages(). */
char *tracefs_aux_take(struct ttrace_aux_view *v, unsigned *order);

/* The next blank-separated word at *p, NUL terminated in place ("" at
 * the end); *p moves past it (tracefs.c). */
char *tracefs_next_word(char **p);

/* The pid lists and the graph's narrowing (tracefs_narrow.c): the rows'
 * text, write and O_TRUNC functions. */
struct seqbuf;
void tracefs_event_pid_text(struct seqbuf *s, uint32_t inst);
int tracefs_event_pid_write(uint32_t inst, char *line, const char **why);
int tracefs_event_pid_trunc(uint32_t inst, const char **why);
void tracefs_ftrace_pid_text(struct seqbuf *s, uint32_t inst);
int tracefs_ftrace_pid_write(uint32_t inst, char *line, const char **why);
int tracefs_ftrace_pid_trunc(uint32_t inst, const char **why);
void tracefs_ftrace_notrace_text(struct seqbuf *s, uint32_t inst);
int tracefs_ftrace_notrace_write(uint32_t inst, char *line, const char **why);
int tracefs_ftrace_notrace_trunc(uint32_t inst, const char **why);
void tracefs_graph_notrace_text(struct seqbuf *s, uint32_t inst);
int tracefs_graph_notrace_write(uint32_t inst, char *line, const char **why);
int tracefs_graph_notrace_trunc(uint32_t inst, const char **why);
void tracefs_max_depth_text(struct seqbuf *s, uint32_t inst);
int tracefs_max_depth_write(uint32_t inst, char *line, const char **why);

/* Event e on or off as its enable file's 1 or 0 (tracefs.c). */
int tracefs_event_set(uint32_t e, bool on, const char **why);
/* Ftrace filter text (changed in place) as the tests of a probe spec on
 * event e (tracefs.c). */
struct ttrace_probe_spec;
int tracefs_filter_spec(uint32_t e, char *text, struct ttrace_probe_spec *spec,
			const char **why);
/* The enable_event and disable_event triggers (tracefs_trig.c): a write
 * of one (1: spec is none of them) and their lines in the trigger file. */
int tracefs_soft_trigger(uint32_t ev, char *spec, char *cond, bool del,
			 const char **why);
unsigned tracefs_soft_text(struct seqbuf *s, uint32_t ev);

#endif
