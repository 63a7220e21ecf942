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
#include <ttrace_probe_spec.h>	/* TTRACE_STACK_DEPTH */

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"
#include "ttprof.h"
#include "ttprof_elf.h"

#define PF_KTHREAD_PID	0x7fffffff	/* our pid 0: a kernel thread */
#define PF_SEQ		1		/* threads' tracks and slices */
#define PF_SEQ_KERNEL	0x10000		/* CPU, boot and counter tracks: a
					   sequence without thread
					   descriptors, so their events
					   belong to no thread */
#define PF_SEQ_PROFILE	2		/* ... and of the profile's samples */
#define PF_SEQ_STACKS	0x20000		/* ... and of the stack records' */
#define PF_BUNDLE_MAX	1024		/* ftrace events per bundle */
#define PF_NEST		8		/* nested messages open at once */
#define PF_FLUSH	(1 << 20)	/* write out beyond this many bytes */
#define PF_NEWTASK	(1ull << 31)	/* parents[]: a task_newtask made it */

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
	FT_TIMESTAMP = 1, FT_PID = 2, FT_SCHED_SWITCH = 4, FT_CPU_IDLE = 13,
	FT_SCHED_WAKEUP = 17, FT_SCHED_WAKING = 20, FT_IRQ_ENTRY = 36,
	FT_IRQ_EXIT = 37, FT_SCHED_WAKEUP_NEW = 114, FT_TASK_NEWTASK = 235,
	FT_TASK_RENAME = 236, FT_SCHED_BLOCKED_REASON = 18,
	FT_PROCESS_EXEC = 237, FT_PROCESS_EXIT = 238, FT_PROCESS_FORK = 239,
	FT_PROCESS_FREE = 240,
	PKT_SYSTEM_INFO = 45, SI_UTSNAME = 1, UTS_SYSNAME = 1, /* version 2,
	release 3, machine 4 */

	SW_PREV_COMM = 1, SW_PREV_PID = 2, SW_PREV_PRIO = 3,
	SW_PREV_STATE = 4, SW_NEXT_COMM = 5, SW_NEXT_PID = 6,
	SW_NEXT_PRIO = 7,
	TD_UUID = 1, TD_NAME = 2, TD_THREAD = 4, TD_COUNTER = 8,
	TDT_PID = 1, TDT_TID = 2, TDT_NAME = 5,
	TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22, TE_NAME = 23, TE_COUNTER_VALUE = 30,
	DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10,
	SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4,
};

/* Field numbers of the perf samples (interned_data.proto,
 * profile_common.proto, profile_packet.proto). */
enum {
	PKT_INTERNED_DATA = 12, PKT_PERF_SAMPLE = 66,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7,
	ID_MAPPING_PATHS = 17, ID_MAPPINGS = 19, ID_KERNEL_SYMBOLS = 26,
	IS_IID = 1, IS_STR = 2,
	FRAME_IID = 1, FRAME_NAME_ID = 2, FRAME_MAPPING_ID = 3,
	FRAME_REL_PC = 4,
	CALLSTACK_IID = 1, CALLSTACK_FRAME_IDS = 2,
	MAPPING_IID = 1, MAPPING_START = 4, MAPPING_END = 5,
	MAPPING_PATH_IDS = 7,
	PS_CPU = 1, PS_PID = 2, PS_TID = 3, PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
};

#define LINUX_PREEMPTED	0x100		/* prev_state: preempted (R+) */
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
	uint32_t switch_id, counter_id, marker_id; /* event ids, or
					   UINT32_MAX */
	uint64_t *counters;		/* counter idents announced */
	size_t ncounters;
	struct ttexport_prios prios;	/* each thread's, for the records
					   without one (ttexport.h) */
	uint8_t *linux_of;		/* per event id: its FtraceEvent
					   field (linux_events), or 0 */
	bool irq_bundled;		/* irq_handler_entry/exit in the
					   bundles: no IRQ slices of ours */
	uint32_t running;		/* the pid running on the CPU whose
					   events are being written */
	uint64_t *parents;		/* pid << 32 | parent, by pid */
	size_t nparents;
	uint64_t *renamed;		/* the pids a task_rename names, sorted */
	size_t nrenamed;
	uint32_t blocked_id;		/* sched_blocked_reason's, or max */
	uint64_t *callers;		/* its callers, sorted: kernel symbol
					   iid = index + 1 */
	size_t ncallers;
	struct ttrace_event_view blocked; /* one waiting for its thread's
					   switch out (have_blocked) */
	bool have_blocked;
	struct ttprof_opts opts;	/* --kernel ELF, --user DIR (ttprof.h) */
	struct ttprof_elf kelf;		/* opts.kernel's symbols, for a trace
					   without them (as the profile's) */
	int kelf_loaded;		/* 0 not tried, 1 loaded, -1 failed */
	uint64_t switches, slices, instants, losses, samples, ftrace;
	uint64_t perf_samples, stack_samples;
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

