/*
 * tracefs.c: ftrace's tree under /dev/ttrace (docs/tracefs.md), so what a
 * kernel engineer types from memory, or copies from Linux's
 * Documentation/trace, works here: `echo 1 > events/sched/sched_switch/
 * enable`, `echo function_graph > current_tracer`, `cat trace_pipe`.
 *
 * The tree is a second door to the same rooms: every write is turned into
 * ctl commands (the one table, lib/ctl_parse.c) or the call the ctl or
 * funcs file makes, and every read renders the state those keep; the
 * tree keeps none of its own but tracing_on's saved mask and the text
 * options (how `trace` prints).
 *
 * One table, tfs_tab, names every file and directory: its name, its
 * directory (a row of the table), how many it stands for (one, or one per
 * CPU, group, event of the group, option: the instance, which its files
 * inherit) and what reading and writing it do. The device's generator
 * (devttrace.c) hands every qid with TFS_Q set to tracefs_gen(), which
 * lists a directory by walking the table; a qid is TFS_Q | row << 16 |
 * instance.
 */
#include <kmalloc.h>
#include <pmem.h>
#include <ns.h>
#include <parse_num.h>
#include <printfmt.h>
#include <sched.h>
#include <seqbuf.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <ttrace_ftevent.h>
#include <ttrace_ftlinux.h>
#include <abi/errno.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"
#include "tracefs.h"

#define LINE_MAX	256	/* one write to a tree file */
#define CTL_MAX		(TTRACE_CTL_MAX_LEN + 1)
#define PIPE_RAW_NAP_NS	20000000	/* trace_pipe_raw, nothing new: 20 ms */

enum tfs_many { ONE, PER_CPU, PER_GROUP, PER_EVENT, PER_OPTION };

/* The rows; a directory's files follow it (the order ls shows). */
enum {
	T_ROOT,		/* devttrace's own directory */
	T_TRACING_ON, T_TRACE, T_TRACE_PIPE, T_TRACE_MARKER, T_TRACE_CLOCK,
	T_TRACE_OPTIONS, T_OPTIONS, T_OPTION,
	T_BUFFER_SIZE, T_BUFFER_TOTAL, T_SAVED_CMDLINES, T_README,
	T_PER_CPU, T_CPU, T_CPU_TRACE, T_CPU_PIPE, T_CPU_STATS, T_CPU_BUFSIZE,
	T_AVAIL_EVENTS, T_SET_EVENT,
	T_EVENTS, T_EVENTS_ENABLE, T_GROUP, T_GROUP_ENABLE, T_GROUP_FILTER,
	T_EVENT, T_EV_ENABLE, T_EV_FILTER, T_EV_TRIGGER, T_EV_ID,
	T_EV_HIST,
	T_AVAIL_TRACERS, T_CURRENT_TRACER, T_FTRACE_FILTER, T_GRAPH_FUNCTION,
	T_AVAIL_FUNCS, T_MAX_LATENCY, T_TRACING_THRESH,
	/* tracefs31b's (tracefs_dyn.c, tracefs_snap.c, tracefs_synth.c) */
	T_DYN_EVENTS, T_SYNTH_EVENTS, T_ERROR_LOG, T_SNAPSHOT, T_STACK_TRACE,
	T_STACK_MAX, T_STACK_FILTER, T_EV_FORMAT, T_HEADER_PAGE,
	T_HEADER_EVENT, T_CPU_PIPE_RAW,
	/* tfs31c's (tracefs_narrow.c) */
	T_SET_EVENT_PID, T_SET_FTRACE_PID, T_FTRACE_NOTRACE, T_GRAPH_NOTRACE,
	T_MAX_GRAPH_DEPTH,
	T_COUNT
};

struct tfs_file {
	const char *name;	/* NULL: the instance's name */
	uint8_t dir;		/* the row of its directory */
	uint8_t many;		/* enum tfs_many */
	uint16_t perm;		/* S_IFDIR | 0555, or a file's bits */
	/* The text a read returns (NULL: see tracefs_read). */
	void (*text)(struct seqbuf *s, uint32_t inst);
	/* Carries out one write, line its text without the newline;
	 * returns 0 or -errno with *why. NULL: not writable. */
	int (*write)(uint32_t inst, char *line, const char **why);
	/* An open with O_TRUNC (`>`, not `>>`); NULL: nothing. */
	int (*trunc)(uint32_t inst, const char **why);
};

#define DIR	(S_IFDIR | 0555)
#define RW	(S_IFREG | 0644)
#define RO	(S_IFREG | 0444)
#define WO	(S_IFREG | 0222)

/* ---- helpers ------------------------------------------------------------- */

static const struct ttrace_meta_table *meta(void)
{
	return ttrace_meta_now();
}

/* Carries out ctl command fmt... as if written to ctl. */
static int ctl(const char **why, const char *fmt, ...)
{
	char cmd[CTL_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd)) {
		*why = "tracefs: command too long";
		return -EINVAL;
	}
	return ttrace_control(cmd, (size_t)n, why);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word at *p, NUL terminated in place ("" at
 * the end); *p moves past it. */
char *tracefs_next_word(char **p)
{
	char *w = *p, *e;

	while (blank(*w))
		w++;
	for (e = w; *e && !blank(*e); e++)
		;
	*p = *e ? e + 1 : e;
	*e = 0;
	return w;
}

/* Whether ctl command text (n bytes, as fmt_snprintf returned) parses,
 * changing nothing; a probe command's spec in *spec (NULL: not wanted). */
static int ctl_parse_spec(const char **why, struct ttrace_probe_spec *spec,
			  const char *text, int n)
{
	static char err[sizeof(((struct ttrace_ctl_cmd *)0)->err)];
	struct ttrace_ctl_cmd *cmd = kmalloc(sizeof(*cmd));
	const char *e;

	if (!cmd) {
		*why = "tracefs: out of memory";
		return -ENOMEM;
	}
	e = n < 0 || n >= CTL_MAX ? "tracefs: command too long" :
	    ttrace_ctl_parse(cmd, text, (size_t)n, meta());
	if (e) {
		strlcpy(err, e, sizeof(err));
		*why = err;
	} else if (spec) {
		*spec = cmd->probe;
	}
	kfree(cmd);
	return e ? -EINVAL : 0;
}

/* Whether ctl command fmt... parses, for a change made of two commands
 * whose second must not fail after the first. */
