/*
 * Timer latency and noise (docs/latency.md): one kernel thread per CPU,
 * bound to it, "latency/N", that measures how late it wakes (timerlat) or
 * what takes its CPU away while it spins (osnoise), after Linux's
 * tracers of those names. Both are tracers of the latency core
 * (latency.c: ctl `latency NAME on|off|reset|threshold US`, the log2
 * histograms, the maximum with every CPU's records frozen at the moment
 * it was set, NAME_trace); this file adds their threads, on's numbers and
 * the rtla-like summaries. One of the two runs at a time (`latency
 * timerlat on` while osnoise runs switches to timerlat), as Linux has one
 * current tracer.
 *
 * timerlat: the thread sleeps until a TSC deadline (ksleep_until, a
 * one-shot timer of its own CPU) and, woken, takes its TSC minus the TSC
 * at which that CPU's timer interrupt found the deadline come and woke
 * it: the time from the timer firing to the thread running, through the
 * scheduler. Into the CPU's figures, a timerlat_sample event, and the
 * core. The period is in microseconds.
 *
 * osnoise: for RUNTIME_US of every second the thread reads the TSC in a
 * loop; two reads further apart than THRESHOLD_NS are a gap, and a
 * section for the core (its maximum's frozen trace shows what ran in
 * the longest). The records this CPU's ring took meanwhile say what ran
 * (latstat.c: each interrupt by vector, the thread switched to when it
 * yielded), so the causes cost the tracer nothing while osnoise is off;
 * with the irq and kthread groups off, gaps count as "other". The kernel is not preemptible: the
 * loop yields when the scheduler asks (a thread made runnable on its CPU,
 * sched_should_yield()), and that thread's time is noise too.
 *
 * Threads are made at the first `on` and stay, asleep, when off (as the
 * counters thread does). Each CPU's figures have one writer, its thread,
 * and a lock for the ctl's reset and the files' readers.
 */
#include <ttrace.h>
#include <ttrace_latstat.h>
#include <ttrace_decode.h>
#include <kmalloc.h>
#include <printfmt.h>
#include <sched.h>
#include <seqbuf.h>
#include <smp.h>
#include <spinlock.h>
#include <timer.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#include "internal.h"

#define GAP_RECORDS	128	/* records read to explain one gap */
#define PERIOD_US	10000	/* timerlat's default period */

struct lat_cpu {
	struct kthread *thread;
	struct spinlock lock;		/* the figures below, with interrupts
					   off (the core's update wants them) */
	struct lat_stat stat;		/* timerlat */
	uint64_t missed;		/* periods it woke too late for */
	struct noise_tally noise;	/* osnoise */
	struct ttrace_entry *gap;	/* GAP_RECORDS: a gap's records */
};

static void lat_set(struct ttrace_lat *l, bool on);
/* where timerlat and osnoise sections end, for the core's "to" */
static void timerlat_run(struct lat_cpu *lc);
static void osnoise_window(struct lat_cpu *lc);

/* No static key: the tracers are their own threads. */
struct ttrace_lat ttrace_lat_timerlat = {
	.id = TTRACE_LAT_TIMERLAT,
	.set = lat_set,
};

struct ttrace_lat ttrace_lat_osnoise = {
	.id = TTRACE_LAT_OSNOISE,
	.set = lat_set,
};

static struct lat_cpu lat_cpus[CONFIG_MAX_NUM_CPUS] = {
	[0 ... CONFIG_MAX_NUM_CPUS - 1] = { .lock = SPINLOCK_INIT("latency cpu") },
};
static struct spinlock lat_lock = SPINLOCK_INIT("latency");
static struct spinlock core_lock = SPINLOCK_INIT("latency core");	/* to_core() */
static struct ttrace_lat *running;	/* lat_lock: the tracer on, or NULL */
static uint64_t period_us = PERIOD_US;	/* timerlat */
static uint64_t runtime_us = TTRACE_LAT_OSNOISE_RUNTIME_US;	/* osnoise */
static uint64_t threshold_ns = TTRACE_LAT_OSNOISE_THRESHOLD_NS;

static uint32_t lat_cpu_id(const struct lat_cpu *lc)
{
	return (uint32_t)(lc - lat_cpus);
}

