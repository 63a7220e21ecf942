/*
 * internal.h: the tracer's own header, for the files of kern/trace (and
 * their ktests) only; the rest of the kernel includes kern/include/ttrace.h
 * (tracepoints, context words, aux names, boot hooks), and probe modules
 * kern/include/ttrace_probe.h. Two parts:
 *
 *	control and readers	what the #ttrace device (devttrace.c) and
 *				in-kernel users of ctl (ktests, the benchmark)
 *				call, without the tracer object: commands in,
 *				texts and readers out. Process context, no
 *				lock held.
 *	the tracer object	struct ttrace and its locks, for the files
 *				that implement the tracer.
 *
 * A read of cpuN, rawN, streamN, snapN, aux or probes goes through a
 * reader (reader.c), made at open and freed at close:
 *
 *	struct ttrace_reader *r = ttrace_reader_new(TTRACE_READ_RAW, cpu);
 *	long n = ttrace_reader_read(r, buf, size, off);
 *	ttrace_reader_free(r);
 *
 * Locks, outermost first:
 *	ctl_lock + ctl_busy	the ctl mutex: one control operation at a
 *				time; waiters spin (some are routine kernel
 *				messages) and count as quiet for the grace
 *				period the holder may be waiting for
 *	rings_lock		rwlock: readers of ring memory (devices,
 *				stats, version) read-lock it; resize and mode
 *				changes write-lock it while writers are
 *				quiesced. Never taken by tracepoints.
 *	aux_lock		rwlock around aux reservation and bounds, with
 *				interrupts off (aux writers run anywhere)
 */
#ifndef TTRACE_INTERNAL_H
#define TTRACE_INTERNAL_H

#include <spinlock.h>
#include <ttrace.h>
#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <text_patch.h>
#include <ttrace_probe.h>

struct seqbuf;
struct ttrace;
struct ttrace_version;
struct ttrace_file_tsc;
struct ttrace_file_writer;

/* Carries out one ctl command of len bytes (control.c). Returns 0,
 * or -EINVAL with *why set to a message (with the usage), valid until the
 * next call; nothing changes on error. */
int ttrace_control(const char *text, size_t len, const char **why);
/* Sets the function-graph filter (the funcs file), as ttrace_control(). */
int ttrace_funcs_control(const char *text, size_t len, const char **why);
/* Records a user annotation (the marker file). */
void ttrace_mark(const char *text, size_t len);
/* Sets the group mask bits under bits to value and re-arms; returns the
 * old mask. For in-kernel users (tests, the benchmark). */
uint64_t ttrace_set_mask(uint64_t value, uint64_t bits);

/* The small text files, made afresh for each read: each appends its text
 * to s (seqbuf.h: what fits, the rest counted). */
void ttrace_state_text(struct seqbuf *s);	/* ctl */
void ttrace_events_text(struct seqbuf *s);	/* events */
void ttrace_stats_text(struct seqbuf *s);	/* stats */
void ttrace_funcs_text(struct seqbuf *s);	/* funcs */
void ttrace_counters_text(struct seqbuf *s);	/* counters */

/* The fixed binary files: version, tsc (returns the bytes filled, one
 * struct per online CPU), and rawN's size (one CPU's ring, now). */
void ttrace_fill_version(struct ttrace_version *v);
size_t ttrace_tsc_offsets(struct ttrace_file_tsc *t);
uint64_t ttrace_ring_bytes(void);

/* What a reader reads; the order of the per-CPU kinds is the device's. */
enum ttrace_read_kind {
	TTRACE_READ_TEXT,	/* cpuN: the records as text, to a snapshot */
	TTRACE_READ_RAW,	/* rawN: runs, to the head at the first read */
	TTRACE_READ_STREAM,	/* streamN: runs, never ending */
	TTRACE_READ_SNAP,	/* snapN: runs of the snapshot probe's copy */
	TTRACE_READ_AUX,	/* aux: version header + aux snapshot */
	TTRACE_READ_PROBES,	/* probes: the probes' results as text */
};

