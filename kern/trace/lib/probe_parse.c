/*
 * probe_parse.c: the built-in probes' ctl grammar, their field tests,
 * a lock-free keyed counter table and log2 histogram math; the rules are
 * in ttrace_probe_spec.h. The grammar is the probe and unprobe rows'
 * parsers of the ctl table (ttrace_ctl.c), which splits the command and
 * builds every error's usage; like every row's, a command is parsed
 * whole, every name resolved against the event metadata, before it is
 * reported good, so a bad one changes nothing. Pure: the kernel and the
 * host tests share it.
 */
#include <parse_num.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

#include <ttrace_ctl.h>
#include <ttrace_probe_spec.h>

#define KEY_EMPTY	0x8000000000000001ULL	/* has its own extra slot */

/* The kinds: each one's name, the words that must follow it (EVENT, or
 * EVENT FIELD / START END) and its form for the usage. */
static const struct probe_kind {
	const char *name;
	uint8_t words;
	const char *usage;
} kinds[] = {
	[TTRACE_PROBE_FILTER] = { "filter", 1, "EVENT TEST..." },
	[TTRACE_PROBE_COUNT] = { "count", 1, "EVENT [by FIELD[.TAG]] [if TEST...]" },
	[TTRACE_PROBE_HIST] = { "hist", 2,
				"EVENT FIELD [by FIELD[.TAG]] [if TEST...]" },
	[TTRACE_PROBE_LATENCY] = { "latency", 2,
				   "START END [by FIELD[.TAG] [match F]] "
				   "[emit E F...] [if TEST...]" },
	[TTRACE_PROBE_SNAPSHOT] = { "snapshot", 1, "EVENT [if TEST...]" },
	[TTRACE_PROBE_STOP] = { "stop", 1, "EVENT [times N] [if TEST...]" },
	[TTRACE_PROBE_STACKTRACE] = { "stacktrace", 1,
				      "EVENT [depth N] [times N] [if TEST...]" },
};

#define LAST_KIND	TTRACE_PROBE_STACKTRACE

static const char *const op_names[] = {
	[TTRACE_OP_EQ] = "==", [TTRACE_OP_NE] = "!=", [TTRACE_OP_LT] = "<",
	[TTRACE_OP_LE] = "<=", [TTRACE_OP_GT] = ">", [TTRACE_OP_GE] = ">=",
	[TTRACE_OP_AND] = "&", [TTRACE_OP_GLOB] = "~",
};

/* The name of a probe kind, or "?". */
const char *ttrace_probe_kind_name(uint32_t kind)
{
	return kind < ARRAY_SIZE(kinds) && kinds[kind].name ?
	       kinds[kind].name : "?";
}

/* Appends each kind's form of the probe command, for the ctl table's
 * usage, to s. */
void ttrace_probe_usage(struct seqbuf *s)
{
	for (uint32_t k = TTRACE_PROBE_FILTER; k <= LAST_KIND; k++)
		seqbuf_printf(s, "%sprobe NAME %s %s",
			      k == TTRACE_PROBE_FILTER ? "" : " | ",
			      kinds[k].name, kinds[k].usage);
}

/* Resolves an event name (no glob: one event per probe). */
static bool find_event(const struct ttrace_meta_table *meta, const char *name,
		       uint32_t *id)
{
	for (uint32_t e = 0; e < meta->nevents; e++)
		if (!strcmp(meta->events[e].name, name)) {
			*id = e;
			return true;
		}
	return false;
}

/* Whether word (len bytes) is name, or common_ and name (ftrace's). */
static bool common_name(const char *word, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (len == n + 7 && !strncmp(word, "common_", 7))
		word += 7, len -= 7;
	return len == n && !strncmp(word, name, n);
}

/* Resolves FIELD (an argument of event ev, else pid or cpu: the record's
 * process and CPU, also named common_pid, common_cpu) into *f. */
static bool find_field(const struct ttrace_meta_table *meta, uint32_t ev,
		       const char *name, size_t len, struct ttrace_field *f)
{
	const struct ttrace_event_meta *em = &meta->events[ev];

	memset(f, 0, sizeof(*f));
	for (uint8_t a = 0; a < em->nargs && strncmp(name, "common_", 7); a++) {
		uint8_t type = em->args[a].type;

		if (strlen(em->args[a].name) == len &&
		    !strncmp(em->args[a].name, name, len)) {
			unsigned off, size;

			ttrace_arg_place(em, a, &off, &size);
			f->src = TTRACE_FIELD_ARG;
			f->arg = a;
			f->is_signed = ttrace_arg_signed(type);
			f->off = (uint8_t)off;
			f->size = (uint8_t)size;
			return true;
		}
	}
	if (common_name(name, len, "pid")) {
		f->src = TTRACE_FIELD_PID;
		f->is_signed = 1;
		return true;
	}
	if (common_name(name, len, "cpu")) {
		f->src = TTRACE_FIELD_CPU;
		return true;
	}
	return false;
}

