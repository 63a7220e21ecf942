/*
 * ttperfetto.c: `ttdecode perfetto TRACE OUT.pftrace`, the trace as
 * Perfetto's native protobuf trace (what it writes: docs/ttdecode.md,
 * "perfetto"; the format: Perfetto's protos/perfetto/trace/, field
 * numbers in docs/exports.md), for the Perfetto UI and its SQL trace
 * processor. Written by hand: a varint writer, no protobuf library.
 *
 * The file is a sequence of TracePackets (Trace field 1):
 *	a clock snapshot (BOOTTIME = MONOTONIC, ns since boot) opening the
 *	one packet sequence, then a ProcessTree with every traced process
 *	(one thread each, tid = pid) named from aux;
 *	per CPU, FtraceEventBundles of its sched_switch records (Linux's
 *	fields), from which Perfetto builds sched_slice and thread_state;
 *	a bundle after a declared loss has lost_events set;
 *	TrackDescriptors: a thread track per traced process, a track per
 *	CPU ("CPU n") and per CPU boot track ("CPU n boot");
 *	TrackEvent slices (SLICE_BEGIN/END) of the model's spans
 *	(ttmodel.h): syscalls and kernel functions on their thread's track,
 *	interrupts, exceptions and functions outside a process on their
 *	CPU's track, boot phases on the CPU's boot track; an instant per
 *	other event (a marker named by its text) and per declared loss on
 *	the CPU's track; counter tracks for the counter events.
 * The profile's on-CPU samples (tools/profile/ttprof.h) go on a packet
 * sequence of their own (PF_SEQ_PROFILE) as PerfSamples: one packet of
 * interned data first (SEQ_INCREMENTAL_STATE_CLEARED: function names,
 * mapping paths, mappings, frames, callstacks root first), then one
 * packet per sample (SEQ_NEEDS_INCREMENTAL_STATE) naming its callstack,
 * so trace_processor's perf_sample table and linux.perf.samples hold
 * them (docs/profiling.md, "Reading"); tid = pid as everywhere here.
 * Pids: our idle thread of CPU n (TTRACE_IDLE_PID(n), "idle/N") is
 * Linux's swapper, pid 0 on every CPU; a kernel thread without a
 * process (our pid 0) is PF_KTHREAD_PID, "kthread". Times are ns since
 * boot (ttmodel_ns); a record before boot is put at 0.
 *
 * Nested messages are written with their length as a 4-byte varint
 * (0x80-padded, as protozero writes them) filled in at their end, so
 * nothing is written twice; packets go out through one buffer.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"
#include "ttprof.h"

#define PF_KTHREAD_PID	0x7fffffff	/* our pid 0: a kernel thread */
#define PF_SEQ		1		/* the packet sequence of events */
#define PF_SEQ_PROFILE	2		/* ... and of the profile's samples */
#define PF_BUNDLE_MAX	1024		/* ftrace events per bundle */
#define PF_NEST		8		/* nested messages open at once */
#define PF_FLUSH	(1 << 20)	/* write out beyond this many bytes */

/* Track uuids: kind << 32 | id. */
enum { UUID_THREAD = 1, UUID_CPU, UUID_BOOT, UUID_COUNTER };
#define UUID(kind, id)	((uint64_t)(kind) << 32 | (uint32_t)(id))

