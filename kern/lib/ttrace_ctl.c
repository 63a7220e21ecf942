/*
 * ttrace_ctl.c: the group mask, the per-event armed bytes and the ctl
 * command parser. ttrace_ctl.h gives the rules; the parser's one promise is
 * that it reads the whole command, resolving every name, before it reports
 * success, so a bad command changes nothing.
 */
#include <parse_num.h>
#include <printfmt.h>
#include <string.h>

#include <ttrace_ctl.h>

static const char ctl_usage[] =
	"usage: enable NAME... | disable NAME... | setmask VALUE MASK | "
	"setbits BITS | clrbits BITS | clear | mode overwrite|saturate | "
	"bufsize KB | hang | counters MS [all] | probe ... | unprobe NAME";

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

/* Shell-style glob: '*' any run, '?' any one character. */
bool ttrace_glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
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

/* Sets cmd->err to "a b c; usage" and returns it. */
static const char *ctl_err(struct ttrace_ctl_cmd *cmd, const char *a,
			   const char *b, const char *c)
{
	const char *parts[] = { "ttrace ctl: ", a, b, c, "; ", ctl_usage };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (const char *p = parts[i]; p && *p && n + 1 < sizeof(cmd->err); p++)
			cmd->err[n++] = *p;
	cmd->err[n] = 0;
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
const char *ttrace_ctl_split(const char *text, size_t len, char *line,
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

/* Resolves enable/disable NAMEs into cmd->mask and cmd->events. */
static const char *parse_names(struct ttrace_ctl_cmd *cmd, char **tok,
			       size_t ntok, const struct ttrace_meta_table *meta)
{
	if (ntok < 2)
		return ctl_err(cmd, tok[0], ": needs at least one name", "");
	if (meta->nevents > TTRACE_META_MAX_EVENTS)
		return ctl_err(cmd, "too many events", "", "");
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
			return ctl_err(cmd, "no group or event matches '", tok[t], "'");
	}
	return NULL;
}

/* Parses the numbers of setmask/setbits/clrbits/bufsize. */
static const char *parse_numbers(struct ttrace_ctl_cmd *cmd, char **tok,
				 size_t ntok, size_t want)
{
	uint64_t v[2] = { 0, 0 };

	if (ntok != want + 1)
		return ctl_err(cmd, tok[0], ": wrong number of arguments", "");
	for (size_t i = 0; i < want; i++)
		if (!parse_u64_whole(tok[i + 1], &v[i]))
			return ctl_err(cmd, "bad number '", tok[i + 1], "'");
	if (cmd->op == TTRACE_CTL_SETMASK) {
		cmd->value = v[0];
		cmd->mask = v[1];
	} else if (cmd->op == TTRACE_CTL_BUFSIZE) {
		if (!IS_PWR2(v[0]) || v[0] < TTRACE_CTL_MIN_KB ||
		    v[0] > TTRACE_CTL_MAX_KB) {
			char range[48];

			fmt_snprintf(range, sizeof(range), "%u..%u",
				     TTRACE_CTL_MIN_KB, TTRACE_CTL_MAX_KB);
			return ctl_err(cmd, "bufsize must be a power of two "
				       "KB, ", range, "");
		}
		cmd->value = v[0];
	} else {
		cmd->mask = v[0];
	}
	return NULL;
}

static const char *parse_mode(struct ttrace_ctl_cmd *cmd, char **tok,
			      size_t ntok)
{
	if (ntok != 2)
		return ctl_err(cmd, "mode: wrong number of arguments", "", "");
	if (!strcmp(tok[1], "overwrite"))
		cmd->mode = TTRACE_MODE_OVERWRITE;
	else if (!strcmp(tok[1], "saturate"))
		cmd->mode = TTRACE_MODE_SATURATE;
	else
		return ctl_err(cmd, "unknown mode '", tok[1], "'");
	return NULL;
}

/* Parses "counters MS [all]". */
static const char *parse_counters(struct ttrace_ctl_cmd *cmd, char **tok,
				  size_t ntok)
{
	if (ntok < 2 || ntok > 3 || (ntok == 3 && strcmp(tok[2], "all")))
		return ctl_err(cmd, "counters: MS [all]", "", "");
	if (!parse_u64_whole(tok[1], &cmd->value) ||
	    cmd->value > TTRACE_CTL_MAX_COUNTER_MS)
		return ctl_err(cmd, "counters: bad period '", tok[1],
			       "' (0 to 60000 ms)");
	cmd->mode = ntok == 3;
	return NULL;
}

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
	size_t ntok;
	const char *why;

	memset(cmd, 0, sizeof(*cmd));
	why = ttrace_ctl_split(text, len, line, tok, &ntok);
	if (why)
		return ctl_err(cmd, why, "", "");
	if (!strcmp(tok[0], "enable") || !strcmp(tok[0], "disable")) {
		cmd->op = tok[0][0] == 'e' ? TTRACE_CTL_ENABLE : TTRACE_CTL_DISABLE;
		return parse_names(cmd, tok, ntok, meta);
	}
	if (!strcmp(tok[0], "setmask"))
		return cmd->op = TTRACE_CTL_SETMASK, parse_numbers(cmd, tok, ntok, 2);
	if (!strcmp(tok[0], "setbits"))
		return cmd->op = TTRACE_CTL_SETBITS, parse_numbers(cmd, tok, ntok, 1);
	if (!strcmp(tok[0], "clrbits"))
		return cmd->op = TTRACE_CTL_CLRBITS, parse_numbers(cmd, tok, ntok, 1);
	if (!strcmp(tok[0], "bufsize"))
		return cmd->op = TTRACE_CTL_BUFSIZE, parse_numbers(cmd, tok, ntok, 1);
	if (!strcmp(tok[0], "counters"))
		return cmd->op = TTRACE_CTL_COUNTERS, parse_counters(cmd, tok, ntok);
	if (!strcmp(tok[0], "mode"))
		return cmd->op = TTRACE_CTL_MODE, parse_mode(cmd, tok, ntok);
	if (!strcmp(tok[0], "clear")) {
		cmd->op = TTRACE_CTL_CLEAR;
		return ntok == 1 ? NULL : ctl_err(cmd, "clear takes no arguments", "", "");
	}
	if (!strcmp(tok[0], "hang")) {
		cmd->op = TTRACE_CTL_HANG;
		return ntok == 1 ? NULL : ctl_err(cmd, "hang takes no arguments", "", "");
	}
	return ctl_err(cmd, "unknown command '", tok[0], "'");
}