/* Parses a number, decimal with an optional leading '-', or 0x hex. */
static bool parse_value(const char *s, uint64_t *v)
{
	if (*s == '-') {
		if (!parse_u64_whole(s + 1, v) || *v > (1ULL << 63))
			return false;
		*v = -*v;
		return true;
	}
	return parse_u64_whole(s, v);
}

/* The field's own aux tag: a str:TAG argument's TAG, else 0. */
static uint8_t field_tag(const struct ttrace_meta_table *meta, uint32_t ev,
			 const struct ttrace_field *f)
{
	const struct ttrace_arg_meta *a;

	if (f->src != TTRACE_FIELD_ARG)
		return 0;
	a = &meta->events[ev].args[f->arg];
	return a->type == TTRACE_ARG_STR ? a->aux_tag : 0;
}

/* The aux tag of short name n (execname: proc, as ftrace says), or 0. */
static uint8_t tag_named(const char *n)
{
	if (!strcmp(n, "execname"))
		return TTRACE_AUX_PROC_NAME;
	for (uint8_t t = 1; t < TTRACE_AUX_NTAGS; t++)
		if (ttrace_aux_tag_name(t) && !strcmp(ttrace_aux_tag_name(t), n))
			return t;
	return 0;
}

/* Parses `by`'s word, FIELD[.TAG], into the key and the tag naming it. */
static const char *parse_key(struct ttrace_ctl_cmd *cmd,
			     const struct ttrace_meta_table *meta,
			     const char *word)
{
	struct ttrace_probe_spec *s = &cmd->probe;
	const char *dot = strchr(word, '.');
	size_t len = dot ? (size_t)(dot - word) : strlen(word);

	if (!find_field(meta, s->event, word, len, &s->key))
		return ttrace_ctl_err(cmd, "no field '", word, "' to key by");
	s->key_tag = dot ? tag_named(dot + 1) : field_tag(meta, s->event,
							  &s->key);
	if (dot && !s->key_tag)
		return ttrace_ctl_err(cmd, "no key name '", dot + 1,
				      "' (an aux tag: syscall, irq, proc, "
				      "execname ...)");
	return NULL;
}

/* Parses an optional "WORD N" at tok[*i], N from 1 to max, into *out
 * (kept when WORD is not there); refused as "WHAT 'N'WHY". */
static const char *parse_opt_n(struct ttrace_ctl_cmd *cmd, char **tok,
			       size_t ntok, size_t *i, const char *word,
			       uint64_t max, const char *what, const char *why,
			       uint32_t *out)
{
	uint64_t n;

	if (*i == ntok || strcmp(tok[*i], word))
		return NULL;
	if (*i + 1 == ntok || !parse_u64_whole(tok[*i + 1], &n) || !n ||
	    n > max)
		return ttrace_ctl_err(cmd, what,
				      *i + 1 < ntok ? tok[*i + 1] : "", why);
	*out = (uint32_t)n;
	*i += 2;
	return NULL;
}

/* A stacktrace's optional "depth N" (default: the most,
 * TTRACE_STACK_DEPTH), then a stop's or stacktrace's optional "times N":
 * it acts on its first N hits only (ftrace's TRIGGER:N; default 0, every
 * hit). */
static const char *parse_depth_times(struct ttrace_ctl_cmd *cmd, char **tok,
				     size_t ntok, size_t *i)
{
	struct ttrace_probe_spec *s = &cmd->probe;
	const char *why = NULL;

	s->times = 0;
	if (s->kind == TTRACE_PROBE_STACKTRACE) {
		s->depth = TTRACE_STACK_DEPTH;
		why = parse_opt_n(cmd, tok, ntok, i, "depth",
				  TTRACE_STACK_DEPTH, "stacktrace depth '",
				  "': 1 to 16 frames", &s->depth);
	}
	if (!why && (s->kind == TTRACE_PROBE_STACKTRACE ||
		     s->kind == TTRACE_PROBE_STOP))
		why = parse_opt_n(cmd, tok, ntok, i, "times",
				  TTRACE_PROBE_TIMES_MAX, "times '",
				  "': 1 to 2^31 hits", &s->times);
	return why;
}