/* Opens a TracePacket at ns on the sequence seq. */
static void packet_begin_on(struct pf *x, uint64_t ns, uint32_t seq)
{
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_TIMESTAMP, ns);
	pb_uint(&x->out, PKT_SEQ_ID, seq);
}

/* Opens a TracePacket at ns on the threads' sequence. */
static void packet_begin(struct pf *x, uint64_t ns)
{
	packet_begin_on(x, ns, PF_SEQ);
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

/* The clock snapshot that opens the threads' sequence (trace time is
 * BOOTTIME, ns since boot, and MONOTONIC with it), and the kernel
 * sequence's first packet. */
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
	packet_begin_on(x, 0, PF_SEQ_KERNEL);
	pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	packet_end(x);
}

static uint64_t parent_of(const struct pf *x, uint64_t pid);
static bool renamed(const struct pf *x, uint64_t pid);

/* The ProcessTree: every traced process but those a task_newtask starts,
 * one thread each (tid = pid), with its parent (proc_create's). */
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

		if (k->kind != TTMODEL_THREAD || !pid ||
		    parent_of(x, k->id) & PF_NEWTASK)
			continue;
		len = pid_name(x, k->id, ts, buf, sizeof(buf), &name);
		pb_begin(&x->out, PT_PROCESSES);
		pb_uint(&x->out, PROC_PID, pid);
		pb_uint(&x->out, PROC_PPID, (uint32_t)parent_of(x, k->id));
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
	return LINUX_PREEMPTED;
}

static void interned_string(struct pb *p, unsigned f, uint64_t iid,
			    const char *str, size_t len);

/* ---- why a thread blocked ------------------------------------------------ */

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Collects the callers of the trace's sched_blocked_reason records
 * (pid wchan caller): each is a kernel symbol of the bundles' sequences,
 * as Perfetto's sched_blocked_reason names its caller. Returns 0 or -1
 * (memory). */
static int find_callers(struct pf *x)
{
	const struct ttload *t = x->t;
	int id = ttexport_event_id(&t->meta, "sched_blocked_reason");
	size_t cap = 0, n = 0;

	x->blocked_id = id >= 0 && ttexport_args_are(&t->meta.events[id],
			"pid wchan caller") ? (uint32_t)id : UINT32_MAX;
	for (uint32_t c = 0; x->blocked_id != UINT32_MAX &&
	     c < t->version.num_cpus; c++) {
		struct ttexport_walk w;
		enum ttexport_item k;

		ttexport_walk_init(&w, t, c);
		while ((k = ttexport_walk_next(&w)) != TTEXPORT_END) {
			if (k != TTEXPORT_EVENT || w.ev->id != x->blocked_id ||
			    w.ev->nwords < 3)
				continue;
			if (x->ncallers == cap) {
				uint64_t *v = realloc(x->callers,
					(cap = cap ? 2 * cap : 64) * 8);

				if (!v)
					return -1;
				x->callers = v;
			}
			x->callers[x->ncallers++] = w.ev->args[2];
		}
	}
	if (x->ncallers)
		qsort(x->callers, x->ncallers, 8, by_value);
	for (size_t i = 0; i < x->ncallers; i++)
		if (!n || x->callers[n - 1] != x->callers[i])
			x->callers[n++] = x->callers[i];
	x->ncallers = n;
	return 0;
}

/* The function at kernel address pc into buf: from the trace's kernel
 * symbols (tag ksym: every one, when a stack was recorded), else from
 * --kernel ELF's (build/kernel.elf by default, as the profile's), else
 * #pc. Returns its length. */
static size_t kernel_name(struct pf *x, uint64_t pc, char *buf, size_t size)
{
	const struct ttprof_sym *s;
	const char *why;

	if (!x->t->nksyms && !x->kelf_loaded)
		x->kelf_loaded = ttprof_elf_load(&x->kelf, x->opts.kernel,
						 &why) ? -1 : 1;
	if (!x->t->nksyms && x->kelf_loaded > 0 &&
	    (s = ttprof_elf_find(&x->kelf, pc))) {
		snprintf(buf, size, "%s", s->name);
		return strlen(buf);
	}
	return ttexport_name(buf, size, x->t, TTRACE_AUX_KSYM_NAME, pc, 0,
			     TTEXPORT_PRINTABLE);
}

/* The packet that opens CPU c's bundle sequence: the callers' names
 * (kernel_name()) as interned kernel symbols. */
static void intern_callers(struct pf *x, uint32_t c)
{
	char name[128];

	if (!x->ncallers)
		return;
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_SEQ_ID, PF_SEQ + 1 + c);
	pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_begin(&x->out, PKT_INTERNED_DATA);
	for (size_t i = 0; i < x->ncallers; i++)
		interned_string(&x->out, ID_KERNEL_SYMBOLS, i + 1ull, name,
				kernel_name(x, x->callers[i], name,
					    sizeof(name)));
	pb_end(&x->out);
	packet_end(x);
}

