/*
 * Host tests of Linux's ring-buffer pages and event records
 * (kern/trace/lib/ftrace_page.c, ftrace_event.c), judged by Debian's
 * libtraceevent through tools/ttrawread: records of integer and string
 * fields over several pages, a time delta too wide for the header (a
 * time-extend), a record too long for type_len (its length word), a loss
 * before a page; every record decodes to the values written, the loss is
 * reported, and a page never takes a record it has no room for; a page
 * of losses only carries the time it is stamped with. Our events that
 * Linux has too (ftrace_linux.c) decode under Linux's formats, their
 * fields by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htest.h"

#include <ttrace_ftevent.h>
#include <ttrace_ftlinux.h>
#include <ttrace_ftpage.h>

static const struct ttrace_arg_meta open_args[] = {
	{ "path", TTRACE_ARG_STR, 9, 0, 0 }, { "flags", TTRACE_ARG_S32, 0, 0, 0 },
};
static const struct ttrace_arg_meta wide_args[] = {
	{ "a", TTRACE_ARG_U64, 0, 0, 0 }, { "b", TTRACE_ARG_U64, 0, 0, 0 },
	{ "c", TTRACE_ARG_U64, 0, 0, 0 }, { "d", TTRACE_ARG_U64, 0, 0, 0 },
	{ "e", TTRACE_ARG_U64, 0, 0, 0 }, { "f", TTRACE_ARG_U64, 0, 0, 0 },
	{ "g", TTRACE_ARG_U64, 0, 0, 0 }, { "h", TTRACE_ARG_U64, 0, 0, 0 },
	{ "i", TTRACE_ARG_U64, 0, 0, 0 }, { "j", TTRACE_ARG_U64, 0, 0, 0 },
	{ "k", TTRACE_ARG_U64, 0, 0, 0 }, { "l", TTRACE_ARG_U64, 0, 0, 0 },
	{ "m", TTRACE_ARG_U64, 0, 0, 0 }, { "n", TTRACE_ARG_U64, 0, 0, 0 },
	{ "o", TTRACE_ARG_U64, 0, 0, 0 }, { "p", TTRACE_ARG_PTR, 0, 0, 0 },
};
static const struct ttrace_event_meta events[] = {
	{ "myopen", "", open_args, 40, 24, 0, 2 },
	{ "wide", "", wide_args, 41, 3, 0, 16 },
};

static size_t resolve(void *arg, unsigned tag, uint64_t ident, uint64_t ts,
		      const char **str)
{
	static char buf[32];

	(void)arg;
	(void)ts;
	if (tag != 9)
		return 0;
	snprintf(buf, sizeof(buf), "/etc/file%llu", (unsigned long long)ident);
	*str = buf;
	return strlen(buf);
}

static uint8_t pages[8][TTRACE_FTPAGE_SIZE];

/* Writes n records alternating myopen and wide, 1 us apart but for one
 * 1 s jump, into pages; returns the pages used. */
static size_t fill(unsigned n, uint64_t lost)
{
	struct ttrace_ftpage p;
	uint8_t rec[TTRACE_FTPAGE_REC_MAX];
	size_t np = 0;
	uint64_t ns = 5000000000ull;

	ttrace_ftpage_init(&p, pages[np]);
	ttrace_ftpage_lost(&p, lost);
	for (unsigned i = 0; i < n; i++) {
		const struct ttrace_event_meta *e = &events[i % 2];
		struct ttrace_event_view ev = { .id = e->id, .nwords = e->nargs };
		size_t len;

		for (unsigned a = 0; a < e->nargs; a++)
			ev.args[a] = i * 100 + a;
		ev.args[1] = i % 2 ? ev.args[1] : (uint64_t)-(int64_t)i;
		ns += i == n / 2 ? 1000000000ull : 1000;
		len = ttrace_ftevent_record(rec, e, &ev, 7, resolve, NULL);
		if (!ttrace_ftpage_add(&p, ns, rec, len)) {
			ttrace_ftpage_end(&p);
			if (++np == ARRAY_SIZE(pages))
				return 0;
			ttrace_ftpage_init(&p, pages[np]);
			if (!ttrace_ftpage_add(&p, ns, rec, len))
				return 0;
		}
	}
	ttrace_ftpage_end(&p);
	return np + 1;
}

/* ttrawread's output for the first np pages under the formats of the
 * n events evs (Linux's for those that map). */