/* A latency's options after `by`: `match FIELD` (END's field that
 * carries START's key: they pair by key on any CPUs) and `emit EVENT
 * FIELD...` (the event each pair records: the latency, then those fields
 * of END), from tok[*i]; *i past them. */
static const char *parse_lat_opts(struct ttrace_ctl_cmd *cmd,
				  const struct ttrace_meta_table *meta,
				  char **tok, size_t ntok, size_t *i)
{
	struct ttrace_probe_spec *s = &cmd->probe;

	if (*i + 1 < ntok && !strcmp(tok[*i], "match")) {
		if (!s->key.src)
			return ttrace_ctl_err(cmd, "match needs by FIELD", "",
					      "");
		if (!find_field(meta, s->end_event, tok[*i + 1],
				strlen(tok[*i + 1]), &s->end_key))
			return ttrace_ctl_err(cmd, "no field '", tok[*i + 1],
					      "' in END");
		s->match = true;
		*i += 2;
	}
	if (*i + 1 >= ntok || strcmp(tok[*i], "emit"))
		return NULL;
	if (!find_event(meta, tok[*i + 1], &s->emit_event))
		return ttrace_ctl_err(cmd, "no event '", tok[*i + 1], "'");
	s->emit = true;
	for (*i += 2; *i < ntok && strcmp(tok[*i], "if"); ++*i) {
		if (s->nemit == TTRACE_PROBE_EMIT_MAX)
			return ttrace_ctl_err(cmd, "emit: more than 3 fields",
					      "", "");
		if (!find_field(meta, s->end_event, tok[*i], strlen(tok[*i]),
				&s->emit_fields[s->nemit++]))
			return ttrace_ctl_err(cmd, "no field '", tok[*i],
					      "' in END");
	}
	return NULL;
}


/* ---- the filter expression ------------------------------------------------ */

/* A filter expression being parsed into cmd->probe's tests and program. */
struct expr {
	struct ttrace_ctl_cmd *cmd;
	const struct ttrace_meta_table *meta;
	const char *p;		/* the next character */
	bool any_or;
};

static const char *expr_or(struct expr *x, unsigned depth);

static void skip_blanks(struct expr *x)
{
	while (*x->p == ' ')
		x->p++;
}

/* Consumes the token tok if the text is at it. */
static bool take(struct expr *x, const char *tok)
{
	size_t n = strlen(tok);

	skip_blanks(x);
	if (strncmp(x->p, tok, n))
		return false;
	x->p += n;
	return true;
}

/* Appends one op to the program: the parser's bound on tests keeps it
 * within TTRACE_PROBE_MAX_PROG (n tests, n - 1 joins). */
static void emit(struct expr *x, uint8_t op)
{
	x->cmd->probe.prog[x->cmd->probe.nprog++] = op;
}

/* Reads a ~ test's glob, "quoted" or a bare word, into t->glob. */
static const char *parse_glob(struct expr *x, struct ttrace_test *t)
{
	bool quoted = *x->p == '"';
	const char *g = x->p + quoted;
	size_t n = 0;

	while (g[n] && (quoted ? g[n] != '"' : !strchr(" ()|&", g[n])))
		n++;
	if (quoted && !g[n])
		return ttrace_ctl_err(x->cmd, "unterminated string at '",
				      x->p, "'");
	if (!n || n > TTRACE_PROBE_GLOB_MAX)
		return ttrace_ctl_err(x->cmd, "bad glob at '", x->p,
				      "' (1 to 31 characters)");
	memcpy(t->glob, g, n);
	t->glob[n] = 0;
	x->p = g + n + quoted;
	return NULL;
}

/* Whether f is a str:marker argument of event ev: one whose site has
 * the text at hand (an fprobe's str and ustr, user_marker's marker),
 * where other str arguments are aux identifiers named elsewhere. */
static bool text_field(const struct ttrace_meta_table *meta, uint32_t ev,
		       const struct ttrace_field *f)
{
	const struct ttrace_arg_meta *a;

	if (f->src != TTRACE_FIELD_ARG)
		return false;
	a = &meta->events[ev].args[f->arg];
	return a->type == TTRACE_ARG_STR && a->aux_tag == TTRACE_AUX_USER_MARKER;
}

/* Parses one test, FIELD OP VALUE, blanks allowed between, as test
 * number ntests of the probe. */
