/*
 * dynevent_parse.c: Linux's dynamic_events lines (fprobe syntax) as the
 * ctl's fprobe commands (ttrace_dynevent.h has the grammar). Nothing is
 * carried out here: a line becomes the text of one `fprobe add` or
 * `fprobe del`, so the tree and ctl are two doors to the same code
 * (kern/trace/fprobe.c). Each refusal names Linux's reason, the errno
 * Linux gives and where in the line the bad token starts.
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>
#include <abi/errno.h>

#include <ttrace_dynevent.h>

#define DE_MAX_WORDS	(2 + TTRACE_FPROBE_MAX_ARGS)
#define DE_WORD_MAX	64

/* One word of the line: where it starts and its text. */
struct de_word {
	size_t pos;
	char s[DE_WORD_MAX + 1];
};

struct de_line {
	struct de_word w[DE_MAX_WORDS];
	size_t n;
	bool ret;
	struct seqbuf out;
	struct ttrace_dynevent_err *e;
};

/* The argument registers in order (x86_64 SysV), both spellings. */
static const char *const de_regs[TTRACE_FPROBE_MAX_ARGS][2] = {
	{ "di", "rdi" }, { "si", "rsi" }, { "dx", "rdx" },
	{ "cx", "rcx" }, { "r8", "r8" }, { "r9", "r9" },
};

/* Linux's type names as ours. */
static const struct { const char *linux_name, *ours; } de_types[] = {
	{ "u8", "u8" }, { "u16", "u16" }, { "u32", "u32" }, { "u64", "u64" },
	{ "s8", "s8" }, { "s16", "s16" }, { "s32", "s32" }, { "s64", "s64" },
	{ "x8", "u8" }, { "x16", "u16" }, { "x32", "u32" }, { "x64", "u64" },
	{ "string", "str" }, { "ustring", "ustr" },
};

static int de_fail(struct de_line *l, size_t pos, int err, const char *why)
{
	l->e->why = why;
	l->e->pos = pos;
	l->e->err = err;
	return -1;
}

static bool de_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Splits line into words (whitespace, as Linux's argv_split()). */
static int de_split(struct de_line *l, const char *line, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t start, n;

		while (i < len && de_space(line[i]))
			i++;
		if (i == len)
			break;
		for (start = i; i < len && !de_space(line[i]); i++)
			;
		n = i - start;
		if (l->n == DE_MAX_WORDS)
			return de_fail(l, start, -E2BIG,
				       "Too many arguments are specified");
		if (n > DE_WORD_MAX)
			return de_fail(l, start, -EINVAL,
				       "Argument expression is too long");
		l->w[l->n].pos = start;
		memcpy(l->w[l->n].s, line + start, n);
		l->w[l->n].s[n] = 0;
		l->n++;
	}
	return 0;
}