struct ttrace_reader;

/* Returns a reader of kind for CPU cpu (ignored by aux and probes), or
 * NULL when memory is short. */
struct ttrace_reader *ttrace_reader_new(enum ttrace_read_kind kind,
					uint32_t cpu);
/* Reads up to n bytes at off (used by aux and probes only: the others
 * are streams of their own). Returns the count, 0 at the end, or -errno.
 * Readers sharing r are serialised. */
long ttrace_reader_read(struct ttrace_reader *r, void *buf, size_t n,
			uint64_t off);
/* Frees r (NULL is fine). */
void ttrace_reader_free(struct ttrace_reader *r);

/*
 * The trace files: a whole trace file (docs/trace-file.md) read from
 * offset 0 to its end, made by the one writer (ttrace_image.h) as it is
 * read (tracefile.c). Of kind TTRACE_READ_RAW (trace: each CPU's
 * ring up to its head when its turn comes), TTRACE_READ_SNAP (snaptrace:
 * the snapshot probe's copy) or TTRACE_READ_STREAM (stream: every CPU's
 * records as they come, until ttrace_tracefile_end(); a read returns 0
 * while there is nothing new).
 */
struct ttrace_tracefile;

struct ttrace_tracefile *ttrace_tracefile_new(enum ttrace_read_kind kind);
/* Reads up to n bytes at off, where the last read ended. Returns the
 * count, 0 at the end (a stream: or nothing for now), or -errno. */
long ttrace_tracefile_read(struct ttrace_tracefile *f, void *buf, size_t n,
			   uint64_t off);
/* A stream: the records up to every head now, then the file's end; the
 * write saying so moved the file offset by written bytes. */
void ttrace_tracefile_end(struct ttrace_tracefile *f, size_t written);
void ttrace_tracefile_free(struct ttrace_tracefile *f);
/* The in-kernel drain: f's next piece written to w (the first call binds
 * it), a stream bounded first when end is set. Returns TTRACE_IMAGE_MORE,
 * _WAIT or _DONE (ttrace_image.h). */
int ttrace_tracefile_step(struct ttrace_tracefile *f,
			  struct ttrace_file_writer *w, bool end);

/*
 * The in-kernel drain (drain.c, docs/ttrace-device.md): a kernel thread
 * that streams the trace file straight to the host channel. ctl `drain
 * on` starts it, `drain off` ends the file and waits for its END. Both
 * with the ctl mutex held; each returns NULL or why nothing changed.
 */
const char *ttrace_drain_on(struct ttrace *t);
const char *ttrace_drain_off(struct ttrace *t);
/* The drain's state as ctl text ("drain off|on ..."), appended to s. */
void ttrace_drain_text(struct seqbuf *s);


#define TTRACE_EARLY_ENTRIES	128	/* CPU 0's ring until ttrace_init() */
#define TTRACE_SINK_ENTRIES	2	/* a CPU's ring until it has memory */

/*
 * The tracer: every piece of its state, so that a test can build a
 * private one (ttrace_new()) beside the kernel's, ttrace_main. Only the
 * kernel's is written by tracepoints: they reach its rings through each
 * CPU's per_cpu_info.ttrace_ring and test the global ttrace_armed[] and
 * ttrace_probes[] that its ctl state and probes set (the hot path pays no
 * pointer to this object). Everything else takes the object.
 */
