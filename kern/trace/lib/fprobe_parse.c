/*
 * fprobe_parse.c: the function probes' ctl grammar and the metadata of the
 * events they define (ttrace_fprobe.h has the grammar). Pure: the kernel
 * (kern/trace/fprobe.c) resolves the function and owns the event ids.
 * Everything is checked here before the kernel sees the command, so a
 * refused definition changes nothing.
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

#include <ttrace_ctl.h>
#include <ttrace_fprobe.h>

static const struct {
	const char *name;
	uint8_t type, str;
	const char *conv;	/* its conversion in the event's format */
} fp_types[] = {
	{ "u8", TTRACE_ARG_U8, 0, "%llu" },
	{ "u16", TTRACE_ARG_U16, 0, "%llu" },
	{ "u32", TTRACE_ARG_U32, 0, "%llu" },
	{ "u64", TTRACE_ARG_U64, 0, "%llu" },
	{ "s8", TTRACE_ARG_S8, 0, "%lld" },
	{ "s16", TTRACE_ARG_S16, 0, "%lld" },
	{ "s32", TTRACE_ARG_S32, 0, "%lld" },
	{ "s64", TTRACE_ARG_S64, 0, "%lld" },
	{ "ptr", TTRACE_ARG_PTR, 0, "%p" },
	{ "bool", TTRACE_ARG_BOOL, 0, "%llu" },
	{ "str", TTRACE_ARG_STR, TTRACE_FPROBE_KSTR, "%s" },
	{ "ustr", TTRACE_ARG_STR, TTRACE_FPROBE_USTR, "%s" },
};

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Whether n is an identifier of 1..max characters (extra: more allowed
 * characters after the first, e.g. '.' in a function's symbol). */
static bool good_ident(const char *n, size_t max, const char *extra)
{
	size_t len = strlen(n);

	if (!len || len > max || !is_alpha(n[0]))
		return false;
	for (; *n; n++)
		if (!is_alpha(*n) && !is_digit(*n) && !strchr(extra, *n))
			return false;
	return true;
}

/* Copies n, which good_ident() bounded to fit dst. */
static void copy_name(char *dst, const char *n)
{
	memcpy(dst, n, strlen(n) + 1);
}

/* The type row called name, or -1. */
static int find_type(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fp_types); i++)
		if (!strcmp(fp_types[i].name, name))
			return (int)i;
	return -1;
}

/* The row of a's type (a parsed argument's). */
static size_t type_row(const struct ttrace_fprobe_arg *a)
{
	for (size_t i = 0; i < ARRAY_SIZE(fp_types); i++)
		if (fp_types[i].type == a->type && fp_types[i].str == a->str)
			return i;
	return 0;
}

/* The register word (w: "argN" or "ret") into a->reg, as ret says. */
static bool parse_src(const char *w, bool ret, struct ttrace_fprobe_arg *a)
{
	if (ret) {
		a->reg = TTRACE_FPROBE_RET;
		return !strcmp(w, "ret");
	}
	if (strncmp(w, "arg", 3) || w[3] < '0' ||
	    w[3] >= '0' + TTRACE_FPROBE_MAX_ARGS || w[4])
		return false;
	a->reg = (uint8_t)(w[3] - '0');
	return true;
}

/* One ARG word ([FIELD=]SRC:TYPE, modified in place) into s->args[i]. */
static const char *parse_arg(struct ttrace_ctl_cmd *cmd, char *w, size_t i)
{
	struct ttrace_fprobe_spec *s = &cmd->fprobe;
	struct ttrace_fprobe_arg *a = &s->args[i];
	char *eq = strchr(w, '='), *src = eq ? eq + 1 : w;
	char *colon = strchr(src, ':');
	int t;

	if (!colon)
		return ttrace_ctl_err(cmd, "fprobe: argument '", w,
				      "' is not [FIELD=]argN:TYPE or ret:TYPE");
	*colon = 0;
	if (eq)
		*eq = 0;
	if (!parse_src(src, s->ret, a))
		return ttrace_ctl_err(cmd, "fprobe: bad source '", src, s->ret ?
				      "' (at a return only ret)" :
				      "' (arg0..arg5)");
	if ((t = find_type(colon + 1)) < 0)
		return ttrace_ctl_err(cmd, "fprobe: bad type '", colon + 1,
				      "' (u8 u16 u32 u64 s8 s16 s32 s64 ptr "
				      "bool str ustr)");
	a->type = fp_types[t].type;
	a->str = fp_types[t].str;
	if (!good_ident(eq ? w : src, TTRACE_FPROBE_NAME_MAX, "") ||
	    !strcmp(eq ? w : src, "pid") || !strcmp(eq ? w : src, "cpu"))
		return ttrace_ctl_err(cmd, "fprobe: bad field name '", eq ? w :
				      src, "' (an identifier of 1 to 23, not "
				      "pid or cpu)");
	copy_name(a->name, eq ? w : src);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(s->args[j].name, a->name))
			return ttrace_ctl_err(cmd, "fprobe: field '", a->name,
					      "' given twice");
	return NULL;
}

