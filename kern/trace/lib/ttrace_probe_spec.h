/*
 * ttrace_probe_spec.h: the pure parts of the built-in probes (kern/lib/
 * ttrace_probe_spec.c): the grammar of the ctl commands that attach and
 * remove them (parsers of the ctl table's probe rows, ttrace_ctl.h), the fields and tests a probe reads from an event, the keyed
 * table that counts per key, and the log2 histogram math. Host-tested; the
 * kernel side (kern/trace/probe_builtin.c) carries the parsed commands out.
 *
 * ctl commands (docs/probes.md has the full grammar and examples):
 *	probe NAME filter EVENT TEST...
 *	probe NAME count EVENT [by FIELD] [if TEST...]
 *	probe NAME hist EVENT FIELD [by FIELD] [if TEST...]
 *	probe NAME latency START END [by FIELD] [if TEST...]
 *	probe NAME snapshot EVENT [if TEST...]
 *	probe NAME stop EVENT [if TEST...]
 *	probe NAME stacktrace EVENT [depth N] [if TEST...]
 *	unprobe NAME|*
 * FIELD is an argument name of the event, pid or cpu; after `by` it may
 * end in .TAG, an aux tag's short name (syscall, irq, proc or its alias
 * execname, ...) by which the results name each key; a str:TAG argument
 * is named by its own tag without one. TEST... is an expression of tests
 * FIELD OP VALUE (pid==3, nr != 7, ret<0, addr&0xfff), OP one of
 * == != < <= > >= & (nonzero AND) or ~ (a str argument's text matches a
 * glob: "*bin*", sh*, ?[a-c]*); tests side by side or joined by && must
 * all hold, || joins alternatives (&& binds tighter), parentheses group.
 * VALUE is decimal (a leading - allowed) or 0x hex; fields of signed type
 * compare signed. At most TTRACE_PROBE_MAX_TESTS tests and
 * TTRACE_PROBE_MAX_NEST levels of parentheses: the parser refuses more,
 * so the evaluator's bounds hold by construction.
 *
 * Usage:
 *	struct ttrace_ctl_cmd cmd;
 *	const char *err = ttrace_ctl_parse(&cmd, text, len, &meta);
 *	if (!err && cmd.op == TTRACE_CTL_PROBE) ...attach cmd.probe...
 *	...
 *	if (ttrace_probe_test(&spec, &hit))
 *		ttrace_keytab_add(&tab, key, 1);
 */
#ifndef TTRACE_PROBE_SPEC_H
#define TTRACE_PROBE_SPEC_H

#include <compiler.h>
#include <seqbuf.h>
#include <ttrace_meta.h>

#define TTRACE_PROBE_NAME_MAX	63	/* characters of a probe's name */
#define TTRACE_STACK_DEPTH	16	/* frames a stacktrace records, at most */
#define TTRACE_PROBE_MAX_TESTS	8
#define TTRACE_PROBE_MAX_PROG	(2 * TTRACE_PROBE_MAX_TESTS - 1)
#define TTRACE_PROBE_TIMES_MAX	(1u << 31)	/* a stop's or stacktrace's times */
#define TTRACE_PROBE_MAX_NEST	4	/* parentheses inside parentheses */
#define TTRACE_PROBE_GLOB_MAX	31	/* characters of a ~ glob */
#define TTRACE_PROBE_EMIT_MAX	3	/* latency emit: END's fields after
					   the latency (5 words a record) */
#define TTRACE_HIST_BUCKETS	65	/* bucket 0: value 0; b: 2^(b-1)..2^b-1 */

/* What a probe sees of one event: filled by the kernel, read by probes. */
struct ttrace_probe_hit {
	uint32_t id;		/* event id */
	uint32_t nargs;
	uint32_t cpu;
	int32_t pid;		/* -1 outside a process's syscall or trap */
	uint64_t ts;		/* the record's timestamp (trace clock) */
	const uint64_t *args;	/* nargs words, widened as in the record */
	const char *const *strs; /* NULL, or nargs entries: the text of each
				   str argument the site has at hand (NULL:
				   not at hand), for ~ tests */
	uint32_t *stack;	/* a stacktrace probe puts the frames it
				   wants here (the most any asked for is
				   walked after the record), or NULL */
};

enum ttrace_probe_kind {
	TTRACE_PROBE_FILTER = 1,
	TTRACE_PROBE_COUNT,
	TTRACE_PROBE_HIST,
	TTRACE_PROBE_LATENCY,
	TTRACE_PROBE_SNAPSHOT,
	TTRACE_PROBE_STOP,
	TTRACE_PROBE_STACKTRACE,
};

enum ttrace_field_src { TTRACE_FIELD_NONE, TTRACE_FIELD_ARG,
			TTRACE_FIELD_PID, TTRACE_FIELD_CPU };
enum ttrace_test_op { TTRACE_OP_EQ, TTRACE_OP_NE, TTRACE_OP_LT, TTRACE_OP_LE,
		      TTRACE_OP_GT, TTRACE_OP_GE, TTRACE_OP_AND,
		      TTRACE_OP_GLOB };