static bool de_ident(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* "[GRP/]EVENT" at pos into info->name. */
static int de_event(struct de_line *l, const char *ge, size_t pos,
		    struct ttrace_dynevent_info *info)
{
	const char *slash = strchr(ge, '/'), *ev = slash ? slash + 1 : ge;
	size_t glen = slash ? (size_t)(slash - ge) : 0;

	if (slash && !glen)
		return de_fail(l, pos, -EINVAL, "Group name is not specified");
	if (slash && !((glen == 6 && !memcmp(ge, "fprobe", 6)) ||
		       (glen == 7 && !memcmp(ge, "fprobes", 7))))
		return de_fail(l, pos, -EINVAL, "Not supported here: the group "
			       "is fprobe (or fprobes)");
	pos += slash ? glen + 1 : 0;
	if (!*ev)
		return de_fail(l, pos, -EINVAL, "Event name is not specified");
	if (strlen(ev) > TTRACE_FPROBE_NAME_MAX)
		return de_fail(l, pos, -EINVAL, "Event name is too long");
	if (!de_ident(ev, TTRACE_FPROBE_NAME_MAX))
		return de_fail(l, pos, -EINVAL, "Event name must follow the "
			       "same rules as C identifiers");
	memcpy(info->name, ev, strlen(ev) + 1);
	info->name_pos = pos;
	return 0;
}

/* A register or $-variable at pos: its source word ("argN", "ret"). */
static int de_src(struct de_line *l, const char *f, size_t pos, char *src)
{
	if (f[0] == '%') {
		for (unsigned r = 0; r < TTRACE_FPROBE_MAX_ARGS; r++)
			if (!strcmp(f + 1, de_regs[r][0]) ||
			    !strcmp(f + 1, de_regs[r][1])) {
				fmt_snprintf(src, 8, "arg%u", r);
				return 0;
			}
		return de_fail(l, pos, -EINVAL, "Invalid register name (the "
			       "argument registers: %di %si %dx %cx %r8 %r9)");
	}
	if (!strcmp(f, "$retval")) {
		if (!l->ret)
			return de_fail(l, pos, -EINVAL,
				       "$retval is not available on probe");
		strcpy(src, "ret");
		return 0;
	}
	if (!strncmp(f, "$arg", 4) && f[4] >= '1' &&
	    f[4] < '1' + TTRACE_FPROBE_MAX_ARGS && !f[5]) {
		fmt_snprintf(src, 8, "arg%c", f[4] - 1);
		return 0;
	}
	if (!strncmp(f, "$arg", 4))
		return de_fail(l, pos, -EINVAL, "Invalid argument number");
	if (f[0] == '$')
		return de_fail(l, pos, -EINVAL, "Invalid $-variable specified "
			       "(here: $argN $retval)");
	return de_fail(l, pos, -EINVAL, "Not supported here: a fetch arg "
		       "other than a register, $argN or $retval");
}

/* The TYPE after ':' at pos into *ours. */
static int de_type(struct de_line *l, const char *t, size_t pos,
		   const char **ours)
{
	for (size_t i = 0; i < ARRAY_SIZE(de_types); i++)
		if (!strcmp(t, de_types[i].linux_name)) {
			*ours = de_types[i].ours;
			return 0;
		}
	return de_fail(l, pos, -EINVAL, "Unknown type is specified (here: "
		       "u8..u64 s8..s64 x8..x64 string ustring)");
}

/* A +0(FETCH) or +u0(FETCH) dereference (f at pos) of a string: its
 * inner FETCH's source into src; user: +u. */
static int de_deref(struct de_line *l, char *f, size_t pos, char *src,
		    bool *user)
{
	char *open = strchr(f, '('), *close;
	size_t off = 1;

	*user = f[1] == 'u';
	off += *user;
	if (!open)
		return de_fail(l, pos, -EINVAL, "Dereference needs a brace");
	if (open != f + off + 1 || f[off] != '0')
		return de_fail(l, pos + off, -EINVAL, "Invalid dereference "
			       "offset (here only +0 of a string)");
	close = strrchr(f, ')');
	if (!close || close[1])
		return de_fail(l, pos, -EINVAL, "Dereference is not closed");
	*close = 0;
	return de_src(l, open + 1, pos + (size_t)(open + 1 - f), src);
}

/* Whether the ctl text so far names argument name already. */
static bool de_used(struct de_line *l, const char *name)
{
	char pat[TTRACE_FPROBE_NAME_MAX + 3];

	fmt_snprintf(pat, sizeof(pat), " %s=", name);
	return strstr(l->out.buf, pat) != NULL;
}

/* One FETCHARG word (k-th, 0-based) into the ctl text. */
static int de_arg(struct de_line *l, struct de_word *w, unsigned k)
{
	char *eq = strchr(w->s, '='), *fetch = eq ? eq + 1 : w->s;
	char *colon = strrchr(fetch, ':'), name[24], src[8];
	size_t fpos = w->pos + (size_t)(fetch - w->s);
	const char *type = "u64";
	bool deref = fetch[0] == '+', user = false, str;

	if (eq)
		*eq = 0;
	if (eq && (!de_ident(w->s, TTRACE_FPROBE_NAME_MAX) ||
		   !strcmp(w->s, "pid") || !strcmp(w->s, "cpu")))
		return de_fail(l, w->pos, -EINVAL, "Argument name must follow "
			       "the same rules as C identifiers (not pid, cpu)");
	if (eq)
		strcpy(name, w->s);	/* de_ident() bounded it */
	else
		fmt_snprintf(name, sizeof(name), "arg%u", k + 1);
	if (de_used(l, name))
		return de_fail(l, w->pos, -EINVAL,
			       "This argument name is already used");
	if (colon) {
		*colon = 0;
		if (de_type(l, colon + 1, fpos + (size_t)(colon + 1 - fetch),
			    &type))
			return -1;
	}
	if (!*fetch)
		return de_fail(l, fpos, -EINVAL, "No argument expression");
	if (deref ? de_deref(l, fetch, fpos, src, &user) :
		    de_src(l, fetch, fpos, src))
		return -1;
	str = !strcmp(type, "str") || !strcmp(type, "ustr");
	if (deref && !str)
		return de_fail(l, fpos, -EINVAL, "Not supported here: a "
			       "dereference other than a string's at +0");
	if (!deref && str)
		return de_fail(l, fpos, -EINVAL,
			       "String accepts only memory argument");
	seqbuf_printf(&l->out, " %s=%s:%s", name, src,
		      user ? "ustr" : type);
	return 0;
}

/* "f[:[GRP/]EVENT] FUNC[%return] ARGS..." into `fprobe add`. */
static int de_add(struct de_line *l, struct ttrace_dynevent_info *info)
{
	struct de_word *f = &l->w[1];
	char *pct;

	if (l->n < 2)
		return de_fail(l, l->w[0].pos + strlen(l->w[0].s), -EINVAL,
			       "Invalid probed address or symbol (no "
			       "function)");
	pct = strchr(f->s, '%');
	if (pct && strcmp(pct, "%return"))
		return de_fail(l, f->pos + (size_t)(pct - f->s), -EINVAL,
			       "Not supported here: after FUNC only %return");
	l->ret = pct != NULL;
	if (pct)
		*pct = 0;
	if (!de_ident(f->s, TTRACE_FPROBE_FUNC_MAX))
		return de_fail(l, f->pos, -EINVAL,
			       "Invalid probed address or symbol");
	memcpy(info->func, f->s, strlen(f->s) + 1);
	info->func_pos = f->pos;
	if (l->w[0].s[1] != ':') {
		if (l->w[0].s[1])
			return de_fail(l, l->w[0].pos + 1, -EINVAL,
				       "Invalid probe type (here: f, -)");
		if (fmt_snprintf(info->name, sizeof(info->name), "%s__%s",
				 f->s, l->ret ? "exit" : "entry") >=
		    (int)sizeof(info->name))
			return de_fail(l, f->pos, -EINVAL, "Event name is too "
				       "long (FUNC__entry: name it f:EVENT)");
		info->name_pos = f->pos;
	} else if (de_event(l, l->w[0].s + 2, l->w[0].pos + 2, info)) {
		return -1;
	}
	if (l->ret && l->n > 3)
		return de_fail(l, l->w[3].pos, -E2BIG, "Too many arguments are "
			       "specified (here a return has one: $retval)");
	seqbuf_printf(&l->out, "fprobe add %s %s%s", info->name, f->s,
		      l->ret ? "%return" : "");
	for (size_t i = 2; i < l->n; i++)
		if (de_arg(l, &l->w[i], (unsigned)(i - 2)))
			return -1;
	return 0;
}

/* See ttrace_dynevent.h. */
int ttrace_dynevent_parse(const char *line, size_t len, char *ctl,
			  size_t size, struct ttrace_dynevent_info *info,
			  struct ttrace_dynevent_err *e)
{
	struct de_line l = { .e = e };

	memset(info, 0, sizeof(*info));
	seqbuf_init(&l.out, ctl, size);
	if (de_split(&l, line, len))
		return -1;
	if (!l.n || l.w[0].s[0] == '#')
		return 0;
	if (l.w[0].s[0] == '-') {
		info->del = true;
		if (l.w[0].s[1] != ':' || l.n > 1)
			return de_fail(&l, l.w[0].pos, -EINVAL,
				       "Invalid command (delete: -:[GRP/]EVENT)");
		if (de_event(&l, l.w[0].s + 2, l.w[0].pos + 2, info))
			return -1;
		seqbuf_printf(&l.out, "fprobe del %s", info->name);
	} else if (l.w[0].s[0] != 'f') {
		return de_fail(&l, l.w[0].pos, -EINVAL, "Not supported here: "
			       "only fprobe events (f:) and -:EVENT");
	} else if (de_add(&l, info)) {
		return -1;
	}
	if (seqbuf_overflowed(&l.out))
		return de_fail(&l, 0, -EINVAL, "Argument expression is too long");
	return 0;
}

/* The Linux fetch arg of one of our argument sources. */
static void de_fetch(const struct ttrace_fprobe_arg *a, struct seqbuf *s)
{
	if (a->reg == TTRACE_FPROBE_RET)
		seqbuf_puts(s, "$retval");
	else if (a->type == TTRACE_ARG_STR)
		seqbuf_printf(s, "+0(%%%s)", de_regs[a->reg][0]);
	else
		seqbuf_printf(s, "%%%s", de_regs[a->reg][0]);
}

/* Our type as Linux's name. */
static const char *de_type_name(const struct ttrace_fprobe_arg *a)
{
	static const char *const names[] = {
		[TTRACE_ARG_U8] = "u8", [TTRACE_ARG_U16] = "u16",
		[TTRACE_ARG_U32] = "u32", [TTRACE_ARG_U64] = "u64",
		[TTRACE_ARG_S8] = "s8", [TTRACE_ARG_S16] = "s16",
		[TTRACE_ARG_S32] = "s32", [TTRACE_ARG_S64] = "s64",
		[TTRACE_ARG_PTR] = "x64", [TTRACE_ARG_BOOL] = "u8",
		[TTRACE_ARG_STR] = "string",
	};

	return a->type < ARRAY_SIZE(names) && names[a->type] ?
	       names[a->type] : "u64";
}

/* See ttrace_dynevent.h. */
void ttrace_dynevent_text(const struct ttrace_fprobe_spec *spec,
			  const char *group, struct seqbuf *s)
{
	seqbuf_printf(s, "f:%s/%s %s%s", group, spec->name, spec->func,
		      spec->ret ? "%return" : "");
	for (unsigned i = 0; i < spec->nargs; i++) {
		seqbuf_printf(s, " %s=", spec->args[i].name);
		de_fetch(&spec->args[i], s);
		seqbuf_printf(s, ":%s%s", spec->args[i].str ==
			      TTRACE_FPROBE_USTR ? "u" : "",
			      de_type_name(&spec->args[i]));
	}
	seqbuf_putc(s, '\n');
}