static const char *parse_test(struct expr *x)
{
	/* two-character operators first: "<=" is not "<" then "=" */
	static const uint8_t order[] = { TTRACE_OP_LE, TTRACE_OP_GE,
		TTRACE_OP_EQ, TTRACE_OP_NE, TTRACE_OP_LT, TTRACE_OP_GT,
		TTRACE_OP_AND, TTRACE_OP_GLOB };
	struct ttrace_probe_spec *s = &x->cmd->probe;
	struct ttrace_test *t = &s->tests[s->ntests];
	const char *f = x->p, *v;
	size_t flen = 0;
	unsigned op = ~0u;
	char num[24];

	if (s->ntests == TTRACE_PROBE_MAX_TESTS)
		return ttrace_ctl_err(x->cmd, "more than 8 tests at '", f, "'");
	while (f[flen] == '_' || f[flen] == '.' || (f[flen] >= '0' && f[flen] <= '9') ||
	       ((f[flen] | 0x20) >= 'a' && (f[flen] | 0x20) <= 'z'))
		flen++;
	x->p += flen;
	skip_blanks(x);
	for (size_t k = 0; k < ARRAY_SIZE(order) && op == ~0u; k++)
		if (!strncmp(x->p, op_names[order[k]],
			     strlen(op_names[order[k]])))
			op = order[k];
	if (!flen || op == ~0u)
		return ttrace_ctl_err(x->cmd, "bad test at '", f,
				      "' (FIELD OP VALUE, OP one of == != < "
				      "<= > >= & ~)");
	if (!find_field(x->meta, s->event, f, flen, &t->field))
		return ttrace_ctl_err(x->cmd, "no field '", f,
				      "' (an argument, pid or cpu)");
	if (op == TTRACE_OP_GLOB && !text_field(x->meta, s->event, &t->field))
		return ttrace_ctl_err(x->cmd, "'~' needs a text field at '", f,
				      "' (a str:marker one: an fprobe's "
				      "string, user_marker's marker)");
	t->op = (uint8_t)op;
	x->p += strlen(op_names[op]);
	skip_blanks(x);
	if (op == TTRACE_OP_GLOB) {
		const char *e = parse_glob(x, t);

		if (e)
			return e;
	} else {
		for (v = x->p; *x->p && !strchr(" ()|&", *x->p); x->p++)
			;
		if ((size_t)(x->p - v) >= sizeof(num))
			return ttrace_ctl_err(x->cmd, "bad number at '", v, "'");
		memcpy(num, v, (size_t)(x->p - v));
		num[x->p - v] = 0;
		if (!parse_value(num, &t->value))
			return ttrace_ctl_err(x->cmd, "bad number at '", v, "'");
	}
	emit(x, (uint8_t)s->ntests++);
	return NULL;
}

/* primary: ( OR-EXPRESSION ) or a test; depth counts open parentheses. */
static const char *expr_primary(struct expr *x, unsigned depth)
{
	const char *open = x->p, *e;

	skip_blanks(x);
	if (!take(x, "("))
		return parse_test(x);
	if (depth == TTRACE_PROBE_MAX_NEST)
		return ttrace_ctl_err(x->cmd, "parentheses nested too deep at '",
				      open, "' (4 levels)");
	if ((e = expr_or(x, depth + 1)))
		return e;
	return take(x, ")") ? NULL :
	       ttrace_ctl_err(x->cmd, "missing ')' at '", x->p, "'");
}

/* and: primaries joined by && or side by side. */
static const char *expr_and(struct expr *x, unsigned depth)
{
	const char *e = expr_primary(x, depth);

	while (!e) {
		skip_blanks(x);
		if (!*x->p || *x->p == ')' || !strncmp(x->p, "||", 2))
			break;
		take(x, "&&");
		if (!(e = expr_primary(x, depth)))
			emit(x, TTRACE_PROG_AND);
	}
	return e;
}

/* or: ands joined by ||. */
static const char *expr_or(struct expr *x, unsigned depth)
{
	const char *e = expr_and(x, depth);

	while (!e && take(x, "||")) {
		x->any_or = true;
		if (!(e = expr_and(x, depth)))
			emit(x, TTRACE_PROG_OR);
	}
	return e;
}

/* Parses tok[0..ntok), rejoined by blanks, as the probe's filter
 * expression. A filter without || keeps no program: every test must
 * hold, the cheapest evaluation. */
static const char *parse_expr(struct ttrace_ctl_cmd *cmd,
			      const struct ttrace_meta_table *meta, char **tok,
			      size_t ntok)
{
	char text[TTRACE_CTL_MAX_LEN + 1];	/* the command held them */
	struct seqbuf b;
	struct expr x = { cmd, meta, text, false };
	const char *e;

	seqbuf_init(&b, text, sizeof(text));
	for (size_t i = 0; i < ntok; i++)
		seqbuf_printf(&b, "%s%s", i ? " " : "", tok[i]);
	if (!(e = expr_or(&x, 0)) && *x.p)
		e = ttrace_ctl_err(cmd, "unexpected '", x.p, "'");
	if (!x.any_or)
		cmd->probe.nprog = 0;
	return e;
}

