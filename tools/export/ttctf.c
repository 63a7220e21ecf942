/*
 * ttctf.c: `ttdecode ctf TRACE DIR`, a trace as a CTF 1.8 directory
 * (docs/exports.md) that babeltrace2 and Trace Compass read: a `metadata`
 * file (TSDL text) and one binary stream file per CPU, cpuN.
 *
 * The metadata is generated from the trace's own event metadata, so an
 * event added to kern/trace/ttrace.events exports without a change here: event
 * id = ttrace event id, one field per argument, named after it (with the
 * leading underscore CTF readers strip, so no name clashes with a TSDL
 * keyword), typed by its argument type; a name argument (str:TAG) becomes
 * a string holding the aux name, as `ttdecode text` prints it. Every
 * event's context is that of the text decoder ("sys:sh[1]:read").
 *
 * Layout: everything byte aligned, little endian. A packet is
 *	header	u32 magic 0xC1FC1FC1, u32 stream_id 0
 *	context	u64 timestamp_begin, u64 timestamp_end, u64 content_size,
 *		u64 packet_size (both in bits, equal: no padding),
 *		u64 events_discarded, u32 cpu_id
 *	events	u16 id, u64 timestamp, string context, the fields
 * Timestamps are TSC cycles on CPU 0's clock since the boot TSC (0 for
 * the rare record stamped before it), in a clock of the trace's TSC
 * frequency, so times read as since boot, as `ttdecode text` prints
 * them. events_discarded counts the CPU's losses up to the packet (CTF's
 * running count), from the trace's model (ttmodel.h): the records
 * overwritten before the trace, then each declared loss. A packet ends at
 * the last event before a loss and an empty packet from there to the
 * first event after it carries the count, so a reader reports each loss
 * between exactly the two events it fell between. Packets are built in
 * memory (at most CTF_PACKET_MAX bytes of events) and written whole.
 */
#include <stdlib.h>
#include <string.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"

#define CTF_MAGIC	0xC1FC1FC1u
#define CTF_PACKET_MAX	(256 * 1024)	/* event bytes per packet, about */
#define CTF_CTX_MAX	512		/* context and name strings */

/* A packet being built for one CPU. */
struct ctf_packet {
	uint8_t *buf;			/* the events */
	size_t len, cap;
	uint64_t begin, end;		/* first and last event's timestamp */
	uint64_t discarded;		/* running count of declared losses */
	uint64_t events;
	bool empty;			/* no event yet */
};

struct ctf_export {
	struct ttload *t;
	FILE *f;
	uint32_t cpu;
	const struct ttmodel *m;
	struct ctf_packet p;
	uint64_t first_packet;		/* the current stream's first */
	uint64_t events, packets, lost, unknown;
};

/* ---- metadata ------------------------------------------------------------ */

/* The TSDL type of an argument type. */
static const char *ctf_type(uint8_t type)
{
	static const char *const names[TTRACE_ARG_NTYPES] = {
		[TTRACE_ARG_U8] = "uint8_t", [TTRACE_ARG_U16] = "uint16_t",
		[TTRACE_ARG_U32] = "uint32_t", [TTRACE_ARG_U64] = "uint64_t",
		[TTRACE_ARG_S8] = "int8_t", [TTRACE_ARG_S16] = "int16_t",
		[TTRACE_ARG_S32] = "int32_t", [TTRACE_ARG_S64] = "int64_t",
		[TTRACE_ARG_PTR] = "xptr_t", [TTRACE_ARG_BOOL] = "uint8_t",
		[TTRACE_ARG_STR] = "string",
	};

	return type < TTRACE_ARG_NTYPES && names[type] ? names[type] :
	       "uint64_t";
}

/* The integer types, trace, env, clock and stream declarations. */
static void ctf_meta_head(FILE *f, const struct ttload *t)
{
	static const struct { const char *name; int bits, sign, hex; } ints[] = {
		{ "uint8_t", 8, 0, 0 }, { "uint16_t", 16, 0, 0 },
		{ "uint32_t", 32, 0, 0 }, { "uint64_t", 64, 0, 0 },
		{ "int8_t", 8, 1, 0 }, { "int16_t", 16, 1, 0 },
		{ "int32_t", 32, 1, 0 }, { "int64_t", 64, 1, 0 },
		{ "xptr_t", 64, 0, 1 },
	};

	fprintf(f, "/* CTF 1.8 */\n\n");
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		fprintf(f, "typealias integer { size = %d; align = 8; "
			"signed = %s;%s } := %s;\n", ints[i].bits,
			ints[i].sign ? "true" : "false",
			ints[i].hex ? " base = 16;" : "", ints[i].name);
	fprintf(f, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n"
		"\tbyte_order = le;\n\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n\t};\n};\n\n"
		"env {\n\thostname = \"ttrace\";\n\tdomain = \"kernel\";\n"
		"\ttracer_name = \"ttrace\";\n\tnum_cpus = %u;\n};\n\n"
		"clock {\n\tname = tsc;\n\tdescription = \"TSC of CPU 0, "
		"since boot\";\n\tfreq = %llu;\n\toffset = 0;\n"
		"\tprecision = 0;\n\tabsolute = false;\n};\n\n"
		"typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.tsc.value; } := tsc_t;\n\n"
		"stream {\n\tid = 0;\n\tpacket.context := struct {\n"
		"\t\ttsc_t timestamp_begin;\n\t\ttsc_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
		"\t\tuint64_t events_discarded;\n\t\tuint32_t cpu_id;\n\t};\n"
		"\tevent.header := struct {\n\t\tuint16_t id;\n"
		"\t\ttsc_t timestamp;\n\t};\n\tevent.context := struct {\n"
		"\t\tstring _context;\n\t};\n};\n", t->version.num_cpus,
		(unsigned long long)t->version.tsc_hz);
}

