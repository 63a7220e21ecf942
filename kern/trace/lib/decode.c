/*
 * decode.c: pairing entries into events, and formatting events as
 * text lines. See ttrace_decode.h for the rules; the point of this file is
 * that nothing it reads (entries, metadata, names) is trusted: formats are
 * re-checked, each conversion is printed on its own with the exact C type
 * it names, and names are copied through a filter of printable characters.
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

#include <compiler.h>

#include <ttrace_decode.h>

/* ---- timestamps ----------------------------------------------------------- */

/*
 * ts, a valid timestamp of a record made on a CPU whose TSC is offset
 * cycles ahead of CPU 0's (the TSC section's value), on CPU 0's clock: the
 * offset rounded down to even (3 becomes 2, -3 becomes -4) subtracted, so
 * a continuation stays its parent's timestamp | 1; a timestamp that would
 * go below 0 becomes 0 (1 for a continuation), which keeps the records'
 * order. docs/trace-file.md (section TSC) states the rule.
 */
uint64_t ttrace_ts_on_cpu0(uint64_t ts, int64_t offset)
{
	uint64_t off = (uint64_t)offset & ~(uint64_t)1;

	if (offset > 0 && ts < off)
		return ts & TTRACE_TS_CONT;
	return ts - off;
}

/* ---- version header ------------------------------------------------------ */

/* Zeroes v and fills the fields this code's format fixes: magic, the three
 * versions, the header and entry sizes. The writer fills the rest. */
void ttrace_version_init(struct ttrace_version *v)
{
	memset(v, 0, sizeof(*v));
	v->magic = TTRACE_MAGIC;
	v->header_version = TTRACE_HEADER_VERSION;
	v->aux_version = TTRACE_AUX_VERSION;
	v->percpu_version = TTRACE_PERCPU_VERSION;
	v->header_size = sizeof(*v);
	v->entry_size = TTRACE_ENTRY_SIZE;
}

/* The name of a loss reason (enum ttrace_loss_reason), "?" if unknown. */
const char *ttrace_loss_name(uint32_t reason)
{
	static const char *const names[TTRACE_LOSS_NREASONS] = {
		[TTRACE_LOSS_OVERWRITTEN] = "overwritten",
		[TTRACE_LOSS_RACED] = "overwritten while read",
		[TTRACE_LOSS_IN_FLIGHT] = "in flight",
		[TTRACE_LOSS_CLEARED] = "cleared",
		[TTRACE_LOSS_SKIPPED] = "skipped ahead of the writer",
		[TTRACE_LOSS_NOT_COPIED] = "not copied",
	};

	return reason < TTRACE_LOSS_NREASONS && names[reason] ? names[reason] :
	       "?";
}

/*
 * Checks a version header read from a file, in the reader's byte order (a
 * header whose magic reads TTRACE_MAGIC_SWAPPED is refused: swap it first).
 * Returns 0 if every field is one this code understands and the sizes are
 * consistent, else -1 with *why set.
 */
int ttrace_version_check(const struct ttrace_version *v, const char **why)
{
	uint64_t n = v->entries_per_cpu;

	if (v->magic == TTRACE_MAGIC_SWAPPED)
		return *why = "trace written in the other byte order", -1;
	if (v->magic != TTRACE_MAGIC)
		return *why = "not a ttrace trace (bad magic)", -1;
	if (v->header_version != TTRACE_HEADER_VERSION ||
	    v->aux_version != TTRACE_AUX_VERSION ||
	    v->percpu_version < TTRACE_PERCPU_VERSION_MIN ||
	    v->percpu_version > TTRACE_PERCPU_VERSION)
		return *why = "unsupported trace format version", -1;
	if (v->header_size != sizeof(*v) || v->entry_size != TTRACE_ENTRY_SIZE)
		return *why = "bad header or entry size", -1;
	if (v->num_cpus == 0 || v->num_cpus > TTRACE_MAX_CPUS)
		return *why = "bad number of cpus", -1;
	if (!IS_PWR2(n) || n < 2 || n > TTRACE_MAX_RING_ENTRIES)
		return *why = "entries per cpu not a power of two up to 2^23", -1;
	if (v->aux_size && (!IS_PWR2(v->aux_size) ||
			    v->aux_mask != v->aux_size - 1))
		return *why = "bad aux size or mask", -1;
	if (v->aux_last < v->aux_first ||
	    v->aux_last - v->aux_first > v->aux_size)
		return *why = "bad aux first/last", -1;
	if (v->event_count > TTRACE_META_MAX_EVENTS ||
	    v->ring_mode > TTRACE_MODE_SATURATE)
		return *why = "bad event count or ring mode", -1;
	return 0;
}

/* ---- pairing ------------------------------------------------------------- */

/* Starts a walk over n entries in slot (logical index) order. */
void ttrace_pair_init(struct ttrace_pair_iter *it, const struct ttrace_entry *v,
		      size_t n, const struct ttrace_meta_table *meta)
{
	memset(it, 0, sizeof(*it));
	it->v = v;
	it->n = n;
	it->meta = meta;
	for (uint32_t i = 0; meta && i < meta->nevents &&
	     i < TTRACE_META_MAX_EVENTS; i++)
		if (ttrace_meta_is_packed(&meta->events[i]))
			it->packed[i / 64] |= 1ULL << (i % 64);
}

