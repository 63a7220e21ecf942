/*
 * ctl_parse.c: the group mask, the per-event armed bytes and the ctl
 * commands. ttrace_ctl.h gives the rules; the parser's one promise is
 * that it reads the whole command, resolving every name, before it reports
 * success, so a bad command changes nothing.
 *
 * The commands are one table (Plan 9's Cmdtab, with each command's parser
 * and state change beside its name), every command of the ctl file: how
 * many words follow the name, the parser that fills a struct
 * ttrace_ctl_cmd from them, the change it makes to the ctl state, and its
 * arguments for the usage text, which is built from the table. A command
 * whose apply is NULL is the kernel's to carry out (ttrace_control.c:
 * clear, mode, bufsize, hang, counters, probe, unprobe, module,
 * fprobe, latency, stacktracer, drain). The probe
 * rows' parsers live with the rest of the probes' grammar
 * (ttrace_probe_spec.c) and report through ttrace_ctl_err().
 */
#include <parse_num.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

#include <ttrace_ctl.h>

/* ---- mask and armed bytes ------------------------------------------------ */

/* mask = (mask & ~bits) | (value & bits), atomically. Returns the old mask. */
uint64_t ttrace_mask_setmask(uint64_t *mask, uint64_t value, uint64_t bits)
{
	uint64_t old = __atomic_load_n(mask, __ATOMIC_RELAXED), new;

	do {
		new = (old & ~bits) | (value & bits);
	} while (!__atomic_compare_exchange_n(mask, &old, new, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return old;
}

/* mask |= bits, atomically. Returns the old mask. */
uint64_t ttrace_mask_setbits(uint64_t *mask, uint64_t bits)
{
	return __atomic_fetch_or(mask, bits, __ATOMIC_SEQ_CST);
}

/* mask &= ~bits, atomically. Returns the old mask. */
uint64_t ttrace_mask_clrbits(uint64_t *mask, uint64_t bits)
{
	return __atomic_fetch_and(mask, ~bits, __ATOMIC_SEQ_CST);
}

/*
 * Sets st up with meta's defaults (default-on groups and events) and arms
 * accordingly. enabled and armed hold meta->nevents bytes each.
 */
void ttrace_ctl_init(struct ttrace_ctl_state *st,
		     const struct ttrace_meta_table *meta, uint8_t *enabled,
		     uint8_t *armed)
{
	st->meta = meta;
	st->enabled = enabled;
	st->armed = armed;
	st->probed = NULL;
	st->mask = ttrace_meta_default_mask(meta);
	for (uint32_t i = 0; i < meta->nevents; i++)
		enabled[i] = !!(meta->events[i].flags & TTRACE_EVF_DEFAULT_ON);
	ttrace_ctl_rearm(st);
}

/*
 * Recomputes armed[] from the mask and enabled[], until the mask did not
 * change meanwhile. Precondition: callers of rearm (and writers of
 * enabled[]) are serialised; mask bits may change concurrently.
 */
void ttrace_ctl_rearm(struct ttrace_ctl_state *st)
{
	uint64_t m;

	do {
		m = __atomic_load_n(&st->mask, __ATOMIC_ACQUIRE);
		for (uint32_t i = 0; i < st->meta->nevents; i++)
			__atomic_store_n(&st->armed[i],
					 (uint8_t)ttrace_ctl_wants(st, m, i),
					 __ATOMIC_RELAXED);
	} while (m != __atomic_load_n(&st->mask, __ATOMIC_ACQUIRE));
}

/* Whether event id is recorded under group mask m and its enable flag. */
bool ttrace_ctl_records(const struct ttrace_ctl_state *st, uint64_t m,
			uint32_t id)
{
	return (m >> (st->meta->events[id].group & 63) & 1) && st->enabled[id];
}

/* Whether event id's site must be live: it is recorded, or a probe is
 * attached to it (the probe then decides about the record). What its
 * armed byte must be. */
bool ttrace_ctl_wants(const struct ttrace_ctl_state *st, uint64_t m,
		      uint32_t id)
{
	return ttrace_ctl_records(st, m, id) || (st->probed && st->probed[id]);
}

/* Whether any event is on (tracing off aside). */
bool ttrace_ctl_any_on(const struct ttrace_ctl_state *st)
{
	uint64_t m = __atomic_load_n(&st->mask, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < st->meta->nevents; i++)
		if (ttrace_ctl_wants(st, m, i))
			return true;
	return false;
}

/* ---- parsing ------------------------------------------------------------- */

/* Whether c is in the class at pat ("[...]": characters and ranges a-z,
 * a leading ! or ^ negating, a ']' first taken as itself); *next gets the
 * pattern after it. A '[' with no ']' is a plain character. */
static bool class_match(const char *pat, char c, const char **next)
{
	const char *q = pat + 1;
	bool neg = *q == '!' || *q == '^', in = false;

	q += neg;
	do {
		if (!*q) {
			*next = pat + 1;
			return c == '[';
		}
		if (q[1] == '-' && q[2] && q[2] != ']') {
			in |= c >= q[0] && c <= q[2];
			q += 3;
		} else {
			in |= c == *q++;
		}
	} while (*q != ']');
	*next = q + 1;
	return in != neg;
}

/* Shell-style glob: '*' any run, '?' any one character, [...] one of a
 * class. Without recursion: a '*' remembers where to resume, so a match
 * costs at most strlen(pat) * strlen(s) steps. Any context. */
bool ttrace_glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		const char *next = pat + 1;

		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || (*pat == '[' ?
					   class_match(pat, *s, &next) :
					   *pat == *s)) {
			pat = next;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

struct ctl_cmdtab {
	const char *name;
	uint32_t op;			/* enum ttrace_ctl_op */
	uint8_t min_args, max_args;	/* words after the name */
	/* Fills cmd from tok[0..ntok) (tok[0] the name, the word count
	 * checked); returns NULL or an error (ttrace_ctl_err()). */
	const char *(*parse)(struct ttrace_ctl_cmd *cmd, char **tok,
			     size_t ntok, const struct ttrace_meta_table *meta);
	/* Makes the change in st (rearming follows); NULL: the kernel's. */
	void (*apply)(struct ttrace_ctl_state *st,
		      const struct ttrace_ctl_cmd *cmd);
	const char *usage;		/* the arguments, for the usage */
	bool probe;			/* a probe command: its errors are
					   "ttrace probe:" with their usage */
};

static const struct ctl_cmdtab ctl_cmds[];
static const size_t ctl_ncmds;

/* The row of op, or NULL (op 0: not parsed so far). */
static const struct ctl_cmdtab *row_of(uint32_t op)
{
	for (size_t i = 0; i < ctl_ncmds; i++)
		if (ctl_cmds[i].op == op)
			return &ctl_cmds[i];
	return NULL;
}

/* Appends the usage of the probe commands (probe_only) or of every
 * command, from the table, to s. */
static void usage(struct seqbuf *s, bool probe_only)
{
	const char *sep = "";

	for (const struct ctl_cmdtab *ct = ctl_cmds; ct < ctl_cmds + ctl_ncmds;
	     ct++) {
		if (probe_only && !ct->probe)
			continue;
		seqbuf_puts(s, sep);
		sep = " | ";
		if (probe_only && ct->op == TTRACE_CTL_PROBE)
			ttrace_probe_usage(s);	/* each kind's form */
		else
			seqbuf_printf(s, "%s%s%s", ct->name,
				      ct->usage[0] ? " " : "", ct->usage);
	}
}

/*
 * Sets cmd->err to "ttrace ctl: a b c; usage: ..." listing every command,
 * or for a probe command (cmd->op) "ttrace probe: a b c; usage: ..."
 * listing the probe commands in full; the usage comes from the table, and
 * a message too long for err is cut with the mark. Returns cmd->err.
 */
const char *ttrace_ctl_err(struct ttrace_ctl_cmd *cmd, const char *a,
			   const char *b, const char *c)
{
	const struct ctl_cmdtab *ct = row_of(cmd->op);
	bool probe = ct && ct->probe;
	struct seqbuf s;

	seqbuf_init(&s, cmd->err, sizeof(cmd->err));
	seqbuf_printf(&s, "ttrace %s: %s%s%s; usage: ", probe ? "probe" : "ctl",
		      a, b, c);
	usage(&s, probe);
	seqbuf_mark_cut(&s);
	return cmd->err;
}

/* Splits line (modified in place) at blanks; returns the token count, or
 * max + 1 when there are more. */
static size_t tokenize(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n;
}

/*
 * Copies a command of len bytes (a trailing newline dropped) into line
 * (TTRACE_CTL_MAX_LEN + 1 bytes) and splits it into at most
 * TTRACE_CTL_MAX_TOKENS words in tok. Returns NULL and the count in
 * *ntok, or why the text is no command (too long, a bad character, no
 * word, too many words).
 */
static const char *split(const char *text, size_t len, char *line,
			     char **tok, size_t *ntok)
{
	if (len && text[len - 1] == '\n')
		len--;
	if (len > TTRACE_CTL_MAX_LEN)
		return "command too long";
	for (size_t i = 0; i < len; i++) {
		if ((text[i] < 0x20 && text[i] != '\t') || text[i] > 0x7e)
			return "bad character in command";
		line[i] = text[i];
	}
	line[len] = 0;
	*ntok = tokenize(line, tok, TTRACE_CTL_MAX_TOKENS);
	if (*ntok == 0)
		return "empty command";
	if (*ntok > TTRACE_CTL_MAX_TOKENS)
		return "too many words";
	return NULL;
}

/* enable/disable NAME...: the groups and events the globs match, into
 * cmd->mask and cmd->events. */
static const char *parse_names(struct ttrace_ctl_cmd *cmd, char **tok,
			       size_t ntok, const struct ttrace_meta_table *meta)
{
	if (meta->nevents > TTRACE_META_MAX_EVENTS)
		return ttrace_ctl_err(cmd, "too many events", "", "");
	for (size_t t = 1; t < ntok; t++) {
		bool hit = false;

		for (uint32_t g = 0; g < meta->ngroups; g++) {
			if (ttrace_glob_match(tok[t], meta->groups[g].name)) {
				cmd->mask |= 1ULL << (meta->groups[g].bit & 63);
				hit = true;
			}
		}
		for (uint32_t e = 0; e < meta->nevents; e++) {
			if (ttrace_glob_match(tok[t], meta->events[e].name)) {
				cmd->events[e / 8] |= (uint8_t)(1u << (e % 8));
				hit = true;
			}
		}
		if (!hit)
			return ttrace_ctl_err(cmd, "no group or event matches '",
					      tok[t], "'");
	}
	return NULL;
}

/* Parses number word w into *v. */
static const char *number(struct ttrace_ctl_cmd *cmd, const char *w,
			  uint64_t *v)
{
	return parse_u64_whole(w, v) ? NULL :
	       ttrace_ctl_err(cmd, "bad number '", w, "'");
}

/* setmask VALUE MASK. */
static const char *parse_setmask(struct ttrace_ctl_cmd *cmd, char **tok,
				 size_t ntok, const struct ttrace_meta_table *meta)
{
	const char *err = number(cmd, tok[1], &cmd->value);

	(void)ntok, (void)meta;
	return err ? err : number(cmd, tok[2], &cmd->mask);
}

/* setbits BITS, clrbits BITS. */
static const char *parse_bits(struct ttrace_ctl_cmd *cmd, char **tok,
			      size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)ntok, (void)meta;
	return number(cmd, tok[1], &cmd->mask);
}

/* bufsize KB: a power of two in the page allocator's range. */
static const char *parse_bufsize(struct ttrace_ctl_cmd *cmd, char **tok,
				 size_t ntok, const struct ttrace_meta_table *meta)
{
	const char *err = number(cmd, tok[1], &cmd->value);
	char range[48];

	(void)ntok, (void)meta;
	if (err || (IS_PWR2(cmd->value) && cmd->value >= TTRACE_CTL_MIN_KB &&
		    cmd->value <= TTRACE_CTL_MAX_KB))
		return err;
	fmt_snprintf(range, sizeof(range), "%u..%u", TTRACE_CTL_MIN_KB,
		     TTRACE_CTL_MAX_KB);
	return ttrace_ctl_err(cmd, "bufsize must be a power of two KB, ", range,
			      "");
}

/* mode overwrite|saturate. */
static const char *parse_mode(struct ttrace_ctl_cmd *cmd, char **tok,
			      size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)ntok, (void)meta;
	if (!strcmp(tok[1], "overwrite"))
		cmd->mode = TTRACE_MODE_OVERWRITE;
	else if (!strcmp(tok[1], "saturate"))
		cmd->mode = TTRACE_MODE_SATURATE;
	else
		return ttrace_ctl_err(cmd, "unknown mode '", tok[1], "'");
	return NULL;
}