/* Field numbers (Perfetto's protos/perfetto/trace/). */
enum {
	TRACE_PACKET = 1,
	PKT_FTRACE_EVENTS = 1, PKT_PROCESS_TREE = 2, PKT_CLOCK_SNAPSHOT = 6,
	PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11,
	PKT_SEQ_FLAGS = 13, PKT_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	CLOCKS = 1, CLOCK_ID = 1, CLOCK_TS = 2,
	CLOCK_MONOTONIC = 3, CLOCK_BOOTTIME = 6,
	PT_PROCESSES = 1, PT_THREADS = 2,
	PROC_PID = 1, PROC_PPID = 2, PROC_CMDLINE = 3,
	THR_TID = 1, THR_NAME = 2, THR_TGID = 3,
	BUNDLE_CPU = 1, BUNDLE_EVENT = 2, BUNDLE_LOST_EVENTS = 3,
	FT_TIMESTAMP = 1, FT_PID = 2, FT_SCHED_SWITCH = 4,
	SW_PREV_COMM = 1, SW_PREV_PID = 2, SW_PREV_PRIO = 3,
	SW_PREV_STATE = 4, SW_NEXT_COMM = 5, SW_NEXT_PID = 6,
	SW_NEXT_PRIO = 7,
	TD_UUID = 1, TD_NAME = 2, TD_THREAD = 4, TD_COUNTER = 8,
	TDT_PID = 1, TDT_TID = 2, TDT_NAME = 5,
	TE_TYPE = 9, TE_TRACK_UUID = 11, TE_CATEGORIES = 22, TE_NAME = 23,
	TE_COUNTER_VALUE = 30,
	SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4,
};

/* Field numbers of the perf samples (interned_data.proto,
 * profile_common.proto, profile_packet.proto). */
enum {
	PKT_INTERNED_DATA = 12, PKT_PERF_SAMPLE = 66,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7,
	ID_MAPPING_PATHS = 17, ID_MAPPINGS = 19,
	IS_IID = 1, IS_STR = 2,
	FRAME_IID = 1, FRAME_NAME_ID = 2, FRAME_MAPPING_ID = 3,
	FRAME_REL_PC = 4,
	CALLSTACK_IID = 1, CALLSTACK_FRAME_IDS = 2,
	MAPPING_IID = 1, MAPPING_START = 4, MAPPING_END = 5,
	MAPPING_PATH_IDS = 7,
	PS_CPU = 1, PS_PID = 2, PS_TID = 3, PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
};

#define LINUX_PRIO	120		/* a normal task's prio */
#define LINUX_TASK_RUNNING 0		/* prev_state: preempted (R) */
#define LINUX_TASK_INTERRUPTIBLE 1	/* S */
#define LINUX_EXIT_DEAD	0x10		/* X */

struct pb {
	uint8_t *b;
	size_t len, cap;
	size_t open[PF_NEST];		/* where each open length goes */
	unsigned depth;
	bool oom;
};

struct pf {
	const struct ttload *t;
	const struct ttmodel *m;
	FILE *f;
	bool failed;			/* a write failed */
	struct pb out;			/* packets, written out at depth 0 */
	struct pb bundle;		/* the FtraceEvents of one bundle */
	uint32_t nbundle;		/* events in it */
	bool lost;			/* a loss before the bundle's events */
	uint32_t switch_id, counter_id;	/* event ids, or UINT32_MAX */
	uint64_t *counters;		/* counter idents announced */
	size_t ncounters;
	uint64_t switches, slices, instants, losses, samples;
	uint64_t perf_samples;
};

/* ---- protobuf writing ---------------------------------------------------- */

static void pb_bytes(struct pb *p, const void *s, size_t n)
{
	if (!n)		/* s may be NULL: an empty bundle not yet made */
		return;
	if (p->len + n > p->cap) {
		size_t cap = MAX(p->cap * 2, p->len + n + 4096);
		uint8_t *b = realloc(p->b, cap);

		if (!b) {
			p->oom = true;
			return;
		}
		p->b = b;
		p->cap = cap;
	}
	memcpy(p->b + p->len, s, n);
	p->len += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(p, buf, n);
}

/* Field f as a varint (wire type 0). */
static void pb_uint(struct pb *p, unsigned f, uint64_t v)
{
	pb_varint(p, (uint64_t)f << 3);
	pb_varint(p, v);
}

/* Field f as the n bytes at s (wire type 2). */
static void pb_str(struct pb *p, unsigned f, const char *s, size_t n)
{
	pb_varint(p, (uint64_t)f << 3 | 2);
	pb_varint(p, n);
	pb_bytes(p, s, n);
}

/* Opens the nested message f, with fewer than PF_NEST open (the deepest
 * this file writes is 4: packet, bundle, event, switch): its length is
 * written by pb_end(). */