/* A packed event's view: its argument words become one value per
 * argument (args[i] is argument i's, whatever bytes it has), so every
 * reader of a view finds argument i at args[i]. */
static void unpack(const struct ttrace_event_meta *e,
		   struct ttrace_event_view *ev)
{
	uint64_t w[TTRACE_MAX_ARGS];
	uint32_t n = MIN(ev->nwords, (uint32_t)TTRACE_MAX_ARGS);

	memcpy(w, ev->args, n * sizeof(w[0]));
	for (unsigned i = 0; i < e->nargs; i++)
		ev->args[i] = ttrace_arg_value(e, i, w, n);
	ev->nwords = e->nargs;
}

/* Whether a first entry stamped pts is among the WINDOW entries before p. */
static bool parent_before(const struct ttrace_pair_iter *it, size_t p,
			  uint64_t pts)
{
	size_t lo = p > TTRACE_PAIR_WINDOW ? p - TTRACE_PAIR_WINDOW : 0;

	for (size_t q = lo; q < p; q++)
		if (it->v[q].timestamp == pts)
			return true;
	return false;
}

/* Collects the continuations of the event just read into ev. */
static void pair_conts(struct ttrace_pair_iter *it,
		       struct ttrace_event_view *ev)
{
	uint64_t want = ev->timestamp | TTRACE_TS_CONT;
	uint32_t max = MIN(ev->ncont, (uint32_t)TTRACE_MAX_CONT);
	size_t end = MIN(it->n, it->pos + TTRACE_PAIR_WINDOW);

	for (size_t j = it->pos; j < end && ev->ncont_found < max; j++) {
		if (it->v[j].timestamp != want)
			continue;
		memcpy(&ev->args[ev->nwords], it->v[j].cont,
		       sizeof(it->v[j].cont));
		ev->nwords += TTRACE_CONT_ARGS;
		ev->ncont_found++;
	}
	if (ev->ncont_found < ev->ncont)
		it->incomplete++;
}

/*
 * Returns the next event in *ev, or false at the end. Skips invalid entries
 * and continuations (counting orphans); an event whose continuations are
 * not all found is still returned, with ncont_found < ncont.
 */
bool ttrace_pair_next(struct ttrace_pair_iter *it, struct ttrace_event_view *ev)
{
	while (it->pos < it->n) {
		const struct ttrace_entry *e = &it->v[it->pos++];

		if (!ttrace_ts_valid(e->timestamp)) {
			it->invalid++;
			continue;
		}
		if (ttrace_ts_is_cont(e->timestamp)) {
			if (!parent_before(it, it->pos - 1,
					   e->timestamp & ~TTRACE_TS_CONT))
				it->orphans++;
			continue;
		}
		/* field by field, args[] past nwords left as they are: a
		 * memset of the whole view was a slow "rep stos" in the
		 * decoder's hottest loop */
		ev->ncont_found = 0;
		ev->timestamp = e->timestamp;
		ev->type = e->type;
		ev->context = e->context;
		ev->id = TTRACE_TYPE_ID(e->type);
		ev->cpu = TTRACE_TYPE_CPU(e->type);
		ev->ctx_kind = TTRACE_TYPE_CTX(e->type);
		ev->depth = TTRACE_TYPE_DEPTH(e->type);
		ev->ncont = TTRACE_TYPE_NCONT(e->type);
		memcpy(ev->args, e->data, sizeof(e->data));
		ev->nwords = TTRACE_ENTRY_ARGS;
		if (ev->ncont)
			pair_conts(it, ev);
		if (ev->id < TTRACE_META_MAX_EVENTS &&
		    (it->packed[ev->id / 64] >> (ev->id % 64) & 1))
			unpack(&it->meta->events[ev->id], ev);
		return true;
	}
	return false;
}

/* ---- compiled formats ---------------------------------------------------- */

#define INDENT_MAX_LEVELS	32	/* sb_indent() */

/* The longest text of: a name (sb_name(): a name or "#IDENT"), an FMT_INT
 * step's number (sign and 20 digits, or "0x" and 16), a line up to its
 * event's name (the time stamp, " cpuN ", the longest context word: sys:
 * with two names and a pid, and the space after it). */
#define NAME_TEXT_MAX	MAX(TTRACE_AUX_MAX_STRLEN, 1 + 20)
#define INT_TEXT_MAX	21
#define LINE_HEAD_MAX	(1 + 20 + 7 + 4 + 20 + 1 + 27 + 2 * NAME_TEXT_MAX + 1 + \
			 FLAGS_TEXT_MAX)
#define FLAGS_TEXT_MAX	6	/* sb_flags() */

/* flags of an FMT_INT step */
#define FMT_HEX		1	/* base 16 (else 10) */
#define FMT_ALT		2	/* "0x" before a value that is not 0 */
#define FMT_PTR		4	/* "0x" before every value (%p) */
#define FMT_SIGNED	8	/* d i */
#define FMT_WIDE	16	/* 64-bit (else the int / unsigned int) */

