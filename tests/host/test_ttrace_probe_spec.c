/*
 * Host tests of the built-in probes' pure parts
 * (kern/trace/lib/probe_parse.c): the probe/unprobe grammar over a small event
 * table, the field tests (signed and unsigned), the keyed counter table
 * (racing writers included), the log2 histogram math, and the ctl state's
 * probed bytes (a probed event is armed but not recorded).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "htest.h"

#include <seqbuf.h>
#include <ttrace_ctl.h>
#include <ttrace_probe_spec.h>

static const struct ttrace_arg_meta args_sys[] = {
	{ "nr", TTRACE_ARG_STR, 1, 0, 0 }, { "ret", TTRACE_ARG_S64, 0, 0, 0 },
};
static const struct ttrace_arg_meta args_pf[] = {
	{ "addr", TTRACE_ARG_PTR, 0, 0, 0 }, { "error", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta args_wake[] = {
	{ "pid", TTRACE_ARG_U32, 0, 0, 0 }, { "target_cpu", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta args_switch[] = {
	{ "prev_pid", TTRACE_ARG_U32, 0, 0, 0 }, { "next_pid", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta args_synth[] = {
	{ "lat", TTRACE_ARG_U64, 0, 0, 0 }, { "pid", TTRACE_ARG_S32, 0, 0, 0 },
};

/* packed (docs/trace-format.md "Packed arguments"): word 0 a thread
 * word (pid at 0, prio at 4, flags at 7), word 1 the CPU; comm is the
 * name of pid's bytes */
static const struct ttrace_arg_meta args_packed[] = {
	{ "comm", TTRACE_ARG_STR, 2, 0, 4 }, { "pid", TTRACE_ARG_U32, 0, 0, 4 },
	{ "prio", TTRACE_ARG_S16, 0, 4, 2 },
	{ "target_cpu", TTRACE_ARG_U32, 0, 8, 8 },
};

/* an fprobe's: its path's text is at hand (str:marker) */
static const struct ttrace_arg_meta args_open[] = {
	{ "path", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER, 0, 0 },
	{ "ret", TTRACE_ARG_S64, 0, 0, 0 },
};

static const struct ttrace_group_meta groups[] = {
	{ "syscall", 8, TTRACE_EVF_DEFAULT_ON },
	{ "fault", 11, 0 },
	{ "sched", 4, TTRACE_EVF_DEFAULT_ON },
	{ "synthetic", 25, 0 },
};

static const struct ttrace_event_meta events[] = {
	{ "syscall_enter", "%s %lld", args_sys, 0, 8, TTRACE_EVF_DEFAULT_ON, 2 },
	{ "syscall_exit", "%s %lld", args_sys, 1, 8, TTRACE_EVF_DEFAULT_ON, 2 },
	{ "page_fault", "%p %llx", args_pf, 2, 11, TTRACE_EVF_DEFAULT_ON, 2 },
	{ "sched_waking", "%u %u", args_wake, 3, 4, TTRACE_EVF_DEFAULT_ON, 2 },
	{ "sched_switch", "%u %u", args_switch, 4, 4, TTRACE_EVF_DEFAULT_ON, 2 },
	{ "wakeup_latency", "%llu %lld", args_synth, 5, 25, 0, 2 },
	{ "myopen", "%s %lld", args_open, 6, 11, 0, 2 },
	{ "sched_wakeup", "%s %u %d %u", args_packed, 7, 4,
	  TTRACE_EVF_DEFAULT_ON, 4 },
};

static const struct ttrace_meta_table meta = { events, groups, 8, 4 };

static struct ttrace_ctl_cmd cmd;

static const char *parse(const char *text)
{
	return ttrace_ctl_parse(&cmd, text, strlen(text), &meta);
}

