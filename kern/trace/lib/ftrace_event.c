/*
 * ftrace_event.c: ttrace events as Linux trace events (ttrace_ftevent.h
 * has the layout): the format text and the record, side by side so they
 * cannot disagree. Pure; every record is bounded by
 * TTRACE_FTPAGE_REC_MAX by construction (static_assert below).
 */
#include <printfmt.h>
#include <string.h>

#include <ttrace_ftevent.h>
#include <ttrace_ftpage.h>

static_assert(8 + 13 * TTRACE_MAX_ARGS <= TTRACE_FTPAGE_REC_MAX,
	      "a record of every argument a name fits, each with a byte");

const char ttrace_ftevent_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

const char ttrace_ftevent_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

const char ttrace_ftevent_common[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
	"\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/* See ttrace_ftevent.h. */
size_t ttrace_ftevent_header(uint8_t *rec, unsigned id, uint32_t pid)
{
	uint16_t type = (uint16_t)id;

	memset(rec, 0, 8);
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
	return 8;
}

/* See ttrace_ftevent.h. */
void ttrace_ftevent_head(struct seqbuf *s, const char *name, unsigned id)
{
	seqbuf_printf(s, "name: %s\nID: %u\nformat:\n%s", name, id,
		      ttrace_ftevent_common);
}

/* See ttrace_ftevent.h. */
size_t ttrace_ftevent_name(char *dst, size_t size, ttrace_resolve_fn resolve,
			   void *rarg, unsigned tag, uint64_t ident,
			   uint64_t ts)
{
	const char *str = NULL;
	size_t len = resolve ? resolve(rarg, tag, ident, ts, &str) : 0;

	if (tag == TTRACE_AUX_KSYM_NAME && !ident) {	/* a stack's frame */
		dst[0] = 0;				/* past its end */
		return 0;
	}
	if (!str || !len) {
		int n = fmt_snprintf(dst, size, "#%lu", (unsigned long)ident);

		return n < 0 ? 0 : MIN((size_t)n, size - 1);
	}
	len = MIN(len, size - 1);
	for (size_t i = 0; i < len; i++)
		dst[i] = str[i] >= ' ' && str[i] < 0x7f ? str[i] : '?';
	dst[len] = 0;
	return len;
}

/* The length of s's first characters that are all in set. */
static size_t fe_span(const char *s, const char *set)
{
	size_t n = 0;

	while (s[n] && strchr(set, s[n]))
		n++;
	return n;
}

/* The conversion at f (just after its '%'): the length of its flags,
 * width and precision in *spec, of its length modifiers in *mods; returns
 * its conversion character. */
static char fe_conv(const char *f, size_t *spec, size_t *mods)
{
	*spec = fe_span(f, "-0#+ 0123456789.");
	*mods = fe_span(f + *spec, "hlz");
	return f[*spec + *mods];
}

/* Whether e's own format has one conversion per argument, a %s for each
 * name argument and no other (into conv): then it is the print fmt. */
static bool fe_convs(const struct ttrace_event_meta *e, char *conv)
{
	size_t n = 0, spec, mods;

	for (const char *p = e->format; p && *p; p++)
		if (*p == '%' && *++p != '%') {
			if (n == e->nargs)
				return false;
			conv[n] = fe_conv(p, &spec, &mods);
			if (!conv[n] || (conv[n] == 's') !=
			    (e->args[n].type == TTRACE_ARG_STR))
				return false;	/* %s of a number, ... */
			n++;
		}
	return e->format && n == e->nargs;
}

/* e's print fmt from its own format (fe_convs): each integer conversion
 * with the length ll (every field is 8 bytes), %p as %pS (the symbol
 * when the reader has kallsyms, else the address), %s of a name argument
 * from its string field NAME_name. */
static void fe_own_print(struct seqbuf *s, const struct ttrace_event_meta *e,
			 const char *conv)
{
	size_t spec, mods;

	seqbuf_puts(s, "\nprint fmt: \"");
	for (const char *p = e->format; *p; p++) {
		if (*p != '%') {
			seqbuf_printf(s, *p == '"' || *p == '\\' ? "\\%c" :
				      "%c", *p);
		} else if (p[1] == '%') {
			seqbuf_puts(s, "%%");
			p++;
		} else {
			char c = fe_conv(++p, &spec, &mods);

			seqbuf_printf(s, "%%%.*s%s%c%s", (int)spec, p,
				      c && strchr("diuxXo", c) ? "ll" : "", c,
				      c == 'p' ? "S" : "");
			p += spec + mods;
		}
	}
	seqbuf_putc(s, '"');
	for (unsigned a = 0; a < e->nargs; a++)
		seqbuf_printf(s, conv[a] == 's' ? ", __get_str(%s_name)" :
			      conv[a] == 'p' ? ", (void *)REC->%s" :
			      ", REC->%s", e->args[a].name);
	seqbuf_putc(s, '\n');
}

/* See ttrace_ftevent.h. */
void ttrace_ftevent_format(struct seqbuf *s, const struct ttrace_event_meta *e)
{
	char conv[TTRACE_MAX_ARGS];
	unsigned strs = 0;

	ttrace_ftevent_head(s, e->name, TTRACE_FTEVENT_ID_BASE + e->id);
	for (unsigned a = 0; a < e->nargs; a++) {
		const struct ttrace_arg_meta *g = &e->args[a];

		seqbuf_printf(s, "\tfield:%s %s;\toffset:%u;\tsize:8;"
			      "\tsigned:%d;\n", ttrace_arg_signed(g->type) ?
			      "long long" : "unsigned long long", g->name,
			      8 + 8 * a, ttrace_arg_signed(g->type));
	}
	for (unsigned a = 0; a < e->nargs; a++)
		if (e->args[a].type == TTRACE_ARG_STR)
			seqbuf_printf(s, "\tfield:__data_loc char[] %s_name;"
				      "\toffset:%u;\tsize:4;\tsigned:0;\n",
				      e->args[a].name,
				      8 + 8 * e->nargs + 4 * strs++);
	if (fe_convs(e, conv)) {
		fe_own_print(s, e, conv);
		return;
	}
	seqbuf_puts(s, "\nprint fmt: \"");
	for (unsigned a = 0; a < e->nargs; a++) {
		uint8_t ty = e->args[a].type;

		seqbuf_printf(s, "%s%s=%s", a ? " " : "", e->args[a].name,
			      ty == TTRACE_ARG_STR ? "%s" :
			      ty == TTRACE_ARG_PTR ? "%pS" :
			      ttrace_arg_signed(ty) ? "%lld" : "%llu");
	}
	seqbuf_putc(s, '"');
	for (unsigned a = 0; a < e->nargs; a++)
		seqbuf_printf(s, e->args[a].type == TTRACE_ARG_STR ?
			      ", __get_str(%s_name)" : e->args[a].type ==
			      TTRACE_ARG_PTR ? ", (void *)REC->%s" : ", REC->%s",
			      e->args[a].name);
	seqbuf_putc(s, '\n');
}

/* See ttrace_ftevent.h. */
size_t ttrace_ftevent_record(uint8_t *rec, const struct ttrace_event_meta *e,
			     const struct ttrace_event_view *ev, uint32_t pid,
			     ttrace_resolve_fn resolve, void *rarg)
{
	unsigned nargs = MIN(e->nargs, (unsigned)TTRACE_MAX_ARGS);
	size_t loc = ttrace_ftevent_header(rec, TTRACE_FTEVENT_ID_BASE + e->id,
					   pid) + 8 * (size_t)nargs;
	size_t n = loc;

	for (unsigned a = 0; a < nargs; a++)
		n += e->args[a].type == TTRACE_ARG_STR ? 4 : 0;
	for (unsigned a = 0; a < nargs; a++) {
		uint64_t v = a < ev->nwords ? ev->args[a] : 0;
		/* a byte left for each name after it */
		size_t room = TTRACE_FTPAGE_REC_MAX - n - (nargs - a - 1);
		uint32_t len;

		memcpy(rec + 8 + 8 * a, &v, 8);
		if (e->args[a].type != TTRACE_ARG_STR)
			continue;
		len = (uint32_t)ttrace_ftevent_name((char *)rec + n,
			MIN(room, (size_t)TTRACE_FTEVENT_STR_MAX), resolve,
			rarg, e->args[a].aux_tag, v, ev->timestamp) + 1;
		len = len << 16 | (uint32_t)n;
		memcpy(rec + loc, &len, 4);
		loc += 4;
		n += len >> 16;
	}
	return n;
}