/* Parses the optional "[by FIELD] [LATENCY options] [if TEST...]" of
 * tok[0..ntok); `by` only
 * where keyed is set; bare TESTs (no "if") where tests_only is set. */
static const char *parse_tail(struct ttrace_ctl_cmd *cmd,
			      const struct ttrace_meta_table *meta, char **tok,
			      size_t ntok, bool keyed, bool tests_only)
{
	struct ttrace_probe_spec *s = &cmd->probe;
	size_t i = 0;

	if (keyed && i + 1 < ntok && !strcmp(tok[i], "by")) {
		const char *e = parse_key(cmd, meta, tok[i + 1]);

		if (e)
			return e;
		i += 2;
	}
	if (s->kind == TTRACE_PROBE_LATENCY) {
		const char *e = parse_lat_opts(cmd, meta, tok, ntok, &i);

		if (e)
			return e;
	}
	if (!tests_only && i < ntok) {
		if (strcmp(tok[i], "if") || i + 1 == ntok)
			return ttrace_ctl_err(cmd, "unexpected '", tok[i], "'");
		i++;
	}
	if (tests_only && i == ntok)
		return ttrace_ctl_err(cmd, "filter needs at least one test", "",
				      "");
	return i < ntok ? parse_expr(cmd, meta, tok + i, ntok - i) : NULL;
}

/* Checks NAME: 1..TTRACE_PROBE_NAME_MAX of [A-Za-z0-9_.-]. */
static bool good_name(const char *n)
{
	size_t len = strlen(n);

	if (!len || len > TTRACE_PROBE_NAME_MAX)
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || strchr("_.-", *n)))
			return false;
	return true;
}

static const char *field_name(uint32_t ev, const struct ttrace_field *f,
			      const struct ttrace_meta_table *meta);

/* probe NAME KIND ...: the row's parser (tok[0] is "probe"). */
const char *ttrace_probe_parse_add(struct ttrace_ctl_cmd *cmd, char **tok,
				   size_t ntok,
				   const struct ttrace_meta_table *meta)
{
	struct ttrace_probe_spec *s = &cmd->probe;
	size_t next;
	const char *why;

	if (ntok < 4)
		return ttrace_ctl_err(cmd, "probe: too few words", "", "");
	if (!good_name(tok[1]))
		return ttrace_ctl_err(cmd, "bad probe name '", tok[1],
				      "' (1-63 of A-Z a-z 0-9 _ . -)");
	memcpy(s->name, tok[1], strlen(tok[1]) + 1);	/* good_name: it fits */
	for (s->kind = TTRACE_PROBE_FILTER; s->kind <= LAST_KIND; s->kind++)
		if (!strcmp(tok[2], kinds[s->kind].name))
			break;
	if (s->kind > LAST_KIND)
		return ttrace_ctl_err(cmd, "unknown probe kind '", tok[2], "'");
	if (!find_event(meta, tok[3], &s->event))
		return ttrace_ctl_err(cmd, "no event '", tok[3], "'");
	next = 3 + kinds[s->kind].words;
	if (ntok < next)
		return ttrace_ctl_err(cmd, tok[2], ": too few words", "");
	if (s->kind == TTRACE_PROBE_HIST &&
	    !find_field(meta, s->event, tok[4], strlen(tok[4]), &s->value))
		return ttrace_ctl_err(cmd, "no field '", tok[4], "' to count");
	if (s->kind == TTRACE_PROBE_LATENCY &&
	    !find_event(meta, tok[4], &s->end_event))
		return ttrace_ctl_err(cmd, "no event '", tok[4], "'");
	if (s->kind == TTRACE_PROBE_LATENCY && s->end_event == s->event)
		return ttrace_ctl_err(cmd, "latency needs two different events",
				      "", "");
	if ((why = parse_depth_times(cmd, tok, ntok, &next)))
		return why;
	why = parse_tail(cmd, meta, tok + next, ntok - next,
			 s->kind == TTRACE_PROBE_COUNT ||
			 s->kind == TTRACE_PROBE_HIST ||
			 s->kind == TTRACE_PROBE_LATENCY,
			 s->kind == TTRACE_PROBE_FILTER);
	if (!why && s->kind == TTRACE_PROBE_LATENCY && s->key.src &&
	    !s->match) {
		/* END must carry the same key, when it has a field of that
		 * name (syscall_exit's nr for syscall_enter's) */
		const char *kn = field_name(s->event, &s->key, meta);

		if (!find_field(meta, s->end_event, kn, strlen(kn), &s->end_key))
			memset(&s->end_key, 0, sizeof(s->end_key));
	}
	return why;
}