static int run_reader(const struct ttrace_event_meta *evs, size_t nev,
		      size_t np, char *out, size_t size)
{
	char fmt_path[] = "/tmp/ttftfmtXXXXXX", raw_path[] = "/tmp/ttftrawXXXXXX";
	char text[3 * TTRACE_FTEVENT_FORMAT_MAX], cmd[256];
	struct seqbuf s;
	int ffd = mkstemp(fmt_path), rfd = mkstemp(raw_path);
	FILE *p;
	size_t n;

	seqbuf_init(&s, text, sizeof(text));
	for (size_t i = 0; i < nev; i++)
		ttrace_ftlinux_event_format(&s, &evs[i]);
	if (ffd < 0 || rfd < 0 || seqbuf_overflowed(&s) ||
	    write(ffd, text, s.len) != (ssize_t)s.len ||
	    write(rfd, pages, np * TTRACE_FTPAGE_SIZE) !=
	    (ssize_t)(np * TTRACE_FTPAGE_SIZE))
		return -1;
	close(ffd);
	close(rfd);
	snprintf(cmd, sizeof(cmd), TTRAWREAD_BIN " %s %s", fmt_path, raw_path);
	p = popen(cmd, "r");
	n = fread(out, 1, size - 1, p);
	out[n] = 0;
	unlink(fmt_path);
	unlink(raw_path);
	return pclose(p);
}

static int test_libtraceevent_reads(void)
{
	static char out[1 << 20];
	size_t np = fill(200, 3);

	HT_CHECK(np > 2);
	if (run_reader(events, ARRAY_SIZE(events), np, out, sizeof(out)))
		HT_FAIL("ttrawread failed: %.300s", out + (strlen(out) > 300 ?
							  strlen(out) - 300 : 0));
	HT_CHECK(strstr(out, "records 200 undecoded 0 missed 3 pages"));
	HT_CHECK(strstr(out, "count myopen 100\ncount wide 100\n"));
	HT_CHECK(strstr(out, "myopen: path=/etc/file0 flags=0\n"));
	if (!strstr(out, "myopen: path=/etc/file19800 flags=-198\n"))
		HT_FAIL("%.400s", out);
	HT_CHECK(strstr(out, "wide: a=19900 b=19901 c=19902"));
	HT_CHECK(strstr(out, "p=0x"));
	/* the 1 s jump: the time-extend carried it */
	HT_CHECK(strstr(out, "\n6000101000 wide: a=10100 "));
	return 0;
}

