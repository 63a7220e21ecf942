/*
 * ttrace_decode.c: pairing entries into events, and formatting events as
 * text lines. See ttrace_decode.h for the rules; the point of this file is
 * that nothing it reads (entries, metadata, names) is trusted: formats are
 * re-checked, each conversion is printed on its own with the exact C type
 * it names, and names are copied through a filter of printable characters.
 */
#include <printfmt.h>
#include <string.h>

#include <ttrace_decode.h>

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
		memset(ev, 0, sizeof(*ev));
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
		pair_conts(it, ev);
		return true;
	}
	return false;
}

/* ---- output buffer ------------------------------------------------------- */

/* snprintf-style output: len counts everything, buf holds what fits. */
struct sbuf {
	char *buf;
	size_t size;
	size_t len;
};

static void sb_init(struct sbuf *sb, char *buf, size_t size)
{
	sb->buf = buf;
	sb->size = size;
	sb->len = 0;
	if (size)
		buf[0] = 0;
}

/* Where the next output goes and how much fits (scratch when full). */
static char *sb_dst(struct sbuf *sb, size_t *room, char *scratch)
{
	if (sb->len + 1 < sb->size) {
		*room = sb->size - sb->len;
		return sb->buf + sb->len;
	}
	*room = 0;
	return scratch;
}

static void sb_done(struct sbuf *sb, int n)
{
	if (n > 0)
		sb->len += (size_t)n;
	if (sb->size)
		sb->buf[MIN(sb->len, sb->size - 1)] = 0;
}

static void sb_putc(struct sbuf *sb, char c)
{
	if (sb->len + 1 < sb->size)
		sb->buf[sb->len] = c;
	sb_done(sb, 1);
}

static void sb_puts(struct sbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (sb->len + 1 < sb->size)
		memcpy(sb->buf + sb->len, s, MIN(n, sb->size - 1 - sb->len));
	sb_done(sb, (int)MIN(n, (size_t)INT32_MAX));
}

/*
 * Formats v for a plain conversion cv (d i with no or an l/ll length; u x
 * with no, l, ll or z length; '#' only before x; no other flag, width or
 * precision) straight into dst, as snprintf would: the common case costs
 * no printf. Returns the length, or -1 for conversions it leaves to
 * fmt_snprintf.
 */