struct ttrace {
	struct trace_ring rings[CONFIG_MAX_NUM_CPUS];
	unsigned ring_order;		/* pages per ring: 2^order */
	const char *off_reason;		/* non-NULL: no rings, tracing off */
	struct rwlock rings_lock;
	struct ttrace_aux aux;
	void *aux_mem;
	unsigned aux_order;
	struct rwlock aux_lock;
	struct ttrace_ctl_state ctl;
	uint8_t enabled[TTRACE_NUM_EVENTS];	/* ctl.enabled */
	uint8_t probed[TTRACE_NUM_EVENTS];	/* ctl.probed (ttrace_probe.c) */
	struct spinlock ctl_lock;	/* guards ctl_busy */
	bool ctl_busy;			/* the ctl mutex is held */
	bool frozen;			/* ttrace_freeze(): CPUs write to
					   frozen_rings until a rearm */
	uint64_t marker_seq;		/* the next user marker's id */
	/*
	 * Quiescent states for the grace period, per CPU: grace_seen[c] is
	 * the last grace period whose kernel message CPU c has run;
	 * ctl_spins[c] counts the turns of CPU c's wait for the ctl mutex
	 * (a CPU there is in no tracepoint, and it does not run kernel
	 * messages until it gets the mutex, so the grace period must count
	 * it as quiet).
	 */
	uint64_t grace_gen;		/* ctl mutex */
	uint64_t grace_seen[CONFIG_MAX_NUM_CPUS];
	uint64_t ctl_spins[CONFIG_MAX_NUM_CPUS];
	/* Rings without memory of their own: CPU 0's early ring (and the
	 * copy its replay needs), every CPU's sink, and the rings a freeze
	 * sends the CPUs to, which nobody reads. */
	struct trace_ring early_ring;
	struct ttrace_entry early_entries[TTRACE_EARLY_ENTRIES];
	struct ttrace_entry early_copy[TTRACE_EARLY_ENTRIES];
	struct ttrace_entry sink_entries[CONFIG_MAX_NUM_CPUS][TTRACE_SINK_ENTRIES];
	struct trace_ring frozen_rings[CONFIG_MAX_NUM_CPUS];
	struct ttrace_entry frozen_entries[CONFIG_MAX_NUM_CPUS][TTRACE_SINK_ENTRIES];

	/* ctl commands (ttrace_control.c), under the ctl mutex */
	struct ttrace_ctl_cmd ctl_cmd;	/* the command being carried out */
	char ctl_err[sizeof(((struct ttrace_ctl_cmd *)0)->err)];
					/* the last refusal's text */
};

/* The kernel's tracer: the one tracepoints write (ttrace.c). */
extern struct ttrace ttrace_main;

/* A private tracer for tests, and its end (ttrace.c). */
struct ttrace *ttrace_new(unsigned ring_order, unsigned aux_order);
void ttrace_delete(struct ttrace *t);

unsigned ttrace_order_for(size_t bytes);
bool ttrace_armed_consistent(struct ttrace *t);
bool ttrace_ring_is_sink(const struct ttrace *t, uint32_t cpu);
void ttrace_freeze(struct ttrace *t);
void ttrace_thaw(struct ttrace *t);
void ttrace_early_adopt(struct ttrace *t);

/* The aux buffer and the rings (ttrace.c). */
void ttrace_aux_blob(struct ttrace *t, unsigned tag, uint64_t ident,
		     const void *p, size_t n);
const struct ttrace_aux *ttrace_aux_unlocked(struct ttrace *t);
int ttrace_aux_read(struct ttrace *t, void *out, size_t size,
		    struct ttrace_aux_view *view);
void ttrace_aux_usage(struct ttrace *t, uint64_t *bytes, uint64_t *size,
		      uint64_t *dropped);
void ttrace_version_of(struct ttrace *t, struct ttrace_version *v);
void ttrace_fill_version_bounds(const struct ttrace *t,
				struct ttrace_version *v, uint64_t aux_first,
				uint64_t aux_last);
struct trace_ring *ttrace_ring_of(struct ttrace *t, uint32_t core);
extern const char *const ttrace_boot_phase_names[BOOT_PHASE_COUNT];

/* Control: the ctl mutex (control.c), a grace period over every
 * CPU and re-arming from the ctl state, both with the mutex held. */