/* unprobe NAME|*: the row's parser. */
const char *ttrace_probe_parse_remove(struct ttrace_ctl_cmd *cmd, char **tok,
				      size_t ntok,
				      const struct ttrace_meta_table *meta)
{
	(void)meta;
	if (ntok != 2 || (strcmp(tok[1], "*") && !good_name(tok[1])))
		return ttrace_ctl_err(cmd, "unprobe takes one probe name, or *",
				      "", "");
	memcpy(cmd->probe.name, tok[1], strlen(tok[1]) + 1);
	return NULL;
}

/* The value of field f in hit h (0 for an argument h lacks). */
uint64_t ttrace_field_get(const struct ttrace_field *f,
			  const struct ttrace_probe_hit *h)
{
	switch (f->src) {
	case TTRACE_FIELD_ARG:
		return ttrace_arg_bytes(h->args, h->nargs, f->off, f->size,
					f->is_signed);
	case TTRACE_FIELD_PID:
		return (uint64_t)(int64_t)h->pid;
	case TTRACE_FIELD_CPU:
		return h->cpu;
	}
	return 0;
}

static bool test_one(const struct ttrace_test *t,
		     const struct ttrace_probe_hit *h)
{
	uint64_t v = ttrace_field_get(&t->field, h);
	/* signed order through the offset: -1 < 0 */
	uint64_t bias = t->field.is_signed ? 1ULL << 63 : 0;
	uint64_t a = v + bias, b = t->value + bias;

	switch (t->op) {
	case TTRACE_OP_EQ: return v == t->value;
	case TTRACE_OP_NE: return v != t->value;
	case TTRACE_OP_LT: return a < b;
	case TTRACE_OP_LE: return a <= b;
	case TTRACE_OP_GT: return a > b;
	case TTRACE_OP_GE: return a >= b;
	case TTRACE_OP_AND: return (v & t->value) != 0;
	case TTRACE_OP_GLOB:	/* no text at hand: no match */
		return h->strs && t->field.arg < h->nargs &&
		       h->strs[t->field.arg] &&
		       ttrace_glob_match(t->glob, h->strs[t->field.arg]);
	}
	return false;
}

/*
 * Whether s's filter holds for h: every test, or its program run over a
 * stack of truth values held in the bits of one word (the parser keeps
 * it at most TTRACE_PROBE_MAX_TESTS deep). Any context: no lock, no
 * allocation, no recursion.
 */
bool ttrace_probe_test(const struct ttrace_probe_spec *s,
		       const struct ttrace_probe_hit *h)
{
	uint32_t stack = 0, top;

	if (!s->nprog) {
		for (uint32_t i = 0; i < s->ntests; i++)
			if (!test_one(&s->tests[i], h))
				return false;
		return true;
	}
	for (uint32_t i = 0; i < s->nprog; i++) {
		uint8_t op = s->prog[i];

		if (op < TTRACE_PROBE_MAX_TESTS) {
			stack = stack << 1 | test_one(&s->tests[op], h);
			continue;
		}
		top = stack & 1;
		stack >>= 1;
		stack = op == TTRACE_PROG_OR ? stack | top : stack & (~1u | top);
	}
	return stack & 1;
}

static const char *field_name(uint32_t ev, const struct ttrace_field *f,
			      const struct ttrace_meta_table *meta)
{
	struct ttrace_field arg;
	const char *common = f->src == TTRACE_FIELD_PID ? "pid" : "cpu";

	switch (f->src) {
	case TTRACE_FIELD_ARG:
		return meta->events[ev].args[f->arg].name;
	case TTRACE_FIELD_PID:
	case TTRACE_FIELD_CPU:	/* common_NAME where an argument is NAME */
		return find_field(meta, ev, common, 3, &arg) &&
		       arg.src == TTRACE_FIELD_ARG ?
		       (f->src == TTRACE_FIELD_PID ? "common_pid" :
			"common_cpu") : common;
	}
	return "";
}

