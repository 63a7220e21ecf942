/*
 * Host tests of the group mask, the armed bytes and the ctl command parser
 * (kern/trace/lib/ctl_parse.c), over a small hand-written event table.
 */
#include <pthread.h>
#include <string.h>

#include "htest.h"

#include <ttrace_ctl.h>

static const struct ttrace_arg_meta args_u32[] = { { "v", TTRACE_ARG_U32, 0, 0, 0 } };

static const struct ttrace_group_meta groups[] = {
	{ "irq", 1, TTRACE_EVF_DEFAULT_ON },
	{ "mm", 7, 0 },
	{ "sched", 4, TTRACE_EVF_DEFAULT_ON },
};

static const struct ttrace_event_meta events[] = {
	{ "irq_enter", "v=%u", args_u32, 0, 1, TTRACE_EVF_DEFAULT_ON, 1 },
	{ "irq_exit", "v=%u", args_u32, 1, 1, TTRACE_EVF_DEFAULT_ON, 1 },
	{ "page_alloc", "v=%u", args_u32, 2, 7, TTRACE_EVF_DEFAULT_ON, 1 },
	{ "page_free", "v=%u", args_u32, 3, 7, 0, 1 },
	{ "sched_switch", "v=%u", args_u32, 4, 4, TTRACE_EVF_DEFAULT_ON, 1 },
};

static const struct ttrace_meta_table meta = { events, groups, 5, 3 };

static uint8_t enabled[5], armed[5];

static void fresh(struct ttrace_ctl_state *st)
{
	ttrace_ctl_init(st, &meta, enabled, armed);
}

/* What a ctl write does: parse, and apply only if that succeeded. */
static const char *ctl(struct ttrace_ctl_state *st, const char *text)
{
	static struct ttrace_ctl_cmd cmd;
	const char *err = ttrace_ctl_parse(&cmd, text, strlen(text), &meta);

	if (!err)
		ttrace_ctl_apply(st, &cmd);
	return err;
}

static bool armed_is(const char *want)
{
	for (int i = 0; i < 5; i++)
		if (armed[i] != (want[i] == '1'))
			return false;
	return true;
}

static int test_mask_ops(void)
{
	uint64_t m = 0xa;

	/* the seed's setbits replaced the mask; ours must OR */
	HT_CHECK(ttrace_mask_setbits(&m, 0x5) == 0xa && m == 0xf);
	HT_CHECK(ttrace_mask_clrbits(&m, 0x3) == 0xf && m == 0xc);
	HT_CHECK(ttrace_mask_setbits(&m, 0) == 0xc && m == 0xc);
	HT_CHECK(ttrace_mask_setmask(&m, 0x30, 0xf0) == 0xc && m == 0x3c);
	HT_CHECK(ttrace_mask_setmask(&m, 0x0f, 0x0a) == 0x3c && m == 0x3e);
	HT_CHECK(ttrace_mask_setmask(&m, ~0ULL, 0) == 0x3e && m == 0x3e);
	HT_CHECK(ttrace_mask_clrbits(&m, ~0ULL) == 0x3e && m == 0);
	return 0;
}

/* Threads flip their own bits with all three ops: no update is lost. */
static uint64_t shared_mask;

static void *flipper(void *arg)
{
	uint64_t bit = 1ULL << (uintptr_t)arg;

	for (int i = 0; i < 200001; i++) {
		switch (i % 3) {
		case 0:
			ttrace_mask_setbits(&shared_mask, bit);
			break;
		case 1:
			ttrace_mask_clrbits(&shared_mask, bit);
			break;
		default:
			ttrace_mask_setmask(&shared_mask, ~0ULL, bit);
		}
	}
	return NULL;	/* the last op (i = 200000) was setmask: bit set */
}

static int test_mask_atomic(void)
{
	pthread_t th[8];

	shared_mask = 0;
	for (uintptr_t i = 0; i < 8; i++)
		HT_CHECK(pthread_create(&th[i], NULL, flipper, (void *)(i * 7)) == 0);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	HT_CHECK(shared_mask == 0x2040810204081ULL);
	return 0;
}

