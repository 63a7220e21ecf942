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
#include <ttrace_root.h>
#include <fgraph.h>
#include <arch/mmu.h>
#include <arch/x86.h>
#include <arch/trap.h>

struct seqbuf;
struct ttrace;
struct ttrace_meta_snap;
struct ttrace_version;
struct ttrace_file_tsc;
struct ttrace_file_writer;

/* Carries out one ctl command of len bytes (control.c). Returns 0,
 * or -EINVAL with *why set to a message (with the usage), valid until the
 * next call; nothing changes on error. */
int ttrace_control(const char *text, size_t len, const char **why);
/* The same for a command written to file, an open ctl file: the drain it
 * starts is that file's (ttrace_drain_on()). */
int ttrace_control_file(const void *file, const char *text, size_t len,
			const char **why);
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
void ttrace_timerlat_text(struct seqbuf *s);	/* timerlat */
void ttrace_osnoise_text(struct seqbuf *s);	/* osnoise */

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
	TTRACE_READ_PAGES,	/* trace_pipe_raw: cpuN's records as Linux's
				 * ring-buffer pages (tracefs) */
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
/* Whether a pages reader gave a page (tracefs: trace_pipe_raw's end). */
bool ttrace_reader_gave(struct ttrace_reader *r);
/* Where the consumers of CPU cpu's records (tracefs's trace_pipe and
 * trace_pipe_raw) stopped: the slot the next one starts at. */
uint64_t tracefs_pipe_from(uint32_t cpu);
/* A consumer took cpu's records up to slot next, events of them (stats'
 * "read events"). */
void tracefs_pipe_consumed(uint32_t cpu, uint64_t next, uint64_t events);

/*
 * The trace files: a whole trace file (docs/trace-file.md) read from
 * offset 0 to its end, made by the one writer (ttrace_image.h) as it is
 * read (tracefile.c). Of kind TTRACE_READ_RAW (trace: each CPU's
 * ring up to its head when its turn comes), TTRACE_READ_SNAP (snaptrace:
 * the snapshot probe's copy; NAME_trace: a latency tracer's, from
 * ttrace_tracefile_snap()) or TTRACE_READ_STREAM (stream: every CPU's
 * records as they come, until ttrace_tracefile_end(); a read returns 0
 * while there is nothing new).
 */
struct ttrace_tracefile;

struct ttrace_tracefile *ttrace_tracefile_new(enum ttrace_read_kind kind);
/* A trace file of a snapshot set: src's (enum ttrace_snap_src). */
struct ttrace_tracefile *ttrace_tracefile_snap(uint32_t src);
/* Reads up to n bytes at off, where the last read ended. Returns the
 * count, 0 at the end (a stream: or nothing for now), or -errno. */
long ttrace_tracefile_read(struct ttrace_tracefile *f, void *buf, size_t n,
			   uint64_t off);
/* A stream: the records up to every head now, then the file's end; the
 * write saying so moved the file offset by written bytes. */
void ttrace_tracefile_end(struct ttrace_tracefile *f, size_t written);
void ttrace_tracefile_free(struct ttrace_tracefile *f);
/* The in-kernel drain: f's next piece written to w (the first call binds
 * it), a stream bounded first when end is set; simd: SSE is usable for
 * this step (arch_simd_begin()). Returns TTRACE_IMAGE_MORE, _WAIT or
 * _DONE (ttrace_image.h). */
int ttrace_tracefile_step(struct ttrace_tracefile *f,
			  struct ttrace_file_writer *w, bool end, bool simd);

/*
 * The in-kernel drain (drain.c, docs/ttrace-device.md): a kernel thread
 * that streams the trace file straight to the host channel. ctl `drain
 * on` starts it, the file of the ctl file it was written to (NULL: a
 * kernel caller's, none); `drain off`, or that file's last close
 * (ttrace_drain_close()), ends it. Both with the ctl mutex held; each
 * returns NULL or why nothing changed.
 */
const char *ttrace_drain_on(struct ttrace *t, const void *file);
const char *ttrace_drain_off(struct ttrace *t);
/* file's last close: the drain it started, if still on, ends its file on
 * its own (no wait). Process context, no lock held. */
void ttrace_drain_close(const void *file);
/* Runs fn(arg) on this CPU with interrupts off, what it records sent to
 * a quiet ring and counted as filtered events in this CPU's ring (the
 * drain's pieces). Returns fn's value. */
int ttrace_drain_quietly(int (*fn)(void *arg), void *arg);
/* The panic dump's first step: the drain's file, if the channel holds one
 * unfinished, closed where it stands (out: the panic's way to the
 * channel), so that the dump after it is found (docs/trace-file.md). */
void ttrace_drain_panic_close(int (*out)(void *arg, const void *buf,
					 uint64_t len));
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
	uint64_t frozen_mask;		/* the mask the freeze emptied */
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

/* The kernel's tracer: the one tracepoints write (ttrace.c), in the
 * persistent area when there is one (ttrace_lastboot_claim()). */
extern struct ttrace *ttrace_mainp;
#define ttrace_main (*ttrace_mainp)

/* A private tracer for tests, and its end (ttrace.c). */
struct ttrace *ttrace_new(unsigned ring_order, unsigned aux_order);
void ttrace_delete(struct ttrace *t);

