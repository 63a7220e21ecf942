/*
 * latency.c: the latency core, what every latency tracer (irqsoff,
 * wakeup; docs/latency.md) shares. A tracer measures sections (from when
 * interrupts go off to when they come back on, from a wakeup to the run)
 * and hands each one's length to ttrace_lat_update(), which
 *	- counts it, per CPU;
 *	- with a threshold set, records every section longer than it as a
 *	  lat_over event (its length, where and when it began, where it
 *	  ended);
 *	- at a new maximum, writes a lat_max event into this CPU's ring and
 *	  then freezes every CPU's newest records into the tracer's snapshot
 *	  set (snapset.c), so the frozen trace ends with the section's mark;
 *	  the maximum (length, start and end TSC, CPU, where it began and
 *	  ended) is kept with it.
 * The two events are written whatever the mask says (the emitter, not
 * the tracepoint): a latency tracer that is on always marks its trace.
 * A new maximum on two CPUs at once cannot tear the frozen copy: the
 * copy is claimed with ttrace_snapset_trylock(), and the CPU that does
 * not get it (or any CPU while a trace file of the copy is open) changes
 * nothing and counts it in busy. So does a section that ends while the
 * rings are being replaced (rings_lock taken for writing by bufsize or
 * mode; the hooks only try the read side, never wait).
 *
 * Usage, by a tracer with interrupts off on the CPU where the section
 * ended:
 *	if (ttrace_lat_wanted(&my_lat, cycles))
 *		ttrace_lat_update(&my_lat, cycles, start_tsc, start_pc, end_pc);
 * ttrace_lat_wanted() is the inline test of the fast path (longer than
 * the maximum or the threshold); ttrace_lat_count() counts a section that
 * is not.
 *
 * ctl `latency NAME on|off|reset|threshold US` (ttrace_lat_control()),
 * the text file latency (ttrace_lat_text()) and the trace files
 * NAME_trace (the snapshot set, tracefile.c) are the user's side.
 */
#include <ksyms.h>
#include <seqbuf.h>
#include <smp.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#include "internal.h"

#define LAT_KEEP_BYTES	(64 * 1024)	/* per CPU: the newest 1024 records */

static struct ttrace_lat *const lats[TTRACE_LAT_COUNT] = {
	[TTRACE_LAT_IRQSOFF] = &ttrace_lat_irqsoff,
	[TTRACE_LAT_WAKEUP] = &ttrace_lat_wakeup,
	[TTRACE_LAT_TIMERLAT] = &ttrace_lat_timerlat,
	[TTRACE_LAT_OSNOISE] = &ttrace_lat_osnoise,
};

/* Cycles of the trace clock (the TSC) as ns. */
uint64_t ttrace_cycles_ns(uint64_t cycles)
{
	uint64_t khz = tsc_freq_hz / 1000;

	return khz ? cycles * 1000000 / khz : cycles;
}

/* The floor below which a section is only counted: the smaller of the
 * maximum and the threshold. s claimed, or ctl mutex held with l off. */
static void set_floor(struct ttrace_lat *l)
{
	uint64_t f = l->max.cycles;

	if (l->threshold && l->threshold < f)
		f = l->threshold;
	WRITE_ONCE(l->floor, f);
}

/* Sets l's maximum to *m, for ttrace_lat_max_get(). l's snapshot set
 * claimed. */
static void max_set(struct ttrace_lat *l, const struct ttrace_lat_max *m)
{
	__atomic_store_n(&l->max_seq, l->max_seq + 1, __ATOMIC_RELAXED);
	wmb();
	l->max = *m;
	wmb();
	__atomic_store_n(&l->max_seq, l->max_seq + 1, __ATOMIC_RELEASE);
	set_floor(l);
}

/* l's maximum, whole (a seqcount: copied again while one is set). Any
 * context but inside the tracer's update. */
struct ttrace_lat_max ttrace_lat_max_get(const struct ttrace_lat *l)
{
	struct ttrace_lat_max m;
	uint32_t seq;

