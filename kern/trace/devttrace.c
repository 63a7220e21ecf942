/*
 * #ttrace: the tracer as files (docs/ttrace-device.md), bound at
 * /dev/ttrace. A Plan 9 device: a table of the fixed files and a generator
 * that adds four files per online CPU with their lengths as they are now;
 * the channel layer walks, stats and lists with it. Reads and writes are
 * calls on the tracer's device side (internal.h); this file
 * holds no ring or aux logic.
 *
 *	ctl	commands in, state out	events	event list (read as a
 *					file; a directory of ftrace's tree)
 *	stats	counters		marker	user annotations in
 *	version	binary header		meta	metadata blob
 *	aux	header + aux snapshot	funcs	function-graph filter
 *	tsc	each CPU's TSC offset from CPU 0's (struct ttrace_file_tsc)
 *	probes	the built-in probes and their results (docs/probes.md)
 *	counters the counters' current values (counters.c)
 *	timerlat osnoise  timer latency and noise per CPU (timerlat.c)
 *	stack_max each CPU's deepest kernel stack, with its chain (stack.c)
 *	cpuN	CPU N's records as text	rawN	CPU N's records, binary
 *	streamN	... consumed as they come
 *	snapN	CPU N's ring as a snapshot probe copied it, as rawN
 *	trace.ttr the whole trace as a trace file (docs/trace-file.md)
 *	snaptrace the snapshot probe's copy as a trace file
 *	latency	the latency tracers: maxima, counts, histograms (latency.c)
 *	irqsoff_trace, wakeup_trace  a latency tracer's maximum's frozen
 *		rings as a trace file
 *	stream	a trace file of the records as they come; "end" written
 *		to it ends it
 *	lastboot the previous boot's trace as a trace file, kept across a
 *		warm reset (lastboot.c); empty when there is none
 *
 * The right to trace (CAP_TRACE, abi/syscall.h) is asked at every open
 * and every read of a file of records or of what was made of them
 * (needs_right()), and at every write but the marker's: a process that
 * dropped it gets EPERM and changes nothing; the files that describe the
 * tracer stay readable (docs/ttrace-device.md, "Who may use the tracer").
 *
 * Each open of a per-CPU file, aux or probes gets its own reader
 * (ttrace_reader.c: cursor, snapshot, waiting for slots in flight),
 * shared by the processes that share the open file; each open of a
 * trace file gets its own writer (ttrace_tracefile.c); each open of a
 * file made from live state (tt_text: ctl, stats, latency...) holds the
 * text its first read made (devgen_readtext(), made again by a read from
 * offset 0), so a reader in small pieces reads one text.
 *
 * ftrace's tree (tracefs.c, docs/tracefs.md) follows these files in the
 * root: every qid with TFS_Q set is its, and this file hands it on.
 */
#include <ns.h>
#include <proc.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <abi/errno.h>
#include <arch/mmu.h>

#include "internal.h"
#include "tracefs.h"

enum { Qdir, Qctl, Qstats, Qmarker, Qversion, Qmeta, Qaux, Qtsc,
       Qfuncs, Qprobes, Qcounters, Qtrace, Qsnaptrace, Qstream, Qlastboot,
       Qtimerlat, Qosnoise, Qlatency, Qstackmax,
       Qlattrace,	/* + enum ttrace_lat_id */
       Qcpu = 0x100 };	/* + 0x100 * enum ttrace_read_kind + cpu */

#define NPERCPU		4	/* cpuN rawN streamN snapN */
#define QPERCPU(kind, cpu) (Qcpu + 0x100 * (uint64_t)(kind) + (cpu))

