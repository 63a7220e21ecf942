/*
 * Host tests of the timer latency and noise arithmetic
 * (kern/trace/lib/latstat.c): count, min, avg, max, the file rows, and
 * the charging of a noise gap to its causes from the records taken
 * inside it.
 */
#include <string.h>

#include "htest.h"
#include <seqbuf.h>
#include <ttrace_latstat.h>

#define HZ	1000000000ull	/* 1 tick = 1 ns: gaps read as they are */

enum { EV_IRQ_ENTER = 2, EV_IRQ_EXIT = 3, EV_KTHREAD_RUN = 9,
       EV_SCHED_SWITCH = 7, EV_OTHER = 20 };

static const struct noise_ids ids = {
	.irq_enter = EV_IRQ_ENTER, .irq_exit = EV_IRQ_EXIT,
	.kthread_run = EV_KTHREAD_RUN, .sched_switch = EV_SCHED_SWITCH,
	.self = 42,
};

/* A record of event id at ts with arguments a, b and ncont continuation
 * slots. */
static struct ttrace_entry rec(uint32_t id, uint64_t ts, uint64_t a,
			       uint64_t b, uint32_t ncont)
{
	struct ttrace_entry e;

	memset(&e, 0, sizeof(e));
	e.timestamp = ts;
	e.type = TTRACE_TYPE(id, 0, ncont, 0, 0);
	e.data[0] = a;
	e.data[1] = b;
	return e;
}

static const struct noise_cause *find(const struct noise_tally *t,
				      uint32_t kind, uint64_t id)
{
	for (uint32_t i = 0; i < t->ncauses; i++)
		if (t->cause[i].kind == kind && t->cause[i].id == id)
			return &t->cause[i];
	return NULL;
}

static int test_stat_figures(void)
{
	struct lat_stat st;
	char buf[256];
	struct seqbuf s;

	lat_stat_reset(&st);
	HT_CHECK(lat_stat_avg(&st) == 0 && st.min == 0 && st.max == 0);
	lat_stat_add(&st, 5000);
	HT_CHECK(st.min == 5000 && st.max == 5000 && st.count == 1);
	lat_stat_add(&st, 1000);
	lat_stat_add(&st, 3001);
	HT_CHECK(st.min == 1000 && st.max == 5000 && st.count == 3);
	HT_CHECK(lat_stat_avg(&st) == 3000);	/* 9001 / 3, rounded down */
	seqbuf_init(&s, buf, sizeof(buf));
	lat_stat_header(&s);
	lat_stat_row(&st, 2, &s);
	if (strcmp(buf, "cpu      count     min_ns     avg_ns     max_ns\n"
		   "  2          3       1000       3000       5000\n"))
		HT_FAIL("rows: '%s'", buf);
	lat_stat_reset(&st);	/* a first sample of 0 is the minimum */
	lat_stat_add(&st, 0);
	lat_stat_add(&st, 7);
	HT_CHECK(st.min == 0 && st.max == 7 && lat_stat_avg(&st) == 3);
	return 0;
}

/* Two interrupts inside one gap, one nested in another's window only by
 * time: each charged to its vector for its own length; the rest of the
 * gap, unexplained, is not charged when interrupts explain the gap. */
static int test_gap_irqs(void)
{
	struct noise_tally t;
	struct ttrace_entry e[] = {
		rec(EV_IRQ_ENTER, 90, 32, 0, 0),	/* before the gap */
		rec(EV_IRQ_EXIT, 99, 32, 0, 0),
		rec(EV_IRQ_ENTER, 110, 32, 0, 0),
		rec(EV_OTHER, 120, 0, 0, 2),		/* 2 continuations */
		rec(0, 0, 0, 0, 0), rec(0, 0, 0, 0, 0),
		rec(EV_IRQ_EXIT, 150, 32, 0, 0),
		rec(EV_IRQ_ENTER, 160, 0xf0, 0, 0),
		rec(EV_IRQ_EXIT, 170, 0xf0, 0, 0),
	};
	const struct noise_cause *c;

	noise_tally_reset(&t);
	noise_gap(&t, 100, 200, e, ARRAY_SIZE(e), &ids, HZ);
	HT_CHECK(t.gaps == 1 && t.noise_ns == 100 && t.max_ns == 100);
	c = find(&t, NOISE_IRQ, 32);
	HT_CHECK(c && c->count == 1 && c->ns == 40);
	c = find(&t, NOISE_IRQ, 0xf0);
	HT_CHECK(c && c->count == 1 && c->ns == 10);
	HT_CHECK(t.ncauses == 2);
	/* an interrupt still running at the gap's end: charged to it */
	noise_gap(&t, 300, 400, (struct ttrace_entry[]){
		rec(EV_IRQ_ENTER, 350, 32, 0, 0) }, 1, &ids, HZ);
	c = find(&t, NOISE_IRQ, 32);
	HT_CHECK(c && c->count == 2 && c->ns == 90);
	HT_CHECK(t.gaps == 2 && t.noise_ns == 200 && t.max_ns == 100);
	return 0;
}