/* crash [corrupt] (the usage avoids the word the test harness takes
 * for a kernel's panic report). */
static const char *parse_crash(struct ttrace_ctl_cmd *cmd, char **tok,
			       size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)meta;
	cmd->mode = TTRACE_CRASH_PANIC;
	if (ntok == 2 && strcmp(tok[1], "corrupt"))
		return ttrace_ctl_err(cmd, "crash: nothing or corrupt, not '",
				      tok[1], "'");
	if (ntok == 2)
		cmd->mode = TTRACE_CRASH_CORRUPT;
	return NULL;
}

/* stacktracer on|off|reset. */
static const char *parse_stacktracer(struct ttrace_ctl_cmd *cmd, char **tok,
				     size_t ntok,
				     const struct ttrace_meta_table *meta)
{
	static const char *const ops[] = {
		[TTRACE_STACKTRACER_OFF] = "off",
		[TTRACE_STACKTRACER_ON] = "on",
		[TTRACE_STACKTRACER_RESET] = "reset",
	};

	(void)ntok, (void)meta;
	for (uint32_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(tok[1], ops[i])) {
			cmd->mode = i;
			return NULL;
		}
	return ttrace_ctl_err(cmd, "stacktracer: '", tok[1],
			      "' is not on, off or reset");
}