/*
 * Applies a parsed command's mask and enable changes to st and rearms.
 * CLEAR, MODE and BUFSIZE change nothing here. Precondition: cmd came from
 * ttrace_ctl_parse() with st->meta and succeeded; callers are serialised as
 * for ttrace_ctl_rearm().
 */
void ttrace_ctl_apply(struct ttrace_ctl_state *st,
		      const struct ttrace_ctl_cmd *cmd)
{
	bool on = cmd->op == TTRACE_CTL_ENABLE;

	switch (cmd->op) {
	case TTRACE_CTL_ENABLE:
	case TTRACE_CTL_DISABLE:
		for (uint32_t e = 0; e < st->meta->nevents; e++)
			if (cmd->events[e / 8] & (1u << (e % 8)))
				st->enabled[e] = on;
		if (on)
			ttrace_mask_setbits(&st->mask, cmd->mask);
		else
			ttrace_mask_clrbits(&st->mask, cmd->mask);
		break;
	case TTRACE_CTL_SETMASK:
		ttrace_mask_setmask(&st->mask, cmd->value, cmd->mask);
		break;
	case TTRACE_CTL_SETBITS:
		ttrace_mask_setbits(&st->mask, cmd->mask);
		break;
	case TTRACE_CTL_CLRBITS:
		ttrace_mask_clrbits(&st->mask, cmd->mask);
		break;
	default:
		return;
	}
	ttrace_ctl_rearm(st);
}

/* ---- listing ------------------------------------------------------------- */

/* Appends to buf at *len (snprintf rules: *len counts what did not fit). */
static void list_line(char *buf, size_t size, size_t *len, const char *kind,
		      const char *name, const char *group, unsigned bit,
		      bool on, bool armed)
{
	char scratch[4];
	char *dst = *len + 1 < size ? buf + *len : scratch;
	size_t room = *len + 1 < size ? size - *len : 0;
	int n;

	if (group)
		n = fmt_snprintf(dst, room, "%s %s %s %s %s\n", kind, name,
				 group, on ? "on" : "off",
				 armed ? "armed" : "-");
	else
		n = fmt_snprintf(dst, room, "%s %s %u %s\n", kind, name, bit,
				 on ? "on" : "off");
	if (n > 0)
		*len += (size_t)n;
}

/*
 * Lists the state as text, one line each: "mask 0x..." first, then
 *	group NAME BIT on|off
 *	event NAME GROUP on|off armed|-
 * where an event's on/off is its own enable and "armed" means it is being
 * recorded. Returns the length of the whole listing; buf (size > 0) holds
 * what fits, NUL terminated. For the #ttrace "events" file.
 */
size_t ttrace_ctl_list(const struct ttrace_ctl_state *st, char *buf,
		       size_t size)
{
	const struct ttrace_meta_table *t = st->meta;
	uint64_t mask = __atomic_load_n(&st->mask, __ATOMIC_RELAXED);
	int n = fmt_snprintf(buf, size, "mask %#llx\n", (unsigned long long)mask);
	size_t len = n > 0 ? (size_t)n : 0;

	for (uint32_t g = 0; g < t->ngroups; g++)
		list_line(buf, size, &len, "group", t->groups[g].name, NULL,
			  t->groups[g].bit, mask >> (t->groups[g].bit & 63) & 1,
			  false);
	for (uint32_t e = 0; e < t->nevents; e++) {
		const struct ttrace_group_meta *gm =
			ttrace_meta_group(t, t->events[e].group);

		list_line(buf, size, &len, "event", t->events[e].name,
			  gm ? gm->name : "?", 0, st->enabled[e],
			  __atomic_load_n(&st->armed[e], __ATOMIC_RELAXED));
	}
	return len;
}