static int test_parse_kinds(void)
{
	char back[256];
	struct seqbuf out;

	HT_CHECK(!parse("probe c count syscall_enter by nr\n"));
	HT_CHECK(cmd.op == TTRACE_CTL_PROBE && !strcmp(cmd.probe.name, "c"));
	HT_CHECK(cmd.probe.kind == TTRACE_PROBE_COUNT && cmd.probe.event == 0);
	HT_CHECK(cmd.probe.key.src == TTRACE_FIELD_ARG && cmd.probe.key.arg == 0);
	HT_CHECK(!parse("probe lat latency syscall_enter syscall_exit by nr if pid==3"));
	HT_CHECK(cmd.probe.kind == TTRACE_PROBE_LATENCY && cmd.probe.end_event == 1);
	HT_CHECK(cmd.probe.ntests == 1 && cmd.probe.tests[0].value == 3);
	HT_CHECK(cmd.probe.tests[0].field.src == TTRACE_FIELD_PID);
	/* syscall_exit has an nr too: the pair must match on it */
	HT_CHECK(cmd.probe.end_key.src == TTRACE_FIELD_ARG &&
		 cmd.probe.end_key.arg == 0);
	HT_CHECK(!parse("probe lat latency syscall_enter page_fault by nr"));
	HT_CHECK(cmd.probe.end_key.src == TTRACE_FIELD_NONE);
	HT_CHECK(!parse("probe h hist page_fault addr by cpu"));
	HT_CHECK(cmd.probe.value.arg == 0 && cmd.probe.key.src == TTRACE_FIELD_CPU);
	HT_CHECK(!parse("probe f filter syscall_exit ret<0 nr!=0x3"));
	HT_CHECK(cmd.probe.ntests == 2 && cmd.probe.tests[0].op == TTRACE_OP_LT);
	HT_CHECK(cmd.probe.tests[0].field.is_signed);
	HT_CHECK(cmd.probe.tests[1].op == TTRACE_OP_NE);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe f filter syscall_exit ret<0 nr!=0x3"));
	HT_CHECK(!parse("probe s snapshot page_fault if addr&0xfff error>=2"));
	HT_CHECK(cmd.probe.tests[0].op == TTRACE_OP_AND &&
		 cmd.probe.tests[1].op == TTRACE_OP_GE);
	HT_CHECK(!parse("probe x.y-z stop syscall_exit"));
	HT_CHECK(!parse("probe st stacktrace syscall_enter if nr==7"));
	HT_CHECK(cmd.probe.kind == TTRACE_PROBE_STACKTRACE &&
		 cmd.probe.depth == TTRACE_STACK_DEPTH && cmd.probe.ntests == 1);
	HT_CHECK(!parse("probe st stacktrace page_fault depth 4"));
	HT_CHECK(cmd.probe.depth == 4 && cmd.probe.ntests == 0);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe st stacktrace page_fault depth 4"));
	/* times N: a stop's or stacktrace's first N acts (ftrace's :N) */
	HT_CHECK(!parse("probe st stacktrace page_fault depth 4 times 3 "
			"if addr>0"));
	HT_CHECK(cmd.probe.times == 3 && cmd.probe.ntests == 1);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe st stacktrace page_fault depth 4 "
			 "times 3 if addr>0"));
	HT_CHECK(!parse("probe o stop syscall_exit times 2147483648"));
	HT_CHECK(cmd.probe.times == 1u << 31);
	HT_CHECK(!parse("probe o stop syscall_exit"));
	HT_CHECK(cmd.probe.times == 0);
	HT_CHECK(parse("probe o stop syscall_exit times 0"));
	HT_CHECK(parse("probe o stop syscall_exit times 2147483649"));
	HT_CHECK(parse("probe o stop syscall_exit times"));
	HT_CHECK(parse("probe o count syscall_exit times 2"));
	/* match and emit: histogram.rst's wakeup latency, by key on any CPU */
	HT_CHECK(!parse("probe w latency sched_waking sched_switch by pid "
			"match next_pid emit wakeup_latency next_pid "
			"common_pid if target_cpu==1"));
	HT_CHECK(cmd.probe.key.src == TTRACE_FIELD_ARG && cmd.probe.key.arg == 0);
	HT_CHECK(cmd.probe.match && cmd.probe.end_key.arg == 1 &&
		 cmd.probe.emit && cmd.probe.emit_event == 5 &&
		 cmd.probe.nemit == 2 &&
		 cmd.probe.emit_fields[0].src == TTRACE_FIELD_ARG &&
		 cmd.probe.emit_fields[0].arg == 1 &&
		 cmd.probe.emit_fields[1].src == TTRACE_FIELD_PID &&
		 cmd.probe.ntests == 1);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe w latency sched_waking sched_switch by "
			 "pid match next_pid emit wakeup_latency next_pid pid "
			 "if target_cpu==0x1"));
	/* where an argument is called pid, common_pid is the process's */
	HT_CHECK(!parse("probe c count sched_waking by common_pid"));
	HT_CHECK(cmd.probe.key.src == TTRACE_FIELD_PID);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe c count sched_waking by common_pid"));
	HT_CHECK(!parse("probe c count syscall_enter by common_cpu") &&
		 cmd.probe.key.src == TTRACE_FIELD_CPU);
	HT_CHECK(!parse("unprobe *") && cmd.op == TTRACE_CTL_UNPROBE);
	HT_CHECK(!parse("unprobe c") && !strcmp(cmd.probe.name, "c"));
	/* one table: the first word picks the row, whatever the blanks */
	HT_CHECK(!parse(" unprobe *\n") && cmd.op == TTRACE_CTL_UNPROBE);
	HT_CHECK(!parse("enable syscall") && cmd.op == TTRACE_CTL_ENABLE);
	HT_CHECK(parse("prober") && strstr(cmd.err, "unknown command 'prober'"));
	return 0;
}

