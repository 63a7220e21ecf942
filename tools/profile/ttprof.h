/*
 * ttprof: the host model of a sampling profile, read by every profile
 * export (`ttdecode folded`, `flamegraph`, `pprof` and the perf samples
 * of `perfetto`), so that they cannot count different stacks: each
 * export walks the same samples, each sample names one interned stack,
 * each stack a list of interned frames. The rules are docs/profiling.md,
 * "## Reading".
 *
 *	sample	what one on-CPU sample saw (weight: the interval it stands
 *		for, the time since its CPU's sample before it) or
 *		what one thread's stay off the CPU cost (weight: how long
 *		it was off), with its pid, tid, CPU and mode
 *	stack	frames leaf (innermost) first, as pprof orders them; the
 *		same frames in the same order are one stack
 *	frame	a function: its name and the mapping it is in (the kernel,
 *		or a program of build/user), one frame per (mapping, name)
 *		so every export aggregates by function the same way
 *	mapping	the kernel or a program's file, by the path the trace
 *		records for the process
 *
 * Names are the model's own copies. A trace's samples come in through
 * ttprof_from_trace() (tools/profile/ttprof_trace.c), the tests' synthetic
 * ones through ttprof_frame(), ttprof_stack() and ttprof_add().
 *
 * Usage:
 *	struct ttprof p;
 *	ttprof_init(&p, period_ns);
 *	uint32_t f[2] = { ttprof_frame(&p, map, addr, "f1", 2), main_fr };
 *	ttprof_add(&p, &(struct ttprof_sample){ .stack =
 *			ttprof_stack(&p, f, 2), .ns = period_ns, ... });
 *	... export ...
 *	ttprof_free(&p);
 */
#ifndef TTPROF_H
#define TTPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TTPROF_MAX_FRAMES	128	/* frames of one stack (a phase, a
					   kernel and a user stack) */
#define TTPROF_NO_MAPPING	0	/* mapping 0: "[unknown]" */

enum ttprof_kind {
	TTPROF_ON_CPU,			/* a sample; ns: the interval before
					   it that it stands for */
	TTPROF_OFF_CPU,			/* a thread's time blocked; ns: how
					   long, stack: where it blocked */
};

/* Which samples an export counts. */
enum ttprof_view {
	TTPROF_VIEW_ON,			/* on-CPU samples (the default) */
	TTPROF_VIEW_OFF,		/* off-CPU time (--off-cpu) */
	TTPROF_VIEW_WALL,		/* both: wall-clock time (--wall) */
};

enum ttprof_mode { TTPROF_KERNEL = 1, TTPROF_USER = 2 }; /* Perfetto's */

struct ttprof_sample {
	uint64_t ts;			/* ns since boot: an on-CPU sample's
					   moment (the end of its interval),
					   an off-CPU time's start */
	uint64_t ns;			/* weight (see enum ttprof_kind) */
	uint32_t stack;			/* index into stacks */
	uint32_t pid;			/* the process (our pid) */
	uint32_t tid;
	uint32_t cpu;
	uint8_t kind;			/* enum ttprof_kind */
	uint8_t mode;			/* enum ttprof_mode */
};

struct ttprof_mapping {
	char *path;			/* "kernel", "/bin/spin" */
	uint64_t start, end;		/* addresses its symbols span */
};

struct ttprof_frame {
	char *name;
	uint32_t len;
	uint32_t mapping;		/* index into mappings */
	uint64_t addr;			/* the function's address */
};

struct ttprof_stack {
	uint64_t first;			/* its frames: stack_frames[first..] */
	uint32_t n;			/* leaf first */
	uint32_t hash;
};