/* Sleeps until a latency tracer of this file is on; returns which. */
static struct ttrace_lat *wait_for_mode(void)
{
	struct ttrace_lat *l;

	spin_lock(&lat_lock);
	while (!(l = running))
		ksleep(&running, &lat_lock);
	spin_unlock(&lat_lock);
	return l;
}

/* Hands l a section of cycles that began at start (this CPU's TSC) at
 * from and ended now at to: its histogram, its count, and its maximum
 * with the trace. One CPU at a time: every CPU's thread wakes at the
 * same tick, and the core drops a new maximum (counts it busy) while
 * another CPU freezes the rings. lc->lock held (interrupts off). */
static void to_core(struct ttrace_lat *l, uint64_t cycles, uint64_t start,
		    void *from, void *to)
{
	ttrace_lat_hist_add(l, cycles);
	if (ttrace_lat_wanted(l, cycles)) {
		spin_lock(&core_lock);
		ttrace_lat_update(l, cycles, start, (uintptr_t)from,
				  (uintptr_t)to);
		spin_unlock(&core_lock);
	} else {
		ttrace_lat_count(l);
	}
}

/* Counts one wakeup of cycles after the tick that fired at this CPU's
 * TSC fired. Its thread. */
static void timerlat_sample(struct lat_cpu *lc, uint64_t cycles,
			    uint64_t fired)
{
	uint64_t ns = ttrace_ticks_to_ns(cycles, tsc_freq_hz), flags;

	ttrace_timerlat_sample(lat_cpu_id(lc), ns);	/* in a frozen trace */
	flags = spin_lock_irqsave(&lc->lock);
	lat_stat_add(&lc->stat, ns);
	to_core(&ttrace_lat_timerlat, cycles, fired, sched_tick, timerlat_run);
	spin_unlock_irqrestore(&lc->lock, flags);
}

/* timerlat until the mode changes: wake every period_us, count how
 * late; a deadline already past when the thread asked is missed. The
 * thread is bound, so its timer and its TSC reads are its CPU's. */
static void timerlat_run(struct lat_cpu *lc)
{
	uint64_t next = arch_read_tsc(), fired, now;

	while (READ_ONCE(running) == &ttrace_lat_timerlat) {
		next += ns_to_tsc(READ_ONCE(period_us) * 1000);
		ksleep_until(next, &fired);
		now = arch_read_tsc();
		if (READ_ONCE(running) != &ttrace_lat_timerlat)
			break;		/* turned off while it slept */
		if (fired)
			timerlat_sample(lc, now > fired ? now - fired : 0,
					fired);
		else
			WRITE_ONCE(lc->missed, lc->missed + 1);
		if (next < now)
			next = now;	/* late: the next period from now */
	}
}

/* Reads this CPU's records from logical index from on into lc->gap;
 * returns how many (whole events; losses skipped; at most GAP_RECORDS). */
static size_t gap_records(struct lat_cpu *lc, uint64_t from)
{
	struct trace_ring_cursor cur = { .next = from, .after_loss = 1 };
	uint32_t cpu = lat_cpu_id(lc);
	uint64_t end = ttrace_ring_end(&ttrace_main, cpu);
	struct trace_ring_run run;
	size_t n = 0;
	uint32_t k;

	while (GAP_RECORDS - n > TTRACE_MAX_CONT &&
	       (k = ttrace_ring_read(&ttrace_main, cpu, &cur, end, lc->gap + n,
				     GAP_RECORDS - n, &run,
				     TTRACE_COPY_PLAIN)) !=
	       TRACE_RUN_NONE &&
	       k != TRACE_RUN_BUSY)
		if (k == TRACE_RUN_RECORDS)
			n += run.count;
	return n;
}

/* Counts the gap [t0, t1) of lc's loop, this CPU's ring at index from
 * when it began. Its thread. */