/* counters MS [all]. */
static const char *parse_counters(struct ttrace_ctl_cmd *cmd, char **tok,
				  size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)meta;
	if (ntok == 3 && strcmp(tok[2], "all"))
		return ttrace_ctl_err(cmd, "counters: MS [all]", "", "");
	if (!parse_u64_whole(tok[1], &cmd->value) ||
	    cmd->value > TTRACE_CTL_MAX_COUNTER_MS)
		return ttrace_ctl_err(cmd, "counters: bad period '", tok[1],
				      "' (0 to 60000 ms)");
	cmd->mode = ntok == 3;
	return NULL;
}

/* module load PATH, module unload NAME: the word, checked by the module
 * loader when it runs. */
static const char *parse_module(struct ttrace_ctl_cmd *cmd, char **tok,
				size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)ntok, (void)meta;
	if (strcmp(tok[1], "load") && strcmp(tok[1], "unload"))
		return ttrace_ctl_err(cmd, "module: load PATH|unload NAME, not '",
				      tok[1], "'");
	cmd->mode = !strcmp(tok[1], "unload");
	memcpy(cmd->word, tok[2], strlen(tok[2]) + 1);	/* split: it fits */
	return NULL;
}

/* profile on [HZ] [kernel|user|all] [offcpu] [sched] [held] | profile
 * off: each option once, one of kernel, user and all (all by default);
 * held (mode TTRACE_PROFILE_HELD): it ends with the ctl file that wrote
 * it. */