/*
 * Classifies cv: FMT_INT with its flags for a plain conversion that
 * fmt_snprintf would print as bare digits (d i with no or an l/ll length;
 * u x with no, l, ll or z length; '#' only before x; plain %p), FMT_STR
 * for a plain %s, FMT_PERCENT, else FMT_GENERIC (left to fmt_snprintf).
 */
static uint8_t conv_kind(const struct ttrace_conv *cv, uint8_t *flags)
{
	const char *p = cv->spec + 1;
	bool alt = *p == '#';
	char c = cv->conv;

	*flags = 0;
	if (c == '%')
		return TTRACE_FMT_PERCENT;
	if (c == 's' || c == 'p') {
		*flags = FMT_HEX | FMT_PTR | FMT_WIDE;
		return p[0] != c || p[1] ? TTRACE_FMT_GENERIC :
		       c == 's' ? TTRACE_FMT_STR : TTRACE_FMT_INT;
	}
	p += alt;
	while (*p == 'l' || *p == 'z')
		p++;
	if (p[0] != c || p[1] || (alt && c != 'x') ||
	    cv->length == TTRACE_LEN_HH || cv->length == TTRACE_LEN_H ||
	    (c != 'd' && c != 'i' && c != 'u' && c != 'x'))
		return TTRACE_FMT_GENERIC;
	*flags = (uint8_t)((c == 'x' ? FMT_HEX : 0) | (alt ? FMT_ALT : 0) |
			   (c == 'd' || c == 'i' ? FMT_SIGNED : 0) |
			   (cv->length != TTRACE_LEN_NONE ? FMT_WIDE : 0));
	return TTRACE_FMT_INT;
}

/*
 * Reads the next step of a checked format at p into *s: the literal text
 * up to the next conversion, and that conversion (kind TTRACE_FMT_END at
 * the end of the string). Returns where the step after it starts.
 */
static const char *fmt_step_parse(const char *p, struct ttrace_fmt_step *s)
{
	struct ttrace_conv cv;
	const char *q = p;

	while (*q && *q != '%')
		q++;
	s->lit = p;
	s->litlen = (uint16_t)(q - p);
	s->conv = q;
	s->flags = 0;
	if (!*q) {
		s->kind = TTRACE_FMT_END;
		return q;
	}
	q += ttrace_meta_parse_conv(q, &cv);
	s->kind = conv_kind(&cv, &s->flags);
	return q;
}

/* Whether e's format can be used (else its words print raw). */
static bool format_ok(const struct ttrace_event_meta *e)
{
	const char *why;

	return e && e->format && (e->args || !e->nargs) &&
	       e->nargs <= TTRACE_MAX_ARGS &&
	       !ttrace_meta_check_format(e->format, e->args, e->nargs, &why);
}

/* plan->maxlen for e (plan_init's): the name, ": ", the indent, each
 * step's text at its longest (raw words: a space and 18 hex digits
 * each), " (incomplete)"; 0 when a step has no bound (FMT_GENERIC, or
 * steps parsed at each use). */
static size_t plan_maxlen(const struct ttrace_fmt_plan *plan,
			  const struct ttrace_event_meta *e)
{
	size_t n = (e->name ? plan->namelen : 6 + 20) + 2 +
		   2 * INDENT_MAX_LEVELS + 13;

	if (plan->mode == TTRACE_PLAN_RAW)
		return n + TTRACE_MAX_ARGS * (1 + 18);
	if (plan->mode != TTRACE_PLAN_STEPS)
		return 0;
	for (unsigned i = 0; i < plan->nsteps; i++) {
		const struct ttrace_fmt_step *s = &plan->steps[i];

		if (s->kind == TTRACE_FMT_GENERIC)
			return 0;
		n += s->litlen + (s->kind == TTRACE_FMT_INT ? INT_TEXT_MAX :
				  s->kind == TTRACE_FMT_STR ? NAME_TEXT_MAX :
				  s->kind == TTRACE_FMT_PERCENT ? 1 : 0);
	}
	return n;
}

/* The index of e's first argument named "depth" (the function-graph
 * events'), or e->nargs if none. */
static uint8_t depth_arg(const struct ttrace_event_meta *e)
{
	uint8_t i;

	for (i = 0; e->args && i < e->nargs; i++)
		if (e->args[i].name && !strcmp(e->args[i].name, "depth"))
			return i;
	return e->nargs;
}

/*
 * Compiles e's format (e may be NULL) into *plan once, so that formatting
 * an event of e skips checking and parsing it: raw words if it does not
 * check out, its steps if they fit the plan, else parsed at each use.
 * The plan points into e's format, which must outlive it.
 */