static void osnoise_gap(struct lat_cpu *lc, uint64_t t0, uint64_t t1,
			uint64_t from)
{
	struct noise_ids ids = {
		.irq_enter = TTRACE_EV_IRQ_ENTER, .irq_exit = TTRACE_EV_IRQ_EXIT,
		.kthread_run = TTRACE_EV_KTHREAD_RUN,
		.sched_switch = TTRACE_EV_SCHED_SWITCH, .self = lc->thread->id,
	};
	size_t n = gap_records(lc, from);
	uint64_t flags = spin_lock_irqsave(&lc->lock);

	noise_gap(&lc->noise, t0, t1, lc->gap, n, &ids, tsc_freq_hz);
	to_core(&ttrace_lat_osnoise, t1 - t0, t0, osnoise_window,
		osnoise_window);
	spin_unlock_irqrestore(&lc->lock, flags);
	ttrace_osnoise_gap(lat_cpu_id(lc), ttrace_ticks_to_ns(t1 - t0,
							     tsc_freq_hz));
}

/* One osnoise window: runtime_us of TSC reads, each gap above the
 * threshold counted, yielding to any thread that waits. Its thread. */
static void osnoise_window(struct lat_cpu *lc)
{
	uint32_t cpu = lat_cpu_id(lc);
	uint64_t us = tsc_freq_hz / 1000000;
	uint64_t thr = READ_ONCE(threshold_ns) * us / 1000;
	uint64_t head = ttrace_ring_end(&ttrace_main, cpu);
	uint64_t t0 = arch_read_tsc(), begin = t0;
	uint64_t stop = t0 + READ_ONCE(runtime_us) * us, t1, flags;

	while (t0 < stop && READ_ONCE(running) == &ttrace_lat_osnoise) {
		if (sched_should_yield())
			yield();
		t1 = arch_read_tsc();
		if (t1 - t0 > thr) {
			osnoise_gap(lc, t0, t1, head);
			head = ttrace_ring_end(&ttrace_main, cpu);
			t1 = arch_read_tsc();
		}
		t0 = t1;
	}
	flags = spin_lock_irqsave(&lc->lock);
	lc->noise.runtime_ns += ttrace_ticks_to_ns(t0 - begin, tsc_freq_hz);
	spin_unlock_irqrestore(&lc->lock, flags);
}

/* osnoise until the mode changes: a window at the start of each second. */
static void osnoise_run(struct lat_cpu *lc)
{
	while (READ_ONCE(running) == &ttrace_lat_osnoise) {
		uint64_t start = arch_read_tsc();

		osnoise_window(lc);
		ksleep_until(start + tsc_freq_hz, NULL);
	}
}

/* The thread of one CPU (arg: its struct lat_cpu). */
static void lat_main(void *arg)
{
	for (;;) {
		if (wait_for_mode() == &ttrace_lat_timerlat)
			timerlat_run(arg);
		else
			osnoise_run(arg);
	}
}

/* Makes the threads of the online CPUs that have none yet. Returns NULL
 * or why not (the threads made stay). ctl mutex held. */
static const char *make_threads(void)
{
	char name[16];

	for (uint32_t c = 0; c < num_cpus; c++) {
		struct lat_cpu *lc = &lat_cpus[c];

		if (lc->thread)
			continue;
		if (!lc->gap && !(lc->gap = kmalloc(GAP_RECORDS *
						    sizeof(*lc->gap))))
			return "latency: out of memory for the threads";
		fmt_snprintf(name, sizeof(name), "latency/%u", c);
		if (!(lc->thread = kthread_create(name, lat_main, lc)))
			return "latency: out of memory for the threads";
		kthread_bind(lc->thread, c);
		sched_make_runnable(lc->thread);
	}
	return NULL;
}

/* Empties this file's figures of l on every CPU (the core's are the
 * core's to empty). */
static void reset(struct ttrace_lat *l)
{
	for (uint32_t c = 0; c < num_cpus; c++) {
		struct lat_cpu *lc = &lat_cpus[c];
		uint64_t flags = spin_lock_irqsave(&lc->lock);

		if (l == &ttrace_lat_timerlat) {
			lat_stat_reset(&lc->stat);
			lc->missed = 0;
		} else {
			noise_tally_reset(&lc->noise);
		}
		spin_unlock_irqrestore(&lc->lock, flags);
	}
}

/* The core's switch of l (struct ttrace_lat set): the threads run l, or
 * stop if they ran it. The other tracer of this file is off once l is
 * on. ctl mutex held. */
static void lat_set(struct ttrace_lat *l, bool on)
{
	struct ttrace_lat *other = l == &ttrace_lat_timerlat ?
				   &ttrace_lat_osnoise : &ttrace_lat_timerlat;

	spin_lock(&lat_lock);
	if (on) {
		WRITE_ONCE(other->on, false);
		running = l;
	} else if (running == l) {
		running = NULL;
	}
	WRITE_ONCE(l->on, on);
	spin_unlock(&lat_lock);
	kwakeup(&running);
}