static const char *parse_profile(struct ttrace_ctl_cmd *cmd, char **tok,
				 size_t ntok,
				 const struct ttrace_meta_table *meta)
{
	static const struct {
		const char *word;
		uint64_t bit;
	} opts[] = {
		{ "kernel", TTRACE_PROFILE_KERNEL },
		{ "user", TTRACE_PROFILE_USER },
		{ "all", TTRACE_PROFILE_ALL },
		{ "offcpu", TTRACE_PROFILE_OFFCPU },
		{ "sched", TTRACE_PROFILE_SCHED },
	};
	size_t i = 2;

	(void)meta;
	if (!strcmp(tok[1], "off"))
		return ntok == 2 ? NULL :
		       ttrace_ctl_err(cmd, "profile off: no more words, not '",
				      tok[2], "'");
	if (strcmp(tok[1], "on"))
		return ttrace_ctl_err(cmd, "profile: on or off, not '", tok[1],
				      "'");
	cmd->mode = 1;
	cmd->value = TTRACE_PROFILE_DEFAULT_HZ;
	if (i < ntok && tok[i][0] >= '0' && tok[i][0] <= '9' &&
	    (!parse_u64_whole(tok[i++], &cmd->value) || cmd->value < 1 ||
	     cmd->value > TTRACE_PROFILE_MAX_HZ))
		return ttrace_ctl_err(cmd, "profile: bad rate '", tok[i - 1],
				      "' (1..10000 Hz)");
	for (; i < ntok; i++) {
		size_t o = 0;

		if (!strcmp(tok[i], "held") && cmd->mode == 1) {
			cmd->mode = TTRACE_PROFILE_HELD;
			continue;
		}
		while (o < ARRAY_SIZE(opts) && strcmp(tok[i], opts[o].word))
			o++;
		if (o == ARRAY_SIZE(opts) && !strcmp(tok[i], "held"))
			return ttrace_ctl_err(cmd, "profile: option '", tok[i],
					      "' given twice");
		if (o == ARRAY_SIZE(opts))
			return ttrace_ctl_err(cmd, "profile: unknown option '",
					      tok[i], "'");
		if (cmd->mask & opts[o].bit)
			return ttrace_ctl_err(cmd, "profile: option '", tok[i],
					      "' given twice");
		cmd->mask |= opts[o].bit;
	}
	if (!(cmd->mask & TTRACE_PROFILE_ALL))
		cmd->mask |= TTRACE_PROFILE_ALL;
	return NULL;
}

