/*
 * latstat.c: latency figures and noise tallies (ttrace_latstat.h), and
 * their rows in the #ttrace timerlat and osnoise files.
 */
#include <seqbuf.h>
#include <string.h>
#include <ttrace_decode.h>
#include <ttrace_latstat.h>

/* Empties st. */
void lat_stat_reset(struct lat_stat *st)
{
	memset(st, 0, sizeof(*st));
}

/* Counts one sample of ns. */
void lat_stat_add(struct lat_stat *st, uint64_t ns)
{
	st->count++;
	st->sum += ns;
	if (ns < st->min || st->count == 1)
		st->min = ns;
	if (ns > st->max)
		st->max = ns;
}

/* The mean sample, rounded down; 0 when empty. */
uint64_t lat_stat_avg(const struct lat_stat *st)
{
	return st->count ? st->sum / st->count : 0;
}

/* The column names of lat_stat_row(), appended to s. */
void lat_stat_header(struct seqbuf *s)
{
	seqbuf_puts(s, "cpu      count     min_ns     avg_ns     max_ns\n");
}

/* One row: cpu, count, min, avg, max (ns; all 0 when empty). */
void lat_stat_row(const struct lat_stat *st, uint32_t cpu, struct seqbuf *s)
{
	seqbuf_printf(s, "%3u %10lu %10lu %10lu %10lu\n", cpu, st->count,
		      st->min, lat_stat_avg(st), st->max);
}

/* Empties t. */
void noise_tally_reset(struct noise_tally *t)
{
	memset(t, 0, sizeof(*t));
}

/* The entry of (kind, id) in t, added if new; NULL for a new cause
 * other than NOISE_OTHER when only the last entry is left: that one is
 * kept for other. */
static struct noise_cause *cause_of(struct noise_tally *t, uint32_t kind,
				    uint64_t id)
{
	struct noise_cause *c;

	for (c = t->cause; c < t->cause + t->ncauses; c++)
		if (c->kind == kind && c->id == id)
			return c;
	if (t->ncauses >= NOISE_MAX_CAUSES - 1 && kind != NOISE_OTHER)
		return NULL;
	c->kind = kind;
	c->id = id;
	t->ncauses++;
	return c;
}

/* Counts one interruption of ns by (kind, id); a new cause that does not
 * fit the table counts as other. */
void noise_charge(struct noise_tally *t, uint32_t kind, uint64_t id,
		  uint64_t ns)
{
	struct noise_cause *c = cause_of(t, kind, id);

	if (!c)
		c = cause_of(t, NOISE_OTHER, 0);
	c->count++;
	c->ns += ns;
}

/* Charges each outermost interrupt of e[0..n) inside [t0, t1] to its
 * vector, for its length (to t1 if it had not ended); returns their
 * total in ticks. */
static uint64_t charge_irqs(struct noise_tally *t, uint64_t t0, uint64_t t1,
			    const struct ttrace_entry *e, size_t n,
			    const struct noise_ids *ids, uint64_t hz)
{
	uint64_t start = 0, sum = 0, vec = 0;
	uint32_t depth = 0;

	for (size_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(e[i].type)) {
		uint32_t id = TTRACE_TYPE_ID(e[i].type);
		uint64_t ts = e[i].timestamp;

		if (ts < t0 || ts > t1)
			continue;
		if (id == ids->irq_enter && depth++ == 0) {
			start = ts;
			vec = e[i].data[0];
		} else if (id == ids->irq_exit && depth && --depth == 0) {
			noise_charge(t, NOISE_IRQ, vec,
				     ttrace_ticks_to_ns(ts - start, hz));
			sum += ts - start;
		}
	}
	if (depth) {
		noise_charge(t, NOISE_IRQ, vec, ttrace_ticks_to_ns(t1 - start, hz));
		sum += t1 - start;
	}
	return sum;
}