/* on's numbers of l's command into the parameters (0: the default). */
static void set_params(const struct ttrace_ctl_cmd *cmd)
{
	if (cmd->lat == TTRACE_LAT_TIMERLAT) {
		WRITE_ONCE(period_us, cmd->value ?: PERIOD_US);
	} else {
		WRITE_ONCE(runtime_us, cmd->value ?: TTRACE_LAT_OSNOISE_RUNTIME_US);
		WRITE_ONCE(threshold_ns,
			   cmd->mask ?: TTRACE_LAT_OSNOISE_THRESHOLD_NS);
	}
}

/*
 * ctl `latency timerlat|osnoise ...` (cmd parsed: ttrace_ctl.h): on's
 * threads and numbers, reset's figures of this file, then the core's
 * part (ttrace_lat_control()). Returns NULL or why nothing changed (the
 * threads made stay, asleep). ctl mutex held, process context.
 */
const char *ttrace_timerlat_control(const struct ttrace_ctl_cmd *cmd)
{
	uint64_t period = period_us, runtime = runtime_us,
		 threshold = threshold_ns;
	const char *err;

	if (cmd->mode == TTRACE_LAT_ON) {
		if ((err = make_threads()))
			return err;
		set_params(cmd);
	}
	err = ttrace_lat_control(cmd);
	if (err) {			/* put the numbers back */
		WRITE_ONCE(period_us, period);
		WRITE_ONCE(runtime_us, runtime);
		WRITE_ONCE(threshold_ns, threshold);
	} else if (cmd->mode == TTRACE_LAT_RESET) {
		reset(cmd->lat == TTRACE_LAT_TIMERLAT ? &ttrace_lat_timerlat :
			&ttrace_lat_osnoise);
	}
	return err;
}

/* Whether l runs now. */
static const char *state_of(struct ttrace_lat *l)
{
	return READ_ONCE(running) == l ? "on" : "off";
}

/* The timerlat file: state, a row per CPU, the core's maximum (the one
 * timerlat_trace froze), the periods missed. */
void ttrace_timerlat_text(struct seqbuf *s)
{
	struct ttrace_lat_max m = ttrace_lat_max_get(&ttrace_lat_timerlat);
	uint64_t missed = 0;

	seqbuf_printf(s, "timerlat %s period_us %lu\n",
		      state_of(&ttrace_lat_timerlat),
		      READ_ONCE(period_us));
	lat_stat_header(s);
	for (uint32_t c = 0; c < num_cpus; c++) {
		struct lat_cpu *lc = &lat_cpus[c];
		uint64_t flags = spin_lock_irqsave(&lc->lock);
		struct lat_stat st = lc->stat;

		missed += lc->missed;
		spin_unlock_irqrestore(&lc->lock, flags);
		lat_stat_row(&st, c, s);
	}
	seqbuf_printf(s, "max_ns %lu cpu %u missed %lu\n",
		      ttrace_ticks_to_ns(m.cycles, tsc_freq_hz), m.cpu, missed);
}

/* The osnoise file: state, a row per CPU, then each CPU's causes. */
void ttrace_osnoise_text(struct seqbuf *s)
{
	struct noise_tally *t = kmalloc(sizeof(*t) * num_cpus);

	if (!t) {
		seqbuf_puts(s, "osnoise: out of memory\n");
		return;
	}
	seqbuf_printf(s, "osnoise %s runtime_us %lu threshold_ns %lu\n",
		      state_of(&ttrace_lat_osnoise), READ_ONCE(runtime_us),
		      READ_ONCE(threshold_ns));
	noise_header(s);
	for (uint32_t c = 0; c < num_cpus; c++) {
		uint64_t flags = spin_lock_irqsave(&lat_cpus[c].lock);

		t[c] = lat_cpus[c].noise;
		spin_unlock_irqrestore(&lat_cpus[c].lock, flags);
		noise_row(&t[c], c, s);
	}
	for (uint32_t c = 0; c < num_cpus; c++)
		noise_causes(&t[c], c, s);
	kfree(t);
}
