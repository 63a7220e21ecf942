/*
 * ttrace_dynevent.h: the tracefs files of issue 31 that have a grammar of
 * their own (kern/trace/lib/dynevent_parse.c, errlog.c): Linux's
 * dynamic_events lines in fprobe syntax, translated to the one ctl
 * command that carries them out (`fprobe add`/`fprobe del`, ttrace_fprobe.h),
 * and ftrace's error log. Pure and host-tested; the kernel side is
 * kern/trace/tracefs_dyn.c.
 *
 * dynamic_events (Linux's Documentation/trace/fprobetrace.rst):
 *	f[:[GRP/]EVENT] FUNC [FETCHARGS]		at FUNC's entry
 *	f[:[GRP/]EVENT] FUNC%return [FETCHARGS]	at its return
 *	-:[GRP/]EVENT					delete
 * GRP is fprobe (ours) or fprobes (Linux's default, an alias); EVENT
 * defaults to FUNC__entry or FUNC__exit. FETCHARG is [NAME=]FETCH[:TYPE]
 * (NAME defaults to argN, N counting from 1 as Linux does; TYPE to u64):
 *	%di %si %dx %cx %r8 %r9 (or %rdi ...)	an argument register
 *	$argN (N 1..6)				the same, by position
 *	$retval					the return value (%return only)
 *	+0(FETCH):string, +0(FETCH):ustring	the string FETCH points to
 *	+u0(FETCH):string			... in user memory
 * TYPE: u8 u16 u32 u64 s8 s16 s32 s64, x8..x64 (kept as uN: we print
 * them in decimal), string, ustring. What differs from Linux (a memory
 * dereference other than a string's at +0, $stackN, $comm, @SYM, \IMM,
 * symbol/bitfield/array types) is refused with an error-log entry.
 *
 * Usage:
 *	struct ttrace_dynevent_err e;
 *	char ctl[TTRACE_CTL_MAX_LEN + 1];
 *	if (ttrace_dynevent_parse(line, len, ctl, sizeof(ctl), &info, &e))
 *		log e.why at e.pos, fail with e.err (-EINVAL ...)
 *	else ttrace_control(ctl, ...)
 */
#ifndef TTRACE_DYNEVENT_H
#define TTRACE_DYNEVENT_H

#include <compiler.h>
#include <seqbuf.h>
#include <ttrace_fprobe.h>

/* Why a line was refused: Linux's error text, the offset of the bad
 * token in the line (for the error log's caret), the errno (negative). */
struct ttrace_dynevent_err {
	const char *why;
	size_t pos;
	int err;
};

/* What a definition names, for the caller's checks against the live
 * events (positions of EVENT and FUNC in the line, for the caret). */
struct ttrace_dynevent_info {
	bool del;
	char name[TTRACE_FPROBE_NAME_MAX + 1];
	char func[TTRACE_FPROBE_FUNC_MAX + 1];
	size_t name_pos, func_pos;
};

/* Translates one dynamic_events line (len bytes, a trailing newline
 * allowed) into the ctl command text that does it, at most size bytes
 * with the NUL. Returns 0, or -1 with *e filled (nothing to do). An empty
 * or comment line gives an empty command. */
int ttrace_dynevent_parse(const char *line, size_t len, char *ctl,
			  size_t size, struct ttrace_dynevent_info *info,
			  struct ttrace_dynevent_err *e);

/* One probe as its dynamic_events line (Linux's syntax), in group, with
 * a newline. */
void ttrace_dynevent_text(const struct ttrace_fprobe_spec *spec,
			  const char *group, struct seqbuf *s);

/*
 * Synthetic events and their onmatch() histograms (Linux's
 * Documentation/trace/histogram.rst, section 2.2), mapped onto the one
 * latency probe (`probe NAME latency START END by KEY match ENDKEY emit
 * NAME FIELD...`, docs/probes.md):
 *	synthetic_events:  NAME TYPE FIELD[; TYPE FIELD...]   or  !NAME
 *	START's trigger:   hist:keys=KEY:VAR=common_timestamp[.usecs]
 *	END's trigger:     hist:keys=ENDKEY:LAT=common_timestamp[.usecs]-$VAR:
 *			   onmatch(GROUP.START).trace(NAME,$LAT[,FIELD...])
 *			   (or .NAME($LAT,...) for .trace(NAME,...))
 * The latency is START to the next END on any CPU whose ENDKEY is START's
 * KEY, in ns, kept as a log2 histogram per KEY, and recorded as the
 * synthetic event NAME (the latency, then END's FIELDs) when it is
 * enabled.
 */