void ttrace_ctl_mutex_enter(struct ttrace *t);
void ttrace_ctl_mutex_exit(struct ttrace *t);
void ttrace_grace_period(struct ttrace *t);
void ttrace_quiet_turn(struct ttrace *t);
void ttrace_rearm_locked(struct ttrace *t);

/* The probe API for callers that hold the ctl mutex (ttrace_probe.c). */
int ttrace_probe_attach_locked(struct ttrace *t, uint32_t id,
			       ttrace_probe_fn fn, void *arg);
unsigned ttrace_probe_detach_arg_locked(struct ttrace *t, void *arg);

/* The built-in probes (ttrace_probes.c): ctl probe and unprobe commands
 * with the ctl mutex held, results as text, the snapshot's rings. */
const char *ttrace_probes_control(const struct ttrace_ctl_cmd *cmd);
void ttrace_probes_text(struct seqbuf *s);
uint32_t ttrace_snap_read(uint32_t cpu, struct trace_ring_cursor *cur,
			  uint64_t *end, struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run);

/* Counters (counters.c): ctl `counters`, with the ctl mutex held,
 * and the current values as text. */
const char *ttrace_counters_set(struct ttrace *t, uint32_t ms, bool all);

/* Ring access for readers (the device): each takes rings_lock for reading. */
uint32_t ttrace_ring_read(struct ttrace *t, uint32_t cpu,
			  struct trace_ring_cursor *cur, uint64_t end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run);
uint64_t ttrace_ring_end(struct ttrace *t, uint32_t cpu);
void ttrace_ring_oldest(struct ttrace *t, uint32_t cpu,
			struct trace_ring_cursor *cur);
void ttrace_ring_since_clear(struct ttrace *t, uint32_t cpu,
			     struct trace_ring_cursor *cur);
void ttrace_ring_get_stats(struct ttrace *t, uint32_t cpu,
			   struct trace_ring_stats *st);

/* A reader of t (ttrace_reader_new() reads ttrace_main's): the same
 * reader the device's files use, on any tracer (ttrace_reader.c). */
struct ttrace_reader *ttrace_reader_open(struct ttrace *t,
					 enum ttrace_read_kind kind,
					 uint32_t cpu);

/* A ring's runs as the per-CPU files read them (ttrace_reader.c), for
 * the trace files too (ttrace_tracefile.c). */
void ttrace_run_start(struct ttrace *t, enum ttrace_read_kind kind,
		      uint32_t cpu, struct trace_ring_cursor *cur,
		      uint64_t *end, struct trace_ring_patience *wait);
uint32_t ttrace_run_next(struct ttrace *t, enum ttrace_read_kind kind,
			 uint32_t cpu, struct trace_ring_cursor *cur,
			 uint64_t *end, struct trace_ring_patience *wait,
			 struct ttrace_entry *out, size_t max,
			 struct trace_ring_run *run);

/* The root record for pulls from outside (ttrace_root.c): it describes
 * ttrace_main. */
void ttrace_root_begin(void);
void ttrace_root_end(struct ttrace *t);
void ttrace_root_update(struct ttrace *t);
__noreturn void ttrace_hang(void);
/* Static keys and function sites (patch.c, fgraph.c). */
void ttrace_patch_sync(enum text_patch_mode mode);
bool ttrace_patch_consistent(void);
void ttrace_patch_counts(uint64_t *sites, uint64_t *live);
void ttrace_patch_want(uintptr_t addr, uint8_t op, uintptr_t target,
		       enum text_patch_mode mode);
void ttrace_patch_flush(enum text_patch_mode mode);
void fgraph_sync(enum text_patch_mode mode);
bool fgraph_consistent(void);
void fgraph_counts(uint64_t *sites, uint64_t *live);
const char *fgraph_set_filter(const char *glob, size_t len);
void fgraph_state_text(struct seqbuf *s);

#endif /* TTRACE_INTERNAL_H */
