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
	    v->percpu_version != TTRACE_PERCPU_VERSION)
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
		      size_t n)
{
	memset(it, 0, sizeof(*it));
	it->v = v;
	it->n = n;
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
		return true;
	}
	return false;
}

/* ---- compiled formats ---------------------------------------------------- */

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
	if (!format_ok(e))
		return;
	plan->mode = TTRACE_PLAN_PARSE;
	for (p = e->format; plan->nsteps < TTRACE_PLAN_MAX;) {
		struct ttrace_fmt_step *s = &plan->steps[plan->nsteps++];

		p = fmt_step_parse(p, s);
		if (s->kind == TTRACE_FMT_END) {
			plan->mode = TTRACE_PLAN_STEPS;
			return;
		}
	}
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

/* How many decimal digits v has. */
static __always_inline unsigned dec_len(uint64_t v)
{
	unsigned n = 1;

	while (n < 20 && v >= pow10[n])
		n++;
	return n;
}

/*
 * Where n bytes are written in place at the end of sb: its tail when they
 * fit, else tmp (which has room for n; then sb_placed() appends what fits
 * of them). Writing a
 * number's digits straight into the line, not into a copy read back a
 * word at a time, spares the stall of a load over several small stores.
 */
static __always_inline char *sb_place(struct seqbuf *sb, size_t n, char *tmp)
{
	if (likely(sb->len < sb->size && n < sb->size - sb->len))
		return sb->buf + sb->len;
	return tmp;
}

/* Appends the n bytes placed at d (sb_place(sb, n, tmp)). */
static __always_inline void sb_placed(struct seqbuf *sb, const char *d,
				      size_t n, const char *tmp)
{
	if (d == tmp) {
		seqbuf_write(sb, tmp, n);
	} else {
		sb->len += n;		/* they fit: no saturation */
		sb->buf[sb->len] = 0;
	}
}

/* Appends v as an FMT_INT step with flags prints it. */
static __always_inline void sb_int(struct seqbuf *sb, uint64_t v, uint8_t flags)
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
	d = sb_place(sb, n, tmp);
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
	sb_placed(sb, d, n, tmp);
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

static __always_inline void sb_hex(struct seqbuf *sb, uint64_t v)
{
	sb_int(sb, v, FMT_HEX | FMT_ALT | FMT_WIDE);
}

static __always_inline void sb_dec(struct seqbuf *sb, uint64_t v)
{
	sb_int(sb, v, FMT_WIDE);
}

/*
 * Appends the name of (tag, ident) at ts (printable characters only, at
 * most TTRACE_AUX_MAX_STRLEN of them). Returns false (nothing appended)
 * if there is none.
 */
static __always_inline bool sb_name_of(struct seqbuf *sb,
				       ttrace_resolve_fn resolve, void *rarg,
				       unsigned tag, uint64_t ident,
				       uint64_t ts)
{
	const char *s = NULL;
	size_t len = resolve ? resolve(rarg, tag, ident, ts, &s) : 0;

	if (!s || !len)
		return false;
	seqbuf_printable(sb, s, MIN(len, (size_t)TTRACE_AUX_MAX_STRLEN));
	return true;
}

/* ---- formatting ---------------------------------------------------------- */

static void sb_raw_words(struct seqbuf *sb, const struct ttrace_event_view *ev)
{
	for (uint32_t i = 0; i < ev->nwords && i < TTRACE_MAX_ARGS; i++) {
		if (i)
			seqbuf_putc(sb, ' ');
		sb_hex(sb, ev->args[i]);
	}
}