static int test_armed(void)
{
	struct ttrace_ctl_state st;

	fresh(&st);
	HT_CHECK(st.mask == (1u << 1 | 1u << 4));
	HT_CHECK(armed_is("11001"));
	st.mask |= 1u << 7;
	ttrace_ctl_rearm(&st);
	HT_CHECK(armed_is("11101"));
	enabled[0] = 0;
	ttrace_ctl_rearm(&st);
	HT_CHECK(armed_is("01101"));
	st.mask = 0;
	ttrace_ctl_rearm(&st);
	HT_CHECK(armed_is("00000"));
	return 0;
}

static int test_glob(void)
{
	HT_CHECK(ttrace_glob_match("*", "anything"));
	HT_CHECK(ttrace_glob_match("*", ""));
	HT_CHECK(ttrace_glob_match("irq_*", "irq_enter"));
	HT_CHECK(!ttrace_glob_match("irq_*", "irq"));
	HT_CHECK(ttrace_glob_match("page_?ree", "page_free"));
	HT_CHECK(ttrace_glob_match("*_*e*", "sched_switch") == false);
	HT_CHECK(ttrace_glob_match("*a*e*", "page_free"));
	HT_CHECK(!ttrace_glob_match("page", "page_free"));
	HT_CHECK(ttrace_glob_match("*free", "page_free"));
	return 0;
}

static int test_commands(void)
{
	struct ttrace_ctl_state st;
	struct ttrace_ctl_cmd cmd;

	fresh(&st);
	HT_CHECK(ctl(&st, "enable mm\n") == NULL);
	HT_CHECK(armed_is("11101") && st.mask == 0x92);
	HT_CHECK(ctl(&st, "enable page_free") == NULL);
	HT_CHECK(armed_is("11111"));
	HT_CHECK(ctl(&st, "disable irq_*") == NULL);
	HT_CHECK(armed_is("00111") && st.mask == 0x92);
	HT_CHECK(ctl(&st, "disable sched") == NULL);
	HT_CHECK(armed_is("00110") && st.mask == 0x82);
	HT_CHECK(ctl(&st, "setbits 0x10") == NULL && armed_is("00111"));
	HT_CHECK(ctl(&st, "clrbits 0x80") == NULL && armed_is("00001"));
	HT_CHECK(ctl(&st, "setmask 0x80 0x90") == NULL && st.mask == 0x82);
	HT_CHECK(ctl(&st, "enable *") == NULL && armed_is("11111"));
	HT_CHECK(st.mask == 0x92);
	HT_CHECK(ctl(&st, "disable\t *") == NULL && armed_is("00000"));
	HT_CHECK(st.mask == 0);
	HT_CHECK(ctl(&st, "setbits 146") == NULL && st.mask == 0x92);
	HT_CHECK(ttrace_ctl_parse(&cmd, "clear", 5, &meta) == NULL &&
		 cmd.op == TTRACE_CTL_CLEAR);
	HT_CHECK(ttrace_ctl_parse(&cmd, "mode saturate\n", 14, &meta) == NULL &&
		 cmd.op == TTRACE_CTL_MODE && cmd.mode == TTRACE_MODE_SATURATE);
	HT_CHECK(ttrace_ctl_parse(&cmd, "mode overwrite", 14, &meta) == NULL &&
		 cmd.mode == TTRACE_MODE_OVERWRITE);
	HT_CHECK(ttrace_ctl_parse(&cmd, "bufsize 2048", 12, &meta) == NULL &&
		 cmd.op == TTRACE_CTL_BUFSIZE && cmd.value == 2048);
	HT_CHECK(ttrace_ctl_parse(&cmd, "hang\n", 5, &meta) == NULL &&
		 cmd.op == TTRACE_CTL_HANG);
	HT_CHECK(ttrace_ctl_parse(&cmd, "latency wakeup reset", 20, &meta) ==
		 NULL && cmd.op == TTRACE_CTL_LATENCY &&
		 cmd.lat == TTRACE_LAT_WAKEUP && cmd.mode == TTRACE_LAT_RESET);
	HT_CHECK(ttrace_ctl_parse(&cmd, "latency irqsoff threshold 250", 29,
				  &meta) == NULL && cmd.lat == TTRACE_LAT_IRQSOFF &&
		 cmd.mode == TTRACE_LAT_THRESHOLD && cmd.value == 250);
	/* text need not be NUL terminated: only len bytes count */
	HT_CHECK(ttrace_ctl_parse(&cmd, "clearXYZ", 5, &meta) == NULL);
	return 0;
}