unsigned ttrace_order_for(size_t bytes);
bool ttrace_armed_consistent(struct ttrace *t);
bool ttrace_ring_is_sink(const struct ttrace *t, uint32_t cpu);
void ttrace_freeze(struct ttrace *t);
void ttrace_thaw(struct ttrace *t);
void ttrace_unfreeze(struct ttrace *t);
void ttrace_early_adopt(struct ttrace *t);

/* The aux buffer and the rings (ttrace.c). */
void ttrace_aux_blob(struct ttrace *t, unsigned tag, uint64_t ident,
		     const void *p, size_t n);
/* ttrace_aux_blob() for a probe's hit, which must not wait: the write
 * lock is tried once, and if it is not free (a reader holds it, maybe
 * under this very hit on this CPU, or another writer) nothing is written
 * and it returns false. Any context. */
bool ttrace_aux_blob_try(struct ttrace *t, unsigned tag, uint64_t ident,
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
unsigned ttrace_probe_detach_args_locked(struct ttrace *t, void *const *args,
					 size_t n);

/*
 * Snapshot sets (snapset.c): a frozen copy of every CPU's ring, taken
 * at once by its owner and read as the rings are, through a view:
 *
 *	if (ttrace_snapset_trylock(&s)) {	// any context
 *		ttrace_snapset_copy(&s);	// interrupts off
 *		ttrace_snapset_unlock(&s);
 *	}
 *	struct ttrace_snap_view v;		// process context
 *	ttrace_snap_view_begin(&v, TTRACE_SNAP_LAT + TTRACE_LAT_IRQSOFF);
 *	k = ttrace_snap_read(&v, cpu, &cur, &end, out, max, &run);
 *	ttrace_snap_view_end(&v);
 *
 * A view holds its copy from begin to end: no copy replaces it meanwhile
 * (the taker counts busy). snapset.c's header says why.
 */
enum ttrace_snap_fit {
	TTRACE_SNAP_WHOLE,	/* the whole ring, or the CPU's copy fails */
	TTRACE_SNAP_NEWEST,	/* the newest records that fit */
};

struct ttrace_snapset {
	struct trace_ring ring[CONFIG_MAX_NUM_CPUS];	/* the copies */
	void *mem[CONFIG_MAX_NUM_CPUS];	/* NULL: not allocated */
	unsigned order;			/* pages per CPU: 2^order */
	enum ttrace_snap_fit fit;
	uint32_t state;			/* copying bit | 2 * views */
	uint32_t taken;			/* a copy is there to read */
	uint64_t gen;			/* the copy's name, unique */
	uint64_t failed;		/* CPUs whose copy failed */
	uint64_t busy;			/* copies refused: one in flight or
					   a view held the last */
	struct ttrace_meta_snap *meta;	/* the copy's metadata: a reference
					   (NULL: no copy taken) */
};

/* Where a view's set is (the snapshot probe's, or a latency tracer's:
 * TTRACE_SNAP_LAT + enum ttrace_lat_id). */
enum ttrace_snap_src {
	TTRACE_SNAP_PROBE,
	TTRACE_SNAP_LAT,
};

struct ttrace_snap_view {
	uint32_t src;			/* enum ttrace_snap_src (+ lat id) */
	uint64_t gen;			/* the copy held; 0: none */
	struct ttrace_meta_snap *meta;	/* its metadata (of none: the
					   current), a reference; NULL
					   outside begin..end */
};

int ttrace_snapset_alloc(struct ttrace_snapset *s, size_t bytes,
			 enum ttrace_snap_fit fit);
void ttrace_snapset_free(struct ttrace_snapset *s);
bool ttrace_snapset_trylock(struct ttrace_snapset *s);
/*
 * How a reader copies a run out of a ring: plain (the cpuN files and
 * their like), with its CRC-32C for a trace file (trace_ring_read_crc()),
 * and that with SSE copies (the drain, inside arch_simd_begin()).
 */
enum ttrace_copy { TTRACE_COPY_PLAIN, TTRACE_COPY_CRC, TTRACE_COPY_CRC_SIMD };

static inline uint32_t ttrace_copy_run(const struct trace_ring *r,
				       struct trace_ring_cursor *cur,
				       uint64_t end, struct ttrace_entry *out,
				       size_t max, struct trace_ring_run *run,
				       enum ttrace_copy how)
{
	if (how == TTRACE_COPY_PLAIN)
		return trace_ring_read(r, cur, end, out, max, run);
	return trace_ring_read_crc(r, cur, end, out, max, run,
				   how == TTRACE_COPY_CRC_SIMD);
}

void ttrace_snapset_lock(struct ttrace_snapset *s);
void ttrace_snapset_unlock(struct ttrace_snapset *s);
void ttrace_snapset_copy(struct ttrace_snapset *s);
void ttrace_snapset_forget(struct ttrace_snapset *s);
void ttrace_snap_view_begin(struct ttrace_snap_view *v, uint32_t src);
void ttrace_snap_view_end(struct ttrace_snap_view *v);
uint32_t ttrace_snap_read(struct ttrace_snap_view *v, uint32_t cpu,
			  struct trace_ring_cursor *cur, uint64_t *end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run, enum ttrace_copy how);

/* The built-in probes (ttrace_probes.c): ctl probe and unprobe commands
 * with the ctl mutex held, results as text, whether one of a name exists
 * (ctl mutex held), the snapshot probe's set whose copy is gen (0: the
 * first taken; NULL if none; ctl mutex held). */
const char *ttrace_probes_control(const struct ttrace_ctl_cmd *cmd);
struct ttrace_aux_view;
void ttrace_probes_text(struct seqbuf *s, struct ttrace_aux_view *names);
bool ttrace_probe_text(const char *name, struct seqbuf *s);
bool ttrace_probe_exists_locked(const char *name);
struct ttrace_snapset *ttrace_probe_snapset(uint64_t gen);
/* For tracefs: the probes named prefix*, as their commands; probe name's
 * keys as ftrace's hist file (false: no such probe with keys). */
unsigned ttrace_probes_named(const char *prefix, struct seqbuf *s);
bool ttrace_probe_hist_text(const char *name, const char *info,
			    const char *key_name, struct seqbuf *s);

/*
 * The latency core (latency.c; docs/latency.md): one struct ttrace_lat
 * per latency tracer, in lats[] there, its name ttrace_lat_names[id].
 * A tracer measures its sections and, interrupts off, on the CPU where
 * one ended:
 *
 *	if (ttrace_lat_wanted(l, cycles))
 *		ttrace_lat_update(l, cycles, start_tsc, start_pc, end_pc);
 *	else
 *		ttrace_lat_count(l);
 *
 * ttrace_lat_update() counts it, records it as a lat_over event if it is
 * longer than the threshold, and if it is a new maximum writes a lat_max
 * event and freezes every CPU's newest records with it.
 */
struct ttrace_lat_max {
	uint64_t cycles;		/* 0: none */
	uint64_t start_tsc, end_tsc;	/* on cpu's TSC */
	uintptr_t start_pc, end_pc;	/* where it began and ended */
	uint32_t cpu;
};

struct ttrace_lat {
	uint32_t id;			/* enum ttrace_lat_id */
	uint64_t key;			/* its hooks' static key (ttrace_key.h) */
	/* Turns the tracer's hooks on or off (sets on, patches the key's
	 * sites). ctl mutex held, memory allocated. */
	void (*set)(struct ttrace_lat *l, bool on);
	bool on;			/* ctl mutex to change */
	uint64_t threshold;		/* cycles; 0: none */
	uint64_t threshold_us;		/* as set */
	uint64_t floor;			/* min(max, threshold): shorter
					   sections are only counted */
	uint32_t max_seq;		/* seqcount of max */
	struct ttrace_lat_max max;	/* snap claimed to change */
	uint64_t over;			/* sections above the threshold */
	uint64_t sections[CONFIG_MAX_NUM_CPUS];	/* by each CPU */
	uint64_t hist[CONFIG_MAX_NUM_CPUS][TTRACE_HIST_BUCKETS]; /* ns, log2 */
	struct ttrace_snapset snap;	/* the maximum's frozen rings */
};

extern struct ttrace_lat ttrace_lat_irqsoff;	/* lat_irqsoff.c */
extern struct ttrace_lat ttrace_lat_wakeup;	/* lat_wakeup.c */
extern struct ttrace_lat ttrace_lat_timerlat;	/* timerlat.c */
extern struct ttrace_lat ttrace_lat_osnoise;	/* timerlat.c */
/* Whether an irqsoff section that will count is open on this CPU (for the
 * tests: none is while interrupts are on). lat_irqsoff.c */
bool ttrace_irqsoff_is_open(void);

/* Whether a section of cycles must go to ttrace_lat_update(). */
static __always_inline bool ttrace_lat_wanted(const struct ttrace_lat *l,
					      uint64_t cycles)
{
	return cycles > READ_ONCE(l->floor);
}

/* Counts a section on this CPU. Interrupts off. */
static __always_inline void ttrace_lat_count(struct ttrace_lat *l)
{
	l->sections[core_id()]++;
}

void ttrace_lat_update(struct ttrace_lat *l, uint64_t lat_cycles,
		       uint64_t start_tsc, uintptr_t start_pc,
		       uintptr_t end_pc);
void ttrace_lat_hist_add(struct ttrace_lat *l, uint64_t cycles);
struct ttrace_lat_max ttrace_lat_max_get(const struct ttrace_lat *l);
struct ttrace_snapset *ttrace_lat_snapset(uint32_t id);
bool ttrace_lat_key_live(uint64_t key);
const char *ttrace_lat_control(const struct ttrace_ctl_cmd *cmd);
void ttrace_lat_text(struct seqbuf *s);	/* the latency file */
uint64_t ttrace_cycles_ns(uint64_t cycles);	/* of the trace clock */

/* Counters (counters.c): ctl `counters`, with the ctl mutex held,
 * and the current values as text. */
const char *ttrace_counters_set(struct ttrace *t, uint32_t ms, bool all);

/* Timer latency and noise (timerlat.c): ctl `latency timerlat|osnoise`,
 * with the ctl mutex held; the core's part is ttrace_lat_control(). */
const char *ttrace_timerlat_control(const struct ttrace_ctl_cmd *cmd);

/* Ring access for readers (the device): each takes rings_lock for
 * reading; how says what else the run needs (enum ttrace_copy). */
uint32_t ttrace_ring_read(struct ttrace *t, uint32_t cpu,
			  struct trace_ring_cursor *cur, uint64_t end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run, enum ttrace_copy how);
uint64_t ttrace_ring_end(struct ttrace *t, uint32_t cpu);
void ttrace_ring_oldest(struct ttrace *t, uint32_t cpu,
			struct trace_ring_cursor *cur);
void ttrace_ring_since_clear(struct ttrace *t, uint32_t cpu,
			     struct trace_ring_cursor *cur);
void ttrace_ring_get_stats(struct ttrace *t, uint32_t cpu,
			   struct trace_ring_stats *st);
/* Timestamps of cpu's oldest and newest intact records (0 if none). */
void ttrace_ring_edge_ts(struct ttrace *t, uint32_t cpu, uint64_t *oldest,
			 uint64_t *newest);

/* A reader of t (ttrace_reader_new() reads ttrace_main's): the same
 * reader the device's files use, on any tracer (ttrace_reader.c). */
struct ttrace_reader *ttrace_reader_open(struct ttrace *t,
					 enum ttrace_read_kind kind,
					 uint32_t cpu);

/* A ring's runs as the per-CPU files read them (ttrace_reader.c), for
 * the trace files too (ttrace_tracefile.c). busy: how a read that is not
 * a stream's meets a slot in flight within its patience: it spins (a
 * process's read), or returns TRACE_RUN_BUSY to be called again later
 * (the drain's piece, made with interrupts off); a stream returns
 * TRACE_RUN_NONE meanwhile. ttrace_run_patience() sets wait's limit for
 * kind (a stream's is longer: it waits across reads). */
enum ttrace_busy { TTRACE_BUSY_SPIN, TTRACE_BUSY_RETURN };

void ttrace_run_patience(enum ttrace_read_kind kind,
			 struct trace_ring_patience *wait);
void ttrace_run_start(struct ttrace *t, enum ttrace_read_kind kind,
		      uint32_t cpu, struct trace_ring_cursor *cur,
		      uint64_t *end, struct trace_ring_patience *wait);
uint32_t ttrace_run_next(struct ttrace *t, enum ttrace_read_kind kind,
			 struct ttrace_snap_view *view, uint32_t cpu,
			 struct trace_ring_cursor *cur, uint64_t *end,
			 struct trace_ring_patience *wait,
			 struct ttrace_entry *out, size_t max,
			 struct trace_ring_run *run, enum ttrace_copy how,
			 enum ttrace_busy busy);

/*
 * The root record for pulls from outside (ttrace_root.c): it describes
 * ttrace_main. The persistent area holds a second one, naming its own
 * copies of the scalars and metadata (lastboot.c): src says where a
 * record's scalars and metadata are.
 */
#define TTRACE_ROOT_NREGIONS	(9 + 2 * CONFIG_MAX_NUM_CPUS)

struct ttrace_kernel_root {
	struct ttrace_root hdr;
	struct ttrace_root_region regions[TTRACE_ROOT_NREGIONS];
};

struct ttrace_root_src {
	const void *meta;			/* NULL: ttrace_meta_blob_now() */
	const uint32_t *meta_size;
	const uint32_t *num_cpus;
	const uint64_t *tsc_hz;
	const uint64_t *tsc_boot;
	const int64_t *tsc_offset;		/* CONFIG_MAX_NUM_CPUS */
	const uint64_t *tsc_uncertainty;	/* CONFIG_MAX_NUM_CPUS */
};

void ttrace_root_begin_of(struct ttrace_kernel_root *kr);
void ttrace_root_end_of(struct ttrace_kernel_root *kr, struct ttrace *t,
			const struct ttrace_root_src *src);
void ttrace_root_begin(void);
void ttrace_root_end(struct ttrace *t);
void ttrace_root_update(struct ttrace *t);
__noreturn void ttrace_hang(void);

/*
 * The persistent area (lastboot.c, ttrace_lastboot.h). ttrace_main lives
 * in it when there is one (ttrace_lastboot_claim(), from
 * ttrace_early_init()); ttrace_lastboot_take() keeps the previous boot's
 * trace before the pool is handed out again (ttrace_init(), before any
 * ring or aux memory is taken); the pool gives ttrace_main's ring and aux
 * memory while it lasts, ordinary pages after; _sync() rewrites the
 * area's root record after ttrace_root_end(). _bytes() is the lastboot
 * file. _crash() carries out ctl `crash` (panic or corrupt a slot).
 */
struct ttrace *ttrace_lastboot_claim(struct ttrace *fallback);
void ttrace_lastboot_take(void);
void *ttrace_mem_alloc(struct ttrace *t, unsigned order);
void ttrace_mem_free(void *mem, unsigned order);
void ttrace_lastboot_sync(struct ttrace *t);
const uint8_t *ttrace_lastboot_bytes(size_t *len);
const char *ttrace_lastboot_crash(struct ttrace *t, uint32_t what);
/* Static keys and function sites (patch.c, fgraph.c). */
void ttrace_patch_sync(enum text_patch_mode mode);
void ttrace_untraced_on(void);
bool ttrace_patch_consistent(void);
void ttrace_patch_counts(uint64_t *sites, uint64_t *live);
void ttrace_patch_want(uintptr_t addr, uint8_t op, uintptr_t target,
		       enum text_patch_mode mode);
void ttrace_patch_flush(enum text_patch_mode mode);
void fgraph_sync(enum text_patch_mode mode);
bool fgraph_consistent(void);
void fgraph_counts(uint64_t *sites, uint64_t *live);
const char *fgraph_set_filter(const char *glob, size_t len);
const char *fgraph_filter(void);	/* the glob set */
void fgraph_sites_text(struct seqbuf *s);	/* the functions with a site */
void fgraph_state_text(struct seqbuf *s);

/* What narrows the graph beyond the filter (fgraph.c; docs/tracefs.md's
 * set_ftrace_notrace, set_graph_notrace, max_graph_depth): two bounded
 * exclude lists of globs, and a depth; all ctl mutex held. */
#define FGRAPH_GLOBS		8	/* globs a list holds */
#define FGRAPH_GLOB_MAX		64	/* characters of one */
enum fgraph_exclude { FGRAPH_FTRACE_NOTRACE, FGRAPH_GRAPH_NOTRACE,
		      FGRAPH_EXCLUDES };
const char *fgraph_exclude_add(enum fgraph_exclude which, const char *glob);
void fgraph_exclude_clear(enum fgraph_exclude which);
void fgraph_exclude_drop_last(enum fgraph_exclude which);
void fgraph_exclude_text(enum fgraph_exclude which, struct seqbuf *s);
void fgraph_set_max_depth(uint32_t max);
uint32_t fgraph_max_depth(void);
void fgraph_narrow_update(void);	/* after ttrace_pid_lists changed */

/*
 * The pid lists (pids.c; set_event_pid, set_ftrace_pid): which are set,
 * and a bit in each listed process's thread (struct fgraph_shadow's
 * pids). While the events' list is set, every armed event's site jumps
 * to ttrace_probe_fire() (patch.c), which records only for a listed
 * thread; with none set the sites are what they were, so an unfiltered
 * event costs nothing more. The function graph tests its list in hook().
 */
enum { TTRACE_PIDS_EVENT = 1, TTRACE_PIDS_FTRACE = 2 };
extern uint8_t ttrace_pid_lists;
#define TTRACE_PIDS_MAX		16	/* pids a list holds */

/* Whether event id's site must go through ttrace_probe_fire() for the
 * events' pid list (the func events follow set_ftrace_pid instead, in
 * the graph's hook). */
static inline bool ttrace_pids_route(uint32_t id)
{
	return (READ_ONCE(ttrace_pid_lists) & TTRACE_PIDS_EVENT) &&
	       id != TTRACE_EV_FUNC_ENTRY && id != TTRACE_EV_FUNC_EXIT;
}

/* Whether thread kt (NULL: none yet) is in list. Any context. */
static inline bool ttrace_pids_listed(const struct kthread *kt, unsigned list)
{
	return kt && (READ_ONCE(kt->fgraph.pids) & list);
}

int ttrace_pids_add(unsigned list, const int *pids, uint32_t n,
		    const char **why);
void ttrace_pids_clear(unsigned list);
void ttrace_pids_text(unsigned list, struct seqbuf *s);

/* Function probes (fprobe.c) and the function sites they share with the
 * graph tracer (fgraph.c). A hook's kind: what the call's return does. */
enum { FGRAPH_HOOK_GRAPH = 1, FGRAPH_HOOK_FPROBE = 2 };
/* Hooks the call whose return address is at *parent for kind: the graph
 * tracer's func_entry (and its exit when func_exit is armed), and/or
 * fprobe_return() for the return probes rmask at its return; the stack
 * tracer's check when it is on. Any context, the function's stack. */
void fgraph_hook(uintptr_t *parent, uintptr_t func, unsigned kind,
		 uint32_t rmask);
/* Calls the shadow stack had no room for: fgraph_overflow() counts one. */
extern uint64_t fgraph_overflows;
void fgraph_return_trampoline(void);

/* The low bits of a shadow frame's slot word (slots are 8-byte aligned):
 * what its return does besides going back. 0: the graph's func_exit only,
 * as fgraph_entry() hooks. */
#define FGRAPH_TAG_FPROBE	1ul	/* fprobe_return(): in every tagged
					 * frame, whose func word is
					 * fgraph_frame_word()'s */
#define FGRAPH_TAG_NOGRAPH	2ul	/* no func_exit record */
#define FGRAPH_TAG_MASK		3ul

/* A probe's frame's func word: the function (kernel text, in the top 2
 * GiB: -mcmodel=kernel, so its low 32 bits sign-extended) and the return
 * probes to fire (a bit per slot) above them; and back. */
static __always_inline uintptr_t fgraph_frame_word(uintptr_t func,
						   uint32_t rmask)
{
	return (uintptr_t)rmask << 32 | (uint32_t)func;
}

static __always_inline uintptr_t fgraph_frame_func(uintptr_t word)
{
	return (uintptr_t)(intptr_t)(int32_t)word;
}

/* The running thread, NULL on a CPU before its scheduler is up: one
 * GS-relative load (this_cpu()->cur_kthread is two). */
static __always_inline struct kthread *fgraph_thread(void)
{
	return (struct kthread *)arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, cur_kthread));
}

