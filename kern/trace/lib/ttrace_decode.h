/*
 * ttrace_decode.h: turning ring entries back into events and text, shared by
 * the kernel's text formatter and the host tools.
 *
 * Pairing. An event with more than 5 argument words is a first entry whose
 * type word says how many continuation entries follow, plus those entries,
 * each stamped with the parent's timestamp | 1. Usually they are adjacent
 * (trace_ring_write_ext), but with per-entry reservations a nested
 * interrupt's records can fall in between, so the iterator pairs by
 * timestamp: it looks for the continuations in order among the next
 * TTRACE_PAIR_WINDOW entries. A continuation without its parent (it was
 * overwritten) is an orphan and is counted, not returned.
 *
 * Formatting. ttrace_format_args() prints an event's arguments with its
 * metadata format string; each conversion is re-checked and handed to
 * fmt_snprintf() one at a time with an argument of exactly the C type it
 * names, so hostile metadata cannot make the formatter read a wrong type.
 * %s arguments (TTRACE_ARG_STR) are aux references, turned into names by a
 * resolver callback (ttrace_aux_resolve over an aux view, or the kernel's
 * own); unknown names print as "#<ident>"; non-printable bytes as '?'.
 * A decoder that formats many events compiles each event's format once
 * (ttrace_fmt_plan_init: checked, split into literal runs and conversions,
 * the plain integer and %s ones marked to be printed without printf) and
 * hands the plans to ttrace_format_timed_line_plans(); the text is the
 * same as without them.
 *
 * CPU 0's clock. ttrace_ts_on_cpu0() puts a record's timestamp from its
 * CPU's TSC onto CPU 0's by the TSC section's rule (docs/trace-file.md):
 * the kernel's text reader and the host loader both use it, so the cpuN
 * text and ttdecode's text of a save agree.
 *
 * Version header. ttrace_version_check() vets a header read from a file
 * before any of its numbers are used to size or index anything.
 *
 * Usage:
 *	struct ttrace_pair_iter it;
 *	struct ttrace_event_view ev;
 *	ttrace_pair_init(&it, entries, n, &meta);
 *	while (ttrace_pair_next(&it, &ev)) {
 *		ttrace_format_line(line, sizeof(line), &meta, &ev,
 *				   ttrace_aux_resolve, &auxview);
 *		puts(line);
 *	}
 */
#ifndef TTRACE_DECODE_H
#define TTRACE_DECODE_H

#include <compiler.h>
#include <ttrace_format.h>
#include <ttrace_meta.h>

#define TTRACE_PAIR_WINDOW	64	/* entries searched for continuations */

/* One event: its first entry's fields and all its argument words. */
struct ttrace_event_view {
	uint64_t timestamp;
	uint64_t type;
	uint64_t context;
	uint32_t id;
	uint32_t cpu;
	uint32_t ctx_kind;
	uint32_t depth;
	uint32_t ncont;		/* continuations the type word announced */
	uint32_t ncont_found;	/* ... and found (< ncont: incomplete) */
	uint32_t nwords;	/* argument words present in args[] (the
				   words after them are unspecified) */
	uint64_t args[TTRACE_MAX_ARGS];
};

struct ttrace_pair_iter {
	const struct ttrace_entry *v;
	size_t n;
	size_t pos;
	uint64_t orphans;	/* continuations whose parent is missing */
	uint64_t incomplete;	/* events missing a continuation */
	uint64_t invalid;	/* entries with an invalid timestamp */
	const struct ttrace_meta_table *meta;	/* unpacks packed events'
						   views, or NULL: raw */
	uint64_t packed[TTRACE_META_MAX_EVENTS / 64];	/* meta's packed
							   events, by id */
};

/*
 * Resolves (tag, ident) at time ts to a name: sets *str to its bytes (need
 * not be NUL terminated) and returns the length, or 0 if unknown.
 */
