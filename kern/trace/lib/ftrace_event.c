/*
 * ftrace_event.c: ttrace events as Linux trace events (ttrace_ftevent.h
 * has the layout): the format text and the record, side by side so they
 * cannot disagree. Pure; every record is bounded by
 * TTRACE_FTPAGE_REC_MAX by construction (static_assert below).
 */
#include <string.h>

#include <ttrace_ftevent.h>
#include <ttrace_ftpage.h>

static_assert(8 + 9 * TTRACE_MAX_ARGS <= TTRACE_FTPAGE_REC_MAX,
	      "a record of every argument a string fits, each with a byte");

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
void ttrace_ftevent_format(struct seqbuf *s, const struct ttrace_event_meta *e)
{
	seqbuf_printf(s, "name: %s\nID: %u\nformat:\n%s", e->name,
		      TTRACE_FTEVENT_ID_BASE + e->id, ttrace_ftevent_common);
	for (unsigned a = 0; a < e->nargs; a++) {
		const struct ttrace_arg_meta *g = &e->args[a];

		if (g->type == TTRACE_ARG_STR)
			seqbuf_printf(s, "\tfield:__data_loc char[] %s;"
				      "\toffset:%u;\tsize:4;\tsigned:0;\n",
				      g->name, 8 + 8 * a);
		else
			seqbuf_printf(s, "\tfield:%s %s;\toffset:%u;\tsize:8;"
				      "\tsigned:%d;\n", ttrace_arg_signed(g->type) ?
				      "long long" : "unsigned long long",
				      g->name, 8 + 8 * a, ttrace_arg_signed(g->type));
	}
	seqbuf_puts(s, "\nprint fmt: \"");
	for (unsigned a = 0; a < e->nargs; a++) {
		uint8_t ty = e->args[a].type;

		seqbuf_printf(s, "%s%s=%s", a ? " " : "", e->args[a].name,
			      ty == TTRACE_ARG_STR ? "%s" :
			      ty == TTRACE_ARG_PTR ? "0x%llx" :
			      ttrace_arg_signed(ty) ? "%lld" : "%llu");
	}
	seqbuf_putc(s, '"');
	for (unsigned a = 0; a < e->nargs; a++)
		seqbuf_printf(s, e->args[a].type == TTRACE_ARG_STR ?
			      ", __get_str(%s)" : ", REC->%s", e->args[a].name);
	seqbuf_putc(s, '\n');
}

/* The string of a name argument into dst (at most room bytes, its NUL
 * included, room <= TTRACE_FTEVENT_STR_MAX; unprintable bytes as '?');
 * returns its bytes. */
static size_t fe_string(uint8_t *dst, size_t room, unsigned tag, uint64_t v,
			uint64_t ts, ttrace_resolve_fn resolve, void *rarg)
{
	const char *str = NULL;
	size_t len = resolve ? resolve(rarg, tag, v, ts, &str) : 0;

	if (!str)
		len = 0;
	if (len > room - 1)
		len = room - 1;
	for (size_t i = 0; i < len; i++)
		dst[i] = str[i] >= ' ' && str[i] < 0x7f ? (uint8_t)str[i] : '?';
	dst[len] = 0;
	return len + 1;
}

/* See ttrace_ftevent.h. */
size_t ttrace_ftevent_record(uint8_t *rec, const struct ttrace_event_meta *e,
			     const struct ttrace_event_view *ev, uint32_t pid,
			     ttrace_resolve_fn resolve, void *rarg)
{
	unsigned nargs = e->nargs < TTRACE_MAX_ARGS ? e->nargs : TTRACE_MAX_ARGS;
	size_t n = ttrace_ftevent_header(rec, TTRACE_FTEVENT_ID_BASE + e->id,
					 pid) + 8 * (size_t)nargs;

	for (unsigned a = 0; a < nargs; a++) {
		uint64_t v = a < ev->nwords ? ev->args[a] : 0;

		if (e->args[a].type == TTRACE_ARG_STR) {
			/* a byte left for each string after it */
			size_t room = TTRACE_FTPAGE_REC_MAX - n -
				      (nargs - a - 1);
			size_t len = fe_string(rec + n, MIN(room,
					       (size_t)TTRACE_FTEVENT_STR_MAX),
					       e->args[a].aux_tag, v,
					       ev->timestamp, resolve, rarg);

			v = (uint64_t)len << 16 | n;
			n += len;
		}
		memcpy(rec + 8 + 8 * a, &v, 8);
	}
	return n;
}