static __always_inline void fgraph_overflow(void)
{
	__atomic_fetch_add(&fgraph_overflows, 1, __ATOMIC_RELAXED);
}

/*
 * The function hooks' recursion guard, as Linux's
 * ftrace_test_recursion_trylock(): fprobe_entry(), the graph tracer's
 * entry and exit and the stack tracer's entry run inside it. Bit
 * irq_depth % 32 of this CPU's ttrace_hooks says a hook runs at that
 * interrupt nesting level; a hook that finds its level's bit set was
 * reached from inside a hook (a traceable function the tracer calls, a
 * probe callback's) and does nothing but count itself in
 * fgraph_recursions (`recursions` in /dev/ttrace/funcs). An interrupt
 * taken inside a hook has a level of its own, so its functions are
 * traced. Returns whether the hook may run; then ttrace_hook_exit() ends
 * it, at the same level (interrupts put irq_depth back). Any context; a
 * hook does not sleep, so it ends on this CPU.
 */
extern uint64_t fgraph_recursions;

static __always_inline uint32_t hook_bit(const struct per_cpu_info *p)
{
	return 1u << (READ_ONCE(p->irq_depth) & 31);
}

static __always_inline bool ttrace_hook_enter(void)
{
	struct per_cpu_info *p = this_cpu();
	uint32_t bit = hook_bit(p), in = READ_ONCE(p->ttrace_hooks);

	if (unlikely(in & bit)) {
		__atomic_fetch_add(&fgraph_recursions, 1, __ATOMIC_RELAXED);
		return false;
	}
	/* an interrupt between the load and the store sets and clears a
	 * bit of its own: in is still right when it returns */
	WRITE_ONCE(p->ttrace_hooks, in | bit);
	return true;
}