static void pb_begin(struct pb *p, unsigned f)
{
	static const uint8_t pad[4] = { 0x80, 0x80, 0x80, 0 };

	pb_varint(p, (uint64_t)f << 3 | 2);
	p->open[p->depth++] = p->len;
	pb_bytes(p, pad, sizeof(pad));
}

/* Closes the last message pb_begin() opened (under 2^28 bytes). */
static void pb_end(struct pb *p)
{
	size_t at = p->open[--p->depth];
	size_t n = p->len - at - 4;

	if (p->oom)
		return;
	for (int i = 0; i < 4; i++, n >>= 7)
		p->b[at + i] = (uint8_t)((n & 0x7f) | (i < 3 ? 0x80 : 0));
}

/* ---- packets ------------------------------------------------------------- */

static void flush(struct pf *x)
{
	if (x->out.len && fwrite(x->out.b, 1, x->out.len, x->f) != x->out.len)
		x->failed = true;
	x->out.len = 0;
}

/* Opens a TracePacket at ns on the sequence. */
static void packet_begin(struct pf *x, uint64_t ns)
{
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_TIMESTAMP, ns);
	pb_uint(&x->out, PKT_SEQ_ID, PF_SEQ);
}

static void packet_end(struct pf *x)
{
	pb_end(&x->out);
	if (x->out.len > PF_FLUSH)
		flush(x);
}

/* ts as ns since boot, 0 for a record before boot. */
static uint64_t ns_of(const struct pf *x, uint64_t ts)
{
	int64_t ns = ttmodel_ns(x->t, ts);

	return ns > 0 ? (uint64_t)ns : 0;
}

/* Our pid in Perfetto's terms (see the top). */
static uint32_t linux_pid(uint64_t pid)
{
	if (pid >= TTRACE_IDLE_PID(0))
		return 0;
	return pid ? (uint32_t)pid : PF_KTHREAD_PID;
}

/* The name of our pid at ts: aux's, or "kthread" / "pid N" into buf. */
static size_t pid_name(const struct pf *x, uint64_t pid, uint64_t ts,
		       char *buf, size_t n, const char **name)
{
	size_t len = pid ? ttload_resolve((void *)x->t, TTRACE_AUX_PROC_NAME,
					  pid, ts, name) : 0;

	if (len)
		return len;
	*name = buf;
	return (size_t)snprintf(buf, n, pid ? "pid %llu" : "kthread",
				ull(pid));
}

/* The clock snapshot that opens the sequence: trace time is BOOTTIME,
 * ns since boot, and MONOTONIC with it. */
static void clock_snapshot(struct pf *x)
{
	static const unsigned clocks[] = { CLOCK_BOOTTIME, CLOCK_MONOTONIC };

	packet_begin(x, 0);
	pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_begin(&x->out, PKT_CLOCK_SNAPSHOT);
	for (size_t i = 0; i < 2; i++) {
		pb_begin(&x->out, CLOCKS);
		pb_uint(&x->out, CLOCK_ID, clocks[i]);
		pb_uint(&x->out, CLOCK_TS, 0);
		pb_end(&x->out);
	}
	pb_end(&x->out);
	packet_end(x);
}

/* The ProcessTree: every traced process, one thread each (tid = pid). */
static void process_tree(struct pf *x)
{
	packet_begin(x, 0);
	pb_begin(&x->out, PKT_PROCESS_TREE);
	for (uint32_t i = 0; i < x->m->ntracks; i++) {
		const struct ttmodel_track *k = &x->m->tracks[i];
		uint64_t ts = k->nspans ? k->spans[0].start : 0;
		uint32_t pid = linux_pid(k->id);
		const char *name;
		char buf[32];
		size_t len;

		if (k->kind != TTMODEL_THREAD || !pid)
			continue;
		len = pid_name(x, k->id, ts, buf, sizeof(buf), &name);
		pb_begin(&x->out, PT_PROCESSES);
		pb_uint(&x->out, PROC_PID, pid);
		pb_uint(&x->out, PROC_PPID, 0);
		pb_str(&x->out, PROC_CMDLINE, name, len);
		pb_end(&x->out);
		pb_begin(&x->out, PT_THREADS);
		pb_uint(&x->out, THR_TID, pid);
		pb_str(&x->out, THR_NAME, name, len);
		pb_uint(&x->out, THR_TGID, pid);
		pb_end(&x->out);
	}
	pb_end(&x->out);
	packet_end(x);
}