static const struct dirtab tt_tab[] = {
	{ ".", { Qdir, 0, QTDIR }, 0, S_IFDIR | 0555 },
	{ "ctl", { Qctl, 0, QTFILE }, 0, S_IFREG | 0644 },
	{ "stats", { Qstats, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "marker", { Qmarker, 0, QTFILE }, 0, S_IFREG | 0222 },
	{ "version", { Qversion, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "meta", { Qmeta, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "aux", { Qaux, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "tsc", { Qtsc, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "funcs", { Qfuncs, 0, QTFILE }, 0, S_IFREG | 0644 },
	{ "probes", { Qprobes, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "counters", { Qcounters, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "trace.ttr", { Qtrace, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "snaptrace", { Qsnaptrace, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "stream", { Qstream, 0, QTFILE }, 0, S_IFREG | 0644 },
	{ "lastboot", { Qlastboot, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "timerlat", { Qtimerlat, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "osnoise", { Qosnoise, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "latency", { Qlatency, 0, QTFILE }, 0, S_IFREG | 0444 },
	{ "irqsoff_trace", { Qlattrace + TTRACE_LAT_IRQSOFF, 0, QTFILE }, 0,
	  S_IFREG | 0444 },
	{ "wakeup_trace", { Qlattrace + TTRACE_LAT_WAKEUP, 0, QTFILE }, 0,
	  S_IFREG | 0444 },
	{ "timerlat_trace", { Qlattrace + TTRACE_LAT_TIMERLAT, 0, QTFILE }, 0,
	  S_IFREG | 0444 },
	{ "osnoise_trace", { Qlattrace + TTRACE_LAT_OSNOISE, 0, QTFILE }, 0,
	  S_IFREG | 0444 },
	{ "stack_max", { Qstackmax, 0, QTFILE }, 0, S_IFREG | 0444 },
};

/* The trace files and the runs their writer reads. */
static bool is_tracefile(uint64_t q)
{
	return q == Qtrace || q == Qsnaptrace || q == Qstream ||
	       (q >= Qlattrace && q < Qlattrace + TTRACE_LAT_COUNT);
}

static enum ttrace_read_kind tracefile_kind(uint64_t q)
{
	return q == Qtrace ? TTRACE_READ_RAW : q == Qsnaptrace ?
	       TTRACE_READ_SNAP : TTRACE_READ_STREAM;
}

/* The version file: the header a trace file would start with now. */
static void version_text(struct seqbuf *s)
{
	struct ttrace_version v;

	ttrace_fill_version(&v);
	seqbuf_write(s, (const char *)&v, sizeof(v));
}

/* The tsc file: tsc_offset[] and its uncertainty, per online CPU. */
static void tsc_text(struct seqbuf *s)
{
	struct ttrace_file_tsc t[CONFIG_MAX_NUM_CPUS];

	seqbuf_write(s, (const char *)t, ttrace_tsc_offsets(t));
}

/* The files made from live state (texts, and two small binary ones),
 * each made once per open file and at each read from offset 0
 * (devgen_readtext()): at most TEXT_MAX bytes, the NUL included, a
 * longer text cut visibly (the binary ones always fit). */
#define TEXT_MAX	PGSIZE
static_assert(sizeof(struct ttrace_version) < TEXT_MAX &&
	      CONFIG_MAX_NUM_CPUS * sizeof(struct ttrace_file_tsc) < TEXT_MAX,
	      "the binary files fit a text");
static void (*const tt_text[])(struct seqbuf *s) = {
	[Qctl] = ttrace_state_text,
	[Qversion] = version_text,
	[Qtsc] = tsc_text,
	[Qstats] = ttrace_stats_text,
	[Qfuncs] = ttrace_funcs_text,
	[Qcounters] = ttrace_counters_text,
	[Qtimerlat] = ttrace_timerlat_text,
	[Qosnoise] = ttrace_osnoise_text,
	[Qlatency] = ttrace_lat_text,
	[Qstackmax] = ttrace_stack_max_text,
};

static const char *const percpu_name[NPERCPU] = { "cpu", "raw", "stream",
						   "snap" };

/* Fills *e with per-CPU file kind of cpu, its length as it is now. */
static int percpu_entry(uint32_t kind, uint32_t cpu, struct devdir *e)
{
	if (kind >= NPERCPU || cpu >= num_cpus)
		return 0;
	fmt_snprintf(e->name, sizeof(e->name), "%s%u", percpu_name[kind], cpu);
	e->qid = (struct qid){ .path = QPERCPU(kind, cpu), .type = QTSTREAM };
	e->perm = S_IFREG | 0444;
	e->length = kind == TTRACE_READ_RAW ? ttrace_ring_bytes() : 0;
	return 1;
}

/* The lastboot file: the previous boot's trace (lastboot.c), empty
 * without one. */
static size_t lastboot_len(void)
{
	size_t len;

	ttrace_lastboot_bytes(&len);
	return len;
}

static long lastboot_read(void *buf, size_t n, uint64_t off)
{
	size_t len;
	const uint8_t *bytes = ttrace_lastboot_bytes(&len);

	return devgen_readbytes(off, buf, n, bytes, len);
}

/* The generator: tt_tab's files, then cpuN rawN streamN snapN for each
 * online CPU in turn. */
/* The live metadata blob's size (it grows with function probes). */
static uint32_t meta_length(void)
{
	uint32_t size;

	ttrace_meta_blob_now(&size);
	return size;
}

static int ttgen(struct chan *c, const char *name, uint64_t i,
		 struct devdir *e)
{
	uint64_t q = c->qid.path, nfixed = ARRAY_SIZE(tt_tab) - 1;
	uint64_t nroot = nfixed + NPERCPU * (uint64_t)num_cpus;

	if (q & TFS_Q)
		return tracefs_gen(c, name, i, e);
	if (i != DEVGEN_SELF && i >= nroot)	/* the tree's, in the root */
		return tracefs_gen(c, name, i - nroot, e);
	if (i == DEVGEN_SELF && q >= Qcpu)
		return percpu_entry((uint32_t)(q >> 8) - 1, q & 0xff, e);
	if (i != DEVGEN_SELF && i >= nfixed)
		return (i - nfixed) / NPERCPU >= num_cpus ? 0 :
		       percpu_entry((i - nfixed) % NPERCPU,
				    (uint32_t)((i - nfixed) / NPERCPU), e);
	if (devgen(c, name, i, e) <= 0)
		return 0;
	if (e->qid.path == Qversion)
		e->length = sizeof(struct ttrace_version);
	else if (e->qid.path == Qmeta)
		e->length = meta_length();
	else if (e->qid.path == Qtsc)
		e->length = num_cpus * sizeof(struct ttrace_file_tsc);
	else if (e->qid.path == Qlastboot)
		e->length = lastboot_len();
	return 1;
}

/* Whether reading file q needs CAP_TRACE: it holds records, strings
 * from them or from the kernel's memory, or what was made of them (probe
 * results, latency maxima, stack chains, timer latencies), as text or
 * binary alike. */
static bool needs_right(uint64_t q)
{
	if (q & TFS_Q)
		return tracefs_needs_right(q);
	return q >= Qcpu || is_tracefile(q) || q == Qaux || q == Qprobes ||
	       q == Qlastboot || q == Qtimerlat || q == Qosnoise ||
	       q == Qlatency || q == Qstackmax;
}

static const char no_right[] = "ttrace: this process dropped the right "
			       "to trace (capdrop CAP_TRACE)";

/* The files read through a reader or a writer get one per open. */
static int tt_open(struct chan *c, int omode)
{
	uint64_t q = c->qid.path;

	(void)omode;
	if (needs_right(q) && !proc_capable(CAP_TRACE))
		return (int)errstr_device(-EPERM, no_right);
	if (q & TFS_Q)
		return tracefs_open(c, omode);
	if (q >= Qlattrace && q < Qlattrace + TTRACE_LAT_COUNT)
		c->aux = ttrace_tracefile_snap(TTRACE_SNAP_LAT + q - Qlattrace);
	else if (is_tracefile(q))
		c->aux = ttrace_tracefile_new(tracefile_kind(q));
	else if (q >= Qcpu)
		c->aux = ttrace_reader_new((q >> 8) - 1, q & 0xff);
	else if (q == Qaux || q == Qprobes)
		c->aux = ttrace_reader_new(q == Qaux ? TTRACE_READ_AUX :
						       TTRACE_READ_PROBES, 0);
	else
		return 0;
	return c->aux ? 0 : -ENOMEM;
}

static void tt_close(struct chan *c)
{
	if (c->qid.path == Qctl) {	/* the drain or held profile it */
		ttrace_drain_close(c);	/* began ends */
		ttrace_profile_close(c);
	}
	if (c->qid.path & TFS_Q)
		tracefs_close(c);
	else if (is_tracefile(c->qid.path))
		ttrace_tracefile_free(c->aux);
	else
		ttrace_reader_free(c->aux);
	c->aux = NULL;
}

/* A file of tt_text: its text, the one this open file holds. */
static int text_make(struct chan *c, struct seqbuf *s)
{
	tt_text[c->qid.path](s);
	return 0;
}

static long tt_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	uint64_t q = c->qid.path;

	if (needs_right(q) && !proc_capable(CAP_TRACE))
		return errstr_device(-EPERM, no_right);
	if (q & TFS_Q)
		return tracefs_read(c, buf, n, off);
	if (is_tracefile(q))
		return ttrace_tracefile_read(c->aux, buf, n, off);
	if (c->aux)
		return ttrace_reader_read(c->aux, buf, n, off);
	if (q == Qmeta) {	/* whole, however probes change meanwhile */
		struct ttrace_meta_snap *m = ttrace_meta_get();
		long r = devgen_readbytes(off, buf, n, m->blob, m->size);

		ttrace_meta_drop(m);
		return r;
	}
	if (q == Qlastboot)
		return lastboot_read(buf, n, off);
	if (q < ARRAY_SIZE(tt_text) && tt_text[q])
		return devgen_readtext(c, buf, n, off, TEXT_MAX, text_make);
	return -EBADF;
}

/* The stream file's one command: "end". */
static int stream_control(struct ttrace_tracefile *f, const char *buf,
			  size_t n, const char **why)
{
	size_t len = n && buf[n - 1] == '\n' ? n - 1 : n;

	if (len != 3 || memcmp(buf, "end", 3)) {
		*why = "usage: end";
		return -EINVAL;
	}
	ttrace_tracefile_end(f, n);
	return 0;
}

static long tt_write(struct chan *c, const void *buf, size_t n, uint64_t off)
{
	const char *why;
	int r;

	(void)off;
	if (c->qid.path != Qmarker && !tracefs_is_marker(c->qid.path) &&
	    !proc_capable(CAP_TRACE))
		return errstr_device(-EPERM, no_right);
	if (c->qid.path & TFS_Q)
		return tracefs_write(c, buf, n);
	switch (c->qid.path) {
	case Qmarker:
		ttrace_mark(buf, n);
		return (long)n;
	case Qctl:
		r = ttrace_control_file(c, buf, n, &why);
		break;
	case Qfuncs:
		r = ttrace_funcs_control(buf, n, &why);
		break;
	case Qstream:
		r = stream_control(c->aux, buf, n, &why);
		break;
	default:
		return -EBADF;
	}
	return r ? errstr_device(r, why) : (long)n;
}

/* O_TRUNC: the tree's files that mean something by it (`echo > trace`
 * clears); the others ignore it, as before. */
static int tt_truncate(struct chan *c, uint64_t len)
{
	(void)len;
	if (!(c->qid.path & TFS_Q) || tracefs_is_marker(c->qid.path))
		return 0;
	if (!proc_capable(CAP_TRACE))
		return (int)errstr_device(-EPERM, no_right);
	return tracefs_truncate(c);
}

static const struct dev ttrace_dev = {
	.dc = 'T',
	.name = "ttrace",
	DEV_TAB(tt_tab),
	.gen = ttgen,
	.open = tt_open,
	.close = tt_close,
	.read = tt_read,
	.write = tt_write,
	.truncate = tt_truncate,
};

DEV_REGISTER(ttrace_dev);
