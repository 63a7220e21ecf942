/*
 * Host tests of the tracefs grammars (kern/trace/lib/dynevent_parse.c,
 * errlog.c): Linux dynamic_events lines as the ctl fprobe commands they
 * become (and what the ctl parser then makes of them), the refusals with
 * Linux's reason, errno and the caret's position, the text a probe reads
 * back as (which parses to the same probe), and the error log's layout
 * and bound.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"

#include <abi/errno.h>
#include <ttrace_ctl.h>
#include <ttrace_dynevent.h>

static const struct ttrace_group_meta groups[] = {
	{ "fprobe", 24, TTRACE_EVF_DEFAULT_ON },
};
static const struct ttrace_event_meta events[] = {
	{ "fprobe0", "", NULL, 0, 24, 0, 0 },
};
static const struct ttrace_meta_table meta = { events, groups, 1, 1 };

static char ctl[TTRACE_CTL_MAX_LEN + 1];
static struct ttrace_dynevent_info info;
static struct ttrace_dynevent_err err;
static struct ttrace_ctl_cmd cmd;

static int dyn(const char *line)
{
	return ttrace_dynevent_parse(line, strlen(line), ctl, sizeof(ctl),
				     &info, &err);
}

/* line translates to want, which the ctl parser takes. */
static int check(const char *line, const char *want)
{
	HT_CHECK(!dyn(line));
	if (strcmp(ctl, want))
		HT_FAIL("'%s' gave '%s', want '%s'", line, ctl, want);
	if (ttrace_ctl_parse(&cmd, ctl, strlen(ctl), &meta))
		HT_FAIL("ctl refused %.60s: %.200s", ctl, cmd.err);
	return 0;
}

static int test_translate(void)
{
	HT_CHECK(!check("f:myopen ns_open path=+0(%di):string\n",
			"fprobe add myopen ns_open path=arg0:str"));
	HT_CHECK(!strcmp(info.name, "myopen") && info.name_pos == 2 &&
		 !strcmp(info.func, "ns_open") && info.func_pos == 9);
	HT_CHECK(!check("f:fprobes/o ns_open p=+0($arg1):ustring m=%si:x32 "
			"$arg3:s32 %r9", "fprobe add o ns_open p=arg0:ustr "
			"m=arg1:u32 arg3=arg2:s32 arg4=arg5:u64"));
	HT_CHECK(!check("f:fprobe/o ns_open p=+u0(%rdi):string",
			"fprobe add o ns_open p=arg0:ustr"));
	HT_CHECK(!check("f ns_open", "fprobe add ns_open__entry ns_open"));
	HT_CHECK(!check("f ns_open%return", "fprobe add ns_open__exit "
			"ns_open%return"));
	HT_CHECK(!check("f:r ns_open%return fd=$retval:s32",
			"fprobe add r ns_open%return fd=ret:s32"));
	HT_CHECK(cmd.fprobe.ret && cmd.fprobe.args[0].type == TTRACE_ARG_S32);
	HT_CHECK(!check("-:myopen", "fprobe del myopen") && info.del);
	HT_CHECK(!check("-:fprobes/myopen\n", "fprobe del myopen"));
	HT_CHECK(!dyn("   \n") && !ctl[0]);
	HT_CHECK(!dyn("# a comment") && !ctl[0]);
	return 0;
}

/* line is refused with why (a prefix), errno e, the caret at pos. */
static int refused(const char *line, const char *why, int e, size_t pos)
{
	if (!dyn(line))
		HT_FAIL("'%s' taken as '%s'", line, ctl);
	if (strncmp(err.why, why, strlen(why)) || err.err != e ||
	    err.pos != pos)
		HT_FAIL("'%s': '%s' %d at %zu, want '%s' %d at %zu", line,
			err.why, err.err, err.pos, why, e, pos);
	return 0;
}

