/*
 * ttrace_meta.c: event metadata: format-string checking, and the blob form
 * (serialise a table, parse a blob back into a table). The blob layout is in
 * ttrace_format.h; the parser assumes the blob is hostile (it comes from a
 * file) and rejects anything that is not exactly what the serialiser writes.
 */
#include <string.h>

#include <ttrace_meta.h>

static bool conv_flag(char c)
{
	return c == '-' || c == '0' || c == '#' || c == ' ' || c == '+';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Appends c to cv->spec; false if it would not fit (cannot happen). */
static bool spec_put(struct ttrace_conv *cv, size_t *n, char c)
{
	if (*n + 1 >= sizeof(cv->spec))
		return false;
	cv->spec[(*n)++] = c;
	cv->spec[*n] = 0;
	return true;
}

static size_t parse_length(const char *p, uint8_t *len)
{
	if (p[0] == 'h' && p[1] == 'h')
		return *len = TTRACE_LEN_HH, 2;
	if (p[0] == 'l' && p[1] == 'l')
		return *len = TTRACE_LEN_LL, 2;
	if (p[0] == 'h')
		return *len = TTRACE_LEN_H, 1;
	if (p[0] == 'l')
		return *len = TTRACE_LEN_L, 1;
	if (p[0] == 'z')
		return *len = TTRACE_LEN_Z, 1;
	*len = TTRACE_LEN_NONE;
	return 0;
}

/* See ttrace_meta.h. */
size_t ttrace_meta_parse_conv(const char *fmt, struct ttrace_conv *cv)
{
	size_t i = 1, n = 0, digits;
	unsigned seen = 0;

	spec_put(cv, &n, '%');
	if (fmt[1] == '%') {
		cv->conv = '%';
		cv->length = TTRACE_LEN_NONE;
		return 2;
	}
	for (; conv_flag(fmt[i]); i++) {
		unsigned bit = 1u << (strchr("-0# +", fmt[i]) - "-0# +");

		if (seen & bit)
			return 0;
		seen |= bit;
		spec_put(cv, &n, fmt[i]);
	}
	for (digits = 0; is_digit(fmt[i]) && digits < 3; digits++)
		spec_put(cv, &n, fmt[i++]);
	if (digits > 2)
		return 0;
	if (fmt[i] == '.') {
		spec_put(cv, &n, fmt[i++]);
		for (digits = 0; is_digit(fmt[i]) && digits < 3; digits++)
			spec_put(cv, &n, fmt[i++]);
		if (digits > 2)
			return 0;
	}
	digits = parse_length(&fmt[i], &cv->length);
	while (digits--)
		spec_put(cv, &n, fmt[i++]);
	cv->conv = fmt[i];
	if (!cv->conv || !strchr("diuxXops", cv->conv))
		return 0;
	if ((cv->conv == 'p' || cv->conv == 's') && cv->length != TTRACE_LEN_NONE)
		return 0;
	if (cv->length == TTRACE_LEN_Z && (cv->conv == 'd' || cv->conv == 'i'))
		return 0;
	spec_put(cv, &n, fmt[i++]);
	return i;
}

/* See ttrace_meta.h. */
int ttrace_meta_check_format(const char *fmt,
			     const struct ttrace_arg_meta *args, unsigned nargs,
			     const char **why)
{
	unsigned argi = 0;
	size_t i = 0;

	while (fmt[i]) {
		struct ttrace_conv cv;
		size_t n;

		if (i >= TTRACE_META_MAX_FORMAT)
			return *why = "format too long", -1;
		if (fmt[i] < 0x20 || fmt[i] > 0x7e)
			return *why = "format has a non-printable character", -1;
		if (fmt[i] != '%') {
			i++;
			continue;
		}
		n = ttrace_meta_parse_conv(&fmt[i], &cv);
		if (!n)
			return *why = "format has a conversion not allowed", -1;
		i += n;
		if (cv.conv == '%')
			continue;
		if (argi >= nargs)
			return *why = "format has more conversions than arguments", -1;
		if (cv.conv == 's' && args[argi].type != TTRACE_ARG_STR)
			return *why = "%s used for an argument that is not str", -1;
		argi++;
	}
	if (argi != nargs)
		return *why = "format has fewer conversions than arguments", -1;
	return 0;
}

/* See ttrace_meta.h. */
const struct ttrace_group_meta *ttrace_meta_group(
	const struct ttrace_meta_table *t, unsigned bit)
{
	for (uint32_t i = 0; i < t->ngroups; i++)
		if (t->groups[i].bit == bit)
			return &t->groups[i];
	return NULL;
}

/* See ttrace_meta.h. */
uint64_t ttrace_meta_default_mask(const struct ttrace_meta_table *t)
{
	uint64_t mask = 0;

	for (uint32_t i = 0; i < t->ngroups; i++)
		if (t->groups[i].flags & TTRACE_EVF_DEFAULT_ON)
			mask |= 1ULL << (t->groups[i].bit & 63);
	return mask;
}

/* 32-bit FNV-1a over p[0..n), the blob's checksum. */
uint32_t ttrace_meta_fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- serialising --------------------------------------------------------- */

/* Output cursor: writes only inside the buffer, counts everything. */
struct meta_out {
	uint8_t *buf;
	size_t size, pos;
	bool bad;
};

static void out_u8(struct meta_out *o, uint32_t v)
{
	if (o->pos < o->size)
		o->buf[o->pos] = (uint8_t)v;
	o->pos++;
}

static void out_u16(struct meta_out *o, uint32_t v)
{
	out_u8(o, v & 0xff);
	out_u8(o, v >> 8);
}

static void out_u32(struct meta_out *o, uint32_t v)
{
	out_u16(o, v & 0xffff);
	out_u16(o, v >> 16);
}

/* The two kinds of string in a blob. */
enum meta_str {
	META_NAME,	/* str8: an identifier of 1..TTRACE_META_MAX_NAME */
	META_FORMAT,	/* str16: at most TTRACE_META_MAX_FORMAT bytes */
};

/* A string: u8 (name) or u16 (format) length, the bytes, a zero byte. */
static void out_str(struct meta_out *o, const char *s, enum meta_str kind)
{
	size_t max = kind == META_NAME ? TTRACE_META_MAX_NAME :
					 TTRACE_META_MAX_FORMAT;
	size_t len = s ? strlen(s) : 0;

	if (!s || len > max) {
		o->bad = true;
		return;
	}
	if (kind == META_FORMAT)
		out_u16(o, (uint32_t)len);
	else
		out_u8(o, (uint32_t)len);
	for (size_t i = 0; i < len; i++)
		out_u8(o, (uint8_t)s[i]);
	out_u8(o, 0);
}

static void out_event(struct meta_out *o, const struct ttrace_event_meta *e)
{
	out_u16(o, e->id);
	out_u8(o, e->group);
	out_u8(o, e->flags);
	out_u8(o, e->nargs);
	out_str(o, e->name, META_NAME);
	for (unsigned a = 0; a < e->nargs; a++) {
		out_u8(o, e->args[a].type);
		out_u8(o, e->args[a].aux_tag);
		out_str(o, e->args[a].name, META_NAME);
	}
	out_str(o, e->format, META_FORMAT);
}

/*
 * Serialises t into buf. Returns the blob's size; the blob is complete only
 * if that is <= size (else call again with a bigger buffer). Returns 0 if t
 * breaks a limit (too many events or arguments, a name too long).
 */
size_t ttrace_meta_serialise(const struct ttrace_meta_table *t, uint8_t *buf,
			     size_t size)
{
	struct meta_out o = { buf, size, 0, false };

	if (t->nevents > TTRACE_META_MAX_EVENTS ||
	    t->ngroups > TTRACE_META_MAX_GROUPS)
		return 0;
	out_u32(&o, TTRACE_META_MAGIC);
	out_u16(&o, TTRACE_META_VERSION);
	out_u16(&o, TTRACE_META_HDR_SIZE);
	out_u32(&o, 0);		/* total size, patched below */
	out_u16(&o, t->ngroups);
	out_u16(&o, t->nevents);
	for (uint32_t g = 0; g < t->ngroups; g++) {
		out_u8(&o, t->groups[g].bit);
		out_u8(&o, t->groups[g].flags);
		out_str(&o, t->groups[g].name, META_NAME);
	}
	for (uint32_t e = 0; e < t->nevents; e++) {
		if (t->events[e].nargs > TTRACE_MAX_ARGS)
			return 0;
		out_event(&o, &t->events[e]);
	}
	if (o.bad)
		return 0;
	if (o.pos + 4 <= size) {
		size_t total = o.pos + 4;

		for (int i = 0; i < 4; i++)
			buf[8 + i] = (uint8_t)(total >> (8 * i));
		out_u32(&o, ttrace_meta_fnv1a(buf, o.pos));
	} else {
		o.pos += 4;
	}
	return o.pos;
}

/* ---- parsing ------------------------------------------------------------- */

/* Input cursor: every read is bounds checked; a failed one sets bad. */
struct meta_in {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static uint32_t in_u8(struct meta_in *in)
{
	if (in->bad || in->pos >= in->len) {
		in->bad = true;
		return 0;
	}
	return in->p[in->pos++];
}

static uint32_t in_u16(struct meta_in *in)
{
	uint32_t lo = in_u8(in);

	return lo | in_u8(in) << 8;
}

static bool ident_ok(const char *s, size_t len)
{
	if (len == 0 || len > TTRACE_META_MAX_NAME || is_digit(s[0]))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!(c == '_' || is_digit(c) || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

/*
 * Reads a string of the given kind and returns a pointer to it inside the
 * blob, NUL terminated. Names must be identifiers; formats must only hold
 * no NUL (they are checked against their arguments later).
 */
static const char *in_str(struct meta_in *in, enum meta_str kind)
{
	size_t len = kind == META_FORMAT ? in_u16(in) : in_u8(in);
	const char *s = (const char *)in->p + in->pos;

	if (in->bad || in->len - in->pos < len + 1 || s[len] != 0 ||
	    memchr(s, 0, len) || (kind == META_NAME && !ident_ok(s, len)) ||
	    len > TTRACE_META_MAX_FORMAT) {
		in->bad = true;
		return NULL;
	}
	in->pos += len + 1;
	return s;
}

/* Where ttrace_meta_parse() puts the table's arrays inside the arena. */
struct meta_layout {
	size_t events, groups, args, total;
	uint32_t nargs;
};

static void meta_layout(uint32_t ngroups, uint32_t nevents, uint32_t nargs,
			struct meta_layout *l)
{
	l->events = 0;
	l->groups = ROUNDUP(nevents * sizeof(struct ttrace_event_meta), 16);
	l->args = l->groups + ROUNDUP(ngroups * sizeof(struct ttrace_group_meta), 16);
	l->total = l->args + nargs * sizeof(struct ttrace_arg_meta);
	l->nargs = nargs;
}

/* Reads one event; its arguments go to args[0..room) if args is set. */
static void parse_event(struct meta_in *in, struct ttrace_event_meta *e,
			struct ttrace_arg_meta *args, uint32_t room)
{
	e->id = (uint16_t)in_u16(in);
	e->group = (uint8_t)in_u8(in);
	e->flags = (uint8_t)in_u8(in);
	e->nargs = (uint8_t)in_u8(in);
	e->name = in_str(in, META_NAME);
	e->args = args;
	if (e->nargs > TTRACE_MAX_ARGS || (args && e->nargs > room))
		in->bad = true;
	for (unsigned a = 0; a < e->nargs && !in->bad; a++) {
		uint8_t type = (uint8_t)in_u8(in);
		uint8_t tag = (uint8_t)in_u8(in);
		const char *name = in_str(in, META_NAME);

		if (args) {
			args[a].type = type;
			args[a].aux_tag = tag;
			args[a].name = name;
		}
	}
	e->format = in_str(in, META_FORMAT);
}

/*
 * Walks the blob's structure. With arena NULL only counts (the arguments,
 * into lout); else fills the table's arrays laid out by lin. Returns false
 * if the structure is broken.
 */
static bool meta_walk(const uint8_t *blob, size_t len, uint8_t *arena,
		      const struct meta_layout *lin, struct meta_layout *lout,
		      struct ttrace_meta_table *t)
{
	struct meta_in in = { blob, len - 4, TTRACE_META_HDR_SIZE, false };
	uint32_t ngroups = blob[12] | blob[13] << 8;
	uint32_t nevents = blob[14] | blob[15] << 8;
	uint32_t nargs = 0;
	struct ttrace_event_meta *ev = arena ? (void *)(arena + lin->events) : NULL;
	struct ttrace_group_meta *gr = arena ? (void *)(arena + lin->groups) : NULL;
	struct ttrace_arg_meta *args = arena ? (void *)(arena + lin->args) : NULL;

	for (uint32_t g = 0; g < ngroups && !in.bad; g++) {
		struct ttrace_group_meta tmp, *gm = gr ? &gr[g] : &tmp;

		gm->bit = (uint8_t)in_u8(&in);
		gm->flags = (uint8_t)in_u8(&in);
		gm->name = in_str(&in, META_NAME);
	}
	for (uint32_t e = 0; e < nevents && !in.bad; e++) {
		struct ttrace_event_meta tmp, *em = ev ? &ev[e] : &tmp;

		parse_event(&in, em, args ? args + nargs : NULL,
			    args ? lin->nargs - nargs : 0);
		nargs += em->nargs;
	}
	if (in.bad || in.pos != in.len)
		return false;
	if (lout)
		meta_layout(ngroups, nevents, nargs, lout);
	if (t) {
		t->events = ev;
		t->groups = gr;
		t->nevents = nevents;
		t->ngroups = ngroups;
	}
	return true;
}

/* Checks the fixed header and checksum; returns false if they are wrong. */
static bool meta_header_ok(const uint8_t *blob, size_t len, const char **why)
{
	uint32_t magic, total, sum;

	if (len < TTRACE_META_HDR_SIZE + 4)
		return *why = "metadata blob too short", false;
	magic = blob[0] | blob[1] << 8 | blob[2] << 16 | (uint32_t)blob[3] << 24;
	total = blob[8] | blob[9] << 8 | blob[10] << 16 | (uint32_t)blob[11] << 24;
	sum = blob[len - 4] | blob[len - 3] << 8 | blob[len - 2] << 16 |
	      (uint32_t)blob[len - 1] << 24;
	if (magic != TTRACE_META_MAGIC)
		return *why = "metadata blob: bad magic", false;
	if ((blob[4] | blob[5] << 8) != TTRACE_META_VERSION)
		return *why = "metadata blob: unknown version", false;
	if ((blob[6] | blob[7] << 8) != TTRACE_META_HDR_SIZE)
		return *why = "metadata blob: bad header size", false;
	if (total != len)
		return *why = "metadata blob: size does not match", false;
	if ((blob[12] | blob[13] << 8) > TTRACE_META_MAX_GROUPS ||
	    (blob[14] | blob[15] << 8) > TTRACE_META_MAX_EVENTS)
		return *why = "metadata blob: too many groups or events", false;
	if (sum != ttrace_meta_fnv1a(blob, len - 4))
		return *why = "metadata blob: bad checksum", false;
	return true;
}

/*
 * Returns the arena bytes ttrace_meta_parse() needs for blob, or 0 if the
 * blob is broken.
 */
size_t ttrace_meta_arena_size(const uint8_t *blob, size_t len)
{
	struct meta_layout l;
	const char *why;

	if (!meta_header_ok(blob, len, &why) ||
	    !meta_walk(blob, len, NULL, NULL, &l, NULL))
		return 0;
	return l.total;
}

static bool arg_ok(const struct ttrace_arg_meta *a)
{
	if (a->type == TTRACE_ARG_STR)
		return a->aux_tag >= 1 && a->aux_tag < TTRACE_AUX_NTAGS;
	return a->type >= 1 && a->type < TTRACE_ARG_NTYPES && a->aux_tag == 0;
}

/* Checks one parsed event against the rules in ttrace_meta.h. */
static bool event_ok(const struct ttrace_meta_table *t, uint32_t i,
		     const char **why)
{
	const struct ttrace_event_meta *e = &t->events[i];

	if (e->id != i)
		return *why = "metadata: event id is not its index", false;
	if (e->group >= 64 || !ttrace_meta_group(t, e->group))
		return *why = "metadata: event in an undeclared group", false;
	if (e->flags & ~TTRACE_EVF_DEFAULT_ON)
		return *why = "metadata: unknown event flags", false;
	for (uint32_t j = 0; j < i; j++)
		if (!strcmp(t->events[j].name, e->name))
			return *why = "metadata: duplicate event name", false;
	for (unsigned a = 0; a < e->nargs; a++) {
		if (!arg_ok(&e->args[a]))
			return *why = "metadata: bad argument type or tag", false;
		for (unsigned b = 0; b < a; b++)
			if (!strcmp(e->args[a].name, e->args[b].name))
				return *why = "metadata: duplicate argument", false;
	}
	return ttrace_meta_check_format(e->format, e->args, e->nargs, why) == 0;
}

static bool groups_ok(const struct ttrace_meta_table *t, const char **why)
{
	for (uint32_t g = 0; g < t->ngroups; g++) {
		const struct ttrace_group_meta *gm = &t->groups[g];

		if (gm->bit >= 64 || (gm->flags & ~TTRACE_EVF_DEFAULT_ON))
			return *why = "metadata: bad group bit or flags", false;
		for (uint32_t h = 0; h < g; h++)
			if (t->groups[h].bit == gm->bit ||
			    !strcmp(t->groups[h].name, gm->name))
				return *why = "metadata: duplicate group", false;
	}
	return true;
}

/*
 * Parses blob into *t, whose arrays are placed in arena (16-byte aligned,
 * at least ttrace_meta_arena_size() bytes) and whose strings point into
 * blob (keep it). Everything is validated, formats included. Returns 0, or
 * -1 with *why set (and *t unusable).
 */
int ttrace_meta_parse(const uint8_t *blob, size_t len, void *arena,
		      size_t arena_size, struct ttrace_meta_table *t,
		      const char **why)
{
	struct meta_layout l;

	if (!meta_header_ok(blob, len, why))
		return -1;
	if (!meta_walk(blob, len, NULL, NULL, &l, NULL))
		return *why = "metadata blob: malformed record", -1;
	if (!arena || arena_size < l.total || ((uintptr_t)arena & 15))
		return *why = "metadata: arena too small or misaligned", -1;
	memset(arena, 0, l.total);
	if (!meta_walk(blob, len, arena, &l, NULL, t))
		return *why = "metadata blob: malformed record", -1;
	if (!groups_ok(t, why))
		return -1;
	for (uint32_t i = 0; i < t->nevents; i++)
		if (!event_ok(t, i, why))
			return -1;
	return 0;
}