static __always_inline void ttrace_hook_exit(void)
{
	struct per_cpu_info *p = this_cpu();

	WRITE_ONCE(p->ttrace_hooks, READ_ONCE(p->ttrace_hooks) & ~hook_bit(p));
}

/*
 * Pushes frame d (sh's depth, below FGRAPH_DEPTH) on sh, the running
 * thread's shadow stack: the caller's return address at *parent, the
 * func word and the tag, and makes the call return through
 * fgraph_return_trampoline. Any context, on the function's stack.
 */
static __always_inline void fgraph_push(struct fgraph_shadow *sh, uint32_t d,
					uintptr_t *parent, uintptr_t func,
					uintptr_t tag)
{
	WRITE_ONCE(sh->depth, d + 1);	/* reserve before writing: an */
	cmb();				/* interrupt pushes above it */
	sh->frames[d].ret = *parent;
	sh->frames[d].func = func;
	sh->frames[d].slot = (const uintptr_t *)((uintptr_t)parent | tag);
	cmb();
	*parent = (uintptr_t)fgraph_return_trampoline;
}

/* Whether the graph tracer wants function site i live now; fgraph_shared:
 * whether the graph or the stack tracer has the sites now (a probe hit's
 * one test for their work). */
bool fgraph_graphs(size_t i);
extern bool fgraph_shared;
/* The live metadata: the generated table with the probes' events (ctl
 * mutex held to read it: it changes in place). */
