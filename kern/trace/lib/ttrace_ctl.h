/*
 * ttrace_ctl.h: what is traced, and the #ttrace ctl file's commands.
 *
 * Two levels decide whether an event is recorded: its group's bit in the
 * 64-bit group mask, and its own enable byte. The kernel's fast path must
 * not combine them per event, so ttrace_ctl_rearm() folds both into one
 * byte per event:
 *	armed[id] = (mask >> group(id) & 1) && enabled[id] || probed[id]
 * (probed[]: a probe is attached, ttrace_probe.h; the probe then decides
 * whether the record is written). In the kernel the armed bytes decide
 * only which sites are patched: a tracepoint is a static key, a 5-byte NOP
 * when off (ttrace_emit.h, kern/trace/patch.c); host code reads the byte.
 *
 * The mask is changed only with atomic read-modify-writes, so any CPU may
 * flip bits at any time (the seed's setbits stored the new bits over the
 * mask instead of OR-ing them in; here setbits ORs, clrbits ANDs the
 * complement, setmask replaces exactly the bits under its mask in one CAS).
 * Each change must be followed by ttrace_ctl_rearm(); rearming is
 * serialised by the caller (one ctl writer at a time, e.g. a qlock) and
 * loops until the mask it read is still the mask, so a concurrent mask
 * change cannot leave stale armed bytes behind.
 *
 * ctl commands (one per write; a trailing newline is fine):
 *	enable NAME...		each NAME is a glob (* and ?) matched against
 *	disable NAME...		group names, whose mask bits it sets (clears),
 *				and event names, whose enable bytes it sets
 *				(clears); it must match something. "enable
 *				mm" turns on the mm group, "disable page_free"
 *				then silences one of its events, "enable *"
 *				turns on every group and every event.
 *	setmask VALUE MASK	mask = (mask & ~MASK) | (VALUE & MASK)
 *	setbits BITS		mask |= BITS
 *	clrbits BITS		mask &= ~BITS
 *	clear			empty the rings (aux keeps its names, so the
 *				records that follow still resolve)
 *	mode overwrite|saturate	ring mode (clears the rings)
 *	bufsize KB		per-CPU ring size: a power of two, 4..8192
 *				(TTRACE_CTL_MIN_KB..TTRACE_CTL_MAX_KB)
 *	hang			for testing `make pull`: stop every CPU
 *				for good, interrupts off (docs/pull.md)
 *	crash [corrupt]		for testing the last boot's trace, with
 *				ttrace.crashtest on the command line only:
 *				panic, or spoil one slot of this CPU's ring
 *				(docs/ttrace-device.md)
 *	counters MS [all]	sample the counters every MS ms (0: stop),
 *				MS <= 60000; recording those that changed,
 *				or with "all" every one of them
 *	probe NAME KIND ...	attach or remove a built-in probe (the rest
 *	unprobe NAME|*		of the grammar: ttrace_probe_spec.h)
 *	module load PATH	link and start a probe module, or stop and
 *	module unload NAME	remove one (module.h)
 *	fprobe add NAME FUNC[%return] ARG...	define or delete an event on a
 *	fprobe del NAME		kernel function's entry or return
 *				(the grammar: ttrace_fprobe.h)
 *	latency NAME on|off|reset	a latency tracer (docs/latency.md):
 *	latency NAME threshold US	NAME one of ttrace_lat_names[]; reset
 *				forgets the maximum, its trace and the counts;
 *				threshold records every section longer than
 *				US microseconds (0: none), US <=
 *				TTRACE_CTL_MAX_LAT_US
 *	latency timerlat on [PERIOD_US]	timerlat's thread per CPU wakes
 *				every PERIOD_US (1..1000000, default one
 *				tick, rounded up to whole ticks)
 *	latency osnoise on [RUNTIME_US [THRESHOLD_NS]]	osnoise's thread
 *				per CPU spins RUNTIME_US of every second
 *				(1..1000000, default 100000) and counts each
 *				gap of its loop above THRESHOLD_NS (1..
 *				1000000, default 1000) by its cause
 * The commands are one table in ttrace_ctl.c (Plan 9's Cmdtab): {name, op,
 * min/max words, parse, apply, usage}. Each row's parse fills the one
 * struct ttrace_ctl_cmd; the probe rows' parsers are ttrace_probe_spec.c's.
 * The table builds the usage text of every error: an error of a probe
 * command starts "ttrace probe:" and lists the probe commands in full,
 * any other "ttrace ctl:" and lists every command.
 * Numbers are decimal or 0x hex. ttrace_ctl_parse() parses the whole
 * command before anything changes; on error it returns a message (with the
 * usage) and nothing changes. ttrace_ctl_apply() then does the mask and
 * enable changes; the other commands (clear, mode, bufsize, hang, crash,
 * counters, probe, unprobe, module) are the kernel's to carry out.
 *
 * Usage:
 *	struct ttrace_ctl_cmd cmd;
 *	const char *err = ttrace_ctl_parse(&cmd, text, len, &meta);
 *	if (err)
 *		error(err);
 *	ttrace_ctl_apply(&state, &cmd);
 *	if (cmd.op == TTRACE_CTL_CLEAR) ...
 */
