/*
 * synth_parse.c: synthetic event definitions and the hist triggers with
 * variables that feed them (ttrace_dynevent.h has the grammar and how it
 * maps onto the latency probe). Pure; the kernel side is
 * kern/trace/tracefs_synth.c. Every refusal names Linux's reason where
 * Linux has one, and where in the line the bad token starts.
 */
#include <string.h>
#include <abi/errno.h>

#include <ttrace_dynevent.h>

#define SY_HIST_MAX	256	/* a trigger's bytes */

/* The field types a definition may use (Linux's synthetic types), and
 * the record's argument type each one is. */
static const struct {
	const char *name;
	uint8_t type;
} sy_types[] = {
	{ "u8", TTRACE_ARG_U8 }, { "u16", TTRACE_ARG_U16 },
	{ "u32", TTRACE_ARG_U32 }, { "u64", TTRACE_ARG_U64 },
	{ "s8", TTRACE_ARG_S8 }, { "s16", TTRACE_ARG_S16 },
	{ "s32", TTRACE_ARG_S32 }, { "s64", TTRACE_ARG_S64 },
	{ "int", TTRACE_ARG_S32 }, { "unsigned int", TTRACE_ARG_U32 },
	{ "long", TTRACE_ARG_S64 }, { "unsigned long", TTRACE_ARG_U64 },
	{ "pid_t", TTRACE_ARG_S32 }, { "bool", TTRACE_ARG_BOOL },
};

static int sy_fail(struct ttrace_dynevent_err *e, size_t pos, const char *why)
{
	*e = (struct ttrace_dynevent_err){ why, pos, -EINVAL };
	return -1;
}

static bool sy_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* The length of the identifier at s (0: none). */
static size_t sy_ident(const char *s)
{
	size_t n = 0;

	if (*s >= '0' && *s <= '9')
		return 0;
	while (sy_ident_char(s[n]))
		n++;
	return n;
}

/* Copies the identifier of n bytes at s into dst (max + 1 bytes);
 * false when it is empty or longer. */
static bool sy_copy(char *dst, const char *s, size_t n, size_t max)
{
	if (!n || n > max)
		return false;
	memcpy(dst, s, n);
	dst[n] = 0;
	return true;
}