/* Every bad command is refused with a message naming what is wrong, and
 * the probe commands' usage from the ctl table (every command's when the
 * text is no command at all: its first word is not read). */
static int test_parse_errors(void)
{
	static const char usage[] =
		"; usage: probe NAME filter EVENT TEST... | "
		"probe NAME count EVENT [by FIELD[.TAG]] [if TEST...] | "
		"probe NAME hist EVENT FIELD [by FIELD[.TAG]] [if TEST...] | "
		"probe NAME latency START END [by FIELD[.TAG] [match F]] "
		"[emit E F...] [if TEST...] | "
		"probe NAME snapshot EVENT [if TEST...] | "
		"probe NAME stop EVENT [times N] [if TEST...] | "
		"probe NAME stacktrace EVENT [depth N] [times N] [if TEST...] | "
		"unprobe NAME|*";
	static const struct { const char *text, *want; } bad[] = {
		{ "probe c count", "too few" },
		{ "probe c bogus syscall_enter", "unknown probe kind 'bogus'" },
		{ "probe c count nosuch", "no event 'nosuch'" },
		{ "probe c count syscall_enter by nosuch", "no field 'nosuch'" },
		{ "probe c count syscall_enter if", "unexpected 'if'" },
		{ "probe c count syscall_enter junk", "unexpected 'junk'" },
		{ "probe c filter syscall_enter", "at least one test" },
		{ "probe c filter syscall_enter nr=3", "bad test at 'nr=3'" },
		{ "probe c filter syscall_enter zz==3", "no field 'zz==3'" },
		{ "probe c filter syscall_enter nr==x", "bad number" },
		{ "probe c filter syscall_enter nr==", "bad number" },
		{ "probe c filter syscall_enter pid==1 pid==2 pid==3 pid==4 "
		  "pid==5 pid==6 pid==7 pid==8 pid==9", "more than 8 tests at "
		  "'pid==9'" },
		{ "probe c filter syscall_exit (((((pid==3)))))",
		  "nested too deep at '(pid==3)))))'" },
		{ "probe c filter myopen path ~ \"sys_*", "unterminated" },
		{ "probe c filter myopen ret ~ \"1*\"", "'~' needs a text field" },
		{ "probe c filter myopen pid~3", "'~' needs a text field" },
		/* an aux identifier, named elsewhere: no text at the site */
		{ "probe c filter syscall_exit nr ~ \"sys_*\"", "'~' needs a text" },
		{ "probe c filter myopen path ~ \"\"", "bad glob" },
		{ "probe c filter myopen path ~ "
		  "0123456789012345678901234567890123", "bad glob" },
		{ "probe c filter syscall_exit pid == 1 || zz == 2", "no field 'zz" },
		{ "probe c filter syscall_exit (pid==3 || ret<0", "missing ')'" },
		{ "probe c filter syscall_exit pid==3)", "unexpected ')'" },
		{ "probe c filter syscall_exit pid==3 ||", "bad test at ''" },
		{ "probe c filter syscall_exit pid==3 && && ret<0", "bad test" },
		{ "probe c filter syscall_exit pid==3 | ret<0", "bad test at '| " },
		{ "probe c filter syscall_exit ()", "bad test at ')'" },
		{ "probe c filter syscall_exit ret < 99999999999999999999999",
		  "bad number" },
		{ "probe c hist page_fault", "too few" },
		{ "probe w latency sched_waking sched_switch match next_pid",
		  "match needs by FIELD" },
		{ "probe w latency sched_waking sched_switch by pid match x",
		  "no field 'x' in END" },
		{ "probe w latency sched_waking sched_switch by pid emit nosuch",
		  "no event 'nosuch'" },
		{ "probe w latency sched_waking sched_switch by pid emit "
		  "wakeup_latency pid pid pid pid", "more than 3 fields" },
		{ "probe c hist page_fault nosuch", "no field 'nosuch' to count" },
		{ "probe c latency syscall_enter syscall_enter", "two different" },
		{ "probe c latency syscall_enter nosuch", "no event 'nosuch'" },
		{ "probe abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
		  "0123456789ab count page_fault", "bad probe name" },
		{ "probe c count syscall_enter by nr.nosuch",
		  "no key name 'nosuch'" },
		{ "probe c count syscall_enter by nr.", "no key name ''" },
		{ "probe st stacktrace syscall_enter depth 0", "depth '0': 1 to 16" },
		{ "probe st stacktrace syscall_enter depth 17", "depth '17'" },
		{ "probe st stacktrace syscall_enter depth 99999999999999999999",
		  "1 to 16 frames" },
		{ "probe st stacktrace syscall_enter depth", "depth '': 1 to 16" },
		{ "probe st stacktrace syscall_enter depth -1", "depth '-1'" },
		{ "probe st stacktrace nosuch", "no event 'nosuch'" },
		{ "probe st stacktrace syscall_enter by nr", "unexpected 'by'" },
		{ "probe c count syscall_enter by .syscall", "no field" },
		{ "probe a/b count page_fault", "bad probe name" },
		{ "unprobe", "one probe name" },
		{ "unprobe a b", "one probe name" },
	};
	const char *err;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err = parse(bad[i].text);
		if (!err || !strstr(err, bad[i].want))
			HT_FAIL("'%s': got '%s', want '%s'", bad[i].text,
				err ? err : "(accepted)", bad[i].want);
		if (strncmp(err, "ttrace probe: ", 14) ||
		    strlen(err) < strlen(usage) ||
		    strcmp(err + strlen(err) - strlen(usage), usage))
			HT_FAIL("'%s': not 'ttrace probe: ...%s' in '%s'",
				bad[i].text, usage, err);
	}
	err = parse("probe c count page_fault\x01");
	HT_CHECK(err && strstr(err, "ttrace ctl: bad character in command; "
			       "usage: enable NAME... | ") &&
		 strstr(err, " | probe NAME KIND ... | unprobe NAME|* | "
			"module load PATH|unload NAME"));
	return 0;
}