static const struct ttrace_arg_meta switch_args[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev_state", TTRACE_ARG_STR, TTRACE_AUX_STATE_NAME, 0, 0 },
	{ "prev_pid", TTRACE_ARG_U32, 0, 0, 0 }, { "next_pid", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta irq_args[] = {
	{ "vector", TTRACE_ARG_U32, 0, 0, 0 },
	{ "name", TTRACE_ARG_STR, TTRACE_AUX_IRQ_NAME, 0, 0 },
};
static const struct ttrace_event_meta linux_events[] = {
	{ "sched_switch", "", switch_args, 0, 0, 0, 5 },
	{ "irq_enter", "", irq_args, 1, 0, 0, 2 },
};

static size_t linux_resolve(void *arg, unsigned tag, uint64_t ident,
			    uint64_t ts, const char **str)
{
	(void)arg;
	(void)ts;
	*str = tag == TTRACE_AUX_PROC_NAME && ident == 7 ? "sh" :
	       tag == TTRACE_AUX_STATE_NAME && ident == 2 ? "sleeping" :
	       tag == TTRACE_AUX_STATE_NAME && ident == 3 ? "dead" :
	       tag == TTRACE_AUX_IRQ_NAME ? "timer" : NULL;
	return *str ? strlen(*str) : 0;
}

static uint32_t linux_prio(void *arg, uint64_t pid, uint64_t ts)
{
	(void)arg;
	(void)pid;
	(void)ts;
	return 120;
}

/* sched_switch and irq_handler_entry records in Linux's layout decode
 * under Linux's format text: sched_switch's fields by name, its state
 * as Linux's letters, irq's name from its __data_loc. */
static int test_linux_records(void)
{
	static const struct ttrace_ftlinux_ops ops = {
		.resolve = linux_resolve, .prio = linux_prio };
	static const struct ttrace_event_view views[] = {
		{ .id = 0, .nwords = 5, .args = { 7, TTRACE_IDLE_PID(0), 2, 7,
						 TTRACE_IDLE_PID(0) } },
		{ .id = 1, .nwords = 2, .args = { 32, 32 } },
		{ .id = 0, .nwords = 5, .args = { TTRACE_IDLE_PID(0), 7, 1,
						 TTRACE_IDLE_PID(0), 7 } },
		{ .id = 0, .nwords = 5, .args = { 7, 9, 3, 7, 9 } },
	};
	static char out[1 << 16];
	struct ttrace_ftpage p;
	uint8_t rec[TTRACE_FTPAGE_REC_MAX];
	uint32_t pid = 7;

	ttrace_ftpage_init(&p, pages[0]);
	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		const struct ttrace_event_meta *e = &linux_events[views[i].id];
		size_t n = ttrace_ftlinux_record(rec, ttrace_ftlinux_find(e), e,
						 &views[i], 1000 * (i + 1),
						 &pid, &ops);

		HT_CHECK(n && ttrace_ftpage_add(&p, 1000 * (i + 1), rec, n));
	}
	ttrace_ftpage_end(&p);
	if (run_reader(linux_events, ARRAY_SIZE(linux_events), 1, out,
		       sizeof(out)))
		HT_FAIL("ttrawread failed: %.400s", out);
	HT_CHECK(strstr(out, "records 4 undecoded 0 missed 0 pages 1"));
	HT_CHECK(strstr(out, "switch sh 7 1 idle 0\n"));
	HT_CHECK(strstr(out, "switch idle 0 256 sh 7\n"));
	HT_CHECK(strstr(out, "switch sh 7 32 #9 9\n"));
	if (!strstr(out, "sched_switch: prev_comm=sh prev_pid=7 prev_prio=120 "
		    "prev_state=S ==> next_comm=idle next_pid=0 "
		    "next_prio=120\n"))
		HT_FAIL("%.450s", out);
	HT_CHECK(strstr(out, "prev_state=R+ ==> next_comm=sh"));
	HT_CHECK(strstr(out, "irq_handler_entry: irq=32 name=timer\n"));
	return 0;
}

static int test_page_bounds(void)
{
	static uint8_t page[TTRACE_FTPAGE_SIZE + 64];
	struct ttrace_ftpage p;
	uint8_t rec[TTRACE_FTPAGE_REC_MAX] = { 0 };
	unsigned n = 0;

	memset(page, 0xaa, sizeof(page));
	ttrace_ftpage_init(&p, page);
	ttrace_ftpage_lost(&p, 1);
	while (ttrace_ftpage_add(&p, 1000ull * n * n * n, rec, 100 + n))
		n++;
	ttrace_ftpage_end(&p);
	HT_CHECK(n > 20 && p.len + 8 <= TTRACE_FTPAGE_DATA);
	for (size_t i = TTRACE_FTPAGE_SIZE; i < sizeof(page); i++)
		HT_CHECK(page[i] == 0xaa);
	HT_CHECK(!ttrace_ftpage_add(&p, 0, rec, TTRACE_FTPAGE_REC_MAX + 1));
	ttrace_ftpage_lost(&p, 5);	/* after events: not this page's */
	HT_CHECK(p.missed == 1);
	return 0;
}

/* A page of losses only (trace.dat's after a CPU's last event): the time
 * it is stamped with, an empty data area, the count after it; a page
 * with events keeps its first event's time. */
static int test_page_stamp(void)
{
	static uint8_t page[TTRACE_FTPAGE_SIZE];
	struct ttrace_ftpage p;
	uint64_t ts, commit, count;
	uint8_t rec[8] = { 0 };

	ttrace_ftpage_init(&p, page);
	ttrace_ftpage_lost(&p, 7);
	ttrace_ftpage_stamp(&p, 123456789);
	ttrace_ftpage_end(&p);
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, 8);
	memcpy(&count, page + TTRACE_FTPAGE_HDR, 8);
	HT_CHECK(ts == 123456789 && commit == (1ull << 31 | 1ull << 30) &&
		 count == 7 && p.last == 123456789);
	ttrace_ftpage_init(&p, page);
	HT_CHECK(ttrace_ftpage_add(&p, 5000, rec, sizeof(rec)));
	ttrace_ftpage_stamp(&p, 9000);	/* after events: not this page's */
	ttrace_ftpage_end(&p);
	memcpy(&ts, page, 8);
	HT_CHECK(ts == 5000 && p.last == 5000);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_libtraceevent_reads, "ftpage_libtraceevent_reads" },
	{ test_linux_records, "ftpage_linux_records" },
	{ test_page_bounds, "ftpage_bounds" },
	{ test_page_stamp, "ftpage_stamp" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