const char *const ttrace_lat_names[TTRACE_LAT_COUNT] = {
	[TTRACE_LAT_IRQSOFF] = "irqsoff",
	[TTRACE_LAT_WAKEUP] = "wakeup",
	[TTRACE_LAT_TIMERLAT] = "timerlat",
	[TTRACE_LAT_OSNOISE] = "osnoise",
};

/* Parses word w, a number in 1..max, into *v. */
static const char *number_in(struct ttrace_ctl_cmd *cmd, const char *w,
			     uint64_t max, uint64_t *v)
{
	char range[40];

	if (parse_u64_whole(w, v) && *v >= 1 && *v <= max)
		return NULL;
	fmt_snprintf(range, sizeof(range), "' (1..%lu)", (unsigned long)max);
	return ttrace_ctl_err(cmd, "latency: bad number '", w, range);
}

/* latency NAME on [N [N]]: timerlat takes a period (us), osnoise a
 * runtime (us) and a threshold (ns), the others no number. */
static const char *parse_latency_on(struct ttrace_ctl_cmd *cmd, char **tok,
				    size_t ntok)
{
	size_t max = cmd->lat == TTRACE_LAT_TIMERLAT ? 4 :
		     cmd->lat == TTRACE_LAT_OSNOISE ? 5 : 3;
	const char *err = NULL;

	if (ntok > max)
		return ttrace_ctl_err(cmd, "latency: too many words after '",
				      tok[2], "'");
	if (ntok > 3)
		err = number_in(cmd, tok[3], TTRACE_LAT_MAX_US, &cmd->value);
	if (!err && ntok > 4)
		err = number_in(cmd, tok[4], TTRACE_LAT_MAX_THRESHOLD_NS,
				&cmd->mask);
	return err;
}

/* latency NAME on|off|reset, latency NAME threshold US, and on's
 * numbers for timerlat and osnoise. */
static const char *parse_latency(struct ttrace_ctl_cmd *cmd, char **tok,
				 size_t ntok, const struct ttrace_meta_table *meta)
{
	static const char *const ops[] = {
		[TTRACE_LAT_ON] = "on", [TTRACE_LAT_OFF] = "off",
		[TTRACE_LAT_RESET] = "reset", [TTRACE_LAT_THRESHOLD] = "threshold",
	};

	(void)meta;
	for (cmd->lat = 0; cmd->lat < TTRACE_LAT_COUNT &&
	     strcmp(tok[1], ttrace_lat_names[cmd->lat]); cmd->lat++)
		;
	if (cmd->lat == TTRACE_LAT_COUNT)
		return ttrace_ctl_err(cmd, "latency: no tracer '", tok[1],
				      "' (irqsoff, wakeup, timerlat, osnoise)");
	for (cmd->mode = 0; cmd->mode < ARRAY_SIZE(ops) &&
	     strcmp(tok[2], ops[cmd->mode]); cmd->mode++)
		;
	if (cmd->mode == ARRAY_SIZE(ops))
		return ttrace_ctl_err(cmd, "latency: unknown action '", tok[2],
				      "' (on, off, reset, threshold US)");
	if (cmd->mode == TTRACE_LAT_ON)
		return parse_latency_on(cmd, tok, ntok);
	if ((cmd->mode == TTRACE_LAT_THRESHOLD) != (ntok == 4))
		return ttrace_ctl_err(cmd, "latency: only threshold takes a "
				      "number: ", tok[2], "");
	if (ntok == 4 && (!parse_u64_whole(tok[3], &cmd->value) ||
			  cmd->value > TTRACE_CTL_MAX_LAT_US))
		return ttrace_ctl_err(cmd, "latency: bad threshold '", tok[3],
				      "' (0 to 10000000 us)");
	return NULL;
}

