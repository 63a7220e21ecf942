/*
 * ttrace_meta.h: event metadata, the description of every event (name,
 * group, typed arguments, printf-style format) that decoders use instead of
 * hard-coding events.
 *
 * There are two forms of the same thing:
 *  - a table (struct ttrace_meta_table): compiled into the kernel by
 *    tools/gen_events.py from kern/trace/ttrace.events (ttrace_meta_builtin), or
 *    rebuilt by ttrace_meta_parse() from a blob;
 *  - a blob: the byte serialisation documented in ttrace_format.h and
 *    docs/trace-format.md. The kernel stores it as an aux record with tag
 *    TTRACE_AUX_EVENT_META; the generator emits the same bytes as
 *    ttrace_meta_blob[], and ttrace_meta_serialise() rebuilds them from a
 *    table.
 *
 * Event ids are indices: table->events[i].id == i. Blobs come from files, so
 * ttrace_meta_parse() validates everything (bounds, names, ids, groups,
 * types, the checksum, every format string against its arguments) and the
 * resulting table is safe to hand to the formatter.
 *
 * Format strings: literal printable ASCII and conversions
 *	%[flags][width][.precision][length]conv
 * flags from "-0# +", width and precision of at most two digits, length one
 * of hh h l ll z, conv one of d i u x X o (any integer argument; z only with
 * u x X o), p (any argument, no length), s (only for a TTRACE_ARG_STR
 * argument, no length: prints the aux name), and %% (no argument). The
 * conversions must match the arguments one to one, in order.
 */
#ifndef TTRACE_META_H
#define TTRACE_META_H

#include <compiler.h>
#include <ttrace_format.h>

struct ttrace_arg_meta {
	const char *name;
	uint8_t type;		/* enum ttrace_arg_type */
	uint8_t aux_tag;	/* enum ttrace_aux_tag for TTRACE_ARG_STR, else 0 */
	uint8_t offset;		/* its bytes in the record's argument words: */
	uint8_t size;		/* 1, 2, 4 or 8 at offset; size 0: word i */
};

struct ttrace_event_meta {
	const char *name;
	const char *format;
	const struct ttrace_arg_meta *args;
	uint16_t id;
	uint8_t group;		/* group bit number, 0..63 */
	uint8_t flags;		/* TTRACE_EVF_DEFAULT_ON */
	uint8_t nargs;		/* <= TTRACE_MAX_ARGS */
};

struct ttrace_group_meta {
	const char *name;
	uint8_t bit;
	uint8_t flags;		/* TTRACE_EVF_DEFAULT_ON */
};

struct ttrace_meta_table {
	const struct ttrace_event_meta *events;
	const struct ttrace_group_meta *groups;
	uint32_t nevents;
	uint32_t ngroups;
};

/*
 * Where argument i of e lies in its record's argument words (little
 * endian, word 0's byte 0 first): *off, *size bytes. An argument that
 * says no size is word i, the layout of every event before packed
 * arguments (metadata version 1). Two arguments may share bytes: a name
 * of a number (str:proc prev of u32 prev_pid) is its bytes read as an
 * aux ident (docs/trace-format.md, "Packed arguments").
 */
static inline void ttrace_arg_place(const struct ttrace_event_meta *e,
				    unsigned i, unsigned *off, unsigned *size)
{
	*off = e->args[i].size ? e->args[i].offset : 8 * i;
	*size = e->args[i].size ? e->args[i].size : 8;
}

/* The size bytes at off of the argument words w[0..nwords) as a word,
 * sign extended if is_signed; 0 if they are not all there. */
static inline uint64_t ttrace_arg_bytes(const uint64_t *w, uint32_t nwords,
					unsigned off, unsigned size,
					bool is_signed)
{
	unsigned shift = 64 - 8 * size;
	uint64_t v;

	if (off / 8 >= nwords || size == 0 || size > 8 || off % size)
		return 0;
	v = w[off / 8] >> (8 * (off % 8));
	if (size == 8)
		return v;
	return is_signed ? (uint64_t)((int64_t)(v << shift) >> shift) :
			   v << shift >> shift;
}

/* Argument i of e out of its record's argument words w[0..nwords). */
uint64_t ttrace_arg_value(const struct ttrace_event_meta *e, unsigned i,
			  const uint64_t *w, uint32_t nwords);

/* The argument words a record of e has: its arguments' last byte's. */
unsigned ttrace_event_words(const struct ttrace_event_meta *e);

/* Whether an argument of e is not word i: a part of a word, or another's
 * bytes (ttrace_arg_place). */
bool ttrace_meta_is_packed(const struct ttrace_event_meta *e);

/* One parsed conversion of a format string (see ttrace_meta_parse_conv). */
struct ttrace_conv {
	char spec[16];		/* the conversion, NUL terminated, e.g. "%-08llx" */
	char conv;		/* d i u x X o p s, or '%' */
	uint8_t length;		/* enum ttrace_conv_length */
};

enum ttrace_conv_length {
	TTRACE_LEN_NONE, TTRACE_LEN_HH, TTRACE_LEN_H, TTRACE_LEN_L,
	TTRACE_LEN_LL, TTRACE_LEN_Z,
};

/*
 * Parses the conversion starting at fmt (which points at a '%') by the
 * grammar above. Returns the characters it spans, or 0 if it is not allowed.
 */
size_t ttrace_meta_parse_conv(const char *fmt, struct ttrace_conv *cv);

/* Checks fmt against args; returns 0 or -1 with *why set to a reason. */
int ttrace_meta_check_format(const char *fmt,
			     const struct ttrace_arg_meta *args, unsigned nargs,
			     const char **why);

/* Group record of bit, or NULL. */
const struct ttrace_group_meta *ttrace_meta_group(
	const struct ttrace_meta_table *t, unsigned bit);

/* Mask of the groups marked on by default. */
uint64_t ttrace_meta_default_mask(const struct ttrace_meta_table *t);

uint32_t ttrace_meta_fnv1a(const uint8_t *p, size_t n);

size_t ttrace_meta_serialise(const struct ttrace_meta_table *t, uint8_t *buf,
			     size_t size);

size_t ttrace_meta_arena_size(const uint8_t *blob, size_t len);
int ttrace_meta_parse(const uint8_t *blob, size_t len, void *arena,
		      size_t arena_size, struct ttrace_meta_table *t,
		      const char **why);

#endif /* TTRACE_META_H */