void ttrace_fmt_plan_init(struct ttrace_fmt_plan *plan,
			  const struct ttrace_event_meta *e)
{
	const char *p;

	plan->nsteps = 0;
	plan->mode = TTRACE_PLAN_RAW;
	plan->depth_arg = e ? depth_arg(e) : 0;
	plan->maxlen = 0;
	plan->namelen = e && e->name ? strlen(e->name) : 0;
	plan->frames = 0;
	for (uint8_t i = 0; e && e->args && i < e->nargs; i++)
		plan->frames |= e->args[i].aux_tag == TTRACE_AUX_KSYM_NAME;
	if (format_ok(e)) {
		plan->mode = TTRACE_PLAN_PARSE;
		for (p = e->format; plan->nsteps < TTRACE_PLAN_MAX;) {
			struct ttrace_fmt_step *s = &plan->steps[plan->nsteps++];

			p = fmt_step_parse(p, s);
			if (s->kind == TTRACE_FMT_END) {
				plan->mode = TTRACE_PLAN_STEPS;
				break;
			}
		}
	}
	if (e)
		plan->maxlen = plan_maxlen(plan, e);
}

/* ---- conversions --------------------------------------------------------- */

/* "00" "01" ... "99": decimal digits two at a time. */
static const char digit_pairs[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes v's decimal digits backwards ending at end (at most 20 of them);
 * returns where they start. */
static char *dec_digits(char *end, uint64_t v)
{
	char *q = end;

	while (v >= 100) {
		uint64_t r = v % 100;

		v /= 100;
		q -= 2;
		memcpy(q, &digit_pairs[2 * r], 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, &digit_pairs[2 * v], 2);
	} else {
		*--q = (char)('0' + v);
	}
	return q;
}

/* 10^i for i < 20. */
static const uint64_t pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* How many decimal digits v has: with b its bit length, t = b * 1233 >>
 * 12 (floor(b * log10(2)) for b <= 64) and it has t or t + 1 digits. */
static __always_inline unsigned dec_len(uint64_t v)
{
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/*
 * The appends of a line. Each takes fits: true when the caller reserved
 * room for all the line can hold (line_fits()), so that the append skips
 * the check of the room and the NUL after it (the line's end stores it
 * once); false, the appends of seqbuf.h, each checked.
 */
static __always_inline void sb_write(struct seqbuf *sb, const char *p,
				     size_t n, bool fits)
{
	if (!fits) {
		seqbuf_write(sb, p, n);
		return;
	}
	if (n <= 16)
		seqbuf_copy_short(sb->buf + sb->len, p, n);
	else
		memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
}

static __always_inline void sb_putc(struct seqbuf *sb, char c, bool fits)
{
	sb_write(sb, &c, 1, fits);
}

static __always_inline void sb_puts(struct seqbuf *sb, const char *str,
				    bool fits)
{
	sb_write(sb, str, strlen(str), fits);
}

/*
 * Where n bytes are written in place at the end of sb: its tail when they
 * fit, else tmp (which has room for n; then sb_placed() appends what fits
 * of them). Writing a
 * number's digits straight into the line, not into a copy read back a
 * word at a time, spares the stall of a load over several small stores.
 */
static __always_inline char *sb_place(struct seqbuf *sb, size_t n, char *tmp,
				      bool fits)
{
	if (fits || likely(sb->len < sb->size && n < sb->size - sb->len))
		return sb->buf + sb->len;
	return tmp;
}

/* Appends the n bytes placed at d (sb_place(sb, n, tmp, fits)). */
static __always_inline void sb_placed(struct seqbuf *sb, const char *d,
				      size_t n, const char *tmp, bool fits)
{
	if (d == tmp) {
		seqbuf_write(sb, tmp, n);
	} else {
		sb->len += n;		/* they fit: no saturation */
		if (!fits)
			sb->buf[sb->len] = 0;
	}
}

/* Appends v as an FMT_INT step with flags prints it. */
static __always_inline void sb_int(struct seqbuf *sb, uint64_t v, uint8_t flags,
				   bool fits)
{
	char tmp[24], *d, *q;
	bool neg = false, prefix = false;
	unsigned n;

	if (!(flags & FMT_WIDE))
		v = flags & FMT_SIGNED ? (uint64_t)(int64_t)(int)v :
		    (unsigned int)v;
	if ((flags & FMT_SIGNED) && (int64_t)v < 0) {
		neg = true;
		v = 0 - v;
	}
	if (flags & FMT_HEX) {
		prefix = (flags & FMT_PTR) || ((flags & FMT_ALT) && v);
		n = (unsigned)(67 - __builtin_clzll(v | 1)) / 4 + 2 * prefix;
	} else {
		n = dec_len(v);
	}
	n += neg;
	d = sb_place(sb, n, tmp, fits);
	q = d + n;
	if (flags & FMT_HEX) {
		do {
			*--q = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
		if (prefix) {
			*--q = 'x';
			*--q = '0';
		}
	} else {
		q = dec_digits(q, v);
	}
	if (neg)
		*--q = '-';
	sb_placed(sb, d, n, tmp, fits);
}

/*
 * Formats exactly one validated conversion cv with value v (or string s for
 * %s), passing fmt_snprintf the C type the conversion names.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int conv_print(char *dst, size_t room, const struct ttrace_conv *cv,
		      uint64_t v, const char *s)
{
	const char *f = cv->spec;

	switch (cv->conv) {
	case 'd':
	case 'i':
		if (cv->length == TTRACE_LEN_LL)
			return fmt_snprintf(dst, room, f, (long long)v);
		if (cv->length == TTRACE_LEN_L)
			return fmt_snprintf(dst, room, f, (long)v);
		return fmt_snprintf(dst, room, f, (int)v);
	case 'p':
		return fmt_snprintf(dst, room, f, (void *)(uintptr_t)v);
	case 's':
		return fmt_snprintf(dst, room, f, s);
	default:	/* u x X o */
		if (cv->length == TTRACE_LEN_LL)
			return fmt_snprintf(dst, room, f, (unsigned long long)v);
		if (cv->length == TTRACE_LEN_L)
			return fmt_snprintf(dst, room, f, (unsigned long)v);
		if (cv->length == TTRACE_LEN_Z)
			return fmt_snprintf(dst, room, f, (size_t)v);
		return fmt_snprintf(dst, room, f, (unsigned int)v);
	}
}
#pragma GCC diagnostic pop

static void sb_conv(struct seqbuf *sb, const struct ttrace_conv *cv, uint64_t v,
		    const char *s)
{
	char *dst;
	size_t room = seqbuf_get_buf(sb, &dst);
	int n = conv_print(dst, room, cv, v, s);

	seqbuf_commit(sb, n > 0 ? (size_t)n : 0);
}

static __always_inline void sb_hex(struct seqbuf *sb, uint64_t v, bool fits)
{
	sb_int(sb, v, FMT_HEX | FMT_ALT | FMT_WIDE, fits);
}

static __always_inline void sb_dec(struct seqbuf *sb, uint64_t v, bool fits)
{
	sb_int(sb, v, FMT_WIDE, fits);
}

/*
 * Appends the name of (tag, ident) at ts (printable characters only, at
 * most TTRACE_AUX_MAX_STRLEN of them). Returns false (nothing appended)
 * if there is none.
 */
static __always_inline bool sb_name_of(struct seqbuf *sb,
				       ttrace_resolve_fn resolve, void *rarg,
				       unsigned tag, uint64_t ident,
				       uint64_t ts, bool fits)
{
	const char *s = NULL;
	size_t len = resolve ? resolve(rarg, tag, ident, ts, &s) : 0;

	if (!s || !len)
		return false;
	seqbuf_printable_in(sb, s, MIN(len, (size_t)TTRACE_AUX_MAX_STRLEN),
			    fits);
	return true;
}

/* ---- formatting ---------------------------------------------------------- */

static __always_inline void sb_raw_words(struct seqbuf *sb,
					 const struct ttrace_event_view *ev,
					 bool fits)
{
	for (uint32_t i = 0; i < ev->nwords && i < TTRACE_MAX_ARGS; i++) {
		if (i)
			sb_putc(sb, ' ', fits);
		sb_hex(sb, ev->args[i], fits);
	}
}

/* Appends the name of (tag, ident), or "#ident" if it has none. */
static __always_inline void sb_name(struct seqbuf *sb,
				    ttrace_resolve_fn resolve, void *rarg,
				    unsigned tag, uint64_t ident, uint64_t ts,
				    bool fits)
{
	if (!sb_name_of(sb, resolve, rarg, tag, ident, ts, fits)) {
		sb_putc(sb, '#', fits);
		sb_dec(sb, ident, fits);
	}
}

/* Whether argument i of ev is a call chain's frame past its end: a
 * str:ksym word (a stack record's pc, docs/latency.md) that is 0, which
 * the walk that wrote it did not reach (or lost with a continuation: the
 * line says incomplete). It prints as nothing, with the text before it. */
static __always_inline bool no_frame(const struct ttrace_event_meta *e,
				     const struct ttrace_event_view *ev,
				     unsigned i)
{
	return i < e->nargs && e->args[i].aux_tag == TTRACE_AUX_KSYM_NAME &&
	       (i >= ev->nwords || !ev->args[i]);
}

/* Appends step s of e's format; *argi is the next argument word's index
 * (advanced past the one s uses); frames is false only when no argument
 * of e is a frame (no_frame(), ttrace_fmt_plan's frames). */
static __always_inline void sb_step(struct seqbuf *sb,
				    const struct ttrace_event_meta *e,
				    const struct ttrace_fmt_step *s,
				    const struct ttrace_event_view *ev,
				    unsigned *argi, bool frames,
				    ttrace_resolve_fn resolve, void *rarg,
				    bool fits)
{
	unsigned i = *argi;

	if (frames && s->kind != TTRACE_FMT_END &&
	    s->kind != TTRACE_FMT_PERCENT && no_frame(e, ev, i)) {
		(*argi)++;
		return;
	}
	sb_write(sb, s->lit, s->litlen, fits);
	if (s->kind == TTRACE_FMT_END)
		return;
	if (s->kind == TTRACE_FMT_PERCENT) {
		sb_putc(sb, '%', fits);
		return;
	}
	(*argi)++;
	if (i >= ev->nwords) {
		sb_putc(sb, '?', fits);	/* continuation lost */
	} else if (s->kind == TTRACE_FMT_INT) {
		sb_int(sb, ev->args[i], s->flags, fits);
	} else if (s->kind == TTRACE_FMT_STR) {
		sb_name(sb, resolve, rarg, e->args[i].aux_tag, ev->args[i],
			ev->timestamp, fits);
	} else {
		struct ttrace_conv cv;
		char name[TTRACE_AUX_MAX_STRLEN + 24];
		struct seqbuf nb;

		ttrace_meta_parse_conv(s->conv, &cv);
		seqbuf_init(&nb, name, sizeof(name));
		if (cv.conv == 's')
			sb_name(&nb, resolve, rarg, e->args[i].aux_tag,
				ev->args[i], ev->timestamp, false);
		sb_conv(sb, &cv, ev->args[i], name);
	}
}

/* Appends ev's arguments by e's format, with the steps of plan when it
 * has them (else parsing the format as it goes). */
static __always_inline void sb_args(struct seqbuf *sb,
				    const struct ttrace_event_meta *e,
				    const struct ttrace_fmt_plan *plan,
				    const struct ttrace_event_view *ev,
				    ttrace_resolve_fn resolve, void *rarg,
				    bool fits)
{
	struct ttrace_fmt_step s;
	const char *p = e->format;
	unsigned argi = 0;

	if (plan && plan->mode == TTRACE_PLAN_STEPS) {
		for (unsigned i = 0; i < plan->nsteps; i++)
			sb_step(sb, e, &plan->steps[i], ev, &argi, plan->frames,
				resolve, rarg, fits);
		return;
	}
	do {
		p = fmt_step_parse(p, &s);
		sb_step(sb, e, &s, ev, &argi, true, resolve, rarg, fits);
	} while (s.kind != TTRACE_FMT_END);
}

/*
 * Formats ev's arguments with e's format string into buf (snprintf rules:
 * always NUL terminated if size > 0; returns the length it wanted). Words
 * lost with a missing continuation print as '?'. If e is NULL or its format
 * does not check out, prints the raw words in hex instead.
 */
int ttrace_format_args(char *buf, size_t size,
		       const struct ttrace_event_meta *e,
		       const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg)
{
	struct seqbuf sb;

	seqbuf_init(&sb, buf, size);
	if (format_ok(e))
		sb_args(&sb, e, NULL, ev, resolve, rarg, false);
	else
		sb_raw_words(&sb, ev, false);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

static __always_inline void sb_pidword(struct seqbuf *sb,
				       const struct ttrace_event_view *ev,
				       ttrace_resolve_fn resolve, void *rarg,
				       bool fits)
{
	uint32_t pid = TTRACE_CTX_PID(ev->context);

	sb_name_of(sb, resolve, rarg, TTRACE_AUX_PROC_NAME, pid, ev->timestamp,
		   fits);
	sb_putc(sb, '[', fits);
	sb_dec(sb, pid, fits);
	sb_write(sb, "]:", 2, fits);
}

/*
 * Appends ev's context (see ttrace_format.h) as a short word:
 *	boot  boot:PHASE  kt:NAME  kmsg:NAME  sys:PROC[PID]:SYSCALL
 *	trap:PROC[PID]:VECTOR  irq:VECTOR[/dDEPTH]  idle  ctxK:0xWORD
 */
static __always_inline void sb_ctx(struct seqbuf *sb,
				   const struct ttrace_event_view *ev,
				   ttrace_resolve_fn resolve, void *rarg,
				   bool fits)
{
	uint64_t c = ev->context, ts = ev->timestamp;

	switch (ev->ctx_kind) {
	case TTRACE_CTX_BOOT:
		sb_puts(sb, "boot", fits);
		if (c) {
			sb_putc(sb, ':', fits);
			sb_name(sb, resolve, rarg, TTRACE_AUX_BOOT_PHASE, c,
				ts, fits);
		}
		break;
	case TTRACE_CTX_KTASK:
		sb_puts(sb, "kt:", fits);
		sb_name(sb, resolve, rarg, TTRACE_AUX_KTHREAD_NAME, c, ts, fits);
		break;
	case TTRACE_CTX_RKMSG:
		sb_puts(sb, "kmsg:", fits);
		sb_name(sb, resolve, rarg, TTRACE_AUX_KMSG_NAME, c, ts, fits);
		break;
	case TTRACE_CTX_SYSC:
		sb_puts(sb, "sys:", fits);
		sb_pidword(sb, ev, resolve, rarg, fits);
		sb_name(sb, resolve, rarg, TTRACE_AUX_SYSCALL_NAME,
			TTRACE_CTX_LOW(c), ts, fits);
		break;
	case TTRACE_CTX_TRAP:
		sb_puts(sb, "trap:", fits);
		sb_pidword(sb, ev, resolve, rarg, fits);
		sb_dec(sb, TTRACE_CTX_LOW(c), fits);
		break;
	case TTRACE_CTX_IRQ:
		sb_puts(sb, "irq:", fits);
		sb_dec(sb, c, fits);
		if (ev->depth > 1) {
			sb_puts(sb, "/d", fits);
			sb_dec(sb, ev->depth, fits);
		}
		break;
	case TTRACE_CTX_IDLE:
		sb_puts(sb, "idle", fits);
		break;
	default:
		sb_puts(sb, "ctx", fits);
		sb_dec(sb, ev->ctx_kind, fits);
		sb_putc(sb, ':', fits);
		sb_hex(sb, c, fits);
	}
}

/* ev's context word (sb_ctx) in buf. Returns the length it wanted, as
 * ttrace_format_args(). */
int ttrace_format_ctx(char *buf, size_t size,
		      const struct ttrace_event_view *ev,
		      ttrace_resolve_fn resolve, void *rarg)
{
	struct seqbuf sb;

	seqbuf_init(&sb, buf, size);
	sb_ctx(&sb, ev, resolve, rarg, false);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

/* Appends two spaces per level of call depth when e has an argument named
 * "depth" (the function-graph events, func_entry and func_exit), so that
 * text output shows the call graph's nesting; at most INDENT_MAX_LEVELS
 * levels, whatever a corrupt record says. plan is e's compiled format,
 * which knows that argument, or NULL (then it is looked up by name). */
static __always_inline void sb_indent(struct seqbuf *sb,
				      const struct ttrace_event_meta *e,
				      const struct ttrace_fmt_plan *plan,
				      const struct ttrace_event_view *ev,
				      bool fits)
{
	uint32_t i = plan ? plan->depth_arg : depth_arg(e);

	if (i >= e->nargs || i >= ev->nwords)
		return;
	for (uint64_t d = 0; d < MIN(ev->args[i], INDENT_MAX_LEVELS); d++)
		sb_write(sb, "  ", 2, fits);
}

/* Appends " [dNh]", ev's context flags as Linux's latency columns show
 * them (irqs off, need resched, hardirq: '.' when not), if it has any. */
static __always_inline void sb_flags(struct seqbuf *sb,
				     const struct ttrace_event_view *ev,
				     bool fits)
{
	uint32_t f = TTRACE_TYPE_FLAGS(ev->type);
	char text[FLAGS_TEXT_MAX] = " [...]";

	if (!f && !ev->depth)
		return;
	if (f & TTRACE_TYPE_IRQS_OFF)
		text[2] = 'd';
	if (f & TTRACE_TYPE_NEED_RESCHED)
		text[3] = 'N';
	if (ev->depth)
		text[4] = 'h';
	sb_write(sb, text, FLAGS_TEXT_MAX, fits);
}

/* Appends " cpuN CONTEXT NAME: ARGS[ [dNh]][ (incomplete)]", the line after its
 * time stamp; ARGS indented by depth (sb_indent); plans (NULL, or
 * t->nevents of them) are t's compiled formats. */
static __always_inline void sb_line_rest(struct seqbuf *sb,
					 const struct ttrace_meta_table *t,
					 const struct ttrace_fmt_plan *plans,
					 const struct ttrace_event_view *ev,
					 ttrace_resolve_fn resolve, void *rarg,
					 bool fits)
{
	const struct ttrace_event_meta *e = NULL;
	char *dst;
	size_t room;

	if (t && ev->id < t->nevents)
		e = &t->events[ev->id];
	sb_write(sb, " cpu", 4, fits);
	sb_dec(sb, ev->cpu, fits);
	sb_putc(sb, ' ', fits);
	sb_ctx(sb, ev, resolve, rarg, fits);
	sb_putc(sb, ' ', fits);
	if (e && e->name && fits) {	/* then plans are t's (line_fits()) */
		sb_write(sb, e->name, plans[ev->id].namelen, fits);
	} else if (e && e->name) {
		sb_puts(sb, e->name, fits);
	} else {
		sb_puts(sb, "event#", fits);
		sb_dec(sb, ev->id, fits);
	}
	sb_write(sb, ": ", 2, fits);
	if (e)
		sb_indent(sb, e, plans ? &plans[ev->id] : NULL, ev, fits);
	if (e && plans && plans[ev->id].mode != TTRACE_PLAN_RAW) {
		sb_args(sb, e, &plans[ev->id], ev, resolve, rarg, fits);
	} else if (e && plans) {
		sb_raw_words(sb, ev, fits);
	} else {
		room = seqbuf_get_buf(sb, &dst);
		seqbuf_commit(sb, (size_t)ttrace_format_args(dst, room, e, ev,
							     resolve, rarg));
	}
	sb_flags(sb, ev, fits);
	if (ev->ncont_found < ev->ncont)
		sb_write(sb, " (incomplete)", 13, fits);
}

/*
 * Formats ev as one text line without a newline:
 *	TSC cpuN CONTEXT NAME: ARGS[ [dNh]][ (incomplete)]
 * with NAME "event#ID" and raw words if t does not know the id. Returns the
 * length it wanted, as ttrace_format_args().
 */
int ttrace_format_line(char *buf, size_t size,
		       const struct ttrace_meta_table *t,
		       const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg)
{
	struct seqbuf sb;

	seqbuf_init(&sb, buf, size);
	sb_dec(&sb, ev->timestamp, false);
	sb_line_rest(&sb, t, NULL, ev, resolve, rarg, false);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

/* ticks of a hz clock in nanoseconds, without overflow for any realistic
 * uptime (the kernel's tsc_to_ns() rounds the same way). */
uint64_t ttrace_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
#if defined(__x86_64__)
	/* one divide of the 128-bit product while the quotient fits in 64
	 * bits (hi < hz, which divq needs): a text line's costliest step */
	unsigned __int128 p = (unsigned __int128)ticks * 1000000000;
	uint64_t hi = (uint64_t)(p >> 64), q, r;

	if (hi < hz) {
		__asm__("divq %4" : "=a"(q), "=d"(r)
			: "a"((uint64_t)p), "d"(hi), "rm"(hz));
		return q;
	}
#endif
	/* the same floor(ticks * 10^9 / hz), with one division while the
	 * product fits in 64 bits (seconds of ticks) */
	if (ticks <= UINT64_MAX / 1000000000)
		return ticks * 1000000000 / hz;
	return ticks / hz * 1000000000 + ticks % hz * 1000000000 / hz;
}

/* Appends ev's line (ttrace_format_timed_line_plans()) to sb, checking
 * the room at each append unless fits (line_fits()). */
static __always_inline void sb_timed_line(struct seqbuf *sb, uint64_t tsc_hz,
					  uint64_t tsc_boot,
					  const struct ttrace_meta_table *t,
					  const struct ttrace_fmt_plan *plans,
					  const struct ttrace_event_view *ev,
					  ttrace_resolve_fn resolve, void *rarg,
					  bool fits)
{
	if (tsc_hz) {
		uint64_t d = ev->timestamp >= tsc_boot ? ev->timestamp - tsc_boot :
			     tsc_boot - ev->timestamp;
		uint64_t ns = ttrace_ticks_to_ns(d, tsc_hz);
		uint64_t r = ns % 1000, us = ns / 1000;
		bool neg = ev->timestamp < tsc_boot;
		size_t n = neg + dec_len(us) + 7;
		char tmp[32], *dst = sb_place(sb, n, tmp, fits), *q = dst + n - 7;

		/* "-US.NNN us", built backwards in place */
		memcpy(q, ".000 us", 7);
		q[1] = (char)('0' + r / 100);
		memcpy(q + 2, &digit_pairs[2 * (r % 100)], 2);
		q = dec_digits(q, us);
		if (neg)
			*--q = '-';
		sb_placed(sb, dst, n, tmp, fits);
	} else {
		sb_dec(sb, ev->timestamp, fits);
		sb_write(sb, " tsc", 4, fits);
	}
	sb_line_rest(sb, t, plans, ev, resolve, rarg, fits);
}

/* Whether the empty sb has room for the longest line of ev's event
 * (LINE_HEAD_MAX and its plan's maxlen): a plan that bounds it, and
 * then no append of the line needs to check the room. */
static __always_inline bool line_fits(const struct seqbuf *sb,
				      const struct ttrace_meta_table *t,
				      const struct ttrace_fmt_plan *plans,
				      const struct ttrace_event_view *ev)
{
	size_t max;

	if (!plans || !t || ev->id >= t->nevents || !plans[ev->id].maxlen)
		return false;
	max = LINE_HEAD_MAX + plans[ev->id].maxlen;
	return max > plans[ev->id].maxlen && sb->size > max;
}

/*
 * Formats one event as the device's cpuN files and the host tools print it:
 * "SECONDS.MMM us cpuN CONTEXT NAME: ARGS", the time in microseconds since
 * tsc_boot (a raw TSC when tsc_hz is 0). plans is NULL or t's formats
 * compiled by ttrace_fmt_plan_init(), one per event id (the same text,
 * sooner: a line whose longest text fits is written with no check of the
 * room at each append). Returns the length it wanted, as
 * ttrace_format_line() does.
 */
int ttrace_format_timed_line_plans(char *buf, size_t size, uint64_t tsc_hz,
				   uint64_t tsc_boot,
				   const struct ttrace_meta_table *t,
				   const struct ttrace_fmt_plan *plans,
				   const struct ttrace_event_view *ev,
				   ttrace_resolve_fn resolve, void *rarg)
{
	struct seqbuf sb;

	seqbuf_init(&sb, buf, size);
	if (line_fits(&sb, t, plans, ev)) {
		sb_timed_line(&sb, tsc_hz, tsc_boot, t, plans, ev, resolve,
			      rarg, true);
		sb.buf[sb.len] = 0;	/* len < size: it fit */
	} else {
		sb_timed_line(&sb, tsc_hz, tsc_boot, t, plans, ev, resolve,
			      rarg, false);
	}
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

/* ttrace_format_timed_line_plans() with no plans (the formats parsed at
 * each call). */
int ttrace_format_timed_line(char *buf, size_t size, uint64_t tsc_hz,
			     uint64_t tsc_boot, const struct ttrace_meta_table *t,
			     const struct ttrace_event_view *ev,
			     ttrace_resolve_fn resolve, void *rarg)
{
	return ttrace_format_timed_line_plans(buf, size, tsc_hz, tsc_boot, t,
					      NULL, ev, resolve, rarg);
}