static int test_refusals(void)
{
	HT_CHECK(!refused("f:bad ns_open path=+8(%di):string",
			  "Invalid dereference offset", -EINVAL, 20));
	HT_CHECK(!refused("f:bad ns_open path=+0(%ax):string",
			  "Invalid register name", -EINVAL, 22));
	HT_CHECK(!refused("f:bad ns_open path=%di:strin", "Unknown type",
			  -EINVAL, 23));
	HT_CHECK(!refused("f:bad ns_open path=%di:string",
			  "String accepts only memory", -EINVAL, 19));
	HT_CHECK(!refused("f:bad ns_open x=+0(%di):u64", "Not supported here",
			  -EINVAL, 16));
	HT_CHECK(!refused("f:bad ns_open x=$retval", "$retval is not",
			  -EINVAL, 16));
	HT_CHECK(!refused("f:bad ns_open x=$arg7", "Invalid argument number",
			  -EINVAL, 16));
	HT_CHECK(!refused("f:bad ns_open x=$comm", "Invalid $-variable",
			  -EINVAL, 16));
	HT_CHECK(!refused("f:bad ns_open x=@jiffies", "Not supported here",
			  -EINVAL, 16));
	HT_CHECK(!refused("f:bad ns_open x=%di y=%si:u8 x=%dx",
			  "This argument name is already used", -EINVAL, 29));
	HT_CHECK(!refused("f:bad ns_open arg2=%si %di",
			  "This argument name is already used", -EINVAL, 23));
	HT_CHECK(!refused("f:bad ns_open 1x=%di", "Argument name must",
			  -EINVAL, 14));
	HT_CHECK(!refused("f:bad ns_open pid=%di", "Argument name must",
			  -EINVAL, 14));
	HT_CHECK(!refused("f:1bad ns_open", "Event name must", -EINVAL, 2));
	HT_CHECK(!refused("f:kprobes/x ns_open", "Not supported here: the "
			  "group", -EINVAL, 2));
	HT_CHECK(!refused("f:/x ns_open", "Group name is not", -EINVAL, 2));
	HT_CHECK(!refused("f:fprobe/ ns_open", "Event name is not", -EINVAL,
			  9));
	HT_CHECK(!refused("f:abcdefghijklmnopqrstuvwxyz f", "Event name is too",
			  -EINVAL, 2));
	HT_CHECK(!refused("f:x", "Invalid probed address", -EINVAL, 3));
	HT_CHECK(!refused("f:x ns-open", "Invalid probed address", -EINVAL, 4));
	HT_CHECK(!refused("f:x ns_open%entry", "Not supported here: after",
			  -EINVAL, 11));
	HT_CHECK(!refused("f:x ns_open%return a=$retval b=$retval",
			  "Too many arguments", -E2BIG, 29));
	HT_CHECK(!refused("f:x ns_open %di %si %dx %cx %r8 %r9 %di",
			  "Too many arguments", -E2BIG, 36));
	HT_CHECK(!refused("p:x ns_open", "Not supported here: only fprobe",
			  -EINVAL, 0));
	HT_CHECK(!refused("fx ns_open", "Invalid probe type", -EINVAL, 1));
	HT_CHECK(!refused("-:x extra", "Invalid command", -EINVAL, 0));
	HT_CHECK(!refused("  -x", "Invalid command", -EINVAL, 2));
	return 0;
}

/* A probe's line reads back in Linux's syntax and translates again to
 * the same probe. */
static int test_text_round_trip(void)
{
	static const char *const lines[] = {
		"f:myopen ns_open path=+0(%di):string",
		"f:o ns_open p=+0(%di):ustring m=%si:x64 n=%dx:s8",
		"f:r ns_open%return fd=$retval:s32",
	};
	struct ttrace_fprobe_spec a;
	char buf[300];
	struct seqbuf s;

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		HT_CHECK(!dyn(lines[i]));
		HT_CHECK(!ttrace_ctl_parse(&cmd, ctl, strlen(ctl), &meta));
		a = cmd.fprobe;
		seqbuf_init(&s, buf, sizeof(buf));
		ttrace_dynevent_text(&a, "fprobe", &s);
		HT_CHECK(!dyn(buf));
		HT_CHECK(!ttrace_ctl_parse(&cmd, ctl, strlen(ctl), &meta));
		if (!ttrace_fprobe_same(&a, &cmd.fprobe))
			HT_FAIL("'%s' read back as '%s'", lines[i], buf);
	}
	HT_CHECK(!dyn(lines[0]) &&
		 !ttrace_ctl_parse(&cmd, ctl, strlen(ctl), &meta));
	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_dynevent_text(&cmd.fprobe, "fprobe", &s);
	HT_CHECK(!strcmp(buf, "f:fprobe/myopen ns_open path=+0(%di):string\n"));
	return 0;
}