/* The sched_blocked_reason waiting in x->blocked, at ns: after its
 * thread's switch out, as Perfetto puts its caller on the thread's
 * blocked state, which that switch opens. */
static void blocked_reason(struct pf *x, uint32_t c, uint64_t ns)
{
	const uint64_t caller = x->blocked.args[2];
	const uint64_t *at = bsearch(&caller, x->callers, x->ncallers, 8,
				     by_value);

	x->have_blocked = false;
	pb_begin(&x->bundle, BUNDLE_EVENT);
	pb_uint(&x->bundle, FT_TIMESTAMP, ns);
	pb_uint(&x->bundle, FT_PID, linux_pid(x->blocked.args[0]));
	pb_begin(&x->bundle, FT_SCHED_BLOCKED_REASON);
	pb_uint(&x->bundle, 1, linux_pid(x->blocked.args[0]));
	pb_uint(&x->bundle, 2, (uint64_t)(at - x->callers) + 1);
	pb_uint(&x->bundle, 3, 0);		/* io_wait: no block device */
	pb_end(&x->bundle);
	pb_end(&x->bundle);
	if (++x->nbundle == PF_BUNDLE_MAX)
		bundle_flush(x, c);
	x->ftrace++;
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
	pb_uint(p, SW_PREV_PRIO, ttexport_switch_prio(&x->prios, x->t, ev, 0));
	pb_uint(p, SW_PREV_STATE, linux_state(x, ev->args[2], ev->timestamp));
	pb_str(p, SW_NEXT_COMM, nn, nl);
	pb_uint(p, SW_NEXT_PID, linux_pid(next));
	pb_uint(p, SW_NEXT_PRIO, ttexport_switch_prio(&x->prios, x->t, ev, 1));
	pb_end(p);
	pb_end(p);
	x->running = (uint32_t)next;
	if (++x->nbundle == PF_BUNDLE_MAX)
		bundle_flush(x, c);
	x->switches++;
	if (x->have_blocked && x->blocked.args[0] == prev)
		blocked_reason(x, c, ns_of(x, ev->timestamp));
}

/* ---- Linux's other events in the bundles ---------------------------------- */

/* Our events that are Linux's (their arguments as named: tools/export/
 * tttracedat_linux.c writes the same ones to trace.dat), and the
 * FtraceEvent field each becomes: what Perfetto builds thread_state's
 * Runnable rows and wakers (sched_waking: the waker is the event's pid),
 * threads' lifetimes and parents (task_newtask, sched_process_free),
 * the cpuidle counters and the Irq Cpu tracks from. */
static const struct pf_linux {
	const char *ours, *args;
	unsigned field;
} linux_events[] = {
	{ "sched_waking", "comm pid prio target_cpu", FT_SCHED_WAKING },
	{ "sched_wakeup", "comm pid prio target_cpu", FT_SCHED_WAKEUP },
	{ "sched_wakeup_new", "comm pid prio target_cpu", FT_SCHED_WAKEUP_NEW },
	{ "task_newtask", "comm pid parent", FT_TASK_NEWTASK },
	{ "task_rename", "pid oldcomm newcomm", FT_TASK_RENAME },
	{ "proc_create", "pid name parent", FT_PROCESS_FORK },
	{ "proc_exec", "pid filename pid_nr", FT_PROCESS_EXEC },
	{ "proc_exit", "pid status pid_nr", FT_PROCESS_EXIT },
	{ "proc_free", "pid pid_nr", FT_PROCESS_FREE },
	{ "irq_enter", "vector name", FT_IRQ_ENTRY },
	{ "irq_exit", "vector name", FT_IRQ_EXIT },
	{ "cpu_idle", "state cpu_id", FT_CPU_IDLE },
};
#define NLINUX	(sizeof(linux_events) / sizeof(linux_events[0]))
#define LINUX_SIGCHLD	0x11		/* clone_flags: a process */

/* Finds which events of the trace are Linux's. Returns 0 or -1. */
static int find_linux(struct pf *x)
{
	const struct ttrace_meta_table *m = &x->t->meta;

	if (!(x->linux_of = calloc(m->nevents ? m->nevents : 1, 1)))
		return -1;
	for (uint32_t i = 0; i < m->nevents; i++)
		for (size_t k = 0; k < NLINUX; k++)
			if (m->events[i].name &&
			    !strcmp(m->events[i].name, linux_events[k].ours) &&
			    ttexport_args_are(&m->events[i], linux_events[k].args))
				x->linux_of[i] = (uint8_t)(k + 1);
	x->irq_bundled = false;
	for (uint32_t i = 0; i < m->nevents; i++)
		x->irq_bundled |= x->linux_of[i] &&
				  linux_events[x->linux_of[i] - 1].field ==
				  FT_IRQ_ENTRY;
	return 0;
}