	for (;;) {
		seq = __atomic_load_n(&l->max_seq, __ATOMIC_ACQUIRE);
		m = l->max;
		rmb();
		if (!(seq & 1) && seq == READ_ONCE(l->max_seq))
			return m;
		arch_pause();
	}
}

/* A new maximum: mark it in this CPU's ring, freeze every ring, keep it.
 * Interrupts off. */
static void new_max(struct ttrace_lat *l, uint64_t cycles, uint64_t end_tsc,
		    uint64_t start_tsc, uintptr_t start_pc, uintptr_t end_pc)
{
	if (!ttrace_snapset_trylock(&l->snap))
		return;			/* counted busy: nothing changes */
	if (cycles > l->max.cycles) {	/* still the largest */
		ttrace_emit_5(TTRACE_EV_LAT_MAX, l->id, cycles, start_tsc,
			      start_pc, end_pc);
		ttrace_snapset_copy(&l->snap);
		max_set(l, &(struct ttrace_lat_max){
			.cycles = cycles, .start_tsc = start_tsc,
			.end_tsc = end_tsc, .start_pc = start_pc,
			.end_pc = end_pc, .cpu = core_id(),
		});
	}
	ttrace_snapset_unlock(&l->snap);
}

/*
 * Hands tracer l a section of lat_cycles that began at start_tsc (this
 * CPU's TSC) at start_pc and ended now at end_pc: counted; recorded as a
 * lat_over event if longer than the threshold; kept with every CPU's
 * newest records if longer than the maximum. Interrupts off, on the CPU
 * where the section ended; never re-enters the tracer's hooks.
 */
void ttrace_lat_update(struct ttrace_lat *l, uint64_t lat_cycles,
		       uint64_t start_tsc, uintptr_t start_pc,
		       uintptr_t end_pc)
{
	uint64_t now = start_tsc + lat_cycles;
	uint64_t threshold = READ_ONCE(l->threshold);

	ttrace_lat_count(l);
	/* The rings may be being replaced (bufsize, mode: they quiesce
	 * tracepoints, not these hooks, and hold rings_lock meanwhile). */
	if (!rtrylock(&ttrace_main.rings_lock)) {
		__atomic_fetch_add(&l->snap.busy, 1, __ATOMIC_RELAXED);
		return;
	}
	if (threshold && lat_cycles > threshold) {
		__atomic_fetch_add(&l->over, 1, __ATOMIC_RELAXED);
		ttrace_emit_5(TTRACE_EV_LAT_OVER, l->id, lat_cycles, start_tsc,
			      start_pc, end_pc);
	}
	if (lat_cycles > READ_ONCE(l->max.cycles))
		new_max(l, lat_cycles, now, start_tsc, start_pc, end_pc);
	runlock(&ttrace_main.rings_lock);
}

/* Adds a section of cycles to this CPU's histogram of l (in ns).
 * Interrupts off. */
void ttrace_lat_hist_add(struct ttrace_lat *l, uint64_t cycles)
{
	l->hist[core_id()][ttrace_hist_bucket(ttrace_cycles_ns(cycles))]++;
}

/* The snapshot set of tracer id, or NULL (not yet on). ctl mutex held. */
struct ttrace_snapset *ttrace_lat_snapset(uint32_t id)
{
	return id < TTRACE_LAT_COUNT && lats[id]->snap.mem[0] ?
	       &lats[id]->snap : NULL;
}

/* Whether the key of a latency tracer's hooks must be live. */
bool ttrace_lat_key_live(uint64_t key)
{
	for (uint32_t i = 0; i < TTRACE_LAT_COUNT; i++)
		if (lats[i]->key == key)
			return READ_ONCE(lats[i]->on);
	return false;
}

/* Forgets l's maximum (and its frozen copy), counts and histograms.
 * ctl mutex held. */
static void lat_reset(struct ttrace_lat *l)
{
	if (l->snap.mem[0])
		ttrace_snapset_lock(&l->snap);
	max_set(l, &(struct ttrace_lat_max){ 0 });
	memset(l->sections, 0, sizeof(l->sections));
	memset(l->hist, 0, sizeof(l->hist));
	l->over = 0;
	ttrace_snapset_forget(&l->snap);
	l->snap.busy = 0;
	if (l->snap.mem[0])
		ttrace_snapset_unlock(&l->snap);
}

