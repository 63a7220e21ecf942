/*
 * Host tests of the function probes' pure half (kern/trace/lib/
 * fprobe_parse.c): the fprobe ctl grammar, its refusals (hostile input
 * included), the metadata a definition turns into (which must pass the
 * same format check a trace's metadata does, and round-trip through the
 * serialiser and the parser), and the text a definition reads back as.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"

#include <ttrace_ctl.h>
#include <ttrace_fprobe.h>

static const struct ttrace_group_meta groups[] = {
	{ "fprobe", 24, TTRACE_EVF_DEFAULT_ON },
};
static const struct ttrace_event_meta events[] = {
	{ "fprobe0", "", NULL, 0, 24, 0, 0 },
};
static const struct ttrace_meta_table meta = { events, groups, 1, 1 };

static struct ttrace_ctl_cmd cmd;

static const char *parse(const char *text)
{
	return ttrace_ctl_parse(&cmd, text, strlen(text), &meta);
}

static int test_parse_add(void)
{
	const struct ttrace_fprobe_spec *s = &cmd.fprobe;

	HT_CHECK(!parse("fprobe add op ns_open path=arg0:str arg1:u32\n"));
	HT_CHECK(cmd.op == TTRACE_CTL_FPROBE && s->op == TTRACE_FPROBE_ADD);
	HT_CHECK(!strcmp(s->name, "op") && !strcmp(s->func, "ns_open"));
	HT_CHECK(!s->ret && s->nargs == 2);
	HT_CHECK(!strcmp(s->args[0].name, "path") && s->args[0].reg == 0);
	HT_CHECK(s->args[0].type == TTRACE_ARG_STR &&
		 s->args[0].str == TTRACE_FPROBE_KSTR);
	HT_CHECK(!strcmp(s->args[1].name, "arg1") && s->args[1].reg == 1 &&
		 s->args[1].type == TTRACE_ARG_U32 && !s->args[1].str);
	HT_CHECK(!parse("fprobe add r ns_open%return"));
	HT_CHECK(s->ret && s->nargs == 1 && s->args[0].reg == TTRACE_FPROBE_RET);
	HT_CHECK(!strcmp(s->args[0].name, "ret") &&
		 s->args[0].type == TTRACE_ARG_S64);
	HT_CHECK(!parse("fprobe add r sys_open%return fd=ret:s32"));
	HT_CHECK(!strcmp(s->args[0].name, "fd") &&
		 s->args[0].type == TTRACE_ARG_S32);
	HT_CHECK(!parse("fprobe add six f a=arg0:u8 b=arg1:s16 arg2:ptr "
			"arg3:bool arg4:ustr arg5:u64"));
	HT_CHECK(s->nargs == 6 && s->args[4].str == TTRACE_FPROBE_USTR);
	HT_CHECK(!parse("fprobe add bare sched_tick"));	/* no argument */
	HT_CHECK(s->nargs == 0);
	HT_CHECK(!parse("fprobe del op"));
	HT_CHECK(s->op == TTRACE_FPROBE_DEL && !strcmp(s->name, "op"));
	HT_CHECK(!parse("fprobe del *"));
	HT_CHECK(s->op == TTRACE_FPROBE_DEL && !strcmp(s->name, "*"));
	return 0;
}