/* The comm of our pid at ts into p as field f (at most 15 bytes). */
static void comm(struct pf *x, struct pb *p, unsigned f, uint64_t pid,
		 uint64_t ts)
{
	const char *name;
	char buf[32];
	size_t len = pid_name(x, pid, ts, buf, sizeof(buf), &name);

	pb_str(p, f, name, MIN(len, 15));
}

/* The name (tag, ident) at ts into p as field f. */
static void aux_str(struct pf *x, struct pb *p, unsigned f, unsigned tag,
		    uint64_t ident, uint64_t ts)
{
	char buf[256];

	pb_str(p, f, buf, ttexport_name(buf, sizeof(buf), x->t, tag, ident,
					ts, TTEXPORT_PRINTABLE));
}

/* The fields of Linux's event field from our event ev (linux_events). */
static void linux_fields(struct pf *x, unsigned field,
			 const struct ttrace_event_view *ev)
{
	struct pb *p = &x->bundle;
	const uint64_t *a = ev->args, ts = ev->timestamp;

	switch (field) {
	case FT_SCHED_WAKING: case FT_SCHED_WAKEUP: case FT_SCHED_WAKEUP_NEW:
		comm(x, p, 1, a[1], ts);
		pb_uint(p, 2, linux_pid(a[1]));
		pb_uint(p, 3, a[2]);
		pb_uint(p, 4, 1);			/* success */
		pb_uint(p, 5, a[3]);
		break;
	case FT_TASK_NEWTASK:
		/* comm: its parent's, for a process, as Linux's fork, when
		 * the task_rename of its program follows in the trace; if a
		 * ring's wrap took that, its own, or Perfetto would name the
		 * process after its parent for good */
		pb_uint(p, 1, linux_pid(a[1]));
		comm(x, p, 2, renamed(x, a[1]) ? a[0] : a[1], ts);
		pb_uint(p, 3, LINUX_SIGCHLD);
		break;
	case FT_TASK_RENAME:
		pb_uint(p, 1, linux_pid(a[0]));
		comm(x, p, 2, a[1], ts);
		comm(x, p, 3, a[2], ts);
		break;
	case FT_PROCESS_FORK:
		comm(x, p, 1, a[2], ts);
		pb_uint(p, 2, linux_pid(a[2]));
		comm(x, p, 3, a[0], ts);
		pb_uint(p, 4, linux_pid(a[0]));
		break;
	case FT_PROCESS_EXEC:
		aux_str(x, p, 1, TTRACE_AUX_PROC_NAME, a[1], ts);
		pb_uint(p, 2, linux_pid(a[2]));
		pb_uint(p, 3, linux_pid(a[2]));
		break;
	case FT_PROCESS_EXIT: case FT_PROCESS_FREE:
		comm(x, p, 1, a[0], ts);
		pb_uint(p, 2, linux_pid(a[field == FT_PROCESS_EXIT ? 2 : 1]));
		if (field == FT_PROCESS_EXIT)
			pb_uint(p, 3, linux_pid(a[2]));	/* tgid */
		pb_uint(p, field == FT_PROCESS_EXIT ? 4 : 3,
			ttexport_prio(&x->prios, a[0], ts));
		break;
	case FT_IRQ_ENTRY: case FT_IRQ_EXIT:
		pb_uint(p, 1, a[0]);
		if (field == FT_IRQ_ENTRY)
			aux_str(x, p, 2, TTRACE_AUX_IRQ_NAME, a[1], ts);
		else
			pb_uint(p, 2, 1);		/* handled */
		break;
	case FT_CPU_IDLE:
		pb_uint(p, 1, (uint32_t)a[0]);
		pb_uint(p, 2, (uint32_t)a[1]);
		break;
	}
}

/* Event ev of CPU c into its bundle if it is one of Linux's; returns
 * whether it was. */
static bool linux_event(struct pf *x, uint32_t c,
			const struct ttrace_event_view *ev)
{
	unsigned k = ev->id < x->t->meta.nevents ? x->linux_of[ev->id] : 0;
	unsigned field = k ? linux_events[k - 1].field : 0;

	if (!k || ev->nwords < x->t->meta.events[ev->id].nargs)
		return false;
	pb_begin(&x->bundle, BUNDLE_EVENT);
	pb_uint(&x->bundle, FT_TIMESTAMP, ns_of(x, ev->timestamp));
	pb_uint(&x->bundle, FT_PID, linux_pid(x->running));
	pb_begin(&x->bundle, field);
	linux_fields(x, field, ev);
	pb_end(&x->bundle);
	pb_end(&x->bundle);
	if (++x->nbundle == PF_BUNDLE_MAX)
		bundle_flush(x, c);
	x->ftrace++;
	return true;
}