/* A filter program's operators; its other bytes are test indexes. */
#define TTRACE_PROG_AND	0xfe
#define TTRACE_PROG_OR	0xff

struct ttrace_field {
	uint8_t src;		/* enum ttrace_field_src */
	uint8_t arg;		/* TTRACE_FIELD_ARG: the argument's index */
	uint8_t is_signed;	/* compare as int64_t */
	uint8_t off, size;	/* ... and its bytes in the record's words
				   (ttrace_arg_place) */
};

struct ttrace_test {
	struct ttrace_field field;
	uint8_t op;		/* enum ttrace_test_op */
	uint64_t value;
	char glob[TTRACE_PROBE_GLOB_MAX + 1];	/* TTRACE_OP_GLOB's pattern */
};

/* One built-in probe as ctl described it. */
struct ttrace_probe_spec {
	char name[TTRACE_PROBE_NAME_MAX + 1];
	uint32_t kind;		/* enum ttrace_probe_kind */
	uint32_t event;		/* LATENCY: the start event */
	uint32_t end_event;	/* LATENCY only */
	struct ttrace_field value;	/* HIST: the field counted */
	struct ttrace_field key;	/* COUNT/HIST/LATENCY; NONE: one key */
	uint8_t key_tag;		/* the aux tag that names a key (the
					   field's str:TAG, or by FIELD.TAG),
					   0: shown as a number */
	uint32_t depth;			/* STACKTRACE: frames, 1..16 */
	uint32_t times;			/* STOP, STACKTRACE: act on the first
					   this many hits; 0: on every hit */
	struct ttrace_field end_key;	/* LATENCY: the END's field of the
					 * key's name, or match's; NONE: not
					 * checked */
	bool match;			/* LATENCY: `match FIELD`: START and
					 * END pair by key on any CPUs */
	bool emit;			/* LATENCY: `emit EVENT FIELD...` */
	uint32_t emit_event;		/* ... recorded at each pair: the
					 * latency (ns), then END's fields */
	uint32_t nemit;
	struct ttrace_field emit_fields[TTRACE_PROBE_EMIT_MAX];
	uint32_t ntests;
	struct ttrace_test tests[TTRACE_PROBE_MAX_TESTS];
	/* 0: every test must hold (no ||); else the expression in postfix,
	 * test indexes and TTRACE_PROG_AND/OR, at most ntests deep */
	uint32_t nprog;
	uint8_t prog[TTRACE_PROBE_MAX_PROG];
};

const char *ttrace_probe_kind_name(uint32_t kind);
uint64_t ttrace_field_get(const struct ttrace_field *f,
			  const struct ttrace_probe_hit *h);
bool ttrace_probe_test(const struct ttrace_probe_spec *s,
		       const struct ttrace_probe_hit *h);
void ttrace_probe_spec_text(const struct ttrace_probe_spec *s,
			    const struct ttrace_meta_table *meta,
			    struct seqbuf *out);

/*
 * A table of counters per key, filled from any context without a lock:
 * keys are claimed by compare-and-swap in open addressing, at most
 * TTRACE_KEYTAB_PROBES slots looked at per key, so a full table costs no
 * more than a sparse one; a key that finds no slot is counted in
 * `overflow` (shown, never silent). Each key has `width` counters (1 for a
 * count, TTRACE_HIST_BUCKETS for a histogram). The caller provides the
 * memory (ttrace_keytab_bytes()), allocated beforehand.
 */
#define TTRACE_KEYTAB_PROBES	32

struct ttrace_keytab {
	uint32_t cap;		/* slots, a power of two */
	uint32_t width;		/* counters per slot */
	uint64_t *keys;		/* cap + 1: the last is for the empty key */
	uint64_t *vals;		/* (cap + 1) * width */
	uint8_t *used;		/* cap + 1 */
	uint64_t overflow;	/* adds that found no slot */
};

size_t ttrace_keytab_bytes(uint32_t cap, uint32_t width);
void ttrace_keytab_init(struct ttrace_keytab *t, void *mem, uint32_t cap,
			uint32_t width);
uint64_t *ttrace_keytab_get(struct ttrace_keytab *t, uint64_t key);
void ttrace_keytab_add(struct ttrace_keytab *t, uint64_t key, uint32_t i,
		       uint64_t n);
bool ttrace_keytab_slot(const struct ttrace_keytab *t, uint32_t slot,
			uint64_t *key, const uint64_t **vals);

/* log2 histograms: TTRACE_HIST_BUCKETS counters. */
unsigned ttrace_hist_bucket(uint64_t v);
uint64_t ttrace_hist_bucket_low(unsigned b);
uint64_t ttrace_hist_bucket_high(unsigned b);
uint64_t ttrace_hist_total(const uint64_t *buckets);
uint64_t ttrace_hist_percentile(const uint64_t *buckets, unsigned pct);
struct seqbuf;
void ttrace_hist_buckets_text(struct seqbuf *s, const uint64_t *buckets);

#endif /* TTRACE_PROBE_SPEC_H */