static const char *const bad[] = {
	"", "\n", "   ", "frob", "enable", "disable ", "enable nosuch",
	"enable irq nosuch",		/* irq must not be applied */
	"enable mm\nclear", "setmask 1", "setmask 0x1 zz", "setmask 1 2 3",
	"setbits", "setbits 18446744073709551616", "setbits -1", "setbits 0x",
	"setbits 0xg", "clrbits 1 2", "clear now", "hang now", "mode", "mode fast",
	"mode overwrite saturate", "bufsize 3", "bufsize 0", "bufsize 2",
	"bufsize 2097152", "bufsize 2048 1", "bufsize 1k", "enable \x01irq",
	"enable irq\xff", "Enable irq", "latency", "latency irqsoff",
	"latency nosuch on", "latency irqsoff bogus", "latency irqsoff on 1",
	"latency irqsoff threshold", "latency irqsoff threshold 10000001",
	"latency irqsoff threshold -1", "latency wakeup reset now",
	"latency irqsoff threshold 1 2",
	"latency", "latency timerlat", "latency frob on", "latency timerlat go",
	"latency timerlat on 0", "latency timerlat on 1000001",
	"latency timerlat on -5", "latency timerlat on 10x",
	"latency timerlat on 10 20", "latency timerlat off 10",
	"latency osnoise reset 1", "latency osnoise on 100 0",
	"latency osnoise on 100 1000001", "latency osnoise on 1 2 3",
	"latency Timerlat on",
};

static int test_bad_commands_change_nothing(void)
{
	struct ttrace_ctl_state st;
	uint8_t en0[5], ar0[5];
	uint64_t mask0;
	char longcmd[400];

	fresh(&st);
	HT_CHECK(ctl(&st, "enable page_free") == NULL);
	mask0 = st.mask;
	memcpy(en0, enabled, 5);
	memcpy(ar0, armed, 5);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *err = ctl(&st, bad[i]);

		if (!err)
			HT_FAIL("accepted bad command '%s'", bad[i]);
		if (!strstr(err, "usage: enable NAME"))
			HT_FAIL("no usage in '%s'", err);
		if (st.mask != mask0 || memcmp(en0, enabled, 5) ||
		    memcmp(ar0, armed, 5))
			HT_FAIL("'%s' changed the state", bad[i]);
	}
	memset(longcmd, 'a', sizeof(longcmd) - 1);
	longcmd[sizeof(longcmd) - 1] = 0;
	memcpy(longcmd, "enable ", 7);
	HT_CHECK(ctl(&st, longcmd) != NULL);
	strcpy(longcmd, "enable");
	for (int i = 0; i < 40; i++)
		strcat(longcmd, " mm");
	HT_CHECK(ctl(&st, longcmd) != NULL);	/* too many words */
	HT_CHECK(st.mask == mask0 && !memcmp(en0, enabled, 5));
	HT_CHECK(strstr(ctl(&st, "enable nosuch"), "'nosuch'") != NULL);
	return 0;
}