/* Each refused command must say why, in words that name the fault. */
static int test_parse_errors(void)
{
	static const struct {
		const char *cmd, *why;
	} bad[] = {
		{ "fprobe", "ttrace ctl: fprobe: add NAME" },		/* word count */
		{ "fprobe add", "usage" },
		{ "fprobe add x", "give NAME FUNC" },
		{ "fprobe put x f", "want add NAME FUNC" },
		{ "fprobe del x y", "want add NAME FUNC" },
		{ "fprobe add 9x f", "bad name '9x'" },
		{ "fprobe add * f", "bad name '*'" },
		{ "fprobe del *x", "bad name '*x'" },
		{ "fprobe add a.b f", "bad name" },
		{ "fprobe add abcdefghijklmnopqrstuvwxy f", "bad name" },
		{ "fprobe add x f%entry", "only %return" },
		{ "fprobe add x f%returnx", "only %return" },
		{ "fprobe add x f-g", "bad function name" },
		{ "fprobe add x f arg6:u32", "bad source 'arg6'" },
		{ "fprobe add x f arg10:u32", "bad source" },
		{ "fprobe add x f ret:u32", "bad source 'ret'" },
		{ "fprobe add x f%return arg0:u32", "at a return only ret" },
		{ "fprobe add x f%return ret:u32 ret:u8", "too many arguments" },
		{ "fprobe add x f arg0:u32 arg1:u32 arg2:u32 arg3:u32 arg4:u32 "
		  "arg5:u32 arg0:u8", "too many arguments" },
		{ "fprobe add x f arg0:float", "bad type 'float'" },
		{ "fprobe add x f arg0", "is not [FIELD=]argN:TYPE" },
		{ "fprobe add x f pid=arg0:u32", "bad field name 'pid'" },
		{ "fprobe add x f 1a=arg0:u32", "bad field name" },
		{ "fprobe add x f =arg0:u32", "bad field name" },
		{ "fprobe add x f a=arg0:u32 a=arg1:u32", "field 'a' given twice" },
		{ "fprobe add x f arg0:u32 arg0:u8", "given twice" },
		{ "fprobe add x f a=b=arg0:u32", "bad source" },
		{ "fprobe add x f arg0::u32", "bad type" },
		{ "fprobe add x f\x01 arg0:u32", "bad character" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *e = parse(bad[i].cmd);

		if (!e || !strstr(e, bad[i].why))
			HT_FAIL("'%s': %s", bad[i].cmd, e ? e : "accepted");
	}
	return 0;
}

/* The metadata of every definition passes the trace format's checks and
 * survives the serialiser and the parser. */
static int test_meta(void)
{
	static struct ttrace_fprobe_meta m;
	struct ttrace_event_meta ev[2] = { events[0] };
	struct ttrace_meta_table t = { ev, groups, 2, 1 }, back;
	const char *why = NULL;
	uint8_t blob[2048];
	size_t n;
	void *arena;

	HT_CHECK(!parse("fprobe add op ns_open path=arg0:str mode=arg1:u32 "
			"arg2:ptr e=arg3:s8"));
	ttrace_fprobe_meta(&cmd.fprobe, &m, 1, 24);
	HT_CHECK(!strcmp(m.ev.format,
			 "ns_open path=%s mode=%llu arg2=%p e=%lld"));
	HT_CHECK(m.ev.nargs == 4 && m.ev.id == 1 && m.ev.group == 24);
	HT_CHECK(m.args[0].type == TTRACE_ARG_STR &&
		 m.args[0].aux_tag == TTRACE_AUX_USER_MARKER);
	HT_CHECK(!ttrace_meta_check_format(m.ev.format, m.ev.args, m.ev.nargs,
					   &why));
	ev[1] = m.ev;
	n = ttrace_meta_serialise(&t, blob, sizeof(blob));
	HT_CHECK(n && n <= sizeof(blob));
	arena = malloc(ttrace_meta_arena_size(blob, n));
	HT_CHECK(arena);
	if (ttrace_meta_parse(blob, n, arena, ttrace_meta_arena_size(blob, n),
			      &back, &why) < 0) {
		free(arena);
		HT_FAIL("parse: %s", why);
	}
	HT_CHECK(back.nevents == 2 && !strcmp(back.events[1].name, "op") &&
		 !strcmp(back.events[1].args[1].name, "mode"));
	free(arena);
	return 0;
}

/* The text a definition reads back as parses to the same definition. */
static int test_text_same(void)
{
	struct ttrace_fprobe_spec a;
	char buf[300];
	struct seqbuf s;

	HT_CHECK(!parse("fprobe add op ns_open path=arg0:ustr arg3:bool"));
	a = cmd.fprobe;
	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_fprobe_text(&a, &s);
	HT_CHECK(!strcmp(buf, "fprobe add op ns_open path=arg0:ustr "
			 "arg3=arg3:bool"));
	HT_CHECK(!parse(buf) && ttrace_fprobe_same(&a, &cmd.fprobe));
	HT_CHECK(!parse("fprobe add op ns_open path=arg0:str arg3:bool"));
	HT_CHECK(!ttrace_fprobe_same(&a, &cmd.fprobe));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_parse_add, "fprobe_parse_add" },
	{ test_parse_errors, "fprobe_parse_errors" },
	{ test_meta, "fprobe_meta" },
	{ test_text_same, "fprobe_text_same" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