/* Turns l on or off: its memory first, then its hooks (l->set).
 * Returns NULL or why nothing changed. ctl mutex held. */
static const char *lat_switch(struct ttrace_lat *l, bool on)
{
	if (on == l->on)
		return NULL;
	if (on && ttrace_main.off_reason)
		return ttrace_main.off_reason;
	if (on && !l->snap.mem[0] &&
	    ttrace_snapset_alloc(&l->snap, LAT_KEEP_BYTES, TTRACE_SNAP_NEWEST))
		return "latency: out of memory";
	l->set(l, on);
	return NULL;
}

/* Carries out a parsed latency command (ttrace_ctl.h). Returns NULL or
 * why nothing changed. ctl mutex held. */
const char *ttrace_lat_control(const struct ttrace_ctl_cmd *cmd)
{
	struct ttrace_lat *l = lats[cmd->lat];

	switch (cmd->mode) {
	case TTRACE_LAT_ON:
	case TTRACE_LAT_OFF:
		return lat_switch(l, cmd->mode == TTRACE_LAT_ON);
	case TTRACE_LAT_RESET:
		lat_reset(l);
		return NULL;
	default:	/* TTRACE_LAT_THRESHOLD */
		l->threshold_us = cmd->value;
		WRITE_ONCE(l->threshold, cmd->value * (tsc_freq_hz / 1000000));
		set_floor(l);
		return NULL;
	}
}

/* "NAME+0xOFF" of pc, or its address. */
static void pc_text(struct seqbuf *s, uintptr_t pc)
{
	uintptr_t off;
	const char *fn = pc ? ksym_lookup(pc, &off) : NULL;

	if (fn)
		seqbuf_printf(s, "%s+0x%lx", fn, off);
	else
		seqbuf_printf(s, "%#lx", pc);
}

/* One CPU's histogram: its nonempty buckets, "low high count". */
static void hist_text(struct seqbuf *s, const struct ttrace_lat *l,
		      uint32_t cpu)
{
	const uint64_t *v = l->hist[cpu];

	if (!ttrace_hist_total(v))
		return;
	seqbuf_printf(s, "  hist cpu%u count %lu p50 %lu p99 %lu unit ns\n", cpu,
		      ttrace_hist_total(v), ttrace_hist_percentile(v, 50),
		      ttrace_hist_percentile(v, 99));
	ttrace_hist_buckets_text(s, v);
}

/* Tracer l as text (docs/latency.md). ctl mutex held. */
static void lat_text(struct seqbuf *s, struct ttrace_lat *l)
{
	struct ttrace_lat_max m = ttrace_lat_max_get(l);
	uint64_t sections = 0;

	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++)
		sections += READ_ONCE(l->sections[c]);
	seqbuf_printf(s, "%s %s threshold_us %lu sections %lu over %lu busy %lu\n"
		      "  max_cycles %lu max_ns %lu cpu %u start_tsc %lu "
		      "end_tsc %lu\n  from ", ttrace_lat_names[l->id],
		      l->on ? "on" : "off", l->threshold_us, sections,
		      READ_ONCE(l->over), READ_ONCE(l->snap.busy), m.cycles,
		      ttrace_cycles_ns(m.cycles), m.cpu, m.start_tsc, m.end_tsc);
	pc_text(s, m.start_pc);
	seqbuf_puts(s, " to ");
	pc_text(s, m.end_pc);
	seqbuf_putc(s, '\n');
	for (uint32_t c = 0; c < num_cpus; c++)
		hist_text(s, l, c);
}

/* The latency file: every tracer's state, maximum and histograms.
 * Process context; takes the ctl mutex. */
void ttrace_lat_text(struct seqbuf *s)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	for (uint32_t i = 0; i < TTRACE_LAT_COUNT; i++)
		lat_text(s, lats[i]);
	ttrace_ctl_mutex_exit(&ttrace_main);
}