static int conv_fast(char *dst, size_t room, const struct ttrace_conv *cv,
		     uint64_t v)
{
	const char *p = cv->spec + 1;
	bool alt = *p == '#', neg = false;
	char tmp[24], *q = tmp + sizeof(tmp);
	unsigned base = cv->conv == 'x' ? 16 : 10;
	size_t len;

	p += alt;
	while (*p == 'l' || *p == 'z')
		p++;
	if (p[0] != cv->conv || p[1] || (alt && cv->conv != 'x') ||
	    cv->length == TTRACE_LEN_HH || cv->length == TTRACE_LEN_H ||
	    (cv->conv != 'd' && cv->conv != 'i' && cv->conv != 'u' &&
	     cv->conv != 'x'))
		return -1;
	if (cv->conv == 'd' || cv->conv == 'i') {
		int64_t x = cv->length == TTRACE_LEN_NONE ? (int)v : (int64_t)v;

		neg = x < 0;
		v = neg ? 0 - (uint64_t)x : (uint64_t)x;
	} else if (cv->length == TTRACE_LEN_NONE) {
		v = (unsigned int)v;
	}
	alt = alt && v;
	if (base == 16)
		do {
			*--q = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	else
		do {
			*--q = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	if (alt) {
		*--q = 'x';
		*--q = '0';
	}
	if (neg)
		*--q = '-';
	len = (size_t)(tmp + sizeof(tmp) - q);
	if (room) {
		memcpy(dst, q, MIN(len, room - 1));
		dst[MIN(len, room - 1)] = 0;
	}
	return (int)len;
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
	int n = cv->conv == 's' || cv->conv == 'p' ? -1 :
		conv_fast(dst, room, cv, v);

	if (n >= 0)
		return n;
	if (cv->conv == 's' && !strcmp(f, "%s")) {	/* plain: a copy */
		size_t len = strlen(s);

		if (room) {
			memcpy(dst, s, MIN(len, room - 1));
			dst[MIN(len, room - 1)] = 0;
		}
		return (int)MIN(len, (size_t)INT32_MAX);
	}
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

static void sb_conv(struct sbuf *sb, const struct ttrace_conv *cv, uint64_t v,
		    const char *s)
{
	char scratch[4];
	size_t room;
	char *dst = sb_dst(sb, &room, scratch);

	sb_done(sb, conv_print(dst, room, cv, v, s));
}

static void sb_hex(struct sbuf *sb, uint64_t v)
{
	static const struct ttrace_conv hex = { "%#llx", 'x', TTRACE_LEN_LL };

	sb_conv(sb, &hex, v, NULL);
}

static void sb_dec(struct sbuf *sb, uint64_t v)
{
	static const struct ttrace_conv dec = { "%llu", 'u', TTRACE_LEN_LL };

	sb_conv(sb, &dec, v, NULL);
}

/*
 * Puts the name of (tag, ident) at ts into out (printable characters only,
 * NUL terminated). Returns false (out empty) if there is none.
 */
static bool name_of(ttrace_resolve_fn resolve, void *rarg, unsigned tag,
		    uint64_t ident, uint64_t ts, char *out, size_t size)
{
	const char *s = NULL;
	size_t len = resolve ? resolve(rarg, tag, ident, ts, &s) : 0;

	out[0] = 0;
	if (!s || !len)
		return false;
	len = MIN(len, size - 1);
	for (size_t i = 0; i < len; i++)
		out[i] = s[i] >= 0x20 && s[i] <= 0x7e ? s[i] : '?';
	out[len] = 0;
	return true;
}

/* ---- formatting ---------------------------------------------------------- */

static void sb_raw_words(struct sbuf *sb, const struct ttrace_event_view *ev)
{
	for (uint32_t i = 0; i < ev->nwords && i < TTRACE_MAX_ARGS; i++) {
		if (i)
			sb_putc(sb, ' ');
		sb_hex(sb, ev->args[i]);
	}
}

/* Appends the name of (tag, ident), or "#ident" if it has none. */
static void sb_name(struct sbuf *sb, ttrace_resolve_fn resolve, void *rarg,
		    unsigned tag, uint64_t ident, uint64_t ts)
{
	char name[TTRACE_AUX_MAX_STRLEN + 1];

	if (name_of(resolve, rarg, tag, ident, ts, name, sizeof(name))) {
		sb_puts(sb, name);
	} else {
		sb_putc(sb, '#');
		sb_dec(sb, ident);
	}
}

static void sb_args(struct sbuf *sb, const struct ttrace_event_meta *e,
		    const struct ttrace_event_view *ev,
		    ttrace_resolve_fn resolve, void *rarg)
{
	const char *p = e->format;
	unsigned argi = 0;

	while (*p) {
		struct ttrace_conv cv;
		char name[TTRACE_AUX_MAX_STRLEN + 24];

		if (*p != '%') {
			sb_putc(sb, *p++);
			continue;
		}
		p += ttrace_meta_parse_conv(p, &cv);
		if (cv.conv == '%') {
			sb_putc(sb, '%');
			continue;
		}
		if (argi >= ev->nwords) {
			sb_putc(sb, '?');	/* continuation lost */
		} else if (cv.conv == 's') {
			struct sbuf nb;

			sb_init(&nb, name, sizeof(name));
			sb_name(&nb, resolve, rarg, e->args[argi].aux_tag,
				ev->args[argi], ev->timestamp);
			sb_conv(sb, &cv, 0, name);
		} else {
			sb_conv(sb, &cv, ev->args[argi], NULL);
		}
		argi++;
	}
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
	struct sbuf sb;
	const char *why;

	sb_init(&sb, buf, size);
	if (!e || !e->format || (!e->args && e->nargs) ||
	    e->nargs > TTRACE_MAX_ARGS ||
	    ttrace_meta_check_format(e->format, e->args, e->nargs, &why))
		sb_raw_words(&sb, ev);
	else
		sb_args(&sb, e, ev, resolve, rarg);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

static void sb_pidword(struct sbuf *sb, const struct ttrace_event_view *ev,
		       ttrace_resolve_fn resolve, void *rarg)
{
	char name[TTRACE_AUX_MAX_STRLEN + 1];
	uint32_t pid = TTRACE_CTX_PID(ev->context);

	if (name_of(resolve, rarg, TTRACE_AUX_PROC_NAME, pid, ev->timestamp,
		    name, sizeof(name)))
		sb_puts(sb, name);
	sb_putc(sb, '[');
	sb_dec(sb, pid);
	sb_puts(sb, "]:");
}

/*
 * Formats ev's context (see ttrace_format.h) as a short word:
 *	boot  boot:PHASE  kt:NAME  kmsg:NAME  sys:PROC[PID]:SYSCALL
 *	trap:PROC[PID]:VECTOR  irq:VECTOR[/dDEPTH]  idle  ctxK:0xWORD
 * Returns the length it wanted, as ttrace_format_args().
 */
int ttrace_format_ctx(char *buf, size_t size,
		      const struct ttrace_event_view *ev,
		      ttrace_resolve_fn resolve, void *rarg)
{
	struct sbuf sb;
	uint64_t c = ev->context, ts = ev->timestamp;

	sb_init(&sb, buf, size);
	switch (ev->ctx_kind) {
	case TTRACE_CTX_BOOT:
		sb_puts(&sb, "boot");
		if (c) {
			sb_putc(&sb, ':');
			sb_name(&sb, resolve, rarg, TTRACE_AUX_BOOT_PHASE, c, ts);
		}
		break;
	case TTRACE_CTX_KTASK:
		sb_puts(&sb, "kt:");
		sb_name(&sb, resolve, rarg, TTRACE_AUX_KTHREAD_NAME, c, ts);
		break;
	case TTRACE_CTX_RKMSG:
		sb_puts(&sb, "kmsg:");
		sb_name(&sb, resolve, rarg, TTRACE_AUX_KMSG_NAME, c, ts);
		break;
	case TTRACE_CTX_SYSC:
		sb_puts(&sb, "sys:");
		sb_pidword(&sb, ev, resolve, rarg);
		sb_name(&sb, resolve, rarg, TTRACE_AUX_SYSCALL_NAME,
			TTRACE_CTX_LOW(c), ts);
		break;
	case TTRACE_CTX_TRAP:
		sb_puts(&sb, "trap:");
		sb_pidword(&sb, ev, resolve, rarg);
		sb_dec(&sb, TTRACE_CTX_LOW(c));
		break;
	case TTRACE_CTX_IRQ:
		sb_puts(&sb, "irq:");
		sb_dec(&sb, c);
		if (ev->depth > 1) {
			sb_puts(&sb, "/d");
			sb_dec(&sb, ev->depth);
		}
		break;
	case TTRACE_CTX_IDLE:
		sb_puts(&sb, "idle");
		break;
	default:
		sb_puts(&sb, "ctx");
		sb_dec(&sb, ev->ctx_kind);
		sb_putc(&sb, ':');
		sb_hex(&sb, c);
	}
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

#define INDENT_MAX_LEVELS	32

/* Appends two spaces per level of call depth when e has an argument named
 * "depth" (the function-graph events, func_entry and func_exit), so that
 * text output shows the call graph's nesting; at most INDENT_MAX_LEVELS
 * levels, whatever a corrupt record says. */
static void sb_indent(struct sbuf *sb, const struct ttrace_event_meta *e,
		      const struct ttrace_event_view *ev)
{
	for (uint32_t i = 0; e->args && i < e->nargs && i < ev->nwords; i++) {
		if (!e->args[i].name || strcmp(e->args[i].name, "depth"))
			continue;
		for (uint64_t d = 0; d < MIN(ev->args[i], INDENT_MAX_LEVELS); d++)
			sb_puts(sb, "  ");
		return;
	}
}

/* Appends " cpuN CONTEXT NAME: ARGS[ (incomplete)]", the line after its
 * time stamp; ARGS indented by depth (sb_indent). */
static void sb_line_rest(struct sbuf *sb, const struct ttrace_meta_table *t,
			 const struct ttrace_event_view *ev,
			 ttrace_resolve_fn resolve, void *rarg)
{
	const struct ttrace_event_meta *e = NULL;
	char scratch[4], *dst;
	size_t room;

	if (t && ev->id < t->nevents)
		e = &t->events[ev->id];
	sb_puts(sb, " cpu");
	sb_dec(sb, ev->cpu);
	sb_putc(sb, ' ');
	dst = sb_dst(sb, &room, scratch);
	sb_done(sb, ttrace_format_ctx(dst, room, ev, resolve, rarg));
	sb_putc(sb, ' ');
	if (e && e->name) {
		sb_puts(sb, e->name);
	} else {
		sb_puts(sb, "event#");
		sb_dec(sb, ev->id);
	}
	sb_puts(sb, ": ");
	if (e)
		sb_indent(sb, e, ev);
	dst = sb_dst(sb, &room, scratch);
	sb_done(sb, ttrace_format_args(dst, room, e, ev, resolve, rarg));
	if (ev->ncont_found < ev->ncont)
		sb_puts(sb, " (incomplete)");
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
	struct sbuf sb;

	sb_init(&sb, buf, size);
	sb_dec(&sb, ev->timestamp);
	sb_line_rest(&sb, t, ev, resolve, rarg);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}

/* ticks of a hz clock in nanoseconds, without overflow for any realistic
 * uptime (the kernel's tsc_to_ns() rounds the same way). */
uint64_t ttrace_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return ticks / hz * 1000000000 + ticks % hz * 1000000000 / hz;
}

/*
 * Formats one event as the device's cpuN files and the host tools print it:
 * "SECONDS.MMM us cpuN CONTEXT NAME: ARGS", the time in microseconds since
 * tsc_boot (a raw TSC when tsc_hz is 0). Returns the length it wanted, as
 * ttrace_format_line() does.
 */
int ttrace_format_timed_line(char *buf, size_t size, uint64_t tsc_hz,
			     uint64_t tsc_boot, const struct ttrace_meta_table *t,
			     const struct ttrace_event_view *ev,
			     ttrace_resolve_fn resolve, void *rarg)
{
	struct sbuf sb;

	sb_init(&sb, buf, size);
	if (tsc_hz) {
		uint64_t d = ev->timestamp >= tsc_boot ? ev->timestamp - tsc_boot :
			     tsc_boot - ev->timestamp;
		uint64_t ns = ttrace_ticks_to_ns(d, tsc_hz);

		if (ev->timestamp < tsc_boot)
			sb_putc(&sb, '-');
		sb_dec(&sb, ns / 1000);
		sb_putc(&sb, '.');
		sb_putc(&sb, (char)('0' + ns / 100 % 10));
		sb_putc(&sb, (char)('0' + ns / 10 % 10));
		sb_putc(&sb, (char)('0' + ns % 10));
		sb_puts(&sb, " us");
	} else {
		sb_dec(&sb, ev->timestamp);
		sb_puts(&sb, " tsc");
	}
	sb_line_rest(&sb, t, ev, resolve, rarg);
	return (int)MIN(sb.len, (size_t)INT32_MAX);
}