static const char *sy_skip(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One "TYPE FIELD" at *p (up to ';' or the end), into d's fields. */
static int sy_field(const char *line, const char **p,
		    struct ttrace_synth_def *d, struct ttrace_dynevent_err *e)
{
	const char *f = sy_skip(*p), *end = strchr(f, ';'), *name;
	size_t tlen;

	if (!end)
		end = f + strlen(f);
	for (name = end; name > f && (name[-1] == ' ' || name[-1] == '\t');
	     name--)
		;
	while (name > f && sy_ident_char(name[-1]))
		name--;
	for (tlen = (size_t)(name - f); tlen && (f[tlen - 1] == ' ' ||
						 f[tlen - 1] == '\t'); tlen--)
		;
	if (!tlen || name == f)
		return sy_fail(e, (size_t)(f - line), "Invalid field "
			       "(TYPE NAME)");
	if (d->nfields == TTRACE_SYNTH_NFIELDS)
		return sy_fail(e, (size_t)(f - line), "Too many fields (4 "
			       "here)");
	if (!sy_copy(d->field[d->nfields].name, name, sy_ident(name),
		     TTRACE_SYNTH_NAME_MAX))
		return sy_fail(e, (size_t)(name - line), "Invalid field name");
	for (size_t i = 0; i < ARRAY_SIZE(sy_types); i++)
		if (strlen(sy_types[i].name) == tlen &&
		    !memcmp(sy_types[i].name, f, tlen)) {
			d->field[d->nfields++].type = sy_types[i].type;
			*p = *end ? end + 1 : end;
			return 0;
		}
	return sy_fail(e, (size_t)(f - line), "Invalid type (u8..u64 s8..s64 "
		       "int unsigned int long unsigned long pid_t bool)");
}

/* See ttrace_dynevent.h. */
int ttrace_synth_def_parse(const char *line, struct ttrace_synth_def *d,
			   struct ttrace_dynevent_err *e)
{
	const char *p = sy_skip(line), *f;
	size_t n;

	memset(d, 0, sizeof(*d));
	d->del = *p == '!';
	p += d->del;
	n = sy_ident(p);
	if (!sy_copy(d->name, p, n, TTRACE_SYNTH_NAME_MAX))
		return sy_fail(e, (size_t)(p - line), "Illegal name (an "
			       "identifier of 1 to 23)");
	f = p = sy_skip(p + n);
	if (d->del)
		return *p ? sy_fail(e, (size_t)(p - line), "Invalid command "
				    "(delete: !NAME)") : 0;
	if (!*p)
		return sy_fail(e, (size_t)(p - line), "Invalid field (TYPE "
			       "NAME)");
	while (*p)
		if (sy_field(line, &p, d, e))
			return -1;
	if (strlen(f) > TTRACE_SYNTH_FIELDS_MAX)
		return sy_fail(e, (size_t)(f - line), "Command too long");
	memcpy(d->fields, f, strlen(f) + 1);
	return 0;
}

/* VAL after "VAR=": common_timestamp[.usecs][-$START]; into h. */
static int sy_timestamp(const char *trig, const char *v, const char *end,
			struct ttrace_synth_hist *h,
			struct ttrace_dynevent_err *e)
{
	static const char ts[] = "common_timestamp";
	const char *p = v + sizeof(ts) - 1, *dollar;

	if (strncmp(v, ts, sizeof(ts) - 1))
		return sy_fail(e, (size_t)(v - trig), "Not supported here: a "
			       "variable other than common_timestamp");
	if (!strncmp(p, ".usecs", 6))
		p += 6;
	if (p == end) {
		h->kind = TTRACE_SYNTH_START;
		return 0;
	}
	dollar = p + 1;
	if (*p != '-' || *dollar != '$' ||
	    !sy_copy(h->start_var, dollar + 1, (size_t)(end - dollar - 1),
		     TTRACE_SYNTH_NAME_MAX) ||
	    sy_ident(dollar + 1) != (size_t)(end - dollar - 1))
		return sy_fail(e, (size_t)(p - trig), "Not supported here: "
			       "only common_timestamp-$VAR");
	h->kind = TTRACE_SYNTH_MATCH;
	return 0;
}

/* "onmatch(GROUP.START).trace(NAME,$LAT...)" or ".NAME($LAT...)". */
static int sy_onmatch(const char *trig, const char *w, const char *end,
		      struct ttrace_synth_hist *h,
		      struct ttrace_dynevent_err *e)
{
	const char *g = w + 8, *close = memchr(g, ')', (size_t)(end - g));
	const char *act, *args;
	size_t n;

	if (!close || close[1] != '.' || !sy_copy(h->start, g,
	    (size_t)(close - g), sizeof(h->start) - 1))
		return sy_fail(e, (size_t)(g - trig), "Invalid onmatch "
			       "(onmatch(GROUP.EVENT))");
	act = close + 2;
	args = memchr(act, '(', (size_t)(end - act));
	if (!args || end[-1] != ')')
		return sy_fail(e, (size_t)(act - trig), "Invalid action "
			       "(.trace(NAME,...))");
	if ((size_t)(args - act) == 5 && !memcmp(act, "trace", 5)) {
		act = args + 1;
		args = act + sy_ident(act);
		if (*args != ',')
			return sy_fail(e, (size_t)(act - trig), "Invalid "
				       "action (.trace(NAME,$LAT,...))");
	}
	n = sy_ident(act);
	if (!sy_copy(h->synth, act, n, TTRACE_SYNTH_NAME_MAX) ||
	    act + n != args)
		return sy_fail(e, (size_t)(act - trig), "Invalid synthetic "
			       "event name");
	args++;
	n = strlen(h->var);
	if (*args != '$' || strncmp(args + 1, h->var, n) ||
	    (args[1 + n] != ',' && args[1 + n] != ')'))
		return sy_fail(e, (size_t)(args - trig), "Not supported here: "
			       "the first parameter is the latency ($LAT)");
	for (args += 1 + n; *args == ','; args += n) {	/* END's FIELDs */
		n = sy_ident(++args);
		if (h->nparams == TTRACE_SYNTH_NFIELDS - 1 ||
		    !sy_copy(h->params[h->nparams++], args, n,
			     TTRACE_SYNTH_NAME_MAX) ||
		    (args[n] != ',' && args[n] != ')'))
			return sy_fail(e, (size_t)(args - trig), "Invalid "
				       "parameter (a field of the event, 3 "
				       "here)");
	}
	return 0;
}

/* See ttrace_dynevent.h. */
int ttrace_synth_hist_parse(const char *trig, struct ttrace_synth_hist *h,
			    struct ttrace_dynevent_err *e)
{
	const char *w = trig, *end;
	bool onmatch = false;

	memset(h, 0, sizeof(*h));
	if (strncmp(trig, "hist:", 5) || !strchr(trig, '=') ||
	    (!strstr(trig, "common_timestamp") && !strstr(trig, "onmatch(")))
		return 0;	/* a plain hist trigger */
	for (w = trig + 5; *w; w = *end ? end + 1 : end) {
		const char *eq;
		size_t n = sy_ident(w);

		end = strchr(w, ':');
		end = end ? end : w + strlen(w);
		eq = w + n;
		if (!strncmp(w, "onmatch(", 8)) {
			if (!h->var[0] || sy_onmatch(trig, w, end, h, e))
				return h->var[0] ? -1 : sy_fail(e, (size_t)(w -
					trig), "onmatch() needs LAT=...-$VAR");
			onmatch = true;
		} else if (n && *eq == '=' && (!strncmp(w, "keys=", 5) ||
					       !strncmp(w, "key=", 4))) {
			if (!sy_copy(h->key, eq + 1, (size_t)(end - eq - 1),
				     TTRACE_SYNTH_NAME_MAX) ||
			    sy_ident(eq + 1) != (size_t)(end - eq - 1))
				return sy_fail(e, (size_t)(eq + 1 - trig), "Not "
					       "supported here: one key field");
		} else if (n && *eq == '=' && strncmp(w, "vals=", 5) &&
			   strncmp(w, "sort=", 5) && strncmp(w, "size=", 5)) {
			if (h->var[0])
				return sy_fail(e, (size_t)(w - trig), "Not "
					       "supported here: one variable");
			if (!sy_copy(h->var, w, n, TTRACE_SYNTH_NAME_MAX))
				return sy_fail(e, (size_t)(w - trig),
					       "Variable name too long");
			if (sy_timestamp(trig, eq + 1, end, h, e))
				return -1;
		}
	}
	if (!h->key[0])
		return sy_fail(e, 5, "Missing keys= (keys=FIELD)");
	if (h->kind == TTRACE_SYNTH_MATCH && !onmatch)
		return sy_fail(e, (size_t)(strlen(trig)), "Not supported here: "
			       "a latency variable needs its onmatch()");
	if (h->kind == TTRACE_SYNTH_START && onmatch)
		return sy_fail(e, 5, "onmatch() needs LAT=...-$VAR");
	return 0;
}