/* The system info: a Linux release, so prev_state's bits from 0x40 up are
 * read as Linux 6.12 means them (0x100: preempted, R+). */
static void system_info(struct pf *x)
{
	static const char *const uts[] = { "Linux", "#1 ttrace",
					   "6.12.0-ttrace", "x86_64" };

	packet_begin(x, 0);
	pb_begin(&x->out, PKT_SYSTEM_INFO);
	pb_begin(&x->out, SI_UTSNAME);
	for (unsigned i = 0; i < 4; i++)
		pb_str(&x->out, UTS_SYSNAME + i, uts[i], strlen(uts[i]));
	pb_end(&x->out);
	pb_end(&x->out);
	packet_end(x);
}

static int by_pid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a >> 32, y = *(const uint64_t *)b >> 32;

	return x < y ? -1 : x > y;
}

/* Appends v to the array *a of *n values, *cap allocated. Returns 0 or
 * -1 (memory). */
static int push(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		uint64_t *p = realloc(*a, (*cap = *cap * 2 + 64) * sizeof(*p));

		if (!p)
			return -1;
		*a = p;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* Every process's parent, from the proc_create records (pid, name,
 * parent), and the threads a task_newtask record starts (Perfetto makes
 * them from it: the ProcessTree must not name them first, or they would
 * be two), by pid. Returns 0 or -1 (memory). */
static int find_parents(struct pf *x)
{
	int id = ttexport_event_id(&x->t->meta, "proc_create");
	int nt = ttexport_event_id(&x->t->meta, "task_newtask");
	int rn = ttexport_event_id(&x->t->meta, "task_rename");
	size_t cap = 0, rcap = 0;

	if (id >= 0 && !ttexport_args_are(&x->t->meta.events[id],
					  "pid name parent"))
		id = -1;
	if (nt >= 0 && !x->linux_of[nt])
		nt = -1;
	for (uint32_t c = 0; c < x->t->version.num_cpus; c++) {
		struct ttrace_pair_iter it;
		struct ttrace_event_view ev;

		ttrace_pair_init(&it, x->t->cpus[c].sorted,
				 x->t->cpus[c].nsorted, &x->t->meta);
		while (ttrace_pair_next(&it, &ev)) {
			if (ev.id == (uint32_t)rn && ev.nwords) {
				if (push(&x->renamed, &x->nrenamed, &rcap,
					 ev.args[0] << 32))
					return -1;
			} else if ((ev.id == (uint32_t)id ||
				    ev.id == (uint32_t)nt) && ev.nwords >= 3 &&
				   push(&x->parents, &x->nparents, &cap,
					ev.id == (uint32_t)id ?
					ev.args[0] << 32 | linux_pid(ev.args[2]) :
					ev.args[1] << 32 | PF_NEWTASK)) {
				return -1;
			}
		}
	}
	if (x->nparents)
		qsort(x->parents, x->nparents, sizeof(*x->parents), by_pid);
	if (x->nrenamed)
		qsort(x->renamed, x->nrenamed, sizeof(*x->renamed), by_pid);
	return 0;
}

/* Whether the trace holds a task_rename of our pid (find_parents()). */
static bool renamed(const struct pf *x, uint64_t pid)
{
	uint64_t key = pid << 32;

	return x->nrenamed && bsearch(&key, x->renamed, x->nrenamed,
				      sizeof(key), by_pid);
}

/* What find_parents() knows of our pid: its parent (0 if no record
 * names one), PF_NEWTASK or'ed in if a task_newtask started it. */
static uint64_t parent_of(const struct pf *x, uint64_t pid)
{
	uint64_t key = pid << 32, got = 0;
	const uint64_t *p = x->nparents ? bsearch(&key, x->parents,
				x->nparents, sizeof(key), by_pid) : NULL;

	while (p && p > x->parents && p[-1] >> 32 == pid)
		p--;
	for (; p && p < x->parents + x->nparents && *p >> 32 == pid; p++)
		got |= (uint32_t)*p;
	return got;
}

/* ---- tracks and track events --------------------------------------------- */

/* The sequence of track uuid's events: the threads' for a thread's track
 * (the last thread descriptor on a sequence is what Perfetto ties its
 * events to), the kernel's for the others. */
static uint32_t track_seq(uint64_t uuid)
{
	return uuid >> 32 == UUID_THREAD && linux_pid((uint32_t)uuid) ?
	       PF_SEQ : PF_SEQ_KERNEL;
}