static int ctl_check(const char **why, const char *fmt, ...)
{
	char text[CTL_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return ctl_parse_spec(why, NULL, text, n);
}

/* A file holding one number: its value in *v. */
static int parse_num(const char *line, uint64_t *v, const char **why)
{
	if (parse_u64_whole(line, v))
		return 0;
	*why = "tracefs: write a decimal number";
	return -EINVAL;
}

static bool recorded(uint64_t mask, uint32_t e)
{
	return ttrace_ctl_records(&ttrace_main.ctl, mask, e);
}

static uint64_t mask_now(void)
{
	return __atomic_load_n(&ttrace_main.ctl.mask, __ATOMIC_RELAXED);
}

static const char *group_name(uint32_t bit)
{
	const struct ttrace_group_meta *g = ttrace_meta_group(meta(), bit);

	return g ? g->name : "?";
}

/* ---- events -------------------------------------------------------------- */

/*
 * Turns event e on or off as Linux's enable file does, through ctl:
 * on, with its group's bit off, the group's other events go off first
 * (so only e is recorded, as in ftrace), then the group and e on; off,
 * e's own enable goes off.
 */
int tracefs_event_set(uint32_t e, bool on, const char **why)
{
	const struct ttrace_meta_table *m = meta();
	uint32_t g = m->events[e].group;
	int r;

	if (!on)
		return ctl(why, "disable %s", m->events[e].name);
	if (!(mask_now() >> g & 1))
		for (uint32_t o = 0; o < m->nevents; o++)
			if (o != e && m->events[o].group == g &&
			    (r = ctl(why, "disable %s", m->events[o].name)))
				return r;
	return ctl(why, "enable %s %s", group_name(g), m->events[e].name);
}

/* Every event of group g on or off, as events/GROUP/enable. */
static int group_set(uint32_t g, bool on, const char **why)
{
	const struct ttrace_meta_table *m = meta();
	int r;

	if (!on)
		return ctl(why, "disable %s", group_name(g));
	for (uint32_t e = 0; e < m->nevents; e++)
		if (m->events[e].group == g &&
		    (r = ctl(why, "enable %s", m->events[e].name)))
			return r;
	return ctl(why, "enable %s", group_name(g));
}

/* 0 or 1 for an enable file. */
static int parse_bool(const char *line, bool *on, const char **why)
{
	if ((line[0] == '0' || line[0] == '1') && !line[1]) {
		*on = line[0] == '1';
		return 0;
	}
	*why = "tracefs: write 0 or 1";
	return -EINVAL;
}

/* '1', '0' or, for some of several events, 'X' as ftrace prints. */
static void enable_text(struct seqbuf *s, bool (*in)(uint32_t e, uint32_t x),
			uint32_t x)
{
	const struct ttrace_meta_table *m = meta();
	uint64_t mask = mask_now();
	unsigned on = 0, all = 0;

	for (uint32_t e = 0; e < m->nevents; e++)
		if (in(e, x)) {
			all++;
			on += recorded(mask, e);
		}
	seqbuf_puts(s, !on ? "0\n" : on == all ? "1\n" : "X\n");
}

static bool in_all(uint32_t e, uint32_t x)
{
	(void)e, (void)x;
	return true;
}

static bool in_group(uint32_t e, uint32_t g)
{
	return meta()->events[e].group == g;
}

static bool is_event(uint32_t e, uint32_t x)
{
	return e == x;
}

static void events_enable_text(struct seqbuf *s, uint32_t inst)
{
	enable_text(s, in_all, inst);
}

static int events_enable_write(uint32_t inst, char *line, const char **why)
{
	bool on;
	int r = parse_bool(line, &on, why);

	(void)inst;
	return r ? r : ctl(why, "%s *", on ? "enable" : "disable");
}

static void group_enable_text(struct seqbuf *s, uint32_t g)
{
	enable_text(s, in_group, g);
}

static int group_enable_write(uint32_t g, char *line, const char **why)
{
	bool on;
	int r = parse_bool(line, &on, why);

	return r ? r : group_set(g, on, why);
}

static void event_enable_text(struct seqbuf *s, uint32_t e)
{
	enable_text(s, is_event, e);
}

static int event_enable_write(uint32_t e, char *line, const char **why)
{
	bool on;
	int r = parse_bool(line, &on, why);

	return r ? r : tracefs_event_set(e, on, why);
}

/* events/GROUP/EVENT/id: the ID its format names and its
 * trace_pipe_raw records carry. */
static void event_id_text(struct seqbuf *s, uint32_t e)
{
	seqbuf_printf(s, "%u\n", ttrace_ftlinux_event_id(&meta()->events[e]));
}

/* available_events: GROUP:EVENT, one a line. */
static void avail_events_text(struct seqbuf *s, uint32_t inst)
{
	const struct ttrace_meta_table *m = meta();

	(void)inst;
	for (uint32_t e = 0; e < m->nevents; e++)
		seqbuf_printf(s, "%s:%s\n", group_name(m->events[e].group),
			      m->events[e].name);
}

/* set_event: the events being recorded, GROUP:EVENT. */
static void set_event_text(struct seqbuf *s, uint32_t inst)
{
	const struct ttrace_meta_table *m = meta();
	uint64_t mask = mask_now();

	(void)inst;
	for (uint32_t e = 0; e < m->nevents; e++)
		if (recorded(mask, e))
			seqbuf_printf(s, "%s:%s\n",
				      group_name(m->events[e].group),
				      m->events[e].name);
}

/* Whether event e is named by set_event's word w: [GROUP:]EVENT, globs,
 * "GROUP:" alone meaning all of the group's. */
static bool event_matches(uint32_t e, const char *w)
{
	const struct ttrace_meta_table *m = meta();
	const char *colon = strchr(w, ':');
	char grp[64];

	if (!colon)
		return ttrace_glob_match(w, m->events[e].name);
	if ((size_t)(colon - w) >= sizeof(grp))
		return false;
	memcpy(grp, w, (size_t)(colon - w));
	grp[colon - w] = 0;
	return ttrace_glob_match(grp, group_name(m->events[e].group)) &&
	       (!colon[1] || ttrace_glob_match(colon + 1, m->events[e].name));
}

/* set_event's write: words of [!][GROUP:]EVENT; every word is checked
 * before anything changes. */
#define SET_EVENT_WORDS	16
static int set_event_write(uint32_t inst, char *line, const char **why)
{
	const struct ttrace_meta_table *m = meta();
	char *w[SET_EVENT_WORDS], *p = line;
	uint32_t n = 0;
	int r;

	(void)inst;
	while (*(w[n] = tracefs_next_word(&p)))
		if (++n == SET_EVENT_WORDS) {
			*why = "set_event: at most 16 words a write";
			return -EINVAL;
		}
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < n; k++) {
			bool off = w[k][0] == '!', hit = false;

			for (uint32_t e = 0; e < m->nevents; e++) {
				if (!event_matches(e, w[k] + off))
					continue;
				hit = true;
				if (pass && (r = tracefs_event_set(e, !off, why)))
					return r;
			}
			if (!hit) {
				*why = "set_event: no event matches";
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int set_event_trunc(uint32_t inst, const char **why)
{
	(void)inst;
	return ctl(why, "disable *");
}

/* ---- tracing_on, buffers ------------------------------------------------- */

/* The group mask tracing_on's 0 saved, for its 1. */
static uint64_t saved_mask;

/* What tracing_on reads: some group on, and not frozen. */
static bool tracing_is_on(void)
{
	return mask_now() && !ttrace_main.off_reason;
}

static void tracing_on_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, tracing_is_on() ? "1\n" : "0\n");
}

static int tracing_on_write(uint32_t inst, char *line, const char **why)
{
	uint64_t mask = mask_now();
	bool on;
	int r = parse_bool(line, &on, why);

	(void)inst;
	if (r || on == !!mask)
		return r;
	if (!on)
		saved_mask = mask;
	else if (!saved_mask)	/* a traceoff trigger's stop: the defaults */
		saved_mask = ttrace_meta_default_mask(&ttrace_meta_builtin);
	return ctl(why, "setmask %#lx %#lx", on ? saved_mask : 0,
		   ~(uint64_t)0);
}

static void bufsize_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%lu\n", ttrace_ring_bytes() / 1024);
}