static int test_errlog(void)
{
	static struct ttrace_errlog l;
	static char buf[TTRACE_ERRLOG_TEXT_MAX];
	char big[600];
	struct seqbuf s;

	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_errlog_text(&l, &s);
	HT_CHECK(s.len == 0);
	ttrace_errlog_add(&l, 5348887237001ull, "trace_fprobe",
			  "f:bad ns_open path=+8(%di):string\n", 34, 20,
			  "Invalid dereference offset");
	ttrace_errlog_text(&l, &s);
	if (strcmp(buf, "[ 5348.887237] trace_fprobe: error: Invalid "
			 "dereference offset\n  Command: f:bad ns_open "
			 "path=+8(%di):string\n                               "
			 "^\n"))
		HT_FAIL("error_log read %.400s", buf);
	/* full: the oldest go; long commands are cut, the caret inside */
	memset(big, 'x', sizeof(big));
	for (unsigned i = 0; i < 20; i++)
		ttrace_errlog_add(&l, i * 1000ull, "loc", big, sizeof(big),
				  500, "why");
	HT_CHECK(l.count == TTRACE_ERRLOG_MAX);
	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_errlog_text(&l, &s);
	HT_CHECK(!seqbuf_overflowed(&s) && !strstr(buf, "trace_fprobe"));
	HT_CHECK(!strncmp(buf, "[    0.000012] loc: error: why\n", 31));
	ttrace_errlog_clear(&l);
	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_errlog_text(&l, &s);
	HT_CHECK(s.len == 0);
	return 0;
}

static int test_synth_def(void)
{
	struct ttrace_synth_def d;

	HT_CHECK(!ttrace_synth_def_parse("wakeup_latency u64 lat; pid_t pid; "
					 "int prio", &d, &err));
	HT_CHECK(!d.del && !strcmp(d.name, "wakeup_latency") &&
		 !strcmp(d.fields, "u64 lat; pid_t pid; int prio"));
	/* the fields, each as the record's argument type */
	HT_CHECK(d.nfields == 3 && !strcmp(d.field[0].name, "lat") &&
		 d.field[0].type == TTRACE_ARG_U64 &&
		 !strcmp(d.field[1].name, "pid") &&
		 d.field[1].type == TTRACE_ARG_S32 &&
		 !strcmp(d.field[2].name, "prio") &&
		 d.field[2].type == TTRACE_ARG_S32);
	HT_CHECK(ttrace_synth_def_parse("sl u8 a; u8 b; u8 c; u8 d; u8 e", &d,
					&err) && err.pos == 27 &&
		 !strncmp(err.why, "Too many fields", 15));
	HT_CHECK(!ttrace_synth_def_parse("  sl unsigned int x;", &d, &err));
	HT_CHECK(!ttrace_synth_def_parse("!sl", &d, &err) && d.del &&
		 !strcmp(d.name, "sl"));
	HT_CHECK(ttrace_synth_def_parse("sl u64", &d, &err) && err.pos == 3);
	HT_CHECK(ttrace_synth_def_parse("sl u64 lat; float f", &d, &err) &&
		 err.pos == 12 && !strncmp(err.why, "Invalid type", 12));
	HT_CHECK(ttrace_synth_def_parse("1sl u64 lat", &d, &err) && !err.pos);
	HT_CHECK(ttrace_synth_def_parse("sl", &d, &err) &&
		 err.err == -EINVAL);
	HT_CHECK(ttrace_synth_def_parse("!sl x", &d, &err) && err.pos == 4);
	return 0;
}

