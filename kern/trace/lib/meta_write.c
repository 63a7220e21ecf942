/*
 * meta_write.c: the metadata blob written from a table
 * (ttrace_meta_serialise), in the layout of ttrace_format.h. It is the one
 * serialiser: the kernel's blob is made with it at build time
 * (tools/ttmetablob.c), and meta_parse.c accepts exactly what it
 * writes. Writes stay inside the caller's buffer and the size is counted
 * regardless, so a first call with a short buffer says how much to give.
 */
#include <string.h>

#include <ttrace_meta.h>
#include "meta_internal.h"

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
		unsigned off, size;

		ttrace_arg_place(e, a, &off, &size);
		out_u8(o, e->args[a].type);
		out_u8(o, e->args[a].aux_tag);
		out_u8(o, (uint8_t)off);
		out_u8(o, (uint8_t)size);
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