static int bufsize_write(uint32_t inst, char *line, const char **why)
{
	uint64_t kb;
	int r = parse_num(line, &kb, why);

	(void)inst;
	return r ? r : ctl(why, "bufsize %lu", kb);
}

static void buftotal_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%lu\n", ttrace_ring_bytes() / 1024 * num_cpus);
}

/* ---- filters and triggers: built-in probes -------------------------------- */

/*
 * Turns ftrace filter text into a probe's TEST... (docs/probes.md: the
 * same grammar, with || ( ) and ~ globs; common_pid and common_cpu are
 * its pid and cpu): the blanks outside "strings" dropped, so a filter of
 * the most tests fits ctl's word count. Writes it to out.
 */
static int filter_tests(char *text, char *out, size_t size, const char **why)
{
	bool quoted = false;
	size_t n = 0;

	for (const char *p = text; *p; p++) {
		quoted ^= *p == '"';
		if (blank(*p) && !quoted)
			continue;
		if (n + 1 == size) {
			*why = "filter: too long";
			return -EINVAL;
		}
		out[n++] = *p;
	}
	out[n] = 0;
	if (!n) {
		*why = "filter: FIELD OP VALUE [&& ...] [|| ...] (ops == != < "
		       "<= > >= & ~)";
		return -EINVAL;
	}
	return 0;
}

/* Ftrace filter text (changed in place) as the tests of a spec for event
 * e, for a trigger's `if` (tracefs_trig.c). */
int tracefs_filter_spec(uint32_t e, char *text, struct ttrace_probe_spec *spec,
			const char **why)
{
	const char *name = meta()->events[e].name;
	char tests[CTL_MAX], cmd[CTL_MAX];
	int r = filter_tests(text, tests, sizeof(tests), why);

	return r ? r : ctl_parse_spec(why, spec, cmd, fmt_snprintf(cmd,
				      sizeof(cmd), "probe t.%s filter %s %s",
				      name, name, tests));
}

/* Sets event e's filter: the probe f.EVENT, replaced; "0" removes it. */
static int event_filter_set(uint32_t e, char *line, const char **why)
{
	const char *name = meta()->events[e].name;
	char tests[CTL_MAX];
	int r;

	if (strcmp(line, "0") &&
	    ((r = filter_tests(line, tests, sizeof(tests), why)) ||
	     (r = ctl_check(why, "probe f.%s filter %s %s", name, name, tests))))
		return r;		/* nothing changed */
	ctl(why, "unprobe f.%s", name);	/* none yet is fine */
	return strcmp(line, "0") ? ctl(why, "probe f.%s filter %s %s", name,
				       name, tests) : 0;
}

static int event_filter_write(uint32_t e, char *line, const char **why)
{
	return event_filter_set(e, line, why);
}

/* events/GROUP/filter: the same filter on every event of the group (each
 * event's f.EVENT probe); checked once before any is set. */
static int group_filter_write(uint32_t g, char *line, const char **why)
{
	const struct ttrace_meta_table *m = meta();
	char copy[LINE_MAX + 1], tests[CTL_MAX];
	int r;

	strlcpy(copy, line, sizeof(copy));
	if (strcmp(line, "0") && (r = filter_tests(copy, tests, sizeof(tests),
						    why)))
		return r;
	for (uint32_t e = 0; e < m->nevents; e++)	/* every one parses */
		if (m->events[e].group == g && strcmp(line, "0") &&
		    (r = ctl_check(why, "probe f.%s filter %s %s",
				   m->events[e].name, m->events[e].name, tests)))
			return r;
	for (uint32_t e = 0; e < m->nevents; e++) {
		if (m->events[e].group != g)
			continue;
		strlcpy(copy, line, sizeof(copy));
		if ((r = event_filter_set(e, copy, why)))
			return r;
	}
	return 0;
}

static void event_filter_text(struct seqbuf *s, uint32_t e)
{
	char prefix[80];

	fmt_snprintf(prefix, sizeof(prefix), "f.%s", meta()->events[e].name);
	if (!ttrace_probes_named(prefix, s))
		seqbuf_puts(s, "none\n");
}

static void group_filter_text(struct seqbuf *s, uint32_t g)
{
	const struct ttrace_meta_table *m = meta();
	unsigned n = 0;
	char prefix[80];

	for (uint32_t e = 0; e < m->nevents; e++)
		if (m->events[e].group == g) {
			fmt_snprintf(prefix, sizeof(prefix), "f.%s",
				     m->events[e].name);
			n += ttrace_probes_named(prefix, s);
		}
	if (!n)
		seqbuf_puts(s, "none\n");
}

/* A hist trigger's key: ftrace's field and modifier, a probe's by. */
static int hist_key(const char *k, char *out, size_t size, const char **why)
{
	strlcpy(out, k, size);
	if (strchr(k, ',')) {
		*why = "trigger: hist takes one key";
		return -EINVAL;
	}
	return 0;
}

/*
 * hist:keys=KEY[:vals=hitcount|FIELD][:sort=...][:size=N] as the probe
 * h.EVENT: a count by KEY, or with vals=FIELD a log2 histogram of FIELD
 * by KEY (docs/tracefs.md). sort and size are taken as given: the hist
 * file sorts by hitcount, the table has its own bound.
 */
static int hist_trigger(const char *ev, char *spec, const char *tests,
			const char **why)
{
	char key[64] = "", vals[64] = "hitcount", *w, *next;
	int r;

	for (w = spec; w; w = next) {
		if ((next = strchr(w, ':')))
			*next++ = 0;
		if (!strncmp(w, "keys=", 5) || !strncmp(w, "key=", 4)) {
			if ((r = hist_key(strchr(w, '=') + 1, key, sizeof(key),
					  why)))
				return r;
		} else if (!strncmp(w, "vals=", 5) || !strncmp(w, "values=", 7)) {
			strlcpy(vals, strchr(w, '=') + 1, sizeof(vals));
		} else if (strncmp(w, "sort=", 5) && strncmp(w, "size=", 5) &&
			   strcmp(w, "hist")) {
			*why = "trigger: hist:keys=K[:vals=V][:sort=S][:size=N]";
			return -EINVAL;
		}
	}
	if (!key[0]) {
		*why = "trigger: hist needs keys=";
		return -EINVAL;
	}
	if (!strcmp(vals, "hitcount"))
		return ctl(why, "probe h.%s count %s by %s%s%s", ev, ev, key,
			   tests[0] ? " if " : "", tests);
	return ctl(why, "probe h.%s hist %s %s by %s%s%s", ev, ev, vals, key,
		   tests[0] ? " if " : "", tests);
}