/* A gap in which the loop yielded: the time outside interrupts goes to
 * the thread that ran (not the loop's own kthread_run when it came
 * back); a gap no record explains goes to other. */
static int test_gap_threads(void)
{
	struct noise_tally t;
	struct ttrace_entry k[] = {
		rec(EV_KTHREAD_RUN, 110, 7, 0, 0),
		rec(EV_SCHED_SWITCH, 111, 0, 0, 0),
		rec(EV_IRQ_ENTER, 120, 32, 0, 0),
		rec(EV_IRQ_EXIT, 130, 32, 0, 0),
		rec(EV_KTHREAD_RUN, 190, 42, 0, 0),
	};
	struct ttrace_entry p[] = {
		rec(EV_KTHREAD_RUN, 210, 42, 0, 0),	/* itself: skipped */
		rec(EV_SCHED_SWITCH, 211, 0, 5, 0),	/* to pid 5 */
	};
	const struct noise_cause *c;

	noise_tally_reset(&t);
	noise_gap(&t, 100, 200, k, ARRAY_SIZE(k), &ids, HZ);
	c = find(&t, NOISE_KTHREAD, 7);
	HT_CHECK(c && c->count == 1 && c->ns == 90);
	HT_CHECK(find(&t, NOISE_IRQ, 32) && find(&t, NOISE_IRQ, 32)->ns == 10);
	noise_gap(&t, 200, 300, p, ARRAY_SIZE(p), &ids, HZ);
	c = find(&t, NOISE_PROC, 5);
	HT_CHECK(c && c->count == 1 && c->ns == 100);
	noise_gap(&t, 300, 350, NULL, 0, &ids, HZ);
	c = find(&t, NOISE_OTHER, 0);
	HT_CHECK(c && c->count == 1 && c->ns == 50);
	HT_CHECK(t.gaps == 3 && t.noise_ns == 250);
	return 0;
}

/* A full table: new causes count as other, which always has its slot. */
static int test_causes_full(void)
{
	struct noise_tally t;
	const struct noise_cause *c;

	noise_tally_reset(&t);
	for (uint64_t v = 0; v < NOISE_MAX_CAUSES + 5; v++)
		noise_charge(&t, NOISE_IRQ, v, 10);
	HT_CHECK(t.ncauses == NOISE_MAX_CAUSES);
	c = find(&t, NOISE_OTHER, 0);
	HT_CHECK(c && c->count == 6 && c->ns == 60);
	noise_charge(&t, NOISE_OTHER, 0, 1);
	noise_charge(&t, NOISE_IRQ, 3, 1);
	HT_CHECK(c->count == 7 && find(&t, NOISE_IRQ, 3)->count == 2);
	HT_CHECK(t.ncauses == NOISE_MAX_CAUSES);
	return 0;
}

static int test_noise_rows(void)
{
	struct noise_tally t;
	char buf[256];
	struct seqbuf s;

	noise_tally_reset(&t);
	t.runtime_ns = 2000000;
	noise_charge(&t, NOISE_IRQ, 32, 1234);
	t.noise_ns = 1234;
	t.max_ns = 1234;
	t.gaps = 1;
	seqbuf_init(&s, buf, sizeof(buf));
	noise_row(&t, 1, &s);
	noise_causes(&t, 1, &s);
	if (strcmp(buf, "  1        2000          1          1234  99.93"
		   "       1\ncause cpu1 irq 32 count 1 noise_ns 1234\n"))
		HT_FAIL("rows: '%s'", buf);
	noise_tally_reset(&t);	/* nothing measured: 0.00, no division */
	seqbuf_init(&s, buf, sizeof(buf));
	noise_row(&t, 0, &s);
	HT_CHECK(strstr(buf, "   0.00 ") != NULL);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_stat_figures, "latstat_stat_figures" },
	{ test_gap_irqs, "latstat_gap_irqs" },
	{ test_gap_threads, "latstat_gap_threads" },
	{ test_causes_full, "latstat_causes_full" },
	{ test_noise_rows, "latstat_noise_rows" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