/* Appends the name of (tag, ident), or "#ident" if it has none. */
static void sb_name(struct seqbuf *sb, ttrace_resolve_fn resolve, void *rarg,
		    unsigned tag, uint64_t ident, uint64_t ts)
{
	if (!sb_name_of(sb, resolve, rarg, tag, ident, ts)) {
		seqbuf_putc(sb, '#');
		sb_dec(sb, ident);
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
 * (advanced past the one s uses). */
static __always_inline void sb_step(struct seqbuf *sb,
				    const struct ttrace_event_meta *e,
				    const struct ttrace_fmt_step *s,
				    const struct ttrace_event_view *ev,
				    unsigned *argi,
				    ttrace_resolve_fn resolve, void *rarg)
{
	unsigned i = *argi;

	if (s->kind != TTRACE_FMT_END && s->kind != TTRACE_FMT_PERCENT &&
	    no_frame(e, ev, i)) {
		(*argi)++;
		return;
	}
	seqbuf_write(sb, s->lit, s->litlen);
	if (s->kind == TTRACE_FMT_END)
		return;
	if (s->kind == TTRACE_FMT_PERCENT) {
		seqbuf_putc(sb, '%');
		return;
	}
	(*argi)++;
	if (i >= ev->nwords) {
		seqbuf_putc(sb, '?');	/* continuation lost */
	} else if (s->kind == TTRACE_FMT_INT) {
		sb_int(sb, ev->args[i], s->flags);
	} else if (s->kind == TTRACE_FMT_STR) {
		sb_name(sb, resolve, rarg, e->args[i].aux_tag, ev->args[i],
			ev->timestamp);
	} else {
		struct ttrace_conv cv;
		char name[TTRACE_AUX_MAX_STRLEN + 24];
		struct seqbuf nb;

		ttrace_meta_parse_conv(s->conv, &cv);
		seqbuf_init(&nb, name, sizeof(name));
		if (cv.conv == 's')
			sb_name(&nb, resolve, rarg, e->args[i].aux_tag,
				ev->args[i], ev->timestamp);
		sb_conv(sb, &cv, ev->args[i], name);
	}
}

/* Appends ev's arguments by e's format, with the steps of plan when it
 * has them (else parsing the format as it goes). */
static void sb_args(struct seqbuf *sb, const struct ttrace_event_meta *e,
		    const struct ttrace_fmt_plan *plan,
		    const struct ttrace_event_view *ev,
		    ttrace_resolve_fn resolve, void *rarg)
{
	struct ttrace_fmt_step s;
	const char *p = e->format;
	unsigned argi = 0;

	if (plan && plan->mode == TTRACE_PLAN_STEPS) {
		for (unsigned i = 0; i < plan->nsteps; i++)
			sb_step(sb, e, &plan->steps[i], ev, &argi, resolve, rarg);
		return;
	}
	do {
		p = fmt_step_parse(p, &s);
		sb_step(sb, e, &s, ev, &argi, resolve, rarg);
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
		sb_args(&sb, e, NULL, ev, resolve, rarg);
	else
		sb_raw_words(&sb, ev);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

static void sb_pidword(struct seqbuf *sb, const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg)
{
	uint32_t pid = TTRACE_CTX_PID(ev->context);

	sb_name_of(sb, resolve, rarg, TTRACE_AUX_PROC_NAME, pid, ev->timestamp);
	seqbuf_putc(sb, '[');
	sb_dec(sb, pid);
	seqbuf_write(sb, "]:", 2);
}

/*
 * Appends ev's context (see ttrace_format.h) as a short word:
 *	boot  boot:PHASE  kt:NAME  kmsg:NAME  sys:PROC[PID]:SYSCALL
 *	trap:PROC[PID]:VECTOR  irq:VECTOR[/dDEPTH]  idle  ctxK:0xWORD
 */
static __always_inline void sb_ctx(struct seqbuf *sb,
				   const struct ttrace_event_view *ev,
				   ttrace_resolve_fn resolve, void *rarg)
{
	uint64_t c = ev->context, ts = ev->timestamp;

	switch (ev->ctx_kind) {
	case TTRACE_CTX_BOOT:
		seqbuf_puts(sb, "boot");
		if (c) {
			seqbuf_putc(sb, ':');
			sb_name(sb, resolve, rarg, TTRACE_AUX_BOOT_PHASE, c,
				ts);
		}
		break;
	case TTRACE_CTX_KTASK:
		seqbuf_puts(sb, "kt:");
		sb_name(sb, resolve, rarg, TTRACE_AUX_KTHREAD_NAME, c, ts);
		break;
	case TTRACE_CTX_RKMSG:
		seqbuf_puts(sb, "kmsg:");
		sb_name(sb, resolve, rarg, TTRACE_AUX_KMSG_NAME, c, ts);
		break;
	case TTRACE_CTX_SYSC:
		seqbuf_puts(sb, "sys:");
		sb_pidword(sb, ev, resolve, rarg);
		sb_name(sb, resolve, rarg, TTRACE_AUX_SYSCALL_NAME,
			TTRACE_CTX_LOW(c), ts);
		break;
	case TTRACE_CTX_TRAP:
		seqbuf_puts(sb, "trap:");
		sb_pidword(sb, ev, resolve, rarg);
		sb_dec(sb, TTRACE_CTX_LOW(c));
		break;
	case TTRACE_CTX_IRQ:
		seqbuf_puts(sb, "irq:");
		sb_dec(sb, c);
		if (ev->depth > 1) {
			seqbuf_puts(sb, "/d");
			sb_dec(sb, ev->depth);
		}
		break;
	case TTRACE_CTX_IDLE:
		seqbuf_puts(sb, "idle");
		break;
	default:
		seqbuf_puts(sb, "ctx");
		sb_dec(sb, ev->ctx_kind);
		seqbuf_putc(sb, ':');
		sb_hex(sb, c);
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
	sb_ctx(&sb, ev, resolve, rarg);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

#define INDENT_MAX_LEVELS	32

/* Appends two spaces per level of call depth when e has an argument named
 * "depth" (the function-graph events, func_entry and func_exit), so that
 * text output shows the call graph's nesting; at most INDENT_MAX_LEVELS
 * levels, whatever a corrupt record says. plan is e's compiled format,
 * which knows that argument, or NULL (then it is looked up by name). */
static void sb_indent(struct seqbuf *sb, const struct ttrace_event_meta *e,
		      const struct ttrace_fmt_plan *plan,
		      const struct ttrace_event_view *ev)
{
	uint32_t i = plan ? plan->depth_arg : depth_arg(e);

	if (i >= e->nargs || i >= ev->nwords)
		return;
	for (uint64_t d = 0; d < MIN(ev->args[i], INDENT_MAX_LEVELS); d++)
		seqbuf_write(sb, "  ", 2);
}

/* Appends " cpuN CONTEXT NAME: ARGS[ (incomplete)]", the line after its
 * time stamp; ARGS indented by depth (sb_indent); plans (NULL, or
 * t->nevents of them) are t's compiled formats. */
static void sb_line_rest(struct seqbuf *sb, const struct ttrace_meta_table *t,
			 const struct ttrace_fmt_plan *plans,
			 const struct ttrace_event_view *ev,
			 ttrace_resolve_fn resolve, void *rarg)
{
	const struct ttrace_event_meta *e = NULL;
	char *dst;
	size_t room;

	if (t && ev->id < t->nevents)
		e = &t->events[ev->id];
	seqbuf_write(sb, " cpu", 4);
	sb_dec(sb, ev->cpu);
	seqbuf_putc(sb, ' ');
	sb_ctx(sb, ev, resolve, rarg);
	seqbuf_putc(sb, ' ');
	if (e && e->name) {
		seqbuf_puts(sb, e->name);
	} else {
		seqbuf_puts(sb, "event#");
		sb_dec(sb, ev->id);
	}
	seqbuf_write(sb, ": ", 2);
	if (e)
		sb_indent(sb, e, plans ? &plans[ev->id] : NULL, ev);
	if (e && plans && plans[ev->id].mode != TTRACE_PLAN_RAW) {
		sb_args(sb, e, &plans[ev->id], ev, resolve, rarg);
	} else if (e && plans) {
		sb_raw_words(sb, ev);
	} else {
		room = seqbuf_get_buf(sb, &dst);
		seqbuf_commit(sb, (size_t)ttrace_format_args(dst, room, e, ev,
							     resolve, rarg));
	}
	if (ev->ncont_found < ev->ncont)
		seqbuf_write(sb, " (incomplete)", 13);
}

/*
 * Formats ev as one text line without a newline:
 *	TSC cpuN CONTEXT NAME: ARGS[ (incomplete)]
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
	sb_dec(&sb, ev->timestamp);
	sb_line_rest(&sb, t, NULL, ev, resolve, rarg);
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

/*
 * Formats one event as the device's cpuN files and the host tools print it:
 * "SECONDS.MMM us cpuN CONTEXT NAME: ARGS", the time in microseconds since
 * tsc_boot (a raw TSC when tsc_hz is 0). plans is NULL or t's formats
 * compiled by ttrace_fmt_plan_init(), one per event id (the same text,
 * sooner). Returns the length it wanted, as ttrace_format_line() does.
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
	if (tsc_hz) {
		uint64_t d = ev->timestamp >= tsc_boot ? ev->timestamp - tsc_boot :
			     tsc_boot - ev->timestamp;
		uint64_t ns = ttrace_ticks_to_ns(d, tsc_hz);
		uint64_t r = ns % 1000, us = ns / 1000;
		bool neg = ev->timestamp < tsc_boot;
		size_t n = neg + dec_len(us) + 7;
		char tmp[32], *dst = sb_place(&sb, n, tmp), *q = dst + n - 7;

		/* "-US.NNN us", built backwards in place */
		memcpy(q, ".000 us", 7);
		q[1] = (char)('0' + r / 100);
		memcpy(q + 2, &digit_pairs[2 * (r % 100)], 2);
		q = dec_digits(q, us);
		if (neg)
			*--q = '-';
		sb_placed(&sb, dst, n, tmp);
	} else {
		sb_dec(&sb, ev->timestamp);
		seqbuf_write(&sb, " tsc", 4);
	}
	sb_line_rest(&sb, t, plans, ev, resolve, rarg);
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