/* ---- ftrace bundles ------------------------------------------------------ */

/* Writes CPU c's bundle of events, if it has any or a loss to mark. */
static void bundle_flush(struct pf *x, uint32_t c)
{
	if (!x->nbundle && !x->lost)
		return;
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_SEQ_ID, PF_SEQ + 1 + c);
	pb_begin(&x->out, PKT_FTRACE_EVENTS);
	pb_uint(&x->out, BUNDLE_CPU, c);
	pb_bytes(&x->out, x->bundle.b, x->bundle.len);
	if (x->lost)
		pb_uint(&x->out, BUNDLE_LOST_EVENTS, 1);
	pb_end(&x->out);
	packet_end(x);
	x->bundle.len = 0;
	x->nbundle = 0;
	x->lost = false;
}

/* Linux's prev_state for the state our switch record names. */
static uint64_t linux_state(const struct pf *x, uint64_t state, uint64_t ts)
{
	const char *s;
	size_t len = ttload_resolve((void *)x->t, TTRACE_AUX_STATE_NAME,
				    state, ts, &s);

	if (len == 8 && !memcmp(s, "sleeping", 8))
		return LINUX_TASK_INTERRUPTIBLE;
	if (len == 4 && !memcmp(s, "dead", 4))
		return LINUX_EXIT_DEAD;
	return LINUX_TASK_RUNNING;
}

/* A sched_switch record of CPU c into its bundle. */
static void sched_switch(struct pf *x, uint32_t c,
			 const struct ttrace_event_view *ev)
{
	struct pb *p = &x->bundle;
	uint64_t prev = ev->args[0], next = ev->args[1];
	const char *pn, *nn;
	char pb[32], nb[32];
	size_t pl = pid_name(x, prev, ev->timestamp, pb, sizeof(pb), &pn);
	size_t nl = pid_name(x, next, ev->timestamp, nb, sizeof(nb), &nn);

	if (ev->nwords < 3)
		return;
	pb_begin(p, BUNDLE_EVENT);
	pb_uint(p, FT_TIMESTAMP, ns_of(x, ev->timestamp));
	pb_uint(p, FT_PID, linux_pid(prev));
	pb_begin(p, FT_SCHED_SWITCH);
	pb_str(p, SW_PREV_COMM, pn, pl);
	pb_uint(p, SW_PREV_PID, linux_pid(prev));
	pb_uint(p, SW_PREV_PRIO, LINUX_PRIO);
	pb_uint(p, SW_PREV_STATE, linux_state(x, ev->args[2], ev->timestamp));
	pb_str(p, SW_NEXT_COMM, nn, nl);
	pb_uint(p, SW_NEXT_PID, linux_pid(next));
	pb_uint(p, SW_NEXT_PRIO, LINUX_PRIO);
	pb_end(p);
	pb_end(p);
	if (++x->nbundle == PF_BUNDLE_MAX)
		bundle_flush(x, c);
	x->switches++;
}

/* ---- tracks and track events --------------------------------------------- */

static void track_descriptor(struct pf *x, uint64_t uuid, const char *name,
			     size_t len, bool counter)
{
	packet_begin(x, 0);
	pb_begin(&x->out, PKT_TRACK_DESCRIPTOR);
	pb_uint(&x->out, TD_UUID, uuid);
	pb_str(&x->out, TD_NAME, name, len);
	if (counter) {
		pb_begin(&x->out, TD_COUNTER);
		pb_end(&x->out);
	}
	pb_end(&x->out);
	packet_end(x);
}