/* drain on|off. */
static const char *parse_drain(struct ttrace_ctl_cmd *cmd, char **tok,
			       size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)ntok, (void)meta;
	if (strcmp(tok[1], "on") && strcmp(tok[1], "off"))
		return ttrace_ctl_err(cmd, "drain: on|off, not '", tok[1], "'");
	cmd->mode = !strcmp(tok[1], "on");
	return NULL;
}

/* clear, hang: nothing to parse but the word count. */
static const char *parse_none(struct ttrace_ctl_cmd *cmd, char **tok,
			      size_t ntok, const struct ttrace_meta_table *meta)
{
	(void)cmd, (void)tok, (void)ntok, (void)meta;
	return NULL;
}

/* enable/disable: the events' enable bytes and the groups' mask bits. */
static void apply_names(struct ttrace_ctl_state *st,
			const struct ttrace_ctl_cmd *cmd)
{
	bool on = cmd->op == TTRACE_CTL_ENABLE;

	for (uint32_t e = 0; e < st->meta->nevents; e++)
		if (cmd->events[e / 8] & (1u << (e % 8)))
			st->enabled[e] = on;
	if (on)
		ttrace_mask_setbits(&st->mask, cmd->mask);
	else
		ttrace_mask_clrbits(&st->mask, cmd->mask);
}

static void apply_setmask(struct ttrace_ctl_state *st,
			  const struct ttrace_ctl_cmd *cmd)
{
	ttrace_mask_setmask(&st->mask, cmd->value, cmd->mask);
}

static void apply_setbits(struct ttrace_ctl_state *st,
			  const struct ttrace_ctl_cmd *cmd)
{
	ttrace_mask_setbits(&st->mask, cmd->mask);
}

static void apply_clrbits(struct ttrace_ctl_state *st,
			  const struct ttrace_ctl_cmd *cmd)
{
	ttrace_mask_clrbits(&st->mask, cmd->mask);
}

#define MANY	(TTRACE_CTL_MAX_TOKENS - 1)

static const struct ctl_cmdtab ctl_cmds[] = {
	{ "enable", TTRACE_CTL_ENABLE, 1, MANY, parse_names, apply_names,
	  "NAME...", false },
	{ "disable", TTRACE_CTL_DISABLE, 1, MANY, parse_names, apply_names,
	  "NAME...", false },
	{ "setmask", TTRACE_CTL_SETMASK, 2, 2, parse_setmask, apply_setmask,
	  "VALUE MASK", false },
	{ "setbits", TTRACE_CTL_SETBITS, 1, 1, parse_bits, apply_setbits,
	  "BITS", false },
	{ "clrbits", TTRACE_CTL_CLRBITS, 1, 1, parse_bits, apply_clrbits,
	  "BITS", false },
	{ "clear", TTRACE_CTL_CLEAR, 0, 0, parse_none, NULL, "", false },
	{ "mode", TTRACE_CTL_MODE, 1, 1, parse_mode, NULL,
	  "overwrite|saturate", false },
	{ "bufsize", TTRACE_CTL_BUFSIZE, 1, 1, parse_bufsize, NULL, "KB",
	  false },
	{ "hang", TTRACE_CTL_HANG, 0, 0, parse_none, NULL, "", false },
	{ "crash", TTRACE_CTL_CRASH, 0, 1, parse_crash, NULL,
	  "[corrupt]", false },
	{ "counters", TTRACE_CTL_COUNTERS, 1, 2, parse_counters, NULL,
	  "MS [all]", false },
	/* the word counts of a probe depend on its kind: its parser's */
	{ "probe", TTRACE_CTL_PROBE, 0, MANY, ttrace_probe_parse_add, NULL,
	  "NAME KIND ...", true },
	{ "unprobe", TTRACE_CTL_UNPROBE, 0, MANY, ttrace_probe_parse_remove,
	  NULL, "NAME|*", true },
	{ "module", TTRACE_CTL_MODULE, 2, 2, parse_module, NULL,
	  "load PATH|unload NAME", false },
	{ "fprobe", TTRACE_CTL_FPROBE, 2, MANY, ttrace_fprobe_parse, NULL,
	  "add NAME FUNC[%return] [FIELD=]argN|ret:TYPE...|del NAME", false },
	{ "latency", TTRACE_CTL_LATENCY, 2, 4, parse_latency, NULL,
	  "NAME on|off|reset|threshold US|timerlat on [PERIOD_US]|"
	  "osnoise on [RUNTIME_US [THRESHOLD_NS]]", false },
	{ "stacktracer", TTRACE_CTL_STACKTRACER, 1, 1, parse_stacktracer,
	  NULL, "on|off|reset", false },
	{ "drain", TTRACE_CTL_DRAIN, 1, 1, parse_drain, NULL, "on|off",
	  false },
	{ "profile", TTRACE_CTL_PROFILE, 1, 6, parse_profile, NULL,
	  "on [HZ] [kernel|user|all] [offcpu] [sched] [held]|off", false },
};