/* The trigger commands that map onto a probe kind, with their probe. */
static const struct { const char *trigger, *kind; } triggers[] = {
	{ "traceoff", "stop" }, { "snapshot", "snapshot" },
	{ "stacktrace", "stacktrace" },
};

/* TRIGGER:N's count (at count) as the probe's " times N" in out (n
 * bytes): a stop's or stacktrace's; a snapshot is taken once anyway, so
 * only snapshot:1 is taken. */
static int trigger_times(const char *trig, const char *count, char *out,
			 size_t n, const char **why)
{
	uint64_t v;

	if (!parse_u64_whole(count, &v) || !v || v > TTRACE_PROBE_TIMES_MAX) {
		*why = "trigger: a count is 1 to 2^31";
		return -EINVAL;
	}
	if (!strcmp(trig, "snapshot")) {
		*why = "trigger: snapshot copies the rings once (snapshot:1)";
		return v == 1 ? 0 : -EINVAL;
	}
	fmt_snprintf(out, n, " times %lu", v);
	return 0;
}

/* events/GROUP/EVENT/trigger: `[!]TRIGGER [if FILTER]`. */
static int event_trigger_write(uint32_t e, char *line, const char **why)
{
	const char *ev = meta()->events[e].name;
	bool del = line[0] == '!';
	char *trig = line + del, *cond = strstr(trig, " if "), *count;
	char tests[CTL_MAX] = "", times[24] = "";
	int r;

	if (cond)
		*cond = 0;
	if ((r = tracefs_soft_trigger(e, trig, cond ? cond + 4 : NULL, del,
				      why)) != 1)
		return r;	/* enable_event, disable_event */
	if (cond && (r = filter_tests(cond + 4, tests, sizeof(tests), why)))
		return r;
	count = strncmp(trig, "hist", 4) ? strchr(trig, ':') : NULL;
	if (count)
		*count++ = 0;		/* TRIGGER:N: its first N acts */
	if (count && !del && (r = trigger_times(trig, count, times,
						sizeof(times), why)))
		return r;
	if (!strncmp(trig, "hist", 4) &&
	    (r = tracefs_synth_trigger(ev, trig, del, why)) != 1)
		return r;	/* variables, onmatch(): tracefs_synth.c */
	if (!strncmp(trig, "hist", 4))
		return del ? ctl(why, "unprobe h.%s", ev) :
		       hist_trigger(ev, trig, tests, why);
	for (size_t i = 0; i < ARRAY_SIZE(triggers); i++)
		if (!strcmp(trig, triggers[i].trigger))
			return del ? ctl(why, "unprobe t.%s.%s", ev, trig) :
			       ctl(why, "probe t.%s.%s %s %s%s%s%s", ev, trig,
				   triggers[i].kind, ev, times,
				   tests[0] ? " if " : "", tests);
	*why = "trigger: traceoff[:N], traceon[:N], snapshot[:1], stacktrace[:N], "
	       "hist:keys=..., enable_event:G:E[:N] or disable_event:G:E[:N] "
	       "[if FILTER] (docs/tracefs.md)";
	return -EINVAL;
}

static void event_trigger_text(struct seqbuf *s, uint32_t e)
{
	char prefix[80];
	unsigned n;

	fmt_snprintf(prefix, sizeof(prefix), "t.%s.", meta()->events[e].name);
	n = ttrace_probes_named(prefix, s) + tracefs_soft_text(s, e);
	fmt_snprintf(prefix, sizeof(prefix), "h.%s", meta()->events[e].name);
	if (!(n + ttrace_probes_named(prefix, s)))
		seqbuf_puts(s, "# Available triggers:\n# traceon traceoff "
			    "snapshot stacktrace hist enable_event "
			    "disable_event\n");
}

/* Whether e has an argument called pid (a probe's `pid` is then it, and
 * the record's process `common_pid`: docs/probes.md). */
static bool pid_arg(const struct ttrace_event_meta *e)
{
	for (uint8_t a = 0; a < e->nargs; a++)
		if (!strcmp(e->args[a].name, "pid"))
			return true;
	return false;
}

/* events/GROUP/EVENT/hist: the h.EVENT probe's keys, as ftrace prints. */
static void event_hist_text(struct seqbuf *s, uint32_t e)
{
	const char *ev = meta()->events[e].name;
	char name[80], spec[160], info[200], *by, *end;
	struct seqbuf t;

	fmt_snprintf(name, sizeof(name), "h.%s", ev);
	seqbuf_init(&t, spec, sizeof(spec));
	if (!ttrace_probes_named(name, &t)) {
		seqbuf_puts(s, "# event histogram\n#\n# (no hist trigger: "
			    "echo 'hist:keys=common_pid' > trigger)\n");
		return;
	}
	spec[MIN(seqbuf_used(&t), sizeof(spec) - 1)] = 0;
	by = strstr(spec, " by ");
	by = by ? by + 4 : (char *)"none";
	for (end = by; *end && *end != ' ' && *end != '\n'; end++)
		;
	*end = 0;
	if (!strncmp(by, "pid", 3) && (!by[3] || by[3] == '.') &&
	    !pid_arg(&meta()->events[e])) {	/* as ftrace names it */
		fmt_snprintf(info, sizeof(info), "common_pid%s", by + 3);
		by = info;
	}
	strlcpy(spec, by, sizeof(spec));
	fmt_snprintf(info, sizeof(info), "hist:keys=%s:vals=hitcount:"
		     "sort=hitcount:size=256", spec);
	ttrace_probe_hist_text(name, info, spec, s);
}

/* ---- tracers ------------------------------------------------------------- */

static struct ttrace_lat *const lats[TTRACE_LAT_COUNT] = {
	[TTRACE_LAT_IRQSOFF] = &ttrace_lat_irqsoff,
	[TTRACE_LAT_WAKEUP] = &ttrace_lat_wakeup,
	[TTRACE_LAT_TIMERLAT] = &ttrace_lat_timerlat,
	[TTRACE_LAT_OSNOISE] = &ttrace_lat_osnoise,
};

/* The func group's events: entries only is ftrace's function tracer,
 * with the exits function_graph. */
static int func_events(uint32_t *entry, uint32_t *exit)
{
	const struct ttrace_meta_table *m = meta();

	*entry = *exit = UINT32_MAX;
	for (uint32_t e = 0; e < m->nevents; e++) {
		if (!strcmp(m->events[e].name, "func_entry"))
			*entry = e;
		if (!strcmp(m->events[e].name, "func_exit"))
			*exit = e;
	}
	return *entry != UINT32_MAX && *exit != UINT32_MAX ? 0 : -ENOENT;
}

const char *tracefs_current_tracer(void)
{
	uint64_t mask = mask_now();
	uint32_t entry, exit;

	for (uint32_t l = 0; l < TTRACE_LAT_COUNT; l++)
		if (READ_ONCE(lats[l]->on))
			return ttrace_lat_names[l];
	if (!func_events(&entry, &exit) && recorded(mask, entry))
		return recorded(mask, exit) ? "function_graph" : "function";
	return "nop";
}

static const char *const tracer_names[] = {
	"nop", "function", "function_graph", "irqsoff", "wakeup", "timerlat",
	"osnoise",
};

