/*
 * ttrace_dev.h: the tracer's device and control side, private to the
 * tracer. What the #ttrace device (kern/drivers/dev/devttrace.c) calls, and
 * in-kernel users of ctl (ktests, the benchmark), without the tracer
 * object: commands in, texts and readers out.
 *
 * The tracer has three faces:
 *	kern/include/ttrace.h	 public: the tracepoint API any kernel file
 *				 that records events includes (tracepoints,
 *				 context words, aux names, boot hooks)
 *	kern/src/ttrace_dev.h	 this file: control, the files' texts and
 *				 the ring readers, for the device
 *	kern/src/ttrace_internal.h the tracer object and its locks, for the
 *				 files that implement the tracer (it
 *				 includes this file)
 *
 * A read of cpuN, rawN, streamN, snapN, aux or probes goes through a
 * reader (ttrace_reader.c), made at open and freed at close:
 *
 *	struct ttrace_reader *r = ttrace_reader_new(TTRACE_READ_RAW, cpu);
 *	long n = ttrace_reader_read(r, buf, size, off);
 *	ttrace_reader_free(r);
 *
 * Everything here runs in process context with no lock held.
 */
#ifndef TTRACE_DEV_H
#define TTRACE_DEV_H

#include <compiler.h>

struct seqbuf;
struct ttrace_version;
struct ttrace_file_tsc;

/* Carries out one ctl command of len bytes (ttrace_control.c). Returns 0,
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

#endif /* TTRACE_DEV_H */