const struct ttrace_meta_table *ttrace_meta_now(void);
void fprobe_init(void);

/*
 * The metadata's versions (metasnap.c): each change of the live table
 * publishes an immutable snapshot of it, its blob and the table parsed
 * back, held by whoever reads records it describes and freed when the
 * last holder is gone and another is current. metasnap.c's header says
 * how. A trace file of the rings or a text reader:
 *
 *	struct ttrace_meta_snap *m = ttrace_meta_reader_begin();
 *	... m->blob, m->size, m->table ...
 *	ttrace_meta_reader_end(m);
 *
 * a frozen copy, in any context: m = ttrace_meta_get(), later
 * ttrace_meta_drop(m) (then ttrace_meta_sweep() in process context).
 */
#define TTRACE_META_BLOB_MAX	(16 * 1024)	/* the live metadata's bound */

struct ttrace_meta_snap {
	uint32_t refs;			/* holders, the current one's own
					   reference included (atomic) */
	uint32_t readers;		/* readers among them (ctl mutex) */
	uint32_t fprobes;		/* a bit per function probe slot it
					   names as a probe (live or deleted) */
	uint32_t size;			/* the blob's bytes */
	const uint8_t *blob;		/* what a trace file's META holds */
	const struct ttrace_meta_table *table;	/* the blob parsed */
	struct ttrace_meta_snap *older;	/* the next older one not freed yet
					   (ctl mutex) */
	void *arena;			/* the parsed table's memory */
	struct ttrace_meta_table parsed;
};