static void avail_tracers_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	for (size_t i = 0; i < ARRAY_SIZE(tracer_names); i++)
		seqbuf_printf(s, "%s%c", tracer_names[i],
			      i + 1 < ARRAY_SIZE(tracer_names) ? ' ' : '\n');
}

static void current_tracer_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%s\n", tracefs_current_tracer());
}

/* The current tracer off: latency tracers off, the func events off. */
static int tracer_off(const char **why)
{
	uint32_t entry, exit;
	int r;

	for (uint32_t l = 0; l < TTRACE_LAT_COUNT; l++)
		if (READ_ONCE(lats[l]->on) &&
		    (r = ctl(why, "latency %s off", ttrace_lat_names[l])))
			return r;
	if (func_events(&entry, &exit))
		return 0;
	return ctl(why, "disable func_entry func_exit");
}

static int current_tracer_write(uint32_t inst, char *line, const char **why)
{
	size_t i;
	int r;

	(void)inst;
	for (i = 0; i < ARRAY_SIZE(tracer_names); i++)
		if (!strcmp(line, tracer_names[i]))
			break;
	if (i == ARRAY_SIZE(tracer_names)) {
		*why = "current_tracer: no such tracer (cat available_tracers)";
		return -EINVAL;
	}
	if ((r = tracer_off(why)))
		return r;
	if (!strcmp(line, "function"))
		return ctl(why, "enable func func_entry");
	if (!strcmp(line, "function_graph"))
		return ctl(why, "enable func func_entry func_exit");
	if (i >= 3)
		return ctl(why, "latency %s on", line);
	return 0;
}

/* set_graph_function, set_ftrace_filter: the function-graph filter, the
 * funcs file's one glob. */
static void graph_function_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%s\n", fgraph_filter());
}

static int graph_function_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	if (!line[0])
		line = "*";
	return ttrace_funcs_control(line, strlen(line), why);
}

/* The latency tracer tracing_max_latency and tracing_thresh speak of:
 * the current one, or irqsoff. */
static uint32_t lat_now(void)
{
	for (uint32_t l = 0; l < TTRACE_LAT_COUNT; l++)
		if (READ_ONCE(lats[l]->on))
			return l;
	return TTRACE_LAT_IRQSOFF;
}

static void max_latency_text(struct seqbuf *s, uint32_t inst)
{
	struct ttrace_lat_max m = ttrace_lat_max_get(lats[lat_now()]);

	(void)inst;
	seqbuf_printf(s, "%lu\n", ttrace_cycles_ns(m.cycles) / 1000);
}

static int max_latency_write(uint32_t inst, char *line, const char **why)
{
	uint64_t v;
	int r = parse_num(line, &v, why);

	(void)inst;
	if (r)
		return r;
	if (v) {
		*why = "tracing_max_latency: only 0 (a reset) can be written";
		return -EINVAL;
	}
	return ctl(why, "latency %s reset", ttrace_lat_names[lat_now()]);
}

static void thresh_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%lu\n", READ_ONCE(lats[lat_now()]->threshold_us));
}

static int thresh_write(uint32_t inst, char *line, const char **why)
{
	uint64_t v;
	int r = parse_num(line, &v, why);

	(void)inst;
	return r ? r : ctl(why, "latency %s threshold %lu",
			   ttrace_lat_names[lat_now()], v);
}

/* ---- options, clock, marker, per_cpu, README ------------------------------ */

/* The text options: how trace prints (the records are the same). */
static const struct { const char *name; bool on; } option_tab[] = {
	{ "print-parent", true }, { "sym-offset", false },
	{ "latency-format", false }, { "irq-info", true },
	{ "funcgraph-proc", false }, { "funcgraph-duration", true },
	{ "funcgraph-retval", false },
};
const uint32_t tracefs_noptions = ARRAY_SIZE(option_tab);
static uint32_t options_on = 0x29;	/* option_tab's defaults */
static_assert(ARRAY_SIZE(option_tab) <= 32, "a bit each");
static_assert(TFS_OPT_FUNCGRAPH_PROC == 4 && TFS_OPT_FUNCGRAPH_DURATION == 5,
	      "tracefs.h's indices are option_tab's");

const char *tracefs_option_name(uint32_t i)
{
	return option_tab[i].name;
}

bool tracefs_option_on(uint32_t i)
{
	return __atomic_load_n(&options_on, __ATOMIC_RELAXED) >> i & 1;
}

static void trace_options_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	for (uint32_t i = 0; i < tracefs_noptions; i++)
		seqbuf_printf(s, "%s%s\n", options_on >> i & 1 ? "" : "no",
			      option_tab[i].name);
}

static int option_set(uint32_t i, bool on)
{
	if (on)
		__atomic_fetch_or(&options_on, 1u << i, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&options_on, ~(1u << i), __ATOMIC_RELAXED);
	return 0;
}

static int trace_options_write(uint32_t inst, char *line, const char **why)
{
	bool no = !strncmp(line, "no", 2);

	(void)inst;
	for (uint32_t i = 0; i < tracefs_noptions; i++) {
		if (!strcmp(line, option_tab[i].name))
			return option_set(i, true);
		if (no && !strcmp(line + 2, option_tab[i].name))
			return option_set(i, false);
	}
	*why = "trace_options: no such option (cat trace_options)";
	return -EINVAL;
}

static void option_text(struct seqbuf *s, uint32_t i)
{
	seqbuf_puts(s, options_on >> i & 1 ? "1\n" : "0\n");
}

static int option_write(uint32_t i, char *line, const char **why)
{
	bool on;
	int r = parse_bool(line, &on, why);

	return r ? r : option_set(i, on);
}

/* One clock: the TSC, put on CPU 0's (docs/trace-file.md). */
static void trace_clock_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, "[x86-tsc]\n");
}

static int trace_clock_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	if (!strcmp(line, "x86-tsc"))
		return 0;
	*why = "trace_clock: x86-tsc is the one clock here";
	return -EINVAL;
}

/* `echo > trace` (any open with O_TRUNC): ctl clear; the write that
 * follows may only be empty. */
static int trace_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	if (!line[0])
		return 0;
	*why = "trace: only an empty write ('echo > trace': clear)";
	return -EINVAL;
}

/* `echo > trace` (any open with O_TRUNC): ctl clear. */
static int trace_trunc(uint32_t inst, const char **why)
{
	(void)inst;
	return ctl(why, "clear");
}

/* per_cpu/cpuN/stats in ftrace's layout (tracing_stats_read). */
static void cpu_stats_text(struct seqbuf *s, uint32_t c)
{
	struct trace_ring_stats st;
	uint64_t oldest, newest, now = ttrace_ticks_to_ns(
		arch_read_tsc() - tsc_at_boot, tsc_freq_hz);

	ttrace_ring_get_stats(&ttrace_main, c, &st);
	ttrace_ring_edge_ts(&ttrace_main, c, &oldest, &newest);
	oldest = oldest ? ttrace_ticks_to_ns(ttrace_ts_on_cpu0(oldest,
			  tsc_offset[c]) - tsc_at_boot, tsc_freq_hz) : 0;
	seqbuf_printf(s, "entries: %lu\noverrun: %lu\ncommit overrun: 0\n"
		      "bytes: %lu\noldest event ts: %5lu.%06lu\n"
		      "now ts: %5lu.%06lu\ndropped events: %lu\n"
		      "read events: %lu\n", st.live, st.overwritten,
		      st.live * sizeof(struct ttrace_entry),
		      oldest / 1000000000, oldest % 1000000000 / 1000,
		      now / 1000000000, now % 1000000000 / 1000, st.dropped,
		      READ_ONCE(tracefs_read_events[c]));
}