struct ttprof {
	uint64_t period_ns;		/* of the on-CPU samples: the mean of
					   their weights (a trace's weigh the
					   interval each stands for) */
	struct ttprof_sample *samples;
	uint64_t nsamples, samples_cap;
	struct ttprof_frame *frames;
	uint32_t nframes, frames_cap;
	struct ttprof_stack *stacks;
	uint32_t nstacks, stacks_cap;
	uint32_t *stack_frames;		/* every stack's frame ids */
	uint64_t nstack_frames, stack_frames_cap;
	struct ttprof_mapping *mappings; /* [0] is TTPROF_NO_MAPPING */
	uint32_t nmappings;
	uint32_t *frame_hash, *stack_hash; /* 1 + index; 0 empty */
	uint32_t frame_bits, stack_bits;
	char **comms;			/* pid -> process name, by pid_slot */
	uint32_t *comm_pids;
	uint32_t ncomms, comms_cap;
	uint64_t dropped;		/* samples the trace lost (counted) */
	uint64_t truncated;		/* stacks cut at TTPROF_MAX_FRAMES */
	bool oom;
};

void ttprof_init(struct ttprof *p, uint64_t period_ns);
void ttprof_free(struct ttprof *p);
uint32_t ttprof_mapping(struct ttprof *p, const char *path, uint64_t start,
			uint64_t end);
uint32_t ttprof_frame(struct ttprof *p, uint32_t mapping, uint64_t addr,
		      const char *name, size_t len);
uint32_t ttprof_stack(struct ttprof *p, const uint32_t *frames, uint32_t n);
void ttprof_add(struct ttprof *p, const struct ttprof_sample *s);
void ttprof_set_comm(struct ttprof *p, uint32_t pid, const char *name,
		     size_t len);
const char *ttprof_comm(const struct ttprof *p, uint32_t pid, char *buf,
			size_t size);
bool ttprof_counts(const struct ttprof_sample *s, enum ttprof_view v);
uint64_t ttprof_value(const struct ttprof_sample *s, enum ttprof_view v);
const char *ttprof_view_unit(enum ttprof_view v);

/* The options the profile commands share: [--off-cpu|--wall] [--pid N]
 * [--user DIR] [--kernel ELF]. */
struct ttprof_opts {
	enum ttprof_view view;
	int64_t pid;			/* -1: every process */
	const char *userdir;		/* --user DIR: the programs' ELF files,
					   build/user by default */
	const char *kernel;		/* --kernel ELF: names kernel pcs when
					   the trace does not (build/kernel.elf) */	const char *trace;		/* its path, for titles (or NULL) */
};

#define TTPROF_OPTIONS	" [--off-cpu|--wall] [--pid N] [--user DIR] " \
			"[--kernel ELF]"


/* The samples an export counts, summed per (process, stack). */
struct ttprof_row {
	uint32_t pid, stack;
	uint64_t samples;		/* how many */
	uint64_t ns;			/* their weights' sum */
	uint64_t value;			/* ttprof_value()'s sum */
};

struct ttprof_row *ttprof_rows(const struct ttprof *p,
			       const struct ttprof_opts *o, uint64_t *n);
int ttprof_parse_opts(int *argc, char **argv, struct ttprof_opts *o);
bool ttprof_wanted(const struct ttprof_sample *s, const struct ttprof_opts *o);

/* tools/profile/ttprof_trace.c: the samples of a trace, symbolized. */
struct ttload;
int ttprof_from_trace(struct ttprof *p, struct ttload *t,
		      const struct ttprof_opts *o);
int ttprof_load(struct ttprof *p, const char *path,
		const struct ttprof_opts *o);

/* An export of the samples of p that o wants, to f: 0, or -1 (out of
 * memory, a write failed). */
typedef int (*ttprof_write_fn)(const struct ttprof *p,
			       const struct ttprof_opts *o, FILE *f);
int ttprof_command(int argc, char **argv, int nout, const char *usage,
		   ttprof_write_fn fn);

/* tools/profile/ttfolded.c: Brendan Gregg's folded stacks of p's samples
 * that o wants, one line per (process, stack): "comm;root;...;leaf N". */
int ttprof_write_folded(const struct ttprof *p, const struct ttprof_opts *o,
			FILE *f);
/* tools/profile/ttflame.c: the SVG flame graph. */
int ttprof_write_svg(const struct ttprof *p, const struct ttprof_opts *o,
		     FILE *f);
/* tools/profile/ttpprof.c: pprof's profile.proto, gzip'd. */
int ttprof_write_pprof(const struct ttprof *p, const struct ttprof_opts *o,
		       FILE *f);

#endif /* TTPROF_H */