static int test_list(void)
{
	struct ttrace_ctl_state st;
	char buf[512], small[20];
	struct seqbuf s;
	const char *want =
		"mask 0x92\n"
		"group irq 1 on\n"
		"group mm 7 on\n"
		"group sched 4 on\n"
		"event irq_enter irq on armed\n"
		"event irq_exit irq off -\n"
		"event page_alloc mm on armed\n"
		"event page_free mm off -\n"
		"event sched_switch sched on armed\n";

	fresh(&st);
	HT_CHECK(ctl(&st, "enable mm") == NULL);
	HT_CHECK(ctl(&st, "disable irq_exit") == NULL);
	seqbuf_init(&s, buf, sizeof(buf));
	ttrace_ctl_list(&st, &s);
	if (strcmp(buf, want))
		HT_FAIL("listing:\n%.400s", buf);
	HT_CHECK(s.len == strlen(want) && !seqbuf_overflowed(&s));
	seqbuf_init(&s, small, sizeof(small));
	ttrace_ctl_list(&st, &s);
	HT_CHECK(s.len == strlen(want) && seqbuf_overflowed(&s));
	HT_CHECK(strlen(small) == sizeof(small) - 1);
	HT_CHECK(!strncmp(small, want, sizeof(small) - 1));
	return 0;
}

/* counters MS [all]: the period and the flag, or an error. */
static int test_counters_cmd(void)
{
	static struct ttrace_ctl_cmd cmd;

	HT_CHECK(!ttrace_ctl_parse(&cmd, "counters 10 all", 15, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_COUNTERS && cmd.value == 10 && cmd.mode);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "counters 0\n", 11, &meta));
	HT_CHECK(cmd.value == 0 && !cmd.mode);
	HT_CHECK(strstr(ttrace_ctl_parse(&cmd, "counters 60001", 14, &meta),
			"bad period '60001'"));
	HT_CHECK(strstr(ttrace_ctl_parse(&cmd, "counters x", 10, &meta),
			"bad period 'x'"));
	HT_CHECK(strstr(ttrace_ctl_parse(&cmd, "counters 5 some", 15, &meta),
			"counters: MS [all]"));
	HT_CHECK(strstr(ttrace_ctl_parse(&cmd, "counters", 8, &meta),
			"counters: MS [all]"));
	return 0;
}

/* crash [corrupt]: the kernel's to carry out; the state stays. No word
 * of the usage is "panic", which the test harness takes for a report. */
static int test_crash_cmd(void)
{
	static struct ttrace_ctl_cmd cmd;
	const char *err;

	HT_CHECK(!ttrace_ctl_parse(&cmd, "crash\n", 6, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_CRASH && cmd.mode == TTRACE_CRASH_PANIC);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "crash corrupt", 13, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_CRASH &&
		 cmd.mode == TTRACE_CRASH_CORRUPT);
	err = ttrace_ctl_parse(&cmd, "crash hard", 10, &meta);
	HT_CHECK(err && strstr(err, "crash: nothing or corrupt, not 'hard'"));
	HT_CHECK(!strstr(err, "panic"));
	HT_CHECK(ttrace_ctl_parse(&cmd, "crash corrupt x", 15, &meta));
	return 0;
}

/* One table holds every command: probe, unprobe, module and drain parse here
 * (applying them is the kernel's: the state stays), and every error's
 * usage names every command of the table. */