#ifndef TTRACE_CTL_H
#define TTRACE_CTL_H

#include <buddy.h>
#include <compiler.h>
#include <seqbuf.h>
#include <ttrace_format.h>
#include <ttrace_meta.h>
#include <ttrace_probe_spec.h>
#include <ttrace_fprobe.h>
#include <abi/ttrace_ctl.h>	/* TTRACE_CTL_MAX_LEN */
/* bufsize's range in KiB. A ring is one contiguous block of pages, and
 * the page allocator's largest is 4 KiB << BUDDY_MAX_ORDER (8 MiB). */
#define TTRACE_CTL_MIN_KB	4
#define TTRACE_CTL_MAX_KB	(4 << BUDDY_MAX_ORDER)
#define TTRACE_CTL_MAX_TOKENS	32	/* words in one command */
#define TTRACE_CTL_MAX_COUNTER_MS 60000
#define TTRACE_CTL_MAX_LAT_US	10000000	/* 10 s */

/* The latency tracers (kern/trace/latency.c), named by ctl. */
enum ttrace_lat_id {
	TTRACE_LAT_IRQSOFF,
	TTRACE_LAT_WAKEUP,
	TTRACE_LAT_TIMERLAT,	/* timerlat.c: its own threads */
	TTRACE_LAT_OSNOISE,
	TTRACE_LAT_COUNT,
};

extern const char *const ttrace_lat_names[TTRACE_LAT_COUNT];

/* What a latency command does (struct ttrace_ctl_cmd mode). */
enum ttrace_lat_op {
	TTRACE_LAT_ON,
	TTRACE_LAT_OFF,
	TTRACE_LAT_RESET,
	TTRACE_LAT_THRESHOLD,
};

enum ttrace_ctl_op {
	TTRACE_CTL_ENABLE = 1,
	TTRACE_CTL_DISABLE,
	TTRACE_CTL_SETMASK,
	TTRACE_CTL_SETBITS,
	TTRACE_CTL_CLRBITS,
	TTRACE_CTL_CLEAR,
	TTRACE_CTL_MODE,
	TTRACE_CTL_BUFSIZE,
	TTRACE_CTL_HANG,
	TTRACE_CTL_COUNTERS,
	TTRACE_CTL_PROBE,
	TTRACE_CTL_UNPROBE,
	TTRACE_CTL_MODULE,
	TTRACE_CTL_FPROBE,
	TTRACE_CTL_CRASH,
	TTRACE_CTL_LATENCY,
	TTRACE_CTL_STACKTRACER,
	TTRACE_CTL_DRAIN,
	TTRACE_CTL_PROFILE,
};

/* profile on [HZ] [kernel|user|all] [offcpu] [sched] (docs/profiling.md):
 * the rate's bounds and default, and the options (cmd.mask): which
 * chains a record takes, the off-CPU profile, stacks on scheduling
 * events. */
#define TTRACE_PROFILE_MAX_HZ		10000
#define TTRACE_PROFILE_DEFAULT_HZ	997
#define TTRACE_PROFILE_KERNEL		1u
#define TTRACE_PROFILE_USER		2u
#define TTRACE_PROFILE_ALL		(TTRACE_PROFILE_KERNEL | TTRACE_PROFILE_USER)
#define TTRACE_PROFILE_OFFCPU		4u
#define TTRACE_PROFILE_SCHED		8u
#define TTRACE_PROFILE_HELD		2u	/* cmd.mode: on, and off at
						   the close of its ctl file */

/* ctl crash's words (cmd.mode). */
enum ttrace_ctl_crash {
	TTRACE_CRASH_PANIC = 0,		/* panic on purpose */
	TTRACE_CRASH_CORRUPT = 1,	/* spoil one slot of this CPU's ring */
};

/* latency timerlat|osnoise on's numbers: their bounds and defaults. */
#define TTRACE_LAT_MAX_US		1000000
#define TTRACE_LAT_MAX_THRESHOLD_NS	1000000
#define TTRACE_LAT_OSNOISE_RUNTIME_US	100000	/* defaults */
#define TTRACE_LAT_OSNOISE_THRESHOLD_NS	1000