/* One step of a compiled format: literal text, then one conversion. */
enum ttrace_fmt_kind {
	TTRACE_FMT_END,		/* the literal text only: the format ends */
	TTRACE_FMT_PERCENT,	/* %% */
	TTRACE_FMT_INT,		/* digits without printf (flags say how) */
	TTRACE_FMT_STR,		/* plain %s: the name copied */
	TTRACE_FMT_GENERIC,	/* anything else: fmt_snprintf */
};

struct ttrace_fmt_step {
	const char *lit;	/* literal text before the conversion */
	const char *conv;	/* the conversion (its '%') in the format */
	uint16_t litlen;
	uint8_t kind;		/* enum ttrace_fmt_kind */
	uint8_t flags;		/* TTRACE_FMT_INT: how (decode.c) */
};

#define TTRACE_PLAN_MAX		16	/* longer formats: parsed at each use */

enum ttrace_plan_mode {
	TTRACE_PLAN_RAW,	/* no usable format: raw words in hex */
	TTRACE_PLAN_STEPS,	/* steps[] hold the whole format */
	TTRACE_PLAN_PARSE,	/* checked, but parsed at each use */
};

struct ttrace_fmt_plan {
	uint8_t mode;		/* enum ttrace_plan_mode */
	uint8_t nsteps;
	uint8_t depth_arg;	/* the argument named "depth" (indents the
				   text), or the event's nargs if none */
	uint8_t frames;		/* whether an argument is a str:ksym word
				   (a call chain's frame, which may print as
				   nothing) */
	size_t maxlen;		/* the longest "NAME: ARGS[ (incomplete)]"
				   an event of it prints, or 0 if unbounded */
	size_t namelen;		/* strlen of the event's name (0: none) */
	struct ttrace_fmt_step steps[TTRACE_PLAN_MAX];
};

typedef size_t (*ttrace_resolve_fn)(void *arg, unsigned tag, uint64_t ident,
				    uint64_t ts, const char **str);

int ttrace_version_check(const struct ttrace_version *v, const char **why);
void ttrace_version_init(struct ttrace_version *v);
const char *ttrace_loss_name(uint32_t reason);
uint64_t ttrace_ts_on_cpu0(uint64_t ts, int64_t offset);

/* meta: the trace's, whose packed events' views hold one value per
 * argument (NULL: the argument words as recorded). */
void ttrace_pair_init(struct ttrace_pair_iter *it, const struct ttrace_entry *v,
		      size_t n, const struct ttrace_meta_table *meta);
bool ttrace_pair_next(struct ttrace_pair_iter *it,
		      struct ttrace_event_view *ev);

int ttrace_format_args(char *buf, size_t size,
		       const struct ttrace_event_meta *e,
		       const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg);
int ttrace_format_ctx(char *buf, size_t size,
		      const struct ttrace_event_view *ev,
		      ttrace_resolve_fn resolve, void *rarg);
uint64_t ttrace_ticks_to_ns(uint64_t ticks, uint64_t hz);
int ttrace_format_timed_line(char *buf, size_t size, uint64_t tsc_hz,
			     uint64_t tsc_boot, const struct ttrace_meta_table *t,
			     const struct ttrace_event_view *ev,
			     ttrace_resolve_fn resolve, void *rarg);
void ttrace_fmt_plan_init(struct ttrace_fmt_plan *plan,
			  const struct ttrace_event_meta *e);
int ttrace_format_timed_line_plans(char *buf, size_t size, uint64_t tsc_hz,
				   uint64_t tsc_boot,
				   const struct ttrace_meta_table *t,
				   const struct ttrace_fmt_plan *plans,
				   const struct ttrace_event_view *ev,
				   ttrace_resolve_fn resolve, void *rarg);
int ttrace_format_line(char *buf, size_t size,
		       const struct ttrace_meta_table *t,
		       const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg);

#endif /* TTRACE_DECODE_H */