/* Keys named by an aux tag: a str:TAG field's own tag, or a modifier
 * (by FIELD.TAG, .execname for proc); the probe's whole name kept. */
static int test_parse_key_names(void)
{
	static const char *const name = "lat.syscall_enter.syscall_exit";
	char back[256];
	struct seqbuf out;

	HT_CHECK(!parse("probe lat.syscall_enter.syscall_exit latency "
			"syscall_enter syscall_exit by nr"));
	HT_CHECK(!strcmp(cmd.probe.name, name));
	HT_CHECK(cmd.probe.key_tag == TTRACE_AUX_SYSCALL_NAME);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe lat.syscall_enter.syscall_exit latency "
			 "syscall_enter syscall_exit by nr"));
	HT_CHECK(!parse("probe c count syscall_enter by pid.execname"));
	HT_CHECK(cmd.probe.key.src == TTRACE_FIELD_PID &&
		 cmd.probe.key_tag == TTRACE_AUX_PROC_NAME);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe c count syscall_enter by pid.proc"));
	HT_CHECK(!parse("probe c count page_fault by error.irq"));
	HT_CHECK(cmd.probe.key_tag == TTRACE_AUX_IRQ_NAME);
	HT_CHECK(!parse("probe c count page_fault by error"));
	HT_CHECK(cmd.probe.key_tag == 0);
	/* 63 characters: the longest name */
	HT_CHECK(!parse("probe abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
			"0123456789a count page_fault"));
	return 0;
}