static void cpu_bufsize_text(struct seqbuf *s, uint32_t c)
{
	(void)c;
	bufsize_text(s, 0);
}

/* saved_cmdlines: `PID COMM` of every process the names (aux) hold,
 * the newest name of each. */
static void saved_cmdlines_text(struct seqbuf *s, uint32_t inst)
{
	struct ttrace_aux_view v;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec, newest;
	unsigned order;
	char *mem = tracefs_aux_take(&v, &order);

	(void)inst;
	if (!mem) {
		seqbuf_puts(s, "(out of memory)\n");
		return;
	}
	ttrace_aux_iter_init(&it, &v);
	while (ttrace_aux_next(&it, &rec) && !seqbuf_overflowed(s))
		if (rec.tag == TTRACE_AUX_PROC_NAME &&
		    ttrace_aux_lookup(&v, rec.tag, rec.ident, UINT64_MAX,
				      &newest) && newest.offset == rec.offset)
			seqbuf_printf(s, "%lu %.*s\n", rec.ident, (int)rec.len,
				      (const char *)rec.payload);
	free_cont_pages(mem, order);
}

static void avail_funcs_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	fgraph_sites_text(s);
}

static const char readme[] =
	"tracing mini-HOWTO (ttrace; docs/tracefs.md says what differs "
	"from Linux):\n\n"
	"  tracing_on\t\t- 0 stops recording (the group mask saved), 1 "
	"restarts\n"
	"  trace\t\t\t- every CPU's records merged, ftrace text; "
	"'echo > trace' clears\n"
	"  trace_pipe\t\t- the same, consumed as they come; blocks, ^C ends\n"
	"  trace_marker\t\t- a write is recorded as a user_marker event\n"
	"  trace_clock\t\t- [x86-tsc], the one clock\n"
	"  trace_options, options/ - how trace prints\n"
	"  buffer_size_kb\t- each CPU's ring, KiB (a power of two: ctl "
	"bufsize)\n"
	"  buffer_total_size_kb\t- all rings\n"
	"  per_cpu/cpuN/\t\t- trace, trace_pipe, stats, buffer_size_kb, "
	"trace_pipe_raw (Linux's pages, consumed; blocks)\n"
	"  available_events\t- GROUP:EVENT of every event\n"
	"  set_event\t\t- echo 'sched:*' >> set_event; echo '!irq:*' >> "
	"set_event\n"
	"  events/[GROUP/[EVENT/]]enable - 0 or 1\n"
	"  events/GROUP/[EVENT/]filter - 'common_pid == 1 && ret < 0' "
	"(a filter probe)\n"
	"  events/GROUP/EVENT/trigger - traceoff, snapshot, stacktrace, "
	"hist:keys=K[:vals=V], traceon[:N], enable_event:G:E[:N], "
	"disable_event:G:E[:N] [if FILTER]; !TRIGGER removes\n"
	"  events/GROUP/EVENT/hist - the hist trigger's counts\n"
	"  events/GROUP/EVENT/id\n"
	"  synthetic_events\t- 'NAME u64 lat; pid_t pid', fed by "
	"onmatch().trace() hist triggers: events/synthetic/NAME\n"
	"  available_tracers, current_tracer - nop function function_graph "
	"irqsoff wakeup timerlat osnoise\n"
	"  set_graph_function, set_ftrace_filter - the function-graph glob\n"
	"  set_ftrace_notrace, set_graph_notrace - globs not traced (with "
	"their calls: graph_notrace)\n"
	"  max_graph_depth\t- the graph's depth, 0: all\n"
	"  set_event_pid, set_ftrace_pid - echo $$ > ...: only these pids\n"
	"  tracing_max_latency\t- the latency tracer's maximum, us; 0 "
	"resets\n"
	"  tracing_thresh\t- its threshold, us\n"
	"  available_filter_functions - the functions with a site\n"
	"  saved_cmdlines\t- PID COMM of the processes the trace names\n"
	"  cat events\t\t- the ctl state's event list, as before\n";

static void readme_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, readme);
}

/* ---- the tree ------------------------------------------------------------ */

/* snapshot: the copy (read through tracefs_trace_snap()), or with none
 * Linux's help. */
static void snapshot_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "# tracer: %s\n", tracefs_current_tracer());
	tracefs_snapshot_help(s);
}

/* events/GROUP/EVENT/format: the layout trace_pipe_raw's records have,
 * Linux's for the events Linux has too (the text trace.dat carries). */
static void event_format_text(struct seqbuf *s, uint32_t e)
{
	ttrace_ftlinux_event_format(s, &meta()->events[e]);
}

static void header_page_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, ttrace_ftevent_header_page);
}

static void header_event_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, ttrace_ftevent_header_event);
}