/* Appends test t of s to out, as the parser reads it. */
static void test_text(const struct ttrace_probe_spec *s,
		      const struct ttrace_test *t,
		      const struct ttrace_meta_table *meta, struct seqbuf *out)
{
	const char *f = field_name(s->event, &t->field, meta);

	if (t->op == TTRACE_OP_GLOB)
		seqbuf_printf(out, "%s~\"%s\"", f, t->glob);
	else
		seqbuf_printf(out, t->field.is_signed ? "%s%s%ld" : "%s%s%#lx",
			      f, op_names[t->op], t->value);
}

/* The index of the first op of the subexpression ending at s->prog[end]. */
static int prog_start(const struct ttrace_probe_spec *s, int end)
{
	if (s->prog[end] < TTRACE_PROBE_MAX_TESTS)
		return end;
	return prog_start(s, prog_start(s, end - 1) - 1);
}

/* Appends the subexpression ending at s->prog[end] to out in infix, each
 * op preceded by a blank; an || inside an && in parentheses. Recurses at
 * most TTRACE_PROBE_MAX_PROG deep (never in a probe's path). */
static void prog_text(const struct ttrace_probe_spec *s, int end,
		      bool in_and, const struct ttrace_meta_table *meta,
		      struct seqbuf *out)
{
	uint8_t op = s->prog[end];
	int right = end - 1, left;
	bool paren = in_and && op == TTRACE_PROG_OR;

	if (op < TTRACE_PROBE_MAX_TESTS) {
		seqbuf_puts(out, " ");
		test_text(s, &s->tests[op], meta, out);
		return;
	}
	left = prog_start(s, right) - 1;
	seqbuf_puts(out, paren ? " (" : "");
	prog_text(s, left, op == TTRACE_PROG_AND, meta, out);
	seqbuf_puts(out, op == TTRACE_PROG_OR ? " ||" : " &&");
	prog_text(s, right, op == TTRACE_PROG_AND, meta, out);
	seqbuf_puts(out, paren ? " )" : "");
}

/* Appends s written back as the command that makes it to out. */
void ttrace_probe_spec_text(const struct ttrace_probe_spec *s,
			    const struct ttrace_meta_table *meta,
			    struct seqbuf *out)
{
	seqbuf_printf(out, "probe %s %s %s", s->name,
		      ttrace_probe_kind_name(s->kind),
		      meta->events[s->event].name);
	if (s->kind == TTRACE_PROBE_HIST)
		seqbuf_printf(out, " %s", field_name(s->event, &s->value, meta));
	if (s->kind == TTRACE_PROBE_LATENCY)
		seqbuf_printf(out, " %s", meta->events[s->end_event].name);
	if (s->key.src != TTRACE_FIELD_NONE)
		seqbuf_printf(out, " by %s", field_name(s->event, &s->key, meta));
	if (s->key_tag && s->key_tag != field_tag(meta, s->event, &s->key))
		seqbuf_printf(out, ".%s", ttrace_aux_tag_name(s->key_tag));
	if (s->match)
		seqbuf_printf(out, " match %s",
			      field_name(s->end_event, &s->end_key, meta));
	if (s->emit)
		seqbuf_printf(out, " emit %s",
			      meta->events[s->emit_event].name);
	for (uint32_t i = 0; s->emit && i < s->nemit; i++)
		seqbuf_printf(out, " %s", field_name(s->end_event,
						     &s->emit_fields[i], meta));
	if (s->kind == TTRACE_PROBE_STACKTRACE)
		seqbuf_printf(out, " depth %u", s->depth);
	if (s->times)
		seqbuf_printf(out, " times %u", s->times);
	if (s->ntests && s->kind != TTRACE_PROBE_FILTER)
		seqbuf_puts(out, " if");
	if (!s->nprog)
		for (uint32_t i = 0; i < s->ntests; i++) {
			seqbuf_puts(out, " ");
			test_text(s, &s->tests[i], meta, out);
		}
	else
		prog_text(s, (int)s->nprog - 1, false, meta, out);
}

/* ---- the keyed table ----------------------------------------------------- */

/* Bytes of memory a table of cap slots (a power of two) by width needs. */
size_t ttrace_keytab_bytes(uint32_t cap, uint32_t width)
{
	return (cap + 1) * (sizeof(uint64_t) * (1 + (size_t)width) + 1);
}

/* Sets t up over mem (ttrace_keytab_bytes(cap, width) bytes, 8-aligned),
 * empty. */
void ttrace_keytab_init(struct ttrace_keytab *t, void *mem, uint32_t cap,
			uint32_t width)
{
	memset(mem, 0, ttrace_keytab_bytes(cap, width));
	t->cap = cap;
	t->width = width;
	t->keys = mem;
	t->vals = t->keys + cap + 1;
	t->used = (uint8_t *)(t->vals + (size_t)(cap + 1) * width);
	t->overflow = 0;
	for (uint32_t i = 0; i < cap; i++)
		t->keys[i] = KEY_EMPTY;
	t->used[cap] = 1;
	t->keys[cap] = KEY_EMPTY;
}