void ttrace_meta_init(void);
/* The current blob, no reference held: for a reader that copies it at
 * once with the ctl mutex held, or with the other CPUs stopped (a
 * panic). */
const uint8_t *ttrace_meta_blob_now(uint32_t *size);
/* A reference to the current snapshot: any context that does not block
 * between the call and the reference's use (a grace period after
 * it is replaced, the current one stays valid). */
struct ttrace_meta_snap *ttrace_meta_get(void);
/* Another reference to m, which the caller holds (or a set it keeps
 * still holds). Any context. */
struct ttrace_meta_snap *ttrace_meta_ref(struct ttrace_meta_snap *m);
/* Drops a reference (NULL is fine). Any context: the snapshot is freed
 * by the next ttrace_meta_sweep(). */
void ttrace_meta_drop(struct ttrace_meta_snap *m);
/* Frees the replaced snapshots nobody holds. ctl mutex held. */
void ttrace_meta_sweep(void);
/* A reader's reference to the current snapshot (ttrace_meta_get()'s
 * context), and its end (NULL is fine; any context). While it reads, the
 * function probe ids its snapshot names stay theirs. */
struct ttrace_meta_snap *ttrace_meta_reader_begin(void);
void ttrace_meta_reader_end(struct ttrace_meta_snap *m);
/* The function probe slots some reader's snapshot names as probes:
 * their ids must not go to another probe. ctl mutex held. */