static const struct tfs_file tfs_tab[T_COUNT] = {
	[T_ROOT] = { ".", T_ROOT, ONE, DIR },
	[T_TRACING_ON] = { "tracing_on", T_ROOT, ONE, RW, tracing_on_text,
			   tracing_on_write },
	[T_BUFFER_SIZE] = { "buffer_size_kb", T_ROOT, ONE, RW, bufsize_text,
			    bufsize_write },
	[T_BUFFER_TOTAL] = { "buffer_total_size_kb", T_ROOT, ONE, RO,
			     buftotal_text },
	[T_AVAIL_EVENTS] = { "available_events", T_ROOT, ONE, RO,
			     avail_events_text },
	[T_SET_EVENT] = { "set_event", T_ROOT, ONE, RW, set_event_text,
			  set_event_write, set_event_trunc },
	[T_EVENTS] = { "events", T_ROOT, ONE, DIR },
	[T_EVENTS_ENABLE] = { "enable", T_EVENTS, ONE, RW, events_enable_text,
			      events_enable_write },
	[T_GROUP] = { NULL, T_EVENTS, PER_GROUP, DIR },
	[T_GROUP_ENABLE] = { "enable", T_GROUP, ONE, RW, group_enable_text,
			     group_enable_write },
	[T_EVENT] = { NULL, T_GROUP, PER_EVENT, DIR },
	[T_EV_ENABLE] = { "enable", T_EVENT, ONE, RW, event_enable_text,
			  event_enable_write },
	[T_EV_ID] = { "id", T_EVENT, ONE, RO, event_id_text },
	[T_GROUP_FILTER] = { "filter", T_GROUP, ONE, RW, group_filter_text,
			     group_filter_write },
	[T_EV_FILTER] = { "filter", T_EVENT, ONE, RW, event_filter_text,
			  event_filter_write },
	[T_EV_TRIGGER] = { "trigger", T_EVENT, ONE, RW, event_trigger_text,
			   event_trigger_write },
	[T_EV_HIST] = { "hist", T_EVENT, ONE, RO, event_hist_text },
	[T_TRACE] = { "trace", T_ROOT, ONE, RW, NULL, trace_write,
		      trace_trunc },
	[T_TRACE_PIPE] = { "trace_pipe", T_ROOT, ONE, RO },
	[T_TRACE_MARKER] = { "trace_marker", T_ROOT, ONE, WO },
	[T_TRACE_CLOCK] = { "trace_clock", T_ROOT, ONE, RW, trace_clock_text,
			    trace_clock_write },
	[T_TRACE_OPTIONS] = { "trace_options", T_ROOT, ONE, RW,
			      trace_options_text, trace_options_write },
	[T_OPTIONS] = { "options", T_ROOT, ONE, DIR },
	[T_OPTION] = { NULL, T_OPTIONS, PER_OPTION, RW, option_text,
		       option_write },
	[T_README] = { "README", T_ROOT, ONE, RO, readme_text },
	[T_PER_CPU] = { "per_cpu", T_ROOT, ONE, DIR },
	[T_CPU] = { NULL, T_PER_CPU, PER_CPU, DIR },
	[T_CPU_TRACE] = { "trace", T_CPU, ONE, RO },
	[T_CPU_PIPE] = { "trace_pipe", T_CPU, ONE, RO },
	[T_CPU_STATS] = { "stats", T_CPU, ONE, RO, cpu_stats_text },
	[T_CPU_BUFSIZE] = { "buffer_size_kb", T_CPU, ONE, RO,
			    cpu_bufsize_text },
	[T_AVAIL_TRACERS] = { "available_tracers", T_ROOT, ONE, RO,
			      avail_tracers_text },
	[T_CURRENT_TRACER] = { "current_tracer", T_ROOT, ONE, RW,
			       current_tracer_text, current_tracer_write },
	[T_FTRACE_FILTER] = { "set_ftrace_filter", T_ROOT, ONE, RW,
			      graph_function_text, graph_function_write },
	[T_GRAPH_FUNCTION] = { "set_graph_function", T_ROOT, ONE, RW,
			       graph_function_text, graph_function_write },
	[T_AVAIL_FUNCS] = { "available_filter_functions", T_ROOT, ONE, RO,
			    avail_funcs_text },
	[T_SAVED_CMDLINES] = { "saved_cmdlines", T_ROOT, ONE, RO,
			       saved_cmdlines_text },
	[T_MAX_LATENCY] = { "tracing_max_latency", T_ROOT, ONE, RW,
			    max_latency_text, max_latency_write },
	[T_TRACING_THRESH] = { "tracing_thresh", T_ROOT, ONE, RW, thresh_text,
			       thresh_write },
	[T_DYN_EVENTS] = { "dynamic_events", T_ROOT, ONE, RW,
			   tracefs_dynevents_text, tracefs_dynevents_write,
			   tracefs_dynevents_trunc },
	[T_SYNTH_EVENTS] = { "synthetic_events", T_ROOT, ONE, RW,
			     tracefs_synth_text, tracefs_synth_write,
			     tracefs_synth_trunc },
	[T_ERROR_LOG] = { "error_log", T_ROOT, ONE, RW, tracefs_error_log_text,
			  tracefs_error_log_write, tracefs_error_log_trunc },
	[T_SNAPSHOT] = { "snapshot", T_ROOT, ONE, RW, snapshot_text,
			 tracefs_snapshot_write },
	[T_STACK_TRACE] = { "stack_trace", T_ROOT, ONE, RO,
			    tracefs_stack_trace_text },
	[T_STACK_MAX] = { "stack_max_size", T_ROOT, ONE, RW,
			  tracefs_stack_max_size_text,
			  tracefs_stack_max_size_write },
	[T_STACK_FILTER] = { "stack_trace_filter", T_ROOT, ONE, RW,
			     tracefs_stack_filter_text,
			     tracefs_stack_filter_write },
	[T_EV_FORMAT] = { "format", T_EVENT, ONE, RO, event_format_text },
	[T_HEADER_PAGE] = { "header_page", T_EVENTS, ONE, RO,
			    header_page_text },
	[T_HEADER_EVENT] = { "header_event", T_EVENTS, ONE, RO,
			     header_event_text },
	[T_CPU_PIPE_RAW] = { "trace_pipe_raw", T_CPU, ONE, RO },
	[T_SET_EVENT_PID] = { "set_event_pid", T_ROOT, ONE, RW,
			      tracefs_event_pid_text, tracefs_event_pid_write,
			      tracefs_event_pid_trunc },
	[T_SET_FTRACE_PID] = { "set_ftrace_pid", T_ROOT, ONE, RW,
			       tracefs_ftrace_pid_text,
			       tracefs_ftrace_pid_write,
			       tracefs_ftrace_pid_trunc },
	[T_FTRACE_NOTRACE] = { "set_ftrace_notrace", T_ROOT, ONE, RW,
			       tracefs_ftrace_notrace_text,
			       tracefs_ftrace_notrace_write,
			       tracefs_ftrace_notrace_trunc },
	[T_GRAPH_NOTRACE] = { "set_graph_notrace", T_ROOT, ONE, RW,
			      tracefs_graph_notrace_text,
			      tracefs_graph_notrace_write,
			      tracefs_graph_notrace_trunc },
	[T_MAX_GRAPH_DEPTH] = { "max_graph_depth", T_ROOT, ONE, RW,
				tracefs_max_depth_text,
				tracefs_max_depth_write },
};

/* ---- the generator ------------------------------------------------------- */

#define QROW(q)		((uint32_t)((q) >> 16 & 0xff))
#define QINST(q)	((uint32_t)((q) & 0xffff))
#define TFS_QID(row, inst) (TFS_Q | (uint64_t)(row) << 16 | (inst))

/* The row and instance of chan c (devttrace's root: the tree's). */
static void row_of(const struct chan *c, uint32_t *row, uint32_t *inst)
{
	uint64_t q = c->qid.path;

	*row = q & TFS_Q ? QROW(q) : T_ROOT;
	*inst = q & TFS_Q ? QINST(q) : 0;
}

/* How many entries row r stands for in a directory of instance x, and
 * the instance of the k-th (k < that count). */
static uint32_t many_count(uint32_t r, uint32_t x)
{
	const struct ttrace_meta_table *m = meta();
	uint32_t n = 0;

	switch (tfs_tab[r].many) {
	case PER_CPU:
		return num_cpus;
	case PER_GROUP:
		return m->ngroups;
	case PER_EVENT:
		for (uint32_t e = 0; e < m->nevents; e++)
			n += m->events[e].group == x;
		return n;
	case PER_OPTION:
		return tracefs_noptions;
	default:
		return 1;
	}
}

static uint32_t many_inst(uint32_t r, uint32_t x, uint32_t k)
{
	const struct ttrace_meta_table *m = meta();

	switch (tfs_tab[r].many) {
	case PER_GROUP:
		return m->groups[k].bit;
	case PER_EVENT:
		for (uint32_t e = 0; e < m->nevents; e++)
			if (m->events[e].group == x && !k--)
				return e;
		return 0;
	case PER_CPU:
	case PER_OPTION:
		return k;
	default:
		return x;
	}
}

