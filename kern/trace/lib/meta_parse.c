/*
 * meta_parse.c: a metadata blob parsed back into a table
 * (ttrace_meta_arena_size, ttrace_meta_parse). The blob comes from a file,
 * so the parser assumes it is hostile: every read is bounds checked, and it
 * rejects anything that is not exactly what meta_write.c writes
 * (names, ids, groups, types, the checksum, every format against its
 * arguments, with meta.c's checker).
 */
#include <string.h>

#include <ttrace_meta.h>
#include "meta_internal.h"

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
	if (len == 0 || len > TTRACE_META_MAX_NAME || meta_is_digit(s[0]))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!(c == '_' || meta_is_digit(c) || (c >= 'a' && c <= 'z') ||
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
			struct ttrace_arg_meta *args, uint32_t room,
			bool placed)
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
		/* version 1: argument a is word a */
		uint8_t off = placed ? (uint8_t)in_u8(in) : (uint8_t)(8 * a);
		uint8_t size = placed ? (uint8_t)in_u8(in) : 8;
		const char *name = in_str(in, META_NAME);

		if (args) {
			args[a].type = type;
			args[a].aux_tag = tag;
			args[a].offset = off;
			args[a].size = size;
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
	bool placed = (blob[4] | blob[5] << 8) >= 2;

	for (uint32_t g = 0; g < ngroups && !in.bad; g++) {
		struct ttrace_group_meta tmp, *gm = gr ? &gr[g] : &tmp;

		gm->bit = (uint8_t)in_u8(&in);
		gm->flags = (uint8_t)in_u8(&in);
		gm->name = in_str(&in, META_NAME);
	}
	for (uint32_t e = 0; e < nevents && !in.bad; e++) {
		struct ttrace_event_meta tmp, *em = ev ? &ev[e] : &tmp;

		parse_event(&in, em, args ? args + nargs : NULL,
			    args ? lin->nargs - nargs : 0, placed);
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
	if ((blob[4] | blob[5] << 8) < 1 ||
	    (blob[4] | blob[5] << 8) > TTRACE_META_VERSION)
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

/* The bytes of an argument of type: 1, 2, 4 or 8 (a str: its ident's). */
static unsigned type_bytes(uint8_t type)
{
	switch (type) {
	case TTRACE_ARG_U8: case TTRACE_ARG_S8: case TTRACE_ARG_BOOL:
		return 1;
	case TTRACE_ARG_U16: case TTRACE_ARG_S16:
		return 2;
	case TTRACE_ARG_U32: case TTRACE_ARG_S32:
		return 4;
	}
	return 8;
}

/* Whether argument a of e lies within the record's words, aligned, no
 * wider than its type, and shares its bytes with no other argument but
 * whole (a name of a number: docs/trace-format.md, "Packed arguments"). */
static bool place_ok(const struct ttrace_event_meta *e, unsigned a)
{
	unsigned off, size, o2, s2;

	if (!e->args[a].size)	/* a blob places every argument */
		return false;
	ttrace_arg_place(e, a, &off, &size);
	if ((size != 1 && size != 2 && size != 4 && size != 8) || off % size ||
	    off + size > 8 * TTRACE_MAX_ARGS ||
	    (e->args[a].type != TTRACE_ARG_STR &&
	     size < type_bytes(e->args[a].type)))
		return false;
	for (unsigned b = 0; b < a; b++) {
		ttrace_arg_place(e, b, &o2, &s2);
		if (off < o2 + s2 && o2 < off + size && (off != o2 || size != s2))
			return false;
	}
	return true;
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
		if (!place_ok(e, a))
			return *why = "metadata: bad argument offset or size",
				false;
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