uint32_t ttrace_meta_reader_fprobes(void);
/* Puts m (its memory kept) at id m->id of the live table and publishes
 * it: a synthetic event's definition (tracefs_synth.c). False, nothing
 * changed, when memory is short. ctl mutex held. */
bool ttrace_meta_set_live(struct ttrace *t, const struct ttrace_event_meta *m);
/* Publishes a snapshot of table, naming the probe slots fprobes, as the
 * current metadata (and in aux and the root record). Returns false,
 * changing nothing, when memory is short or it breaks the format's
 * limits. ctl mutex held, interrupts on, no spinlock (a grace period). */
bool ttrace_meta_publish(struct ttrace *t, const struct ttrace_meta_table *table,
			 uint32_t fprobes);
/* The probes live with their event armed (a bit per slot), as the armed
 * bytes say now; the hit path's copy of it; whether site is one of hot's
 * functions. fgraph_sync() (ctl mutex held) drives them. */
uint32_t fprobe_hot(void);
void fprobe_set_hot(uint32_t hot);
bool fprobe_site_hot(uintptr_t site, uint32_t hot);
void fprobe_trampoline(void);
/* The return of a call fprobe_entry() hooked: func_exit at depth unless
 * the tag in slot (its frame's slot word) says FGRAPH_TAG_NOGRAPH, then
 * the return probes of word (its frame's func word) with rv. */
void fprobe_return(uintptr_t word, uint32_t depth, uintptr_t slot,
		   uint64_t rv);
/* ctl fprobe add/del: NULL or why nothing changed. ctl mutex held. */
const char *fprobe_control(struct ttrace *t,
			   const struct ttrace_fprobe_spec *s);
/* The rings were cleared: deleted probes' ids come free. ctl mutex. */
void fprobe_rings_cleared(struct ttrace *t);
/* Whether event id is a function probe deleted since the last clear: its
 * name still resolves (its records may be in the rings), but nothing may
 * attach to it, since its id comes free at the clear for another
 * function. ctl mutex held. */
bool fprobe_deleted(uint32_t id);
void fprobe_state_text(struct seqbuf *s);
/* Calls fn on each live probe's definition (tracefs_dyn.c's
 * dynamic_events). ctl mutex held. */
void fprobe_each_live(void (*fn)(const struct ttrace_fprobe_spec *s,
				 void *arg), void *arg);
/* The stats file's line of the strings probes could not read, by why:
 * "fprobe str bad_address N not_ram N". */
void fprobe_stats_text(struct seqbuf *s);

/* stack.c: call chains (docs/latency.md, "Stack traces") */
void ttrace_stack_record(struct trace_ring *r, uint64_t base, uint64_t ctx,
			 uintptr_t rbp, uint32_t depth);
void ttrace_stack_name_ksyms(void);
/* Profile records (docs/trace-format.md section 8; profile.c): their
 * mode word, the trap frame a process's thread entered the kernel with
 * (its user registers, at the top of its kernel stack), the page tables
 * loaded on this CPU (for an exiting process, the kernel's: it switches
 * to them before it frees its own). */
enum { TTRACE_PROF_MODE_KERNEL, TTRACE_PROF_MODE_USER, TTRACE_PROF_MODE_IDLE,
       TTRACE_PROF_MODE_IRQ };

static __always_inline const struct trapframe *ttrace_user_frame(
	const struct kthread *kt)
{
	return (const struct trapframe *)(kt->kstack + KSTACK_SIZE) - 1;
}

static __always_inline const uint64_t *ttrace_loaded_tables(void)
{
	return KADDR(rcr3() & PTE_ADDR_MASK);
}

bool ttrace_profile_record(struct trace_ring *r, uint32_t ev,
			   const uint64_t h[3], const struct kthread *kt,
			   uintptr_t pc0, uintptr_t rbp);
void ttrace_profile_ustack(struct trace_ring *r, const uint64_t *pml4,
			   uintptr_t pc0, uintptr_t rbp);
void ttrace_profile_sample_of(const struct trapframe *tf,
			      const struct kthread *kt, uint32_t opts,
			      uint64_t pid, uint64_t mode, uint64_t *last);
/* profile.c: the sampling profiler (docs/profiling.md) */
void ttrace_prof_sample(const struct trapframe *tf);
bool ttrace_profile_sched_live(void);
const char *ttrace_profile_control(struct ttrace *t,
				   const struct ttrace_ctl_cmd *cmd,
				   const void *file);
/* The last close of ctl file file: if its `profile on ... held` started
 * the profile running, the profile ends (as a ^C'd `ttrace profile`'s).
 * Process context. */