/* Fills *e with row r's entry of instance x; 0 if there is none (an
 * event or CPU gone). */
static int entry(uint32_t r, uint32_t x, struct devdir *e)
{
	const struct tfs_file *f = &tfs_tab[r];
	const struct ttrace_meta_table *m = meta();

	switch (f->many) {
	case PER_CPU:
		if (x >= num_cpus)
			return 0;
		fmt_snprintf(e->name, sizeof(e->name), "cpu%u", x);
		break;
	case PER_GROUP:
		if (!ttrace_meta_group(m, x))
			return 0;
		strlcpy(e->name, group_name(x), sizeof(e->name));
		break;
	case PER_EVENT:
		if (x >= m->nevents)
			return 0;
		strlcpy(e->name, m->events[x].name, sizeof(e->name));
		break;
	case PER_OPTION:
		if (x >= tracefs_noptions)
			return 0;
		strlcpy(e->name, tracefs_option_name(x), sizeof(e->name));
		break;
	default:
		strlcpy(e->name, f->name, sizeof(e->name));
	}
	e->qid = (struct qid){ .path = TFS_QID(r, x),
			       .type = f->perm & S_IFDIR ? QTDIR : QTFILE };
	if (r == T_EVENTS)	/* cat events: the ctl state, as before */
		e->qid.type |= QTTEXT;
	if (r == T_TRACE_PIPE || r == T_CPU_PIPE || r == T_CPU_PIPE_RAW)
		e->qid.type |= QTSTREAM;
	e->perm = f->perm;
	e->length = 0;
	return 1;
}

int tracefs_gen(struct chan *c, const char *name, uint64_t i,
		struct devdir *e)
{
	uint32_t d, x;

	(void)name;
	row_of(c, &d, &x);
	if (i == DEVGEN_SELF)
		return entry(d, x, e);
	for (uint32_t r = 1; r < T_COUNT; r++) {
		uint32_t n;

		if (!tfs_tab[r].perm || tfs_tab[r].dir != d)
			continue;
		n = many_count(r, x);
		if (i < n)
			return entry(r, many_inst(r, x, (uint32_t)i), e);
		i -= n;
	}
	return 0;
}

/* ---- reads and writes ---------------------------------------------------- */

#define TFS_TEXT_MAX	(4 * PGSIZE)

static int text_make(struct chan *c, struct seqbuf *s)
{
	uint32_t r, x;

	row_of(c, &r, &x);
	if (r == T_EVENTS)
		ttrace_events_text(s);
	else
		tfs_tab[r].text(s, x);
	return 0;
}

bool tracefs_needs_right(uint64_t q)
{
	uint32_t r = QROW(q);

	return r == T_TRACE || r == T_TRACE_PIPE || r == T_CPU_TRACE ||
	       r == T_CPU_PIPE || r == T_EV_HIST || r == T_SAVED_CMDLINES ||
	       r == T_SNAPSHOT || r == T_CPU_PIPE_RAW || r == T_STACK_TRACE ||
	       r == T_SYNTH_EVENTS;
}

bool tracefs_is_marker(uint64_t q)
{
	return (q & TFS_Q) && QROW(q) == T_TRACE_MARKER;
}

/* trace_pipe_raw: pages consumed as they are read (reader.c); with
 * nothing new it sleeps (^C, a kill: EINTR), but once this open gave a
 * page, nothing new with tracing off ends it (0), as Linux's trace_pipe
 * (tracing_wait_pipe). The device layer has no O_NONBLOCK. */
static long pipe_raw_read(struct ttrace_reader *rd, void *buf, size_t n,
			  uint64_t off)
{
	for (;;) {
		bool off_before = !tracing_is_on();
		long got = ttrace_reader_read(rd, buf, n, off);

		if (got || (off_before && ttrace_reader_gave(rd)))
			return got;
		if (ksleep_ns(PIPE_RAW_NAP_NS) < 0)
			return -EINTR;
	}
}

long tracefs_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	uint32_t r, x;

	row_of(c, &r, &x);
	if (c->aux && r == T_CPU_PIPE_RAW)
		return pipe_raw_read(c->aux, buf, n, off);
	if (c->aux)
		return tracefs_trace_read(c->aux, buf, n);
	if (r != T_EVENTS && !tfs_tab[r].text)
		return -EBADF;
	return devgen_readtext(c, buf, n, off, TFS_TEXT_MAX, text_make);
}

long tracefs_write(struct chan *c, const void *buf, size_t n)
{
	char line[LINE_MAX + 1];
	const char *why = NULL;
	uint32_t r, x;
	size_t len = n;
	int err;

	row_of(c, &r, &x);
	if (r == T_TRACE_MARKER) {
		ttrace_mark(buf, n);
		return (long)n;
	}
	if (!tfs_tab[r].write)
		return -EBADF;
	while (len && (((const char *)buf)[len - 1] == '\n' ||
		       ((const char *)buf)[len - 1] == ' '))
		len--;
	if (len > LINE_MAX)
		return errstr_device(-EINVAL, "tracefs: write too long");
	memcpy(line, buf, len);
	line[len] = 0;
	err = tfs_tab[r].write(x, line, &why);
	if (err && !tracefs_refusal_logged(why))	/* ftrace's error_log */
		err = tracefs_refuse(err, tfs_tab[r].name ? tfs_tab[r].name :
				     "tracefs", line, len, 0, why ? why : "",
				     &why);
	return err ? errstr_device(err, why) : (long)n;
}

int tracefs_truncate(struct chan *c)
{
	const char *why = NULL;
	uint32_t r, x;
	int err;

	row_of(c, &r, &x);
	if (!tfs_tab[r].trunc)
		return 0;
	err = tfs_tab[r].trunc(x, &why);
	return err ? (int)errstr_device(err, why) : 0;
}

int tracefs_open(struct chan *c, int omode)
{
	uint32_t r, x;

	row_of(c, &r, &x);
	if (r == T_TRACE || r == T_TRACE_PIPE)
		c->aux = tracefs_trace_new(r == T_TRACE_PIPE, TRACEFS_ALL_CPUS);
	else if (r == T_CPU_TRACE || r == T_CPU_PIPE)
		c->aux = tracefs_trace_new(r == T_CPU_PIPE, x);
	else if (r == T_CPU_PIPE_RAW)
		c->aux = ttrace_reader_new(TTRACE_READ_PAGES, x);
	else if (r == T_SNAPSHOT && (omode & O_ACCMODE) != O_WRONLY &&
		 tracefs_snapshot_taken())
		c->aux = tracefs_trace_snap();
	else
		return 0;
	return c->aux ? 0 : -ENOMEM;
}

void tracefs_close(struct chan *c)
{
	uint32_t r, x;

	row_of(c, &r, &x);
	if (r == T_CPU_PIPE_RAW)
		ttrace_reader_free(c->aux);
	else
		tracefs_trace_free(c->aux);
	c->aux = NULL;
}