/* One event class per event of the trace's metadata. */
static void ctf_meta_events(FILE *f, const struct ttrace_meta_table *m)
{
	for (uint32_t i = 0; i < m->nevents; i++) {
		const struct ttrace_event_meta *e = &m->events[i];

		fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %u;\n"
			"\tstream_id = 0;\n\tfields := struct {\n", e->name, i);
		for (unsigned a = 0; a < e->nargs; a++)
			fprintf(f, "\t\t%s _%s;\n", ctf_type(e->args[a].type),
				e->args[a].name);
		fprintf(f, "\t};\n};\n");
	}
}

static int ctf_metadata(const char *dir, const struct ttload *t)
{
	FILE *f = ttexport_create(dir, "metadata");

	if (!f)
		return -1;
	ctf_meta_head(f, t);
	ctf_meta_events(f, &t->meta);
	return ttexport_close(f, dir, "metadata");
}

/* ---- packets ------------------------------------------------------------- */

/* Makes room for n more bytes in the packet. Returns 0 or -1. */
static int ctf_room(struct ctf_packet *p, size_t n)
{
	size_t cap = p->cap ? p->cap : CTF_PACKET_MAX + 4096;
	uint8_t *buf;

	while (p->len + n > cap)
		cap *= 2;
	if (cap == p->cap)
		return 0;
	if (!(buf = realloc(p->buf, cap)))
		return -1;
	p->buf = buf;
	p->cap = cap;
	return 0;
}

/* Appends n bytes (room made by the caller). */
static void ctf_put(struct ctf_packet *p, const void *v, size_t n)
{
	memcpy(p->buf + p->len, v, n);
	p->len += n;
}

/* Writes the packet (header, context, events) and starts the next one. */
static void ctf_flush(struct ctf_export *x)
{
	struct ctf_packet *p = &x->p;
	struct __attribute__((packed)) {
		uint32_t magic, stream_id;
		uint64_t begin, end, content_size, packet_size, discarded;
		uint32_t cpu_id;
	} h = { CTF_MAGIC, 0, p->begin, p->end, 0, 0, p->discarded, x->cpu };

	_Static_assert(sizeof(h) == 52, "CTF packet header and context");
	h.content_size = h.packet_size = (sizeof(h) + p->len) * 8;
	fwrite(&h, sizeof(h), 1, x->f);
	if (p->len)
		fwrite(p->buf, 1, p->len, x->f);
	x->packets++;
	p->len = 0;
	p->begin = p->end;
	p->empty = true;
}

/* ts (CPU 0's clock) as cycles since boot; 0 before boot. */
static uint64_t ctf_cycles(const struct ttload *t, uint64_t ts)
{
	return ts > t->version.tsc_boot ? ts - t->version.tsc_boot : 0;
}

/* The argument words of ev as event fields. Returns 0 or -1. */
static int ctf_fields(struct ctf_export *x, const struct ttrace_event_meta *e,
		      const struct ttrace_event_view *ev)
{
	char name[CTF_CTX_MAX];

	for (unsigned a = 0; a < e->nargs; a++) {
		uint64_t v = a < ev->nwords ? ev->args[a] : 0;
		size_t n = 8;

		switch (e->args[a].type) {
		case TTRACE_ARG_STR:
			n = ttexport_name(name, sizeof(name), x->t,
					  e->args[a].aux_tag, v,
					  ev->timestamp,
					  TTEXPORT_PRINTABLE) + 1;
			if (ctf_room(&x->p, n) < 0)
				return -1;
			ctf_put(&x->p, name, n);
			continue;
		case TTRACE_ARG_U8: case TTRACE_ARG_S8: case TTRACE_ARG_BOOL:
			n = 1;
			break;
		case TTRACE_ARG_U16: case TTRACE_ARG_S16:
			n = 2;
			break;
		case TTRACE_ARG_U32: case TTRACE_ARG_S32:
			n = 4;
			break;
		}
		if (ctf_room(&x->p, n) < 0)
			return -1;
		ctf_put(&x->p, &v, n);	/* little endian: the low n bytes */
	}
	return 0;
}