static void thread_descriptor(struct pf *x, const struct ttmodel_track *k)
{
	uint32_t pid = linux_pid(k->id);
	const char *name;
	char buf[32];
	size_t len = pid_name(x, k->id, k->nspans ? k->spans[0].start : 0,
			      buf, sizeof(buf), &name);

	if (!pid) {		/* an idle thread: swapper has no track */
		track_descriptor(x, UUID(UUID_THREAD, k->id), name, len, false);
		return;
	}
	packet_begin(x, 0);
	pb_begin(&x->out, PKT_TRACK_DESCRIPTOR);
	pb_uint(&x->out, TD_UUID, UUID(UUID_THREAD, k->id));
	pb_begin(&x->out, TD_THREAD);
	pb_uint(&x->out, TDT_PID, pid);
	pb_uint(&x->out, TDT_TID, pid);
	pb_str(&x->out, TDT_NAME, name, len);
	pb_end(&x->out);
	pb_end(&x->out);
	packet_end(x);
}

/* Every track's descriptor: the threads', then per CPU its own and its
 * boot track. */
static void descriptors(struct pf *x)
{
	char name[32];
	int n;

	for (uint32_t i = 0; i < x->m->ntracks; i++)
		if (x->m->tracks[i].kind == TTMODEL_THREAD)
			thread_descriptor(x, &x->m->tracks[i]);
	for (uint32_t c = 0; c < x->t->version.num_cpus; c++) {
		n = snprintf(name, sizeof(name), "CPU %u", c);
		track_descriptor(x, UUID(UUID_CPU, c), name, (size_t)n, false);
		n = snprintf(name, sizeof(name), "CPU %u boot", c);
		track_descriptor(x, UUID(UUID_BOOT, c), name, (size_t)n, false);
	}
}

/* A TrackEvent of type on track uuid at ts; name (len bytes) and cat
 * unless NULL. */
static void track_event(struct pf *x, uint64_t uuid, unsigned type,
			uint64_t ts, const char *name, size_t len,
			const char *cat)
{
	packet_begin(x, ns_of(x, ts));
	pb_begin(&x->out, PKT_TRACK_EVENT);
	pb_uint(&x->out, TE_TYPE, type);
	pb_uint(&x->out, TE_TRACK_UUID, uuid);
	if (cat)
		pb_str(&x->out, TE_CATEGORIES, cat, strlen(cat));
	if (name)
		pb_str(&x->out, TE_NAME, name, len);
	pb_end(&x->out);
	packet_end(x);
}

static uint64_t track_uuid(const struct ttmodel_track *k)
{
	return UUID(k->kind == TTMODEL_THREAD ? UUID_THREAD :
		    k->kind == TTMODEL_CPU ? UUID_CPU : UUID_BOOT, k->id);
}

/*
 * Track k's spans as slices: a BEGIN at each span's start and an END at
 * its end, the ends of those it does not nest in first (spans come in
 * start order, parents first, depth per span). A process's run on a
 * CPU's track is no slice (sched_slice shows it): what nests in it is
 * one level up.
 */
static void slices(struct pf *x, const struct ttmodel_track *k)
{
	const struct ttmodel_span *open[TTMODEL_MAX_DEPTH];
	uint64_t uuid = track_uuid(k);
	uint32_t n = 0, base = 0;

	for (uint64_t i = 0; i <= k->nspans; i++) {
		const struct ttmodel_span *s = i < k->nspans ? &k->spans[i] : NULL;
		uint32_t depth = s ? s->depth : 0;
		const char *name;
		char buf[48];
		size_t len;

		if (s && s->kind == TTMODEL_RUN)
			depth = 0;
		else if (s && !s->depth)
			base = 0;
		while (n > (depth >= base ? depth - base : 0))
			track_event(x, uuid, SLICE_END, open[--n]->end, NULL, 0,
				    NULL);
		if (!s)
			break;
		if (s->kind == TTMODEL_RUN) {
			base = 1;
			continue;
		}
		if (!(len = ttmodel_span_name(x->m, s, &name))) {
			name = buf;
			len = (size_t)snprintf(buf, sizeof(buf), "%s %llu",
					       ttmodel_kinds[s->kind].ident,
					       ull(s->ident));
		}
		track_event(x, uuid, SLICE_BEGIN, s->start, name, len,
			    ttmodel_kinds[s->kind].name);
		if (n < TTMODEL_MAX_DEPTH)
			open[n++] = s;
		x->slices++;
	}
}