/* stacktracer's word (struct ttrace_ctl_cmd's mode). */
enum ttrace_stacktracer_op { TTRACE_STACKTRACER_OFF, TTRACE_STACKTRACER_ON,
			     TTRACE_STACKTRACER_RESET };

/* A parsed command. */
struct ttrace_ctl_cmd {
	uint32_t op;		/* enum ttrace_ctl_op */
	uint32_t mode;		/* MODE: enum ttrace_ring_mode_word;
				 * COUNTERS: 1 for "all"; MODULE: 1 unload;
				 * CRASH: enum ttrace_ctl_crash;
				 * LATENCY: enum ttrace_lat_op;
				 * STACKTRACER: enum ttrace_stacktracer_op;
				 * DRAIN, PROFILE: 1 on, 0 off;
				 * PROFILE: TTRACE_PROFILE_HELD on, held
				 * by the ctl file */
	uint32_t lat;		/* LATENCY: enum ttrace_lat_id */
	uint64_t value;		/* SETMASK: value; BUFSIZE: KB; COUNTERS: ms;
				 * PROFILE on: HZ;
				 * LATENCY threshold: us; LATENCY on:
				 * period/runtime us (0: default) */
	uint64_t mask;		/* SETMASK/SETBITS/CLRBITS bits; ENABLE/DISABLE
				 * groups; LATENCY osnoise on: threshold ns;
				 * PROFILE on: TTRACE_PROFILE_* */
	uint8_t events[TTRACE_META_MAX_EVENTS / 8];	/* ENABLE/DISABLE */
	struct ttrace_probe_spec probe;	/* PROBE; UNPROBE: only its name
					 * (or "*") */
	char word[TTRACE_CTL_MAX_LEN + 1];	/* MODULE: the PATH or NAME */
	struct ttrace_fprobe_spec fprobe;	/* FPROBE */
	char err[768];		/* the message ttrace_ctl_parse returned:
				 * its reason and the probe usage (~610) fit */
};

/* The state ctl changes: caller-owned arrays of meta->nevents bytes. */
struct ttrace_ctl_state {
	uint64_t mask;
	uint8_t *enabled;
	uint8_t *armed;
	uint8_t *probed;	/* NULL, or nonzero where a probe is attached */
	const struct ttrace_meta_table *meta;
};

/* Group mask operations; each returns the previous mask. */
uint64_t ttrace_mask_setmask(uint64_t *mask, uint64_t value, uint64_t bits);
uint64_t ttrace_mask_setbits(uint64_t *mask, uint64_t bits);
uint64_t ttrace_mask_clrbits(uint64_t *mask, uint64_t bits);

void ttrace_ctl_init(struct ttrace_ctl_state *st,
		     const struct ttrace_meta_table *meta, uint8_t *enabled,
		     uint8_t *armed);
void ttrace_ctl_rearm(struct ttrace_ctl_state *st);
bool ttrace_ctl_records(const struct ttrace_ctl_state *st, uint64_t m,
			uint32_t id);
bool ttrace_ctl_wants(const struct ttrace_ctl_state *st, uint64_t m,
		      uint32_t id);
bool ttrace_ctl_any_on(const struct ttrace_ctl_state *st);

bool ttrace_glob_match(const char *pat, const char *s);
const char *ttrace_ctl_parse(struct ttrace_ctl_cmd *cmd, const char *text,
			     size_t len, const struct ttrace_meta_table *meta);
const char *ttrace_ctl_err(struct ttrace_ctl_cmd *cmd, const char *a,
			   const char *b, const char *c);

/* The probe rows' parsers (ttrace_probe_spec.c): tok[0] is the command's
 * name, the word count checked against the row; each fills cmd->probe
 * and returns NULL or ttrace_ctl_err()'s message. */
const char *ttrace_probe_parse_add(struct ttrace_ctl_cmd *cmd, char **tok,
				   size_t ntok,
				   const struct ttrace_meta_table *meta);
const char *ttrace_probe_parse_remove(struct ttrace_ctl_cmd *cmd, char **tok,
				      size_t ntok,
				      const struct ttrace_meta_table *meta);
void ttrace_probe_usage(struct seqbuf *s);
void ttrace_ctl_apply(struct ttrace_ctl_state *st,
		      const struct ttrace_ctl_cmd *cmd);
void ttrace_ctl_list(const struct ttrace_ctl_state *st, struct seqbuf *s);

#endif /* TTRACE_CTL_H */