/* NAME FUNC[%return] ARG... (tok[0] "fprobe", tok[1] "add"). */
static const char *parse_add(struct ttrace_ctl_cmd *cmd, char **tok,
			     size_t ntok)
{
	struct ttrace_fprobe_spec *s = &cmd->fprobe;
	char *pct;
	const char *e;

	if (ntok < 4)
		return ttrace_ctl_err(cmd, "fprobe add: give NAME FUNC", "", "");
	pct = strchr(tok[3], '%');
	if (pct && strcmp(pct, "%return"))
		return ttrace_ctl_err(cmd, "fprobe: '", pct,
				      "' after the function (only %return)");
	if (pct)
		*pct = 0;
	s->ret = pct != NULL;
	if (!good_ident(tok[3], TTRACE_FPROBE_FUNC_MAX, "."))
		return ttrace_ctl_err(cmd, "fprobe: bad function name '",
				      tok[3], "'");
	copy_name(s->func, tok[3]);
	if (ntok - 4 > (s->ret ? 1u : TTRACE_FPROBE_MAX_ARGS))
		return ttrace_ctl_err(cmd, "fprobe: too many arguments ",
				      s->ret ? "(a return has one: ret)" :
				      "(at most 6: arg0..arg5)", "");
	for (size_t i = 4; i < ntok; i++)
		if ((e = parse_arg(cmd, tok[i], s->nargs++)))
			return e;
	if (s->ret && !s->nargs) {
		s->args[0] = (struct ttrace_fprobe_arg){ "ret", TTRACE_ARG_S64,
			0, TTRACE_FPROBE_RET };
		s->nargs = 1;
	}
	return NULL;
}

/* See ttrace_fprobe.h. */
const char *ttrace_fprobe_parse(struct ttrace_ctl_cmd *cmd, char **tok,
				size_t ntok,
				const struct ttrace_meta_table *meta)
{
	struct ttrace_fprobe_spec *s = &cmd->fprobe;

	(void)meta;
	if (!strcmp(tok[1], "add"))
		s->op = TTRACE_FPROBE_ADD;
	else if (!strcmp(tok[1], "del") && ntok == 3)
		s->op = TTRACE_FPROBE_DEL;
	else
		return ttrace_ctl_err(cmd, "fprobe: want add NAME FUNC ... or "
				      "del NAME", "", "");
	if (!good_ident(tok[2], TTRACE_FPROBE_NAME_MAX, "") &&
	    (s->op != TTRACE_FPROBE_DEL || strcmp(tok[2], "*")))
		return ttrace_ctl_err(cmd, "fprobe: bad name '", tok[2],
				      "' (an identifier of 1 to 23)");
	copy_name(s->name, tok[2]);
	return s->op == TTRACE_FPROBE_ADD ? parse_add(cmd, tok, ntok) : NULL;
}

/* See ttrace_fprobe.h. */
void ttrace_fprobe_meta(const struct ttrace_fprobe_spec *spec,
			struct ttrace_fprobe_meta *m, uint16_t id,
			uint8_t group)
{
	struct seqbuf f;

	copy_name(m->name, spec->name);
	seqbuf_init(&f, m->format, sizeof(m->format));
	seqbuf_puts(&f, spec->func);
	for (unsigned i = 0; i < spec->nargs; i++) {
		const struct ttrace_fprobe_arg *a = &spec->args[i];

		m->args[i] = (struct ttrace_arg_meta){ a->name, a->type,
			a->str ? TTRACE_AUX_USER_MARKER : 0, 0, 0 };
		seqbuf_printf(&f, " %s=%s", a->name, fp_types[type_row(a)].conv);
	}
	m->ev = (struct ttrace_event_meta){
		.name = m->name, .format = m->format, .args = m->args,
		.id = id, .group = group, .flags = 0, .nargs = spec->nargs,
	};
}

/* See ttrace_fprobe.h. */
bool ttrace_fprobe_same(const struct ttrace_fprobe_spec *a,
			const struct ttrace_fprobe_spec *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->func, b->func) ||
	    a->ret != b->ret || a->nargs != b->nargs)
		return false;
	for (unsigned i = 0; i < a->nargs; i++)
		if (strcmp(a->args[i].name, b->args[i].name) ||
		    a->args[i].type != b->args[i].type ||
		    a->args[i].str != b->args[i].str ||
		    a->args[i].reg != b->args[i].reg)
			return false;
	return true;
}

/* See ttrace_fprobe.h. */
void ttrace_fprobe_text(const struct ttrace_fprobe_spec *spec,
			struct seqbuf *s)
{
	seqbuf_printf(s, "fprobe add %s %s%s", spec->name, spec->func,
		      spec->ret ? "%return" : "");
	for (unsigned i = 0; i < spec->nargs; i++) {
		const struct ttrace_fprobe_arg *a = &spec->args[i];

		if (a->reg == TTRACE_FPROBE_RET)
			seqbuf_printf(s, " %s=ret:%s", a->name,
				      fp_types[type_row(a)].name);
		else
			seqbuf_printf(s, " %s=arg%u:%s", a->name, a->reg,
				      fp_types[type_row(a)].name);
	}
}