#define TTRACE_SYNTH_NAME_MAX	TTRACE_FPROBE_NAME_MAX
#define TTRACE_SYNTH_FIELDS_MAX	96	/* the fields' text */
#define TTRACE_SYNTH_NFIELDS	4	/* the latency and 3 more (a record
					   of 4 words: probe emit) */

struct ttrace_synth_field {
	char name[TTRACE_SYNTH_NAME_MAX + 1];
	uint8_t type;		/* enum ttrace_arg_type */
};

struct ttrace_synth_def {
	bool del;
	char name[TTRACE_SYNTH_NAME_MAX + 1];
	char fields[TTRACE_SYNTH_FIELDS_MAX + 1];	/* "u64 lat; pid_t pid" */
	uint32_t nfields;
	struct ttrace_synth_field field[TTRACE_SYNTH_NFIELDS];
};

enum ttrace_synth_kind { TTRACE_SYNTH_NONE, TTRACE_SYNTH_START,
			 TTRACE_SYNTH_MATCH };

/* A hist trigger with variables, as parsed. */
struct ttrace_synth_hist {
	uint32_t kind;		/* enum ttrace_synth_kind */
	char key[TTRACE_SYNTH_NAME_MAX + 1];	/* keys=, as given */
	char var[TTRACE_SYNTH_NAME_MAX + 1];	/* START: VAR; MATCH: LAT */
	char start_var[TTRACE_SYNTH_NAME_MAX + 1];	/* MATCH: $VAR */
	char start[2 * TTRACE_SYNTH_NAME_MAX + 2];	/* MATCH: GROUP.START */
	char synth[TTRACE_SYNTH_NAME_MAX + 1];	/* MATCH: NAME */
	uint32_t nparams;			/* MATCH: the FIELDs after */
	char params[TTRACE_SYNTH_NFIELDS - 1][TTRACE_SYNTH_NAME_MAX + 1];
};

/* A synthetic_events line into *d. 0, or -1 with *e. */
int ttrace_synth_def_parse(const char *line, struct ttrace_synth_def *d,
			   struct ttrace_dynevent_err *e);
/* A trigger (trig: "hist:...", without its "if") into *h: 0 with kind
 * NONE when it has no variable (a plain hist trigger: not ours), 0 with
 * START or MATCH, or -1 with *e (positions in trig). */
int ttrace_synth_hist_parse(const char *trig, struct ttrace_synth_hist *h,
			    struct ttrace_dynevent_err *e);

/*
 * ftrace's error log (Linux's tracing_log_err()): the last
 * TTRACE_ERRLOG_MAX refused writes, each read back as
 *	[ SEC.USEC] LOC: error: WHY
 *	  Command: CMD
 *	           ^			(the caret under the bad token)
 * Fixed-size entries: a longer command is cut (the caret stays in it),
 * so the text is bounded by construction. No lock here: the kernel's
 * caller holds one (kern/trace/tracefs_dyn.c).
 */
#define TTRACE_ERRLOG_MAX	8
#define TTRACE_ERRLOG_CMD	128	/* bytes of a command kept */
#define TTRACE_ERRLOG_LOC	24
#define TTRACE_ERRLOG_WHY	96
/* The longest text: every entry's three lines at their longest. */
#define TTRACE_ERRLOG_TEXT_MAX	(TTRACE_ERRLOG_MAX * (40 + \
	TTRACE_ERRLOG_LOC + TTRACE_ERRLOG_WHY + 2 * TTRACE_ERRLOG_CMD + 16))

struct ttrace_errlog_entry {
	uint64_t ns;
	uint32_t pos;
	char loc[TTRACE_ERRLOG_LOC];
	char why[TTRACE_ERRLOG_WHY];
	char cmd[TTRACE_ERRLOG_CMD];
};

struct ttrace_errlog {
	struct ttrace_errlog_entry e[TTRACE_ERRLOG_MAX];
	uint32_t next;		/* the slot the next entry takes */
	uint32_t count;		/* entries kept, at most TTRACE_ERRLOG_MAX */
};

/* Adds an entry (the oldest goes when full): at ns, from loc, the
 * command cmd (len bytes, a trailing newline dropped), the caret at
 * pos, the reason why. */
void ttrace_errlog_add(struct ttrace_errlog *l, uint64_t ns, const char *loc,
		       const char *cmd, size_t len, size_t pos,
		       const char *why);
void ttrace_errlog_clear(struct ttrace_errlog *l);
/* The entries, oldest first, as Linux's error_log reads. */
void ttrace_errlog_text(const struct ttrace_errlog *l, struct seqbuf *s);

#endif /* TTRACE_DYNEVENT_H */