/* A sample of the counter event ev (docs/probes.md: its first argument
 * names the track, its second is the value) on that counter's track,
 * announced at its first sample. */
static void counter_sample(struct pf *x, const struct ttrace_event_view *ev)
{
	uint64_t id = ev->args[0];
	size_t i;

	if (ev->nwords < 2)
		return;
	for (i = 0; i < x->ncounters && x->counters[i] != id; i++)
		;
	if (i == x->ncounters) {
		const char *name;
		char buf[32];
		size_t len = ttload_resolve((void *)x->t,
					    TTRACE_AUX_COUNTER_NAME, id,
					    ev->timestamp, &name);
		uint64_t *v = realloc(x->counters, (i + 1) * sizeof(*v));

		if (!v) {
			x->out.oom = true;
			return;
		}
		x->counters = v;
		x->counters[x->ncounters++] = id;
		if (!len) {
			name = buf;
			len = (size_t)snprintf(buf, sizeof(buf), "counter#%llu",
					       ull(id));
		}
		track_descriptor(x, UUID(UUID_COUNTER, i), name, len, true);
	}
	packet_begin(x, ns_of(x, ev->timestamp));
	pb_begin(&x->out, PKT_TRACK_EVENT);
	pb_uint(&x->out, TE_TYPE, COUNTER);
	pb_uint(&x->out, TE_TRACK_UUID, UUID(UUID_COUNTER, i));
	pb_uint(&x->out, TE_COUNTER_VALUE, ev->args[1]);
	pb_end(&x->out);
	packet_end(x);
	x->samples++;
}

/* An event that is no span's end or switch: an instant on CPU c's
 * track named by the event (a marker by its text). */
static void instant(struct pf *x, uint32_t c, const struct ttrace_event_view *ev)
{
	const struct ttrace_event_meta *m = &x->t->meta.events[ev->id];
	const char *name = m->name ? m->name : "event";
	size_t len = strlen(name);

	if (m->nargs == 1 && m->args && m->args[0].type == TTRACE_ARG_STR &&
	    m->args[0].aux_tag == TTRACE_AUX_USER_MARKER &&
	    !(len = ttload_resolve((void *)x->t, TTRACE_AUX_USER_MARKER,
				   ev->args[0], ev->timestamp, &name)))
		name = "marker", len = 6;
	track_event(x, UUID(UUID_CPU, c), INSTANT, ev->timestamp, name, len,
		    "event");
	x->instants++;
	if (ev->id == x->counter_id)
		counter_sample(x, ev);
}

/* The k declared losses at l, all at one time: one instant on CPU c's
 * track where they fell (Perfetto nests instants of one time, so one for
 * all), and the next bundle of c marked lost_events. */
static void loss(struct pf *x, uint32_t c, const struct ttmodel_loss *l,
		 uint64_t k)
{
	uint64_t count = 0;
	char name[96];
	int n;

	for (uint64_t i = 0; i < k; i++)
		count += l[i].count;
	if (k == 1)
		n = snprintf(name, sizeof(name), "%llu records lost (%s%s)",
			     ull(count), ttrace_loss_name(l->reason),
			     l->before_trace ? " before the trace" : "");
	else
		n = snprintf(name, sizeof(name), "%llu records lost (%llu "
			     "losses)", ull(count), ull(k));
	bundle_flush(x, c);
	x->lost = true;
	bundle_flush(x, c);
	track_event(x, UUID(UUID_CPU, c), INSTANT, l->start, name, (size_t)n,
		    "loss");
	x->losses += k;
}

/* CPU c's records in time order: switches into bundles, the other
 * events that are no span's end as instants, losses where they fell. */