static int test_one_table(void)
{
	static const char *const names[] = {
		"enable NAME...", "disable NAME...", "setmask VALUE MASK",
		"setbits BITS", "clrbits BITS", "clear", "mode overwrite|saturate",
		"bufsize KB", "hang", "crash [corrupt]", "counters MS [all]",
		"probe NAME KIND ...",
		"unprobe NAME|*", "module load PATH|unload NAME",
		"timerlat on [PERIOD_US]",
		"stacktracer on|off|reset",
		"drain on|off",
	};
	static struct ttrace_ctl_cmd cmd;
	struct ttrace_ctl_state st;
	uint64_t mask0;
	const char *err;

	fresh(&st);
	mask0 = st.mask;
	HT_CHECK(!ctl(&st, "module load /lib/probes/syscount.o\n"));
	HT_CHECK(!ctl(&st, " probe c count irq_enter by v"));
	HT_CHECK(!ctl(&st, "unprobe *"));
	HT_CHECK(st.mask == mask0 && armed_is("11001"));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "stacktracer reset", 17, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_STACKTRACER &&
		 cmd.mode == TTRACE_STACKTRACER_RESET);
	err = ttrace_ctl_parse(&cmd, "stacktracer maybe", 17, &meta);
	HT_CHECK(err && strstr(err, "stacktracer: 'maybe' is not on, off or "
			       "reset"));
	HT_CHECK(ttrace_ctl_parse(&cmd, "stacktracer", 11, &meta));
	HT_CHECK(ttrace_ctl_parse(&cmd, "stacktracer on off", 18, &meta));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "module load /a/b.o", 18, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_MODULE && !cmd.mode &&
		 !strcmp(cmd.word, "/a/b.o"));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "module\tunload  syscount", 23, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_MODULE && cmd.mode &&
		 !strcmp(cmd.word, "syscount"));
	err = ctl(&st, "module frob x");
	HT_CHECK(err && strstr(err, "ttrace ctl: module: load PATH|unload "
			       "NAME, not 'frob'; usage: enable NAME..."));
	err = ctl(&st, "module load");
	HT_CHECK(err && strstr(err, "ttrace ctl: module: load PATH|unload "
			       "NAME; usage: "));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "drain on", 8, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_DRAIN && cmd.mode == 1);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "drain off\n", 10, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_DRAIN && cmd.mode == 0);
	err = ctl(&st, "drain maybe");
	HT_CHECK(err && strstr(err, "ttrace ctl: drain: on|off, not 'maybe'"));
	HT_CHECK(ctl(&st, "drain") && ctl(&st, "drain on off"));
	err = ctl(&st, "bogus");
	HT_CHECK(err && !strncmp(err, "ttrace ctl: unknown command 'bogus'; "
				 "usage: enable NAME... | ", 55));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strstr(err, names[i]))
			HT_FAIL("'%s' not in the usage '%s'", names[i], err);
	HT_CHECK(st.mask == mask0 && armed_is("11001"));
	return 0;
}

/* latency NAME on|off|reset|threshold US, and on's numbers for timerlat
 * (a period) and osnoise (a runtime and a threshold; 0: the kernel's
 * default), or an error naming the bad word. */
static int test_latency_cmd(void)
{
	static struct ttrace_ctl_cmd cmd;
	const char *err;

	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency timerlat on\n", 20, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_LATENCY && cmd.lat == TTRACE_LAT_TIMERLAT &&
		 cmd.mode == TTRACE_LAT_ON && cmd.value == 0 && cmd.mask == 0);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency timerlat on 20000", 25, &meta));
	HT_CHECK(cmd.value == 20000);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency osnoise on 1000000 1", 28,
				   &meta));
	HT_CHECK(cmd.lat == TTRACE_LAT_OSNOISE && cmd.value == 1000000 &&
		 cmd.mask == 1);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency osnoise off", 19, &meta));
	HT_CHECK(cmd.mode == TTRACE_LAT_OFF && cmd.lat == TTRACE_LAT_OSNOISE);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency timerlat reset", 22, &meta));
	HT_CHECK(cmd.mode == TTRACE_LAT_RESET);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "latency timerlat threshold 50", 29,
				   &meta));
	HT_CHECK(cmd.mode == TTRACE_LAT_THRESHOLD && cmd.value == 50);
	err = ttrace_ctl_parse(&cmd, "latency timerlat on 0", 21, &meta);
	HT_CHECK(err && strstr(err, "latency: bad number '0' (1..1000000)"));
	err = ttrace_ctl_parse(&cmd, "latency nosuch on", 17, &meta);
	HT_CHECK(err && strstr(err, "latency: no tracer 'nosuch'"));
	err = ttrace_ctl_parse(&cmd, "latency osnoise up", 18, &meta);
	HT_CHECK(err && strstr(err, "latency: unknown action 'up'"));
	err = ttrace_ctl_parse(&cmd, "latency timerlat on 1 2", 23, &meta);
	HT_CHECK(err && strstr(err, "too many words after 'on'"));
	err = ttrace_ctl_parse(&cmd, "latency irqsoff on 1", 20, &meta);
	HT_CHECK(err && strstr(err, "too many words after 'on'"));
	return 0;
}