void ttrace_profile_close(const void *file);
void ttrace_profile_stats_text(struct seqbuf *s);
/* The physical address of va if its page is present (user: and a user
 * page) in page tables pml4 (the top table's kernel address), else -1:
 * ustr's check (fprobe.c) and the profiler's user walk (stack.c). Any
 * context. Inline: user constant folds into each level's test, and the
 * profiler's walk, once a stack page, has no call in it. */
static __always_inline uint64_t mapped_pa(const uint64_t *pml4, uintptr_t va,
					  bool user)
{
	const uint64_t *table = pml4;
	uint64_t need = PTE_P | (user ? PTE_U : 0);

#pragma GCC unroll 4	/* each level's shift a constant */
	for (int level = 3; level >= 0; level--) {
		uint64_t e = table[(va >> (PGSHIFT + 9 * level)) & 511];

		if ((e & need) != need)
			return (uint64_t)-1;
		if (level == 0)		/* a 4 KiB page: one mask */
			return (e & PTE_ADDR_MASK) | (va & (PGSIZE - 1));
		if (level < 3 && (e & PTE_PS)) {
			uint64_t span = 1ull << (PGSHIFT + 9 * level);

			return (e & PTE_ADDR_MASK & ~(span - 1)) | (va & (span - 1));
		}
		table = KADDR(e & PTE_ADDR_MASK);
	}
	return (uint64_t)-1;
}
extern uint8_t ttrace_stack_tracer_on;
void ttrace_stack_check(uintptr_t *parent);
const char *ttrace_stack_tracer_control(struct ttrace *t, uint32_t op);
void ttrace_stack_max_text(struct seqbuf *s);	/* stack_max */
/* A CPU's deepest kernel stack since the last `stacktracer reset`: its
 * depth (stack top - rsp at the function's entry, 0: none) and chain. */
struct ttrace_stack_max {
	uint64_t bytes;
	uint32_t nframes;
	uint64_t pcs[TTRACE_STACK_DEPTH];
};
/* CPU cpu's deepest stack copied whole into *out (a reset one is all 0);
 * false while its CPU kept writing it (busy). Any context. */
bool ttrace_stack_max_get(uint32_t cpu, struct ttrace_stack_max *out);

/* tracefs_dyn.c, tracefs_snap.c: the tree's definitions, error log,
 * snapshot and stack tracer files (docs/tracefs.md), in the shape of the
 * tree's table (tracefs.c): text(s, inst) for a read, write(inst, line,
 * why) for one line written (0, or -errno with *why, logged to
 * error_log, nothing changed), trunc(inst, why) for an open with O_TRUNC.
 * Process context. */
/* Logs a refused write to a tree file (ftrace's error_log): from loc
 * (e.g. "trace_fprobe"), the command cmd (len bytes), the caret at its
 * byte pos, the reason why. No spinlock held. */
void tracefs_err_log(const char *loc, const char *cmd, size_t len,
		     size_t pos, const char *why);
/* A refusal: logged as tracefs_err_log(), *out the errstr to give
 * ("LOC: WHY (ERRNO TEXT)", valid until the next refusal); returns err. */
int tracefs_refuse(int err, const char *loc, const char *cmd, size_t len,
		   size_t pos, const char *why, const char **out);
void tracefs_error_log_text(struct seqbuf *s, uint32_t inst);
int tracefs_error_log_trunc(uint32_t inst, const char **why);
int tracefs_error_log_write(uint32_t inst, char *line, const char **why);
/* Whether why is tracefs_refuse()'s text (the refusal is logged). */
bool tracefs_refusal_logged(const char *why);
void tracefs_dynevents_text(struct seqbuf *s, uint32_t inst);
int tracefs_dynevents_write(uint32_t inst, char *line, const char **why);
int tracefs_dynevents_trunc(uint32_t inst, const char **why);
/* The tree's snapshot set, if it holds copy gen (0: any). ctl mutex. */
struct ttrace_snapset *tracefs_snapset(uint64_t gen);
int tracefs_snapshot_write(uint32_t inst, char *line, const char **why);
/* Whether a snapshot is there to read (the tree's or the probe's). */
bool tracefs_snapshot_taken(void);
void tracefs_snapshot_help(struct seqbuf *s);
void tracefs_stack_max_size_text(struct seqbuf *s, uint32_t inst);
int tracefs_stack_max_size_write(uint32_t inst, char *line, const char **why);
void tracefs_stack_trace_text(struct seqbuf *s, uint32_t inst);
void tracefs_stack_filter_text(struct seqbuf *s, uint32_t inst);
int tracefs_stack_filter_write(uint32_t inst, char *line, const char **why);
/* tracefs_synth.c: synthetic_events, and a hist trigger trig ("hist:...",
 * no "if") written to event ev's trigger (del: with '!'): 1 when it has
 * no variable (a plain hist trigger: the caller's), else 0 or -errno. */
void tracefs_synth_text(struct seqbuf *s, uint32_t inst);
int tracefs_synth_write(uint32_t inst, char *line, const char **why);
int tracefs_synth_trunc(uint32_t inst, const char **why);
int tracefs_synth_trigger(const char *ev, const char *trig, bool del,
			  const char **why);

#endif /* TTRACE_INTERNAL_H */