/* Appends one event to the packet. Returns 0 or -1 (out of memory). */
static int ctf_event(struct ctf_export *x, const struct ttrace_event_view *ev)
{
	char ctx[CTF_CTX_MAX];
	uint16_t id = (uint16_t)ev->id;
	uint64_t ts;
	int n;

	if (ev->id >= x->t->meta.nevents) {
		x->unknown++;
		return 0;
	}
	n = ttrace_format_ctx(ctx, sizeof(ctx), ev, ttload_resolve, x->t);
	n = n < 0 ? 0 : n >= (int)sizeof(ctx) ? (int)sizeof(ctx) - 1 : n;
	ctx[n] = 0;
	if (ctf_room(&x->p, sizeof(id) + 8 + n + 1) < 0)
		return -1;
	ts = ctf_cycles(x->t, ev->timestamp);
	if (x->p.empty)
		x->p.begin = ts;
	x->p.end = ts;
	x->p.empty = false;
	ctf_put(&x->p, &id, sizeof(id));
	ctf_put(&x->p, &ts, 8);
	ctf_put(&x->p, ctx, n + 1);
	x->events++;
	if (ctf_fields(x, &x->t->meta.events[ev->id], ev) < 0)
		return -1;
	if (x->p.len >= CTF_PACKET_MAX)
		ctf_flush(x);
	return 0;
}

/*
 * Declares the losses pending before the event at ts (or the stream's
 * end): the packet so far ends at the last event before them, and an
 * empty packet from it to ts carries their count, so a reader reports
 * them between exactly those two events. A stream that starts with a
 * loss first gets an empty packet with a count of 0 (readers count what
 * the total grew by since the packet before).
 */
static void ctf_declare(struct ctf_export *x, uint64_t ts, uint64_t *pending)
{
	struct ctf_packet *p = &x->p;

	if (!*pending)
		return;
	if (!p->empty || x->packets == x->first_packet) {
		if (p->empty)
			p->begin = p->end = ctf_cycles(x->t, ts);
		ctf_flush(x);
	}
	p->end = ctf_cycles(x->t, ts);
	p->discarded += *pending;
	x->lost += *pending;
	*pending = 0;
	ctf_flush(x);
}

/* Writes cpu's stream DIR/cpuN: its events, with the losses of the model
 * in the walk's order, which is the model's (the records overwritten
 * before the trace first: the file's first LOSS run). Returns 0 or -1. */
static int ctf_cpu(struct ctf_export *x, const char *dir, uint32_t cpu)
{
	const struct ttmodel_cpu *mc = &x->m->cpus[cpu];
	struct ttexport_walk w;
	enum ttexport_item k;
	uint64_t pending = 0, l = 0;
	char name[32];
	int rc = 0;

	snprintf(name, sizeof(name), "cpu%u", cpu);
	if (!(x->f = ttexport_create(dir, name)))
		return -1;
	x->cpu = cpu;
	x->first_packet = x->packets;
	x->p = (struct ctf_packet){ .buf = x->p.buf, .cap = x->p.cap,
				    .empty = true };
	ttexport_walk_init(&w, x->t, cpu);
	while (rc == 0 && (k = ttexport_walk_next(&w)) != TTEXPORT_END) {
		if (k == TTEXPORT_EVENT) {
			ctf_declare(x, w.ev->timestamp, &pending);
			rc = ctf_event(x, w.ev);
		} else if (l < mc->nlosses) {
			pending += mc->losses[l++].count;
		}
	}
	if (rc == 0) {
		ctf_declare(x, mc->last_ts, &pending);
		if (!x->p.empty || x->packets == x->first_packet)
			ctf_flush(x);
	}
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	return ttexport_close(x->f, dir, name) < 0 ? -1 : rc;
}

static int ctf_export(struct ctf_export *x, const char *dir)
{
	uint32_t ncpus = x->t->version.num_cpus;

	if (ctf_metadata(dir, x->t) < 0)
		return -1;
	for (uint32_t c = 0; c < ncpus; c++)
		if (ctf_cpu(x, dir, c) < 0)
			return -1;
	printf("ctf: %s: %u streams (cpu0-%u), %llu events in %llu packets, "
	       "%llu with an unknown id skipped; %llu records lost "
	       "(declared, in events_discarded)\n", dir, ncpus, ncpus - 1,
	       (unsigned long long)x->events, (unsigned long long)x->packets,
	       (unsigned long long)x->unknown, (unsigned long long)x->lost);
	return 0;
}

/* ctf_export() of t into dir, its packet buffer freed after. */
static int ctf_run(struct ttload *t, const struct ttmodel *m,
		   const char *path, const char *dir)
{
	struct ctf_export x = { .t = t, .m = m };
	int rc;

	(void)path;
	rc = ctf_export(&x, dir);
	free(x.p.buf);
	return rc;
}

/* ttdecode ctf TRACE DIR. */
int ttctf_main(int argc, char **argv)
{
	(void)argc;
	return ttexport_main(argv, true, ctf_run);
}

static const struct ttdecode_command cmd_ctf = {
	"ctf", 2, ttctf_main, "ctf TRACE DIR" };
TTDECODE_COMMAND(cmd_ctf);