/* The first other thread e[0..n) shows running inside [t0, t1]: a kernel
 * thread's kthread_run, else a process's sched_switch to it. Returns its
 * kind, NOISE_OTHER if none ran. */
static uint32_t thread_ran(uint64_t t0, uint64_t t1,
			   const struct ttrace_entry *e, size_t n,
			   const struct noise_ids *ids, uint64_t *who)
{
	for (size_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(e[i].type)) {
		uint32_t id = TTRACE_TYPE_ID(e[i].type);

		if (e[i].timestamp < t0 || e[i].timestamp > t1)
			continue;
		if (id == ids->kthread_run && e[i].data[0] != ids->self) {
			*who = e[i].data[0];
			return NOISE_KTHREAD;
		}
		/* next's pid: word 1's low half (next_pid@8, the
		 * next thread's word: ttrace.events) */
		if (id == ids->sched_switch && (uint32_t)e[i].data[1]) {
			*who = (uint32_t)e[i].data[1];
			return NOISE_PROC;
		}
	}
	return NOISE_OTHER;
}

/*
 * Counts the gap [t0, t1) (TSC ticks of hz per second) of a noise loop
 * with e[0..n), the records its CPU took from before t0 on (whole events,
 * continuations following their first entry): each interrupt inside to
 * its vector, the rest to the thread that ran or to other.
 */
void noise_gap(struct noise_tally *t, uint64_t t0, uint64_t t1,
	       const struct ttrace_entry *e, size_t n,
	       const struct noise_ids *ids, uint64_t tsc_hz)
{
	uint64_t ns = ttrace_ticks_to_ns(t1 - t0, tsc_hz);
	uint64_t irqs = charge_irqs(t, t0, t1, e, n, ids, tsc_hz), who = 0;
	uint32_t kind = thread_ran(t0, t1, e, n, ids, &who);

	t->gaps++;
	t->noise_ns += ns;
	if (ns > t->max_ns)
		t->max_ns = ns;
	if (irqs < t1 - t0 && (kind != NOISE_OTHER || !irqs))
		noise_charge(t, kind, who,
			     ttrace_ticks_to_ns(t1 - t0 - irqs, tsc_hz));
}

/* The column names of noise_row(), appended to s. */
void noise_header(struct seqbuf *s)
{
	seqbuf_puts(s, "cpu  runtime_us   noise_us  max_noise_ns  avail%"
		    "    gaps\n");
}

/* One row: cpu, runtime, noise, the longest gap, the share of the
 * runtime left to the loop (percent, 2 decimals), gaps. */
void noise_row(const struct noise_tally *t, uint32_t cpu, struct seqbuf *s)
{
	uint64_t run = t->runtime_ns, quiet = run > t->noise_ns ?
					      run - t->noise_ns : 0;
	uint64_t bp = run ? quiet * 10000 / run : 0;	/* basis points */

	seqbuf_printf(s, "%3u %11lu %10lu %13lu %3lu.%02lu %7lu\n", cpu,
		      run / 1000, t->noise_ns / 1000, t->max_ns, bp / 100,
		      bp % 100, t->gaps);
}

static const char *const noise_kind_names[] = {
	[NOISE_IRQ] = "irq", [NOISE_KTHREAD] = "kthread",
	[NOISE_PROC] = "proc", [NOISE_OTHER] = "other",
};

/* "cause cpuN KIND ID count C noise_ns NS" for each cause of t. */
void noise_causes(const struct noise_tally *t, uint32_t cpu,
		  struct seqbuf *s)
{
	for (uint32_t i = 0; i < t->ncauses && i < NOISE_MAX_CAUSES; i++) {
		const struct noise_cause *c = &t->cause[i];

		seqbuf_printf(s, "cause cpu%u %s %lu count %lu noise_ns %lu\n",
			      cpu, c->kind <= NOISE_OTHER ?
			      noise_kind_names[c->kind] : "?", c->id, c->count,
			      c->ns);
	}
}