/* profile on [HZ] [kernel|user|all] [offcpu] [sched] [held] | off: the rate
 * (997 by default, 1..10000), the options (all by default), or an error
 * naming the bad word. */
static int test_profile_cmd(void)
{
	static struct ttrace_ctl_cmd cmd;
	const char *err;

	HT_CHECK(!ttrace_ctl_parse(&cmd, "profile on\n", 11, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_PROFILE && cmd.mode == 1 &&
		 cmd.value == 997 && cmd.mask == TTRACE_PROFILE_ALL);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "profile on 10000 user offcpu", 28,
				   &meta));
	HT_CHECK(cmd.value == 10000 && cmd.mask == (TTRACE_PROFILE_USER |
						    TTRACE_PROFILE_OFFCPU));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "profile on 1 sched kernel", 25,
				   &meta));
	HT_CHECK(cmd.value == 1 && cmd.mask == (TTRACE_PROFILE_KERNEL |
						TTRACE_PROFILE_SCHED));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "profile on 997 all offcpu sched held",
				   36, &meta));
	HT_CHECK(cmd.mode == 2 && cmd.value == 997 &&
		 cmd.mask == (TTRACE_PROFILE_ALL | TTRACE_PROFILE_OFFCPU |
			      TTRACE_PROFILE_SCHED));
	err = ttrace_ctl_parse(&cmd, "profile on held held", 20, &meta);
	HT_CHECK(err && strstr(err, "profile: option 'held' given twice"));
	HT_CHECK(!ttrace_ctl_parse(&cmd, "profile off", 11, &meta));
	HT_CHECK(cmd.op == TTRACE_CTL_PROFILE && cmd.mode == 0);
	err = ttrace_ctl_parse(&cmd, "profile on 10001", 16, &meta);
	HT_CHECK(err && strstr(err, "profile: bad rate '10001' (1..10000 Hz)"));
	err = ttrace_ctl_parse(&cmd, "profile on 0", 12, &meta);
	HT_CHECK(err && strstr(err, "profile: bad rate '0'"));
	err = ttrace_ctl_parse(&cmd, "profile on 99x", 14, &meta);
	HT_CHECK(err && strstr(err, "profile: bad rate '99x'"));
	err = ttrace_ctl_parse(&cmd, "profile on 99 wall", 18, &meta);
	HT_CHECK(err && strstr(err, "profile: unknown option 'wall'"));
	err = ttrace_ctl_parse(&cmd, "profile on offcpu offcpu", 24, &meta);
	HT_CHECK(err && strstr(err, "profile: option 'offcpu' given twice"));
	err = ttrace_ctl_parse(&cmd, "profile off now", 15, &meta);
	HT_CHECK(err && strstr(err, "profile off: no more words, not 'now'"));
	err = ttrace_ctl_parse(&cmd, "profile maybe", 13, &meta);
	HT_CHECK(err && strstr(err, "profile: on or off, not 'maybe'"));
	HT_CHECK(ttrace_ctl_parse(&cmd, "profile", 7, &meta));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_profile_cmd, "ctl_profile_cmd" },
	{ test_latency_cmd, "ctl_latency_cmd" },
	{ test_one_table, "ctl_one_table" },
	{ test_counters_cmd, "ctl_counters_cmd" },
	{ test_mask_ops, "ctl_mask_ops" },
	{ test_mask_atomic, "ctl_mask_atomic" },
	{ test_armed, "ctl_armed" },
	{ test_glob, "ctl_glob" },
	{ test_commands, "ctl_commands" },
	{ test_crash_cmd, "ctl_crash_cmd" },
	{ test_bad_commands_change_nothing, "ctl_bad_commands_change_nothing" },
	{ test_list, "ctl_list" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