static void cpu_events(struct pf *x, uint32_t c)
{
	const struct ttmodel_cpu *mc = &x->m->cpus[c];
	const struct ttload_cpu *lc = &x->t->cpus[c];
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t l = 0;
	bool have;

	ttrace_pair_init(&it, lc->sorted, lc->nsorted);
	do {
		have = ttrace_pair_next(&it, &ev);
		while (l < mc->nlosses &&
		       (!have || mc->losses[l].start <= ev.timestamp)) {
			uint64_t k = 1;

			while (l + k < mc->nlosses && mc->losses[l + k].start ==
			       mc->losses[l].start)
				k++;
			loss(x, c, &mc->losses[l], k);
			l += k;
		}
		if (!have)
			break;
		if (ev.id == x->switch_id)
			sched_switch(x, c, &ev);
		else if (!ttmodel_is_span_event(x->m, ev.id))
			instant(x, c, &ev);
	} while (have);
	bundle_flush(x, c);
}

/* ---- profile samples ----------------------------------------------------- */

/* Interned string iid (field f) with the len bytes at str. */
static void interned_string(struct pb *p, unsigned f, uint64_t iid,
			    const char *str, size_t len)
{
	pb_begin(p, f);
	pb_uint(p, IS_IID, iid);
	pb_str(p, IS_STR, str, len);
	pb_end(p);
}

/* The profile's mappings (iid = index + 1; the path without its leading
 * '/', which the importer puts back) and frames (iid = index + 1, named
 * by function name iid = index + 1). */
static void intern_frames(struct pb *p, const struct ttprof *pr)
{
	for (uint32_t i = 0; i < pr->nmappings; i++) {
		const char *path = pr->mappings[i].path;

		path += *path == '/';
		interned_string(p, ID_MAPPING_PATHS, i + 1ull, path,
				strlen(path));
		pb_begin(p, ID_MAPPINGS);
		pb_uint(p, MAPPING_IID, i + 1ull);
		pb_uint(p, MAPPING_START, pr->mappings[i].start);
		pb_uint(p, MAPPING_END, pr->mappings[i].end);
		pb_uint(p, MAPPING_PATH_IDS, i + 1ull);
		pb_end(p);
	}
	for (uint32_t i = 0; i < pr->nframes; i++) {
		const struct ttprof_frame *f = &pr->frames[i];
		uint64_t start = pr->mappings[f->mapping].start;

		interned_string(p, ID_FUNCTION_NAMES, i + 1ull, f->name,
				f->len);
		pb_begin(p, ID_FRAMES);
		pb_uint(p, FRAME_IID, i + 1ull);
		pb_uint(p, FRAME_NAME_ID, i + 1ull);
		pb_uint(p, FRAME_MAPPING_ID, f->mapping + 1ull);
		pb_uint(p, FRAME_REL_PC, f->addr >= start ? f->addr - start :
			f->addr);
		pb_end(p);
	}
}

/* The packet that opens the profile's sequence: every mapping, frame and
 * callstack (iid = index + 1, frames root first). */
static void intern_profile(struct pf *x, const struct ttprof *pr)
{
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_SEQ_ID, PF_SEQ_PROFILE);
	pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_begin(&x->out, PKT_INTERNED_DATA);
	intern_frames(&x->out, pr);
	for (uint32_t i = 0; i < pr->nstacks; i++) {
		const struct ttprof_stack *s = &pr->stacks[i];

		pb_begin(&x->out, ID_CALLSTACKS);
		pb_uint(&x->out, CALLSTACK_IID, i + 1ull);
		for (uint32_t k = s->n; k-- > 0;)
			pb_uint(&x->out, CALLSTACK_FRAME_IDS,
				pr->stack_frames[s->first + k] + 1ull);
		pb_end(&x->out);
	}
	pb_end(&x->out);
	packet_end(x);
}

/* The trace's on-CPU samples as PerfSample packets (see the top).
 * Returns 0, or -1 when out of memory. */