static void track_descriptor(struct pf *x, uint64_t uuid, const char *name,
			     size_t len, bool counter)
{
	packet_begin_on(x, 0, track_seq(uuid));
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
	/* at its first span: a thread a task_newtask starts is made
	 * there, not before it by its descriptor */
	packet_begin(x, k->nspans ? ns_of(x, k->spans[0].start) : 0);
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

/* Opens a TrackEvent of type on track uuid at ts, name (len bytes) and
 * cat unless NULL; track_event_end() closes it. */
static void track_event_begin(struct pf *x, uint64_t uuid, unsigned type,
			      uint64_t ts, const char *name, size_t len,
			      const char *cat)
{
	packet_begin_on(x, ns_of(x, ts), track_seq(uuid));
	pb_begin(&x->out, PKT_TRACK_EVENT);
	pb_uint(&x->out, TE_TYPE, type);
	pb_uint(&x->out, TE_TRACK_UUID, uuid);
	if (cat)
		pb_str(&x->out, TE_CATEGORIES, cat, strlen(cat));
	if (name)
		pb_str(&x->out, TE_NAME, name, len);
}

static void track_event_end(struct pf *x)
{
	pb_end(&x->out);
	packet_end(x);
}

static void track_event(struct pf *x, uint64_t uuid, unsigned type,
			uint64_t ts, const char *name, size_t len,
			const char *cat)
{
	track_event_begin(x, uuid, type, ts, name, len, cat);
	track_event_end(x);
}

static uint64_t track_uuid(const struct ttmodel_track *k)
{
	return UUID(k->kind == TTMODEL_THREAD ? UUID_THREAD :
		    k->kind == TTMODEL_CPU ? UUID_CPU : UUID_BOOT, k->id);
}

/* Whether span s is a slice: a process's run on a CPU's track is not
 * (sched_slice shows it), nor an interrupt when the bundles have it
 * (irq_handler_entry: Perfetto's own Irq Cpu tracks). */
static bool is_slice(const struct pf *x, const struct ttmodel_span *s)
{
	return s->kind != TTMODEL_RUN &&
	       !(s->kind == TTMODEL_IRQ && x->irq_bundled);
}

/*
 * Track k's spans as slices (is_slice): a BEGIN at each span's start and
 * an END at its end, the ends of those it does not nest in first (spans
 * come in start order, parents first, depth per span); a span that is no
 * slice leaves its depth empty.
 */
static void slices(struct pf *x, const struct ttmodel_track *k)
{
	const struct ttmodel_span *open[TTMODEL_MAX_DEPTH]; /* by depth, or
					   NULL: no slice */
	uint64_t uuid = track_uuid(k);
	uint32_t n = 0;

	for (uint64_t i = 0; i <= k->nspans; i++) {
		const struct ttmodel_span *s = i < k->nspans ? &k->spans[i] : NULL;
		uint32_t depth = s ? MIN(s->depth, TTMODEL_MAX_DEPTH - 1) : 0;
		const char *name;
		char buf[48];
		size_t len;

		while (n > depth)
			if (open[--n])
				track_event(x, uuid, SLICE_END, open[n]->end,
					    NULL, 0, NULL);
		if (!s)
			break;
		while (n < depth)
			open[n++] = NULL;
		open[n++] = is_slice(x, s) ? s : NULL;
		if (!open[n - 1])
			continue;
		if (!(len = ttmodel_span_name(x->m, s, &name))) {
			name = buf;
			len = (size_t)snprintf(buf, sizeof(buf), "%s %llu",
					       ttmodel_kinds[s->kind].ident,
					       ull(s->ident));
		}
		track_event(x, uuid, SLICE_BEGIN, s->start, name, len,
			    ttmodel_kinds[s->kind].name);
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
	track_event_begin(x, UUID(UUID_COUNTER, i), COUNTER, ev->timestamp,
			  NULL, 0, NULL);
	pb_uint(&x->out, TE_COUNTER_VALUE, ev->args[1]);
	track_event_end(x);
	x->samples++;
}

/* Event ev's arguments as the instant's debug annotations (args
 * "debug.NAME"): a name argument as its name, the others as numbers. */
static void annotations(struct pf *x, const struct ttrace_event_view *ev)
{
	const struct ttrace_event_meta *m = &x->t->meta.events[ev->id];
	char buf[256];

	for (unsigned a = 0; a < m->nargs && a < ev->nwords; a++) {
		const struct ttrace_arg_meta *g = &m->args[a];
		uint64_t v = ev->args[a];

		pb_begin(&x->out, TE_DEBUG_ANNOTATIONS);
		pb_str(&x->out, DA_NAME, g->name, strlen(g->name));
		if (g->type == TTRACE_ARG_STR)
			pb_str(&x->out, DA_STRING, buf,
			       ttexport_name(buf, sizeof(buf), x->t, g->aux_tag,
					     v, ev->timestamp,
					     TTEXPORT_PRINTABLE));
		else if (g->type == TTRACE_ARG_PTR)
			pb_uint(&x->out, DA_POINTER, v);
		else if (ttrace_arg_signed(g->type))
			pb_uint(&x->out, DA_INT, v);	/* int64: two's complement */
		else
			pb_uint(&x->out, DA_UINT, v);
		pb_end(&x->out);
	}
}

/* An event that is no span's end or switch: an instant named by its
 * event with its arguments, on CPU c's track; a user marker named by its
 * text, on the track of the thread that wrote it. */
static void instant(struct pf *x, uint32_t c, const struct ttrace_event_view *ev)
{
	const struct ttrace_event_meta *m = &x->t->meta.events[ev->id];
	const char *name = m->name ? m->name : "event";
	size_t len = strlen(name);
	uint64_t uuid = UUID(UUID_CPU, c);

	if (ev->id == x->marker_id) {
		if (ev->ctx_kind == TTRACE_CTX_SYSC &&
		    linux_pid(TTRACE_CTX_PID(ev->context)))
			uuid = UUID(UUID_THREAD, TTRACE_CTX_PID(ev->context));
		if (!ev->nwords || !(len = ttload_resolve((void *)x->t,
				     TTRACE_AUX_USER_MARKER, ev->args[0],
				     ev->timestamp, &name)))
			name = "marker", len = 6;
	}
	track_event_begin(x, uuid, INSTANT, ev->timestamp, name, len, "event");
	if (ev->id != x->marker_id)
		annotations(x, ev);
	track_event_end(x);
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

	x->running = TTRACE_IDLE_PID(c);
	x->have_blocked = false;
	intern_callers(x, c);
	ttrace_pair_init(&it, lc->sorted, lc->nsorted, &x->t->meta);
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
		if (ev.ctx_kind == TTRACE_CTX_SYSC ||
		    ev.ctx_kind == TTRACE_CTX_TRAP)
			x->running = TTRACE_CTX_PID(ev.context);
		else if (ev.ctx_kind == TTRACE_CTX_IDLE)
			x->running = TTRACE_IDLE_PID(c);
		if (ev.id == x->switch_id)
			sched_switch(x, c, &ev);
		else if (ev.id == x->blocked_id && ev.nwords >= 3) {
			x->blocked = ev;	/* until its switch out */
			x->have_blocked = true;
		} else if (!linux_event(x, c, &ev) &&
			 !ttmodel_is_span_event(x->m, ev.id))
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

/* The packet that opens the sequence seq of pr's samples: every
 * mapping, frame and callstack (iid = index + 1, frames root first). */
static void intern_profile(struct pf *x, const struct ttprof *pr,
			   uint32_t seq)
{
	pb_begin(&x->out, TRACE_PACKET);
	pb_uint(&x->out, PKT_SEQ_ID, seq);
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

/* pr's on-CPU samples as PerfSample packets on sequence seq, after the
 * packet of its interned callstacks; returns how many. */
static uint64_t samples_of(struct pf *x, const struct ttprof *pr, uint32_t seq)
{
	uint64_t n = 0;

	if (pr->nsamples)
		intern_profile(x, pr, seq);
	for (uint64_t i = 0; i < pr->nsamples; i++) {
		const struct ttprof_sample *s = &pr->samples[i];

		if (s->kind != TTPROF_ON_CPU)
			continue;
		pb_begin(&x->out, TRACE_PACKET);
		pb_uint(&x->out, PKT_TIMESTAMP, s->ts);
		pb_uint(&x->out, PKT_SEQ_ID, seq);
		pb_uint(&x->out, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
		pb_begin(&x->out, PKT_PERF_SAMPLE);
		pb_uint(&x->out, PS_CPU, s->cpu);
		pb_uint(&x->out, PS_PID, linux_pid(s->pid));
		pb_uint(&x->out, PS_TID, linux_pid(s->pid));
		pb_uint(&x->out, PS_CALLSTACK_IID, s->stack + 1ull);
		pb_uint(&x->out, PS_CPU_MODE, s->mode);
		pb_end(&x->out);
		packet_end(x);
		n++;
	}
	return n;
}

/* The trace's on-CPU samples as PerfSample packets (see the top).
 * Returns 0, or -1 when out of memory. */
static int perf_samples(struct pf *x)
{
	struct ttprof pr;

	ttprof_init(&pr, 0);
	if (ttprof_from_trace(&pr, (struct ttload *)x->t, &x->opts) < 0) {
		ttprof_free(&pr);
		return -1;
	}
	x->perf_samples = samples_of(x, &pr, PF_SEQ_PROFILE);
	ttprof_free(&pr);
	return 0;
}

/* The chain of a stack record ev (frames, pc0 the innermost, ...) into
 * st: its stack's index. */
static uint32_t record_chain(struct ttprof *st, uint32_t kernel,
			     struct pf *x, const struct ttrace_event_view *ev)
{
	uint32_t f[TTRACE_STACK_DEPTH], n = 0;
	char name[128];

	for (uint32_t k = 0; k < ev->args[0] && k < TTRACE_STACK_DEPTH &&
	     1 + k < ev->nwords && ev->args[1 + k]; k++) {
		uint64_t pc = ev->args[1 + k];

		f[n++] = ttprof_frame(st, kernel, pc, name,
				      kernel_name(x, pc, name, sizeof(name)));
	}
	return ttprof_stack(st, f, n);
}

/* The trace's stack records (kern/trace/stack.c: a stacktrace probe's,
 * the latency tracers') as PerfSamples on a sequence of their own, each
 * at its record's time with its chain as an interned callstack, as perf
 * writes a tracepoint's samples with their call chains: Perfetto's
 * perf_sample table and its callstacks then hold them, by function name.
 * Returns 0, or -1 when out of memory. */
static int stack_samples(struct pf *x)
{
	const struct ttload *t = x->t;
	int id = ttexport_event_id(&t->meta, "stack");
	struct ttprof st;
	uint32_t kernel;

	if (id < 0 || !ttexport_args_are(&t->meta.events[id], "frames pc0"))
		return 0;
	ttprof_init(&st, 0);
	kernel = ttprof_mapping(&st, "kernel", t->nksyms ? t->ksyms[0].ident :
				0, t->nksyms ? t->ksyms[t->nksyms - 1].ident :
				0);
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		struct ttexport_walk w;
		enum ttexport_item k;

		ttexport_walk_init(&w, t, c);
		while ((k = ttexport_walk_next(&w)) != TTEXPORT_END)
			if (k == TTEXPORT_EVENT && w.ev->id == (uint32_t)id)
				ttprof_add(&st, &(struct ttprof_sample){
					.ts = ns_of(x, w.ev->timestamp),
					.ns = 1, .cpu = c,
					.stack = record_chain(&st, kernel, x,
							      w.ev),
					.pid = TTRACE_CTX_PID(w.ev->context),
					.tid = TTRACE_CTX_PID(w.ev->context),
					.kind = TTPROF_ON_CPU,
					.mode = TTPROF_KERNEL });
	}
	bool oom = st.oom;

	x->stack_samples = oom ? 0 : samples_of(x, &st, PF_SEQ_STACKS);
	ttprof_free(&st);
	return oom ? -1 : 0;
}

/* ---- the command --------------------------------------------------------- */

/* Writes the whole trace to x->f. Returns 0 or -1 (memory). */
static int pf_write(struct pf *x)
{
	struct ttmodel m;
	int rc;

	x->switch_id = (uint32_t)ttexport_event_id(&x->t->meta, "sched_switch");
	x->counter_id = (uint32_t)ttexport_event_id(&x->t->meta, "counter");
	x->marker_id = (uint32_t)ttexport_event_id(&x->t->meta, "user_marker");
	if (ttmodel_build(&m, x->t) < 0)
		return -1;
	x->m = &m;
	if (find_linux(x) < 0 || find_parents(x) < 0 ||
	    ttexport_prios_init(&x->prios, x->t) < 0 || find_callers(x) < 0) {
		ttmodel_free(&m);
		return -1;
	}
	clock_snapshot(x);
	system_info(x);
	process_tree(x);
	descriptors(x);
	for (uint32_t c = 0; c < x->t->version.num_cpus; c++)
		cpu_events(x, c);
	for (uint32_t i = 0; i < m.ntracks; i++)
		slices(x, &m.tracks[i]);
	rc = perf_samples(x) | stack_samples(x);
	flush(x);
	if (x->out.oom || x->bundle.oom)
		rc = -1;
	if (!rc && x->perf_samples)
		printf("perfetto: %llu perf samples\n", ull(x->perf_samples));
	if (!rc && x->stack_samples)
		printf("perfetto: %llu stack records as perf samples with their "
		       "callstacks\n", ull(x->stack_samples));
	if (!rc)
		printf("perfetto: %llu sched_switch, %llu other ftrace events, "
		       "%llu slices, %llu instants, %llu counter samples, "
		       "%llu losses; %llu spans clipped, %llu unfinished, "
		       "%llu exits without enter dropped\n", ull(x->switches),
		       ull(x->ftrace), ull(x->slices),
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

	if (ttprof_parse_opts(&argc, argv, &x.opts) < 0)
		return 2;
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
	free(x.linux_of);
	free(x.parents);
	free(x.renamed);
	free(x.callers);
	if (x.kelf_loaded > 0)
		ttprof_elf_free(&x.kelf);
	ttexport_prios_free(&x.prios);
	ttdecode_close(&f, &t);
	return rc;
}

static const struct ttdecode_command cmd_perfetto = {
	"perfetto", 2, ttdecode_perfetto,
	"perfetto [--kernel ELF] [--user DIR] TRACE OUT.pftrace" };
TTDECODE_COMMAND(cmd_perfetto);