static uint32_t key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

/*
 * The counters of key, claiming a slot for it if it has none; NULL when
 * none of the TTRACE_KEYTAB_PROBES slots it may use is free. Any context,
 * any number of CPUs at once; no lock.
 */
uint64_t *ttrace_keytab_get(struct ttrace_keytab *t, uint64_t key)
{
	uint32_t i = key_hash(key);

	if (key == KEY_EMPTY)
		return t->vals + (size_t)t->cap * t->width;
	for (uint32_t n = 0; n < TTRACE_KEYTAB_PROBES && n < t->cap; n++, i++) {
		uint32_t slot = i & (t->cap - 1);
		uint64_t cur = __atomic_load_n(&t->keys[slot], __ATOMIC_ACQUIRE);

		/* a failed claim leaves the winner's key in cur */
		if (cur == KEY_EMPTY &&
		    __atomic_compare_exchange_n(&t->keys[slot], &cur, key, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			cur = key;
		if (cur != key)
			continue;
		__atomic_store_n(&t->used[slot], 1, __ATOMIC_RELEASE);
		return t->vals + (size_t)slot * t->width;
	}
	return NULL;
}

/* Adds n to counter i of key (overflow when the key has no slot). */
void ttrace_keytab_add(struct ttrace_keytab *t, uint64_t key, uint32_t i,
		       uint64_t n)
{
	uint64_t *v = ttrace_keytab_get(t, key);

	__atomic_fetch_add(v ? &v[i] : &t->overflow, n, __ATOMIC_RELAXED);
}

/* Slot slot (0..cap) of t: false when unused, else its key and counters. */
bool ttrace_keytab_slot(const struct ttrace_keytab *t, uint32_t slot,
			uint64_t *key, const uint64_t **vals)
{
	const uint64_t *v = t->vals + (size_t)slot * t->width;

	if (!__atomic_load_n(&t->used[slot], __ATOMIC_ACQUIRE))
		return false;
	if (slot == t->cap) {	/* the empty key's slot: shown once it counted */
		bool any = false;

		for (uint32_t i = 0; i < t->width; i++)
			any |= v[i] != 0;
		if (!any)
			return false;
	}
	*key = __atomic_load_n(&t->keys[slot], __ATOMIC_RELAXED);
	*vals = v;
	return true;
}

/* ---- log2 histograms ----------------------------------------------------- */

/* The bucket of v: 0 for 0, else 1 + floor(log2 v). */
unsigned ttrace_hist_bucket(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* The smallest and largest value of bucket b. */
uint64_t ttrace_hist_bucket_low(unsigned b)
{
	return b ? 1ULL << (b - 1) : 0;
}

uint64_t ttrace_hist_bucket_high(unsigned b)
{
	return b == 0 ? 0 : b == 64 ? UINT64_MAX : (1ULL << b) - 1;
}

/* The number of values in a histogram. */
uint64_t ttrace_hist_total(const uint64_t *buckets)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < TTRACE_HIST_BUCKETS; b++)
		n += buckets[b];
	return n;
}

/*
 * The pct-th percentile (1..100) as the bound a log2 histogram can give:
 * the largest value of the bucket holding the value of rank
 * ceil(total * pct / 100). 0 for an empty histogram.
 */
uint64_t ttrace_hist_percentile(const uint64_t *buckets, unsigned pct)
{
	uint64_t total = ttrace_hist_total(buckets), seen = 0, rank;

	if (!total)
		return 0;
	rank = (total * pct + 99) / 100;
	for (unsigned b = 0; b < TTRACE_HIST_BUCKETS; b++) {
		seen += buckets[b];
		if (seen >= rank && buckets[b])
			return ttrace_hist_bucket_high(b);
	}
	return UINT64_MAX;
}

/* Appends the nonempty buckets of a log2 histogram to s, one line each:
 * "    LOW HIGH COUNT". */
void ttrace_hist_buckets_text(struct seqbuf *s, const uint64_t *buckets)
{
	for (unsigned b = 0; b < TTRACE_HIST_BUCKETS; b++)
		if (buckets[b])
			seqbuf_printf(s, "    %llu %llu %llu\n",
				      (unsigned long long)ttrace_hist_bucket_low(b),
				      (unsigned long long)ttrace_hist_bucket_high(b),
				      (unsigned long long)buckets[b]);
}