static int test_field_tests(void)
{
	uint64_t args[2] = { 3, (uint64_t)-5 };
	struct ttrace_probe_hit h = { .id = 1, .nargs = 2, .cpu = 2, .pid = 7,
				      .args = args };

	HT_CHECK(!parse("probe f filter syscall_exit ret<0 nr==3 pid==7 cpu==2"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter syscall_exit ret>-5"));
	HT_CHECK(!ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter syscall_exit ret>=-5 ret<=-5"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	/* nr is unsigned: -1 is the largest value */
	HT_CHECK(!parse("probe f filter syscall_exit nr<-1"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter syscall_exit nr&4"));
	HT_CHECK(!ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter syscall_exit pid!=7"));
	HT_CHECK(!ttrace_probe_test(&cmd.probe, &h));
	h.pid = -1;	/* not a process's context: pid compares as -1 */
	HT_CHECK(!parse("probe f filter syscall_exit pid<0"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	return 0;
}

/* A packed event's fields are their bytes of the record's words, not
 * words by index: pid and prio share word 0 (prio signed, 2 bytes). */
static int test_packed_fields(void)
{
	uint64_t words[2] = { 0x80ull << 56 | 0xfffeull << 32 | 9, 1 };
	struct ttrace_probe_hit h = { .id = 7, .nargs = 2, .cpu = 1, .pid = 3,
				      .args = words };

	HT_CHECK(!parse("probe f filter sched_wakeup pid==9 prio==-2 "
			"target_cpu==1 comm==9"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter sched_wakeup prio<0"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	HT_CHECK(!parse("probe f filter sched_wakeup pid>9"));
	HT_CHECK(!ttrace_probe_test(&cmd.probe, &h));
	h.nargs = 1;		/* a word missing: its fields read 0 */
	HT_CHECK(!parse("probe f filter sched_wakeup target_cpu==0 pid==9"));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	return 0;
}

static int test_hist_math(void)
{
	uint64_t b[TTRACE_HIST_BUCKETS] = { 0 };

	HT_CHECK(ttrace_hist_bucket(0) == 0 && ttrace_hist_bucket(1) == 1);
	HT_CHECK(ttrace_hist_bucket(2) == 2 && ttrace_hist_bucket(3) == 2);
	HT_CHECK(ttrace_hist_bucket(1024) == 11 && ttrace_hist_bucket(2047) == 11);
	HT_CHECK(ttrace_hist_bucket(UINT64_MAX) == 64);
	for (unsigned k = 0; k < TTRACE_HIST_BUCKETS; k++) {
		HT_CHECK(ttrace_hist_bucket(ttrace_hist_bucket_low(k)) == k);
		HT_CHECK(ttrace_hist_bucket(ttrace_hist_bucket_high(k)) == k);
	}
	HT_CHECK(ttrace_hist_percentile(b, 50) == 0);
	/* 90 values in [4, 7], 9 in [64, 127], 1 in [1024, 2047] */
	b[3] = 90;
	b[7] = 9;
	b[11] = 1;
	HT_CHECK(ttrace_hist_total(b) == 100);
	HT_CHECK(ttrace_hist_percentile(b, 50) == 7);
	HT_CHECK(ttrace_hist_percentile(b, 90) == 7);
	HT_CHECK(ttrace_hist_percentile(b, 91) == 127);
	HT_CHECK(ttrace_hist_percentile(b, 99) == 127);
	HT_CHECK(ttrace_hist_percentile(b, 100) == 2047);
	{	/* the bucket lines the probes and latency files print */
		char text[128];
		struct seqbuf sb;

		seqbuf_init(&sb, text, sizeof(text));
		ttrace_hist_buckets_text(&sb, b);
		HT_CHECK(seqbuf_used(&sb) < sizeof(text));
		text[seqbuf_used(&sb)] = 0;
		HT_CHECK(!strcmp(text, "    4 7 90\n    64 127 9\n"
				 "    1024 2047 1\n"));
	}
	return 0;
}

static _Alignas(8) uint8_t tab_mem[1 << 16];

static int test_keytab(void)
{
	struct ttrace_keytab t;
	uint64_t key, seen = 0, sum = 0;
	const uint64_t *v;

	HT_CHECK(ttrace_keytab_bytes(16, 1) <= sizeof(tab_mem));
	ttrace_keytab_init(&t, tab_mem, 16, 1);
	for (uint64_t k = 0; k < 40; k++)
		ttrace_keytab_add(&t, k, 0, k + 1);
	ttrace_keytab_add(&t, 0x8000000000000001ULL, 0, 5);	/* the empty key */
	ttrace_keytab_add(&t, UINT64_MAX, 0, 1);
	for (uint32_t i = 0; i <= t.cap; i++)
		if (ttrace_keytab_slot(&t, i, &key, &v)) {
			seen++;
			sum += v[0];
			HT_CHECK(key == 0x8000000000000001ULL ? v[0] == 5 :
				 key == UINT64_MAX ? v[0] == 1 : v[0] == key + 1);
		}
	/* 16 slots, and the empty key's own; what did not fit is counted */
	HT_CHECK(seen == 17);
	HT_CHECK(sum + t.overflow == 40 * 41 / 2 + 5 + 1);
	HT_CHECK(t.overflow > 0);
	return 0;
}

static struct ttrace_keytab race_tab;

static void *race_writer(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < 200000; i++)
		ttrace_keytab_add(&race_tab, i % 50, (uint32_t)(i % 3), 1);
	return NULL;
}

/* Four writers claiming the same keys at once: each key one slot, no
 * count lost. */
static int test_keytab_race(void)
{
	pthread_t th[4];
	uint64_t key, total = 0, keys = 0;
	const uint64_t *v;

	ttrace_keytab_init(&race_tab, tab_mem, 64, 3);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, race_writer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (uint32_t i = 0; i <= race_tab.cap; i++)
		if (ttrace_keytab_slot(&race_tab, i, &key, &v)) {
			keys++;
			total += v[0] + v[1] + v[2];
		}
	HT_CHECK(keys == 50 && race_tab.overflow == 0);
	HT_CHECK(total == 4 * 200000);
	return 0;
}

/* A probed event is armed (its site live) but not recorded. */
static int test_ctl_probed(void)
{
	static uint8_t enabled[ARRAY_SIZE(events)], armed[ARRAY_SIZE(events)];
	static uint8_t probed[ARRAY_SIZE(events)];
	struct ttrace_ctl_state st;

	ttrace_ctl_init(&st, &meta, enabled, armed);
	st.probed = probed;
	HT_CHECK(armed[0] && !armed[2]);	/* fault group off */
	probed[2] = 1;
	ttrace_ctl_rearm(&st);
	HT_CHECK(armed[2] && !ttrace_ctl_records(&st, st.mask, 2));
	HT_CHECK(ttrace_ctl_records(&st, st.mask, 0));
	st.mask = 0;
	ttrace_ctl_rearm(&st);
	HT_CHECK(!armed[0] && armed[2] && ttrace_ctl_any_on(&st));
	probed[2] = 0;
	ttrace_ctl_rearm(&st);
	HT_CHECK(!armed[2] && !ttrace_ctl_any_on(&st));
	return 0;
}

/* The expression grammar: || and parentheses, && binding tighter, ~
 * globs on a str argument's text, evaluated over a hit; the text form
 * parses back to itself. */
static int test_filter_expr(void)
{
	static const struct { const char *filter; bool want; } cases[] = {
		{ "pid==3 ret<0", true },
		{ "pid == 3 && ret < 0 || ret > 100", true },
		{ "pid==4 && ret<0 || ret>100", false },
		/* && first: pid==4 && (ret<0 || ret>-10) would be false */
		{ "pid==4 && ret<0 || ret>-10", true },
		/* left to right: (ret>-10 || pid==4) && ret>0 would be false */
		{ "ret>-10 || pid==4 && ret>0", true },
		{ "(pid==4 || ret==-5) && cpu!=3", true },
		{ "(pid == 1 || ret == 2) && cpu != 3", false },
		{ "(pid==1 || (ret<0 && (cpu==1 || cpu==2)))", true },
		{ "((((pid==3))))", true },
		{ "path ~ \"sys_r*\"", true },
		{ "path ~ \"*ead\"", true },
		{ "path ~ \"*_re*\"", true },
		{ "path~sys_?ead", true },
		{ "path ~ \"sys_[q-s]ead\"", true },
		{ "path ~ \"sys_[!r]ead\"", false },
		{ "path ~ \"*write*\"", false },
		{ "path ~ \"*write*\" || pid==3 && path ~ \"sys_read\"", true },
	};
	static const char *const strs[] = { "sys_read", NULL };
	uint64_t args[2] = { 0, (uint64_t)-5 };
	struct ttrace_probe_hit h = { .nargs = 2, .cpu = 1, .pid = 3,
				      .args = args, .strs = strs };
	char text[300], back[300], again[300];
	struct seqbuf out;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "probe f filter myopen %s",
			 cases[i].filter);
		HT_CHECK(!parse(text));
		HT_CHECK(ttrace_probe_test(&cmd.probe, &h) == cases[i].want);
		seqbuf_init(&out, back, sizeof(back));
		ttrace_probe_spec_text(&cmd.probe, &meta, &out);
		HT_CHECK(!parse(back));
		HT_CHECK(ttrace_probe_test(&cmd.probe, &h) == cases[i].want);
		seqbuf_init(&out, again, sizeof(again));
		ttrace_probe_spec_text(&cmd.probe, &meta, &out);
		HT_CHECK(!strcmp(back, again));
	}
	HT_CHECK(!parse("probe f filter myopen (common_pid==1 || ret<0) && "
			"common_cpu==1"));
	HT_CHECK(cmd.probe.ntests == 3 && cmd.probe.nprog == 5);
	seqbuf_init(&out, back, sizeof(back));
	ttrace_probe_spec_text(&cmd.probe, &meta, &out);
	HT_CHECK(!strcmp(back, "probe f filter myopen ( pid==1 || ret<0 ) && "
			 "cpu==0x1"));
	/* no || : no program, every test must hold (the cheapest path) */
	HT_CHECK(!parse("probe c count myopen if (pid==3) && ret<0"));
	HT_CHECK(cmd.probe.ntests == 2 && cmd.probe.nprog == 0);
	/* a site without the text at hand: a ~ test does not match */
	HT_CHECK(!parse("probe f filter myopen path ~ \"*\""));
	HT_CHECK(ttrace_probe_test(&cmd.probe, &h));
	h.strs = NULL;
	HT_CHECK(!ttrace_probe_test(&cmd.probe, &h));
	return 0;
}

/* The one glob matcher (ctl's names, ~ filters): *, ?, [...] classes,
 * and a hostile pattern that costs its product of lengths, no more. */
static int test_glob(void)
{
	static const struct { const char *pat, *s; bool want; } cases[] = {
		{ "sh*", "sh", true }, { "sh*", "bash", false },
		{ "*bin*", "/bin/sh", true }, { "*bin*", "/sbi/n", false },
		{ "*.c", "a.c", true }, { "*.c", "a.cc", false },
		{ "?[abc]x", "zbx", true }, { "?[abc]x", "zdx", false },
		{ "[a-c][!a-c]", "cd", true }, { "[a-c][^a-c]", "cc", false },
		{ "[]]", "]", true }, { "a[", "a[", true }, { "a[b", "a[b", true },
		{ "", "", true }, { "", "x", false }, { "*", "", true },
		{ "*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (ttrace_glob_match(cases[i].pat, cases[i].s) != cases[i].want) {
			printf("glob '%s' '%s'\n", cases[i].pat, cases[i].s);
			HT_CHECK(0);
		}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_parse_kinds, "probe_parse_kinds" },
	{ test_parse_errors, "probe_parse_errors" },
	{ test_parse_key_names, "probe_parse_key_names" },
	{ test_field_tests, "probe_field_tests" },
	{ test_packed_fields, "probe_packed_fields" },
	{ test_filter_expr, "probe_filter_expr" },
	{ test_glob, "probe_glob" },
	{ test_hist_math, "probe_hist_math" },
	{ test_keytab, "probe_keytab" },
	{ test_keytab_race, "probe_keytab_race" },
	{ test_ctl_probed, "probe_ctl_probed" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