/* trig parses as kind with key, var, start_var, start, synth. */
static int hist_is(const char *trig, uint32_t kind, const char *key,
		   const char *var, const char *svar, const char *start,
		   const char *synth)
{
	struct ttrace_synth_hist h;

	if (ttrace_synth_hist_parse(trig, &h, &err))
		HT_FAIL("'%s' refused: %s at %zu", trig, err.why, err.pos);
	if (h.kind != kind || strcmp(h.key, key) || strcmp(h.var, var) ||
	    strcmp(h.start_var, svar) || strcmp(h.start, start) ||
	    strcmp(h.synth, synth))
		HT_FAIL("'%s': %u %s %s %s %s %s", trig, h.kind, h.key, h.var,
			h.start_var, h.start, h.synth);
	return 0;
}

static int test_synth_hist(void)
{
	struct ttrace_synth_hist h;

	HT_CHECK(!hist_is("hist:keys=common_pid:vals=hitcount",
			  TTRACE_SYNTH_NONE, "", "", "", "", ""));
	HT_CHECK(!hist_is("hist:keys=pid:ts0=common_timestamp.usecs",
			  TTRACE_SYNTH_START, "pid", "ts0", "", "", ""));
	HT_CHECK(!hist_is("hist:keys=next_pid:wakeup_lat=common_timestamp."
			  "usecs-$ts0:onmatch(sched.sched_waking).wakeup_"
			  "latency($wakeup_lat,next_pid,next_prio)",
			  TTRACE_SYNTH_MATCH, "next_pid", "wakeup_lat", "ts0",
			  "sched.sched_waking", "wakeup_latency"));
	/* the parameters after the latency: END's fields, in order */
	HT_CHECK(!ttrace_synth_hist_parse("hist:keys=next_pid:l=common_"
					  "timestamp-$t:onmatch(s.e).trace(sl,"
					  "$l,next_pid,next_prio)", &h, &err) &&
		 h.nparams == 2 && !strcmp(h.params[0], "next_pid") &&
		 !strcmp(h.params[1], "next_prio"));
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:l=common_timestamp-$t:"
					 "onmatch(s.e).sl($l,a,b,c,d)", &h,
					 &err) && err.pos == 59);
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:l=common_timestamp-$t:"
					 "onmatch(s.e).sl($l,a+1)", &h, &err) &&
		 err.pos == 53);
	HT_CHECK(!hist_is("hist:keys=common_pid:lat=common_timestamp-$t:"
			  "onmatch(syscall.syscall_enter).trace(sl,$lat,"
			  "common_pid)", TTRACE_SYNTH_MATCH, "common_pid",
			  "lat", "t", "syscall.syscall_enter", "sl"));
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a,b:t=common_timestamp",
					 &h, &err) && err.pos == 10);
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:t=common_pid:u=common_"
					 "timestamp", &h, &err) && err.pos == 14);
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:l=common_timestamp-"
					 "$t", &h, &err) && err.pos == 33);
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:l=common_timestamp-$t:"
					 "onmatch(s.e).trace(sl,$x)", &h,
					 &err) && err.pos == 56);
	HT_CHECK(ttrace_synth_hist_parse("hist:keys=a:l=common_timestamp-$t:"
					 "onmatch(s.e.save(x)", &h, &err) &&
		 err.pos == 42);
	HT_CHECK(ttrace_synth_hist_parse("hist:t=common_timestamp", &h,
					 &err) && !strncmp(err.why, "Missing",
							   7));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_synth_def, "synth_def" },
	{ test_synth_hist, "synth_hist" },
	{ test_translate, "dynevent_translate" },
	{ test_refusals, "dynevent_refusals" },
	{ test_text_round_trip, "dynevent_text_round_trip" },
	{ test_errlog, "tracefs_errlog" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
