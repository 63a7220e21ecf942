/*
 * Host tests of our events as Linux's (kern/trace/lib/ftrace_linux.c)
 * and of the generic form beside them (ftrace_event.c): which events map
 * (their arguments found by name, in any order), the ID and format text
 * each gets, the record a writer makes from arguments read by name, what
 * comes from the caller's ops (prio, calltime), and the names' text.
 * Linux's records read back by libtraceevent: test_ttrace_ftpage.c.
 */
#include <string.h>

#include "htest.h"

#include <ttrace_ftlinux.h>
#include <ttrace_ftpage.h>

/* sched_switch with its arguments in another order than ttrace.events
 * has them, and a prio of its own for prev only */
static const struct ttrace_arg_meta switch_args[] = {
	{ "prev_pid", TTRACE_ARG_U32, 0, 0, 0 },
	{ "prev_state", TTRACE_ARG_STR, TTRACE_AUX_STATE_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev_prio", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta old_switch_args[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
};
static const struct ttrace_arg_meta exit_args[] = {
	{ "fn", TTRACE_ARG_STR, TTRACE_AUX_FUNC_NAME, 0, 0 },
	{ "depth", TTRACE_ARG_U32, 0, 0, 0 },
	{ "retval", TTRACE_ARG_S64, 0, 0, 0 },
};
static const struct ttrace_arg_meta own_args[] = {
	{ "path", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "where", TTRACE_ARG_PTR, 0, 0, 0 },
};
static const struct ttrace_event_meta events[] = {
	{ "sched_switch", "", switch_args, 0, 0, 0, 5 },
	{ "sched_switch", "", old_switch_args, 1, 0, 0, 2 },
	{ "func_exit", "", exit_args, 2, 0, 0, 3 },
	{ "func_entry", "", exit_args, 3, 0, 0, 2 },
	{ "own", "path=%s at %p", own_args, 4, 0, 0, 2 },
};

static size_t resolve(void *arg, unsigned tag, uint64_t ident, uint64_t ts,
		      const char **str)
{
	(void)arg;
	(void)ts;
	if (tag == TTRACE_AUX_STATE_NAME && ident == 1)
		*str = "sleeping";
	else if (tag == TTRACE_AUX_PROC_NAME && ident == 5)
		*str = "a-rather-long-process-name";
	else if (tag == TTRACE_AUX_PROC_NAME && ident == 6)
		*str = "tab\there";
	else
		return 0;
	return strlen(*str);
}

static uint32_t prio(void *arg, uint64_t pid, uint64_t ts)
{
	(void)arg;
	(void)ts;
	return 100 + (uint32_t)pid % 8;
}

static uint64_t began;

static uint64_t calltime(void *arg, const struct ttrace_event_view *ev,
			 uint64_t fn, uint32_t depth, uint64_t ns)
{
	(void)arg;
	(void)ev;
	return fn == 0xabc && depth == 2 && began ? began : ns;
}

static void entered(void *arg, const struct ttrace_event_view *ev,
		    uint64_t fn, uint32_t depth, uint64_t ns)
{
	(void)arg;
	(void)ev;
	began = fn == 0xabc && depth == 2 ? ns : 0;
}

static const struct ttrace_ftlinux_ops ops = {
	.resolve = resolve, .prio = prio, .calltime = calltime,
	.entered = entered,
};

static uint32_t u32_at(const uint8_t *rec, size_t at)
{
	uint32_t v;

	memcpy(&v, rec + at, 4);
	return v;
}

static uint64_t u64_at(const uint8_t *rec, size_t at)
{
	uint64_t v;

	memcpy(&v, rec + at, 8);
	return v;
}

/* An event maps when it has the arguments by name, in any order; one
 * without them (an older trace's sched_switch) keeps the generic form,
 * its ID 1000 + its id. */
static int test_find_by_name(void)
{
	const struct ttrace_ftlinux *l = ttrace_ftlinux_find(&events[0]);

	HT_CHECK(l && !strcmp(ttrace_ftlinux_system(l), "sched") &&
		 !strcmp(ttrace_ftlinux_name(l), "sched_switch") &&
		 ttrace_ftlinux_id(l) == 316);
	HT_CHECK(ttrace_ftlinux_event_id(&events[0]) == 316);
	HT_CHECK(!ttrace_ftlinux_find(&events[1]));
	HT_CHECK(ttrace_ftlinux_event_id(&events[1]) == 1001);
	HT_CHECK(!ttrace_ftlinux_find(&events[4]));
	l = ttrace_ftlinux_find(&events[2]);	/* the form with retval */
	HT_CHECK(l && !strcmp(ttrace_ftlinux_name(l), "funcgraph_exit"));
	return 0;
}

/* The format files: Linux's text for a mapped event, the generic one
 * (every argument 8 bytes, a name's text as NAME_name, the event's own
 * format as print fmt) for the others. */
static int test_formats(void)
{
	char text[TTRACE_FTEVENT_FORMAT_MAX];
	struct seqbuf s;

	seqbuf_init(&s, text, sizeof(text));
	ttrace_ftlinux_event_format(&s, &events[0]);
	HT_CHECK(!strncmp(text, "name: sched_switch\nID: 316\nformat:\n"
			  "\tfield:unsigned short common_type;", 68));
	HT_CHECK(strstr(text, "\tfield:char prev_comm[16];\toffset:8;\t"
			"size:16;\tsigned:0;\n"));
	HT_CHECK(strstr(text, "\nprint fmt: \"prev_comm=%s prev_pid=%d "));
	seqbuf_init(&s, text, sizeof(text));
	ttrace_ftlinux_event_format(&s, &events[4]);
	HT_CHECK(!strncmp(text, "name: own\nID: 1004\nformat:\n", 27));
	HT_CHECK(strstr(text, "\tfield:unsigned long long path;\toffset:8;\t"
			"size:8;\tsigned:0;\n"));
	HT_CHECK(strstr(text, "\tfield:__data_loc char[] path_name;\t"
			"offset:24;\tsize:4;\tsigned:0;\n"));
	if (!strstr(text, "print fmt: \"path=%s at %pS\", "
		    "__get_str(path_name), (void *)REC->where\n"))
		HT_FAIL("%.400s", strstr(text, "print fmt"));
	HT_CHECK(!seqbuf_overflowed(&s));
	return 0;
}

/* sched_switch's record from arguments read by name: the comms (15
 * bytes at most, an unnamed idle thread "idle"), Linux's pids (idle 0),
 * the state's letter bit, prev's prio from its own field, next's from
 * the ops; the CPU's pid becomes next's. A record short of its words is
 * not written. */
static int test_switch_record(void)
{
	uint8_t rec[TTRACE_FTPAGE_REC_MAX];
	struct ttrace_event_view ev = { .nwords = 5,
		.args = { 5, 1, TTRACE_IDLE_PID(1), 5, 99 } };
	const struct ttrace_ftlinux *l = ttrace_ftlinux_find(&events[0]);
	uint32_t pid = 5;
	size_t n = ttrace_ftlinux_record(rec, l, &events[0], &ev, 1000, &pid,
					 &ops);

	HT_CHECK(n == 64 && u32_at(rec, 0) == 316 && u32_at(rec, 4) == 5);
	HT_CHECK(!memcmp(rec + 8, "a-rather-long-p\0", 16));
	HT_CHECK(u32_at(rec, 24) == 5 && u32_at(rec, 28) == 99);
	HT_CHECK(u64_at(rec, 32) == 1);		/* S */
	HT_CHECK(!memcmp(rec + 40, "idle\0", 5) && u32_at(rec, 56) == 0);
	HT_CHECK(u32_at(rec, 60) == 100 + TTRACE_IDLE_PID(1) % 8);
	HT_CHECK(pid == 0);
	ev.args[1] = 7;				/* a state not sleeping */
	ttrace_ftlinux_record(rec, l, &events[0], &ev, 1000, &pid, &ops);
	HT_CHECK(u64_at(rec, 32) == 0x100);	/* R+ */
	ev.nwords = 4;
	HT_CHECK(!ttrace_ftlinux_record(rec, l, &events[0], &ev, 1000, &pid,
					&ops));
	return 0;
}

/* funcgraph_exit's calltime is the ops' (the entry the ops saw), its
 * rettime the record's own time. */
static int test_graph_times(void)
{
	uint8_t rec[TTRACE_FTPAGE_REC_MAX];
	struct ttrace_event_view entry = { .nwords = 2, .args = { 0xabc, 2 } };
	struct ttrace_event_view exit = { .nwords = 3,
					  .args = { 0xabc, 2, -5 } };
	const struct ttrace_ftlinux *le = ttrace_ftlinux_find(&events[3]);
	const struct ttrace_ftlinux *lx = ttrace_ftlinux_find(&events[2]);
	uint32_t pid = 0;

	HT_CHECK(le && !strcmp(ttrace_ftlinux_name(le), "funcgraph_entry"));
	HT_CHECK(ttrace_ftlinux_record(rec, le, &events[3], &entry, 700, &pid,
				       &ops) == 24);
	HT_CHECK(u64_at(rec, 8) == 0xabc && u32_at(rec, 16) == 2);
	HT_CHECK(ttrace_ftlinux_record(rec, lx, &events[2], &exit, 900, &pid,
				       &ops) == 48);
	HT_CHECK(u64_at(rec, 16) == (uint64_t)-5 && u32_at(rec, 24) == 2);
	HT_CHECK(u64_at(rec, 32) == 700 && u64_at(rec, 40) == 900);
	exit.args[1] = 3;			/* no entry seen: its own time */
	ttrace_ftlinux_record(rec, lx, &events[2], &exit, 900, &pid, &ops);
	HT_CHECK(u64_at(rec, 32) == 900);
	return 0;
}

/* A name's text: unprintable bytes as '?', "#IDENT" unnamed, "" for a
 * stack's frame past its end, cut to the room given. */
static int test_names(void)
{
	char buf[8];

	HT_CHECK(ttrace_ftevent_name(buf, sizeof(buf), resolve, NULL,
				     TTRACE_AUX_PROC_NAME, 6, 0) == 7 &&
		 !strcmp(buf, "tab?her"));
	HT_CHECK(ttrace_ftevent_name(buf, sizeof(buf), resolve, NULL,
				     TTRACE_AUX_PROC_NAME, 42, 0) == 3 &&
		 !strcmp(buf, "#42"));
	HT_CHECK(ttrace_ftevent_name(buf, sizeof(buf), resolve, NULL,
				     TTRACE_AUX_KSYM_NAME, 0, 0) == 0 &&
		 !buf[0]);
	HT_CHECK(ttrace_ftevent_name(buf, 4, NULL, NULL,
				     TTRACE_AUX_PROC_NAME, 123456, 0) == 3 &&
		 !strcmp(buf, "#12"));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_find_by_name, "ftlinux_find_by_name" },
	{ test_formats, "ftlinux_formats" },
	{ test_switch_record, "ftlinux_switch_record" },
	{ test_graph_times, "ftlinux_graph_times" },
	{ test_names, "ftlinux_names" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