static const size_t ctl_ncmds = ARRAY_SIZE(ctl_cmds);

/*
 * Parses one ctl command of len bytes (not NUL terminated) against meta's
 * names into *cmd. Returns NULL on success, else an error message with the
 * usage (kept in cmd->err). Touches nothing but *cmd.
 */
const char *ttrace_ctl_parse(struct ttrace_ctl_cmd *cmd, const char *text,
			     size_t len, const struct ttrace_meta_table *meta)
{
	char line[TTRACE_CTL_MAX_LEN + 1];
	char *tok[TTRACE_CTL_MAX_TOKENS];
	const struct ctl_cmdtab *ct;
	size_t ntok;
	const char *why;

	memset(cmd, 0, sizeof(*cmd));
	why = split(text, len, line, tok, &ntok);
	if (why)
		return ttrace_ctl_err(cmd, why, "", "");
	for (ct = ctl_cmds; ct < ctl_cmds + ctl_ncmds; ct++)
		if (!strcmp(tok[0], ct->name))
			break;
	if (ct == ctl_cmds + ctl_ncmds)
		return ttrace_ctl_err(cmd, "unknown command '", tok[0], "'");
	cmd->op = ct->op;
	if (ntok - 1 < ct->min_args || ntok - 1 > ct->max_args)
		return ttrace_ctl_err(cmd, ct->name, ct->usage[0] ? ": " :
				      " takes no arguments", ct->usage);
	return ct->parse(cmd, tok, ntok, meta);
}

/*
 * Applies a parsed command's change to st and rearms; the commands the
 * kernel carries out change nothing here. Precondition: cmd came from
 * ttrace_ctl_parse() with st->meta and succeeded; callers are serialised
 * as for ttrace_ctl_rearm().
 */
void ttrace_ctl_apply(struct ttrace_ctl_state *st,
		      const struct ttrace_ctl_cmd *cmd)
{
	const struct ctl_cmdtab *ct = row_of(cmd->op);

	if (ct && ct->apply) {
		ct->apply(st, cmd);
		ttrace_ctl_rearm(st);
	}
}

/* ---- listing ------------------------------------------------------------- */

/* Appends one line of the listing to s. */
static void list_line(struct seqbuf *s, const char *kind, const char *name,
		      const char *group, unsigned bit, bool on, bool armed)
{
	if (group)
		seqbuf_printf(s, "%s %s %s %s %s\n", kind, name, group,
			      on ? "on" : "off", armed ? "armed" : "-");
	else
		seqbuf_printf(s, "%s %s %u %s\n", kind, name, bit,
			      on ? "on" : "off");
}

/*
 * Lists the state as text, one line each: "mask 0x..." first, then
 *	group NAME BIT on|off
 *	event NAME GROUP on|off armed|-
 * where an event's on/off is its own enable and "armed" means it is being
 * recorded, appended to s. For the #ttrace "events" file.
 */
void ttrace_ctl_list(const struct ttrace_ctl_state *st, struct seqbuf *s)
{
	const struct ttrace_meta_table *t = st->meta;
	uint64_t mask = __atomic_load_n(&st->mask, __ATOMIC_RELAXED);

	seqbuf_printf(s, "mask %#llx\n", (unsigned long long)mask);
	for (uint32_t g = 0; g < t->ngroups; g++)
		list_line(s, "group", t->groups[g].name, NULL,
			  t->groups[g].bit, mask >> (t->groups[g].bit & 63) & 1,
			  false);
	for (uint32_t e = 0; e < t->nevents; e++) {
		const struct ttrace_group_meta *gm =
			ttrace_meta_group(t, t->events[e].group);

		list_line(s, "event", t->events[e].name, gm ? gm->name : "?", 0,
			  st->enabled[e],
			  __atomic_load_n(&st->armed[e], __ATOMIC_RELAXED));
	}
}