static int perf_samples(struct pf *x)
{
	struct ttprof_opts o;
	struct ttprof pr;
	int none = 0;

	ttprof_parse_opts(&none, NULL, &o);	/* the defaults */
	ttprof_init(&pr, 0);
	if (ttprof_from_trace(&pr, (struct ttload *)x->t, &o) < 0) {
		ttprof_free(&pr);
		return -1;
	}
	if (pr.nsamples)
		intern_profile(x, &pr);
	for (uint64_t i = 0; i < pr.nsamples; i++) {
		const struct ttprof_sample *s = &pr.samples[i];

		if (s->kind != TTPROF_ON_CPU)
			continue;
		pb_begin(&x->out, TRACE_PACKET);
		pb_uint(&x->out, PKT_TIMESTAMP, s->ts);
		pb_uint(&x->out, PKT_SEQ_ID, PF_SEQ_PROFILE);
		pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
		pb_begin(&x->out, PKT_PERF_SAMPLE);
		pb_uint(&x->out, PS_CPU, s->cpu);
		pb_uint(&x->out, PS_PID, linux_pid(s->pid));
		pb_uint(&x->out, PS_TID, linux_pid(s->pid));
		pb_uint(&x->out, PS_CALLSTACK_IID, s->stack + 1ull);
		pb_uint(&x->out, PS_CPU_MODE, s->mode);
		pb_end(&x->out);
		packet_end(x);
		x->perf_samples++;
	}
	ttprof_free(&pr);
	return 0;
}

/* ---- the command --------------------------------------------------------- */

/* Writes the whole trace to x->f. Returns 0 or -1 (memory). */
static int pf_write(struct pf *x)
{
	struct ttmodel m;
	int rc;

	x->switch_id = (uint32_t)ttexport_event_id(&x->t->meta, "sched_switch");
	x->counter_id = (uint32_t)ttexport_event_id(&x->t->meta, "counter");
	if (ttmodel_build(&m, x->t) < 0)
		return -1;
	x->m = &m;
	clock_snapshot(x);
	process_tree(x);
	descriptors(x);
	for (uint32_t c = 0; c < x->t->version.num_cpus; c++)
		cpu_events(x, c);
	for (uint32_t i = 0; i < m.ntracks; i++)
		slices(x, &m.tracks[i]);
	rc = perf_samples(x);
	flush(x);
	if (x->out.oom || x->bundle.oom)
		rc = -1;
	if (!rc && x->perf_samples)
		printf("perfetto: %llu perf samples\n", ull(x->perf_samples));
	if (!rc)
		printf("perfetto: %llu sched_switch, %llu slices, %llu "
		       "instants, %llu counter samples, %llu losses; %llu "
		       "spans clipped, %llu unfinished, %llu exits without "
		       "enter dropped\n", ull(x->switches), ull(x->slices),
		       ull(x->instants), ull(x->samples), ull(x->losses),
		       ull(m.counts.clipped), ull(m.counts.unfinished),
		       ull(m.counts.unmatched_exits));
	ttmodel_free(&m);
	return rc;
}

static int ttdecode_perfetto(int argc, char **argv)
{
	struct pf x = { 0 };
	struct ttfilter f;
	struct ttload t;
	int rc;

	if ((rc = ttdecode_open("perfetto", &argc, argv,
				(enum ttfilter_opts)0, 2,
				"TRACE and OUT.pftrace", &f, &t)))
		return rc;
	x.t = &t;
	x.f = fopen(argv[1], "wb");
	if (!x.f) {
		perror(argv[1]);
		ttdecode_close(&f, &t);
		return 1;
	}
	rc = pf_write(&x);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	if (fclose(x.f) || rc < 0 || x.failed) {
		fprintf(stderr, "ttdecode: %s: write failed\n", argv[1]);
		rc = 1;
	}
	free(x.out.b);
	free(x.bundle.b);
	free(x.counters);
	ttdecode_close(&f, &t);
	return rc;
}

static const struct ttdecode_command cmd_perfetto = {
	"perfetto", 2, ttdecode_perfetto, "perfetto TRACE OUT.pftrace" };
TTDECODE_COMMAND(cmd_perfetto);
