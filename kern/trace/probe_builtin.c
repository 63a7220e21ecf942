/*
 * The built-in probes: what the ctl commands `probe NAME KIND ...` and
 * `unprobe NAME` attach (grammar: kern/trace/lib/probe_parse.c,
 * docs/probes.md), on the probe API (probe_site.c).
 *
 *	filter		suppress the records whose tests fail
 *	count		count hits, per key
 *	hist		log2 histogram of a field, per key
 *	latency		log2 histogram of the time from START to the next END
 *			on the same CPU, in ns, per key of the START event;
 *			with `match FIELD`, to the next END on any CPU whose
 *			FIELD is START's key (an open START per key, in a
 *			table of LAT_OPEN slots); with `emit EVENT FIELD...`,
 *			each pair also records EVENT (a synthetic event,
 *			tracefs_synth.c) on END's CPU when it is enabled: the
 *			latency, then END's FIELDs, stamped with END's time
 *			and written just before END's record. Written as an
 *			emitter writes (no probe of EVENT runs: no recursion)
 *	snapshot	copy every CPU's ring aside on the first hit (snapN;
 *			a snapshot set, snapset.c)
 *	stop		freeze tracing on a hit while it is not frozen (a
 *			flight recorder; `times N`: the first N such hits)
 *	stacktrace	record the kernel call chain after the event (stack.c;
 *			`times N`: after the first N hits only)
 *
 * Everything a probe needs is allocated when it is attached, in process
 * context under the ctl mutex; its callbacks only add to counters that
 * memory holds (lock-free, ttrace_keytab), so they may fire anywhere.
 * The list of probes changes only under the ctl mutex, and the texts and
 * snapshots are read under it too, so a probe's memory is freed (after
 * the grace period that detaching waits) with no reader on it.
 */
#include <ttrace.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <ttrace_probe.h>
#include <trace_ring.h>
#include <buddy.h>
#include <kmalloc.h>
#include <pmem.h>
#include <seqbuf.h>
#include <string.h>
#include <smp.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

#define MAX_PROBES	16
#define COUNT_KEYS	256
#define HIST_KEYS	64
#define LAT_OPEN	64	/* latency match: open STARTs, by key */

struct pages {
	void *mem;
	unsigned order;
};

struct builtin {
	struct ttrace_probe_spec spec;
	struct pages tab_mem;
	struct ttrace_keytab tab;	/* count, hist, latency */
	uint64_t hits;			/* events that passed the tests */
	uint64_t unpaired;		/* latency: END with no START before */
	uint64_t first_ts;		/* snapshot, stop: the first hit (the
					   first freeze) */
	uint32_t fired;			/* stop, stacktrace: hits acted on,
					   at most spec.times if set */
	uint32_t first_cpu;
	struct {			/* latency: per CPU, the open START */
		uint64_t ts;		/* 0: none */
		uint64_t key;
		int32_t pid;
	} start[CONFIG_MAX_NUM_CPUS];
	struct {			/* latency match: the open STARTs, */
		uint32_t busy;		/* slot key % LAT_OPEN; claimed by */
		uint64_t ts;		/* CAS, never waited for (0: none; */
		uint64_t key;		/* on CPU 0's clock) */
	} open[LAT_OPEN];
	uint64_t open_busy;		/* latency match: a START or END
					   that found its slot claimed */
	uint64_t open_evicted;		/* ... a START that replaced an
					   open START of another key */
	struct ttrace_snapset snap;	/* snapshot: the copy */
};

static struct builtin *probes[MAX_PROBES];	/* ctl mutex */

static bool pages_get(struct pages *p, size_t bytes)
{
	p->order = ttrace_order_for(bytes);
	p->mem = get_cont_pages(p->order, 0);
	return p->mem != NULL;
}

static void pages_put(struct pages *p)
{
	if (p->mem)
		free_cont_pages(p->mem, p->order);
	p->mem = NULL;
}

/* The key of hit h for probe b. */
static uint64_t key_of(const struct builtin *b, const struct ttrace_probe_hit *h)
{
	return ttrace_field_get(&b->spec.key, h);
}

static bool on_filter(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;
	bool pass = ttrace_probe_test(&b->spec, h);

	if (pass)
		__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
	return pass;
}

static bool on_count(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;

	if (ttrace_probe_test(&b->spec, h)) {
		__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
		ttrace_keytab_add(&b->tab, key_of(b, h), 0, 1);
	}
	return true;
}

static bool on_hist(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;

	if (ttrace_probe_test(&b->spec, h)) {
		__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
		ttrace_keytab_add(&b->tab, key_of(b, h), ttrace_hist_bucket(
				  ttrace_field_get(&b->spec.value, h)), 1);
	}
	return true;
}

/* latency START: opens this CPU's pair (a later START replaces it). The
 * tests apply to START only. Nothing nests a START or END inside another
 * on one CPU (they are syscall entry and exit, or the like); the slot's
 * ts is written last and read first all the same. */
static bool on_lat_start(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;

	if (ttrace_probe_test(&b->spec, h)) {
		WRITE_ONCE(b->start[h->cpu].key, key_of(b, h));
		WRITE_ONCE(b->start[h->cpu].pid, h->pid);
		WRITE_ONCE(b->start[h->cpu].ts, h->ts);
	}
	return true;
}

/* latency match: claims key's slot of the open STARTs, or counts it
 * busy and returns NULL (a START or END on another CPU has it now). */
static uint32_t *open_claim(struct builtin *b, uint64_t key)
{
	uint32_t *busy = &b->open[key % LAT_OPEN].busy, free = 0;

	if (__atomic_compare_exchange_n(busy, &free, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return busy;
	__atomic_fetch_add(&b->open_busy, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* latency match START: opens key's pair (replacing an older START of
 * any key in its slot), stamped on CPU 0's clock. */
static bool on_lat_open(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;
	uint64_t key = key_of(b, h);
	uint32_t *busy;

	if (!ttrace_probe_test(&b->spec, h) || !(busy = open_claim(b, key)))
		return true;
	if (b->open[key % LAT_OPEN].ts && b->open[key % LAT_OPEN].key != key)
		__atomic_fetch_add(&b->open_evicted, 1, __ATOMIC_RELAXED);
	b->open[key % LAT_OPEN].key = key;
	b->open[key % LAT_OPEN].ts = ttrace_ts_on_cpu0(h->ts,
						       tsc_offset[h->cpu]);
	__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
	return true;
}

/* A pair of START at start_ts and END h (on one clock), of key: counted
 * into the histogram, and the emit event recorded when it is on. */
static void lat_pair(struct builtin *b, const struct ttrace_probe_hit *h,
		     uint64_t key, uint64_t ticks)
{
	const struct ttrace_probe_spec *s = &b->spec;
	uint64_t ns = ttrace_cycles_ns(ticks), f[TTRACE_PROBE_EMIT_MAX] = { 0 };

	__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
	ttrace_keytab_add(&b->tab, key, ttrace_hist_bucket(ns), 1);
	if (!s->emit || !READ_ONCE(ttrace_armed[s->emit_event]))
		return;
	for (uint32_t i = 0; i < s->nemit; i++)
		f[i] = ttrace_field_get(&s->emit_fields[i], h);
	ttrace_record_at(h->ts, s->emit_event, ns, f[0], f[1], f[2], 0);
}

/* latency match END: closes the pair its field's key opened, on any
 * CPU; an END with none open counts as unpaired. */
static bool on_lat_close(struct builtin *b, const struct ttrace_probe_hit *h)
{
	uint64_t key = ttrace_field_get(&b->spec.end_key, h), ts = 0;
	uint64_t now = ttrace_ts_on_cpu0(h->ts, tsc_offset[h->cpu]);
	uint32_t *busy = open_claim(b, key);

	if (!busy)
		return true;
	if (b->open[key % LAT_OPEN].key == key) {
		ts = b->open[key % LAT_OPEN].ts;
		b->open[key % LAT_OPEN].ts = 0;
	}
	__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
	if (!ts || now < ts)
		__atomic_fetch_add(&b->unpaired, 1, __ATOMIC_RELAXED);
	else
		lat_pair(b, h, key, now - ts);
	return true;
}

/* latency END: closes this CPU's open pair if it is the same process's
 * and, where END has the key's field, the same key's; otherwise it counts
 * as unpaired and the pair stays open (the process that opened it may
 * come back to this CPU and close it). With match: on_lat_close(). */
static bool on_lat_end(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;
	uint64_t ts = READ_ONCE(b->start[h->cpu].ts);
	uint64_t key = READ_ONCE(b->start[h->cpu].key);

	if (b->spec.match)
		return on_lat_close(b, h);
	if (!ts || h->ts < ts || READ_ONCE(b->start[h->cpu].pid) != h->pid ||
	    (b->spec.end_key.src &&
	     ttrace_field_get(&b->spec.end_key, h) != key)) {
		__atomic_fetch_add(&b->unpaired, 1, __ATOMIC_RELAXED);
		return true;
	}
	WRITE_ONCE(b->start[h->cpu].ts, 0);
	lat_pair(b, h, key, h->ts - ts);
	return true;
}

/* Claims the first hit of a one-shot probe; false for every later one. */
static bool first_hit(struct builtin *b, const struct ttrace_probe_hit *h)
{
	if (!ttrace_probe_test(&b->spec, h) ||
	    __atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED))
		return false;
	b->first_cpu = h->cpu;
	b->first_ts = h->ts;
	return true;
}

/* Copies every CPU's ring into b's snapshot set (snapset.c): records
 * being written meanwhile come out as declared losses when read, never
 * torn. The first hit is the only copy, so nothing holds the set yet. */
static bool on_snapshot(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;

	if (!first_hit(b, h) || !ttrace_snapset_trylock(&b->snap))
		return true;
	ttrace_snapset_copy(&b->snap);
	ttrace_snapset_unlock(&b->snap);
	return true;
}

/* Claims one of b's `times` (one compare-and-swap, never a wait): false
 * once they are used up; always true without `times`. Returns the hits
 * acted on before this one in *before. */
static bool claim_times(struct builtin *b, uint32_t *before)
{
	uint32_t n = __atomic_load_n(&b->fired, __ATOMIC_RELAXED);

	do {
		if (b->spec.times && n >= b->spec.times)
			return false;
	} while (!__atomic_compare_exchange_n(&b->fired, &n, n + 1, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	*before = n;
	return true;
}

/* Freezes tracing (ttrace_freeze) on a hit while it is not frozen, as
 * ftrace's traceoff trigger: after a traceon (tracefs_trig.c, or ctl
 * groups), the next hit freezes again; `times N` bounds the freezes, and
 * only a hit that freezes uses one. The record of the event that
 * stopped it is still written (ttrace_probe_fire). */
static bool on_stop(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;
	uint32_t before;

	if (!ttrace_probe_test(&b->spec, h))
		return true;
	__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&ttrace_main.frozen, __ATOMIC_ACQUIRE) ||
	    !claim_times(b, &before))
		return true;
	if (!before) {
		b->first_cpu = h->cpu;
		b->first_ts = h->ts;
	}
	ttrace_freeze(&ttrace_main);
	return true;
}

/* Asks ttrace_probe_fire() for the chain, b's depth of it, after the
 * record (the deepest any probe of the event asks for). */
static bool on_stacktrace(void *arg, const struct ttrace_probe_hit *h)
{
	struct builtin *b = arg;
	uint32_t before;

	if (ttrace_probe_test(&b->spec, h)) {
		__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
		if (h->stack && *h->stack < b->spec.depth &&
		    claim_times(b, &before))
			*h->stack = b->spec.depth;
	}
	return true;
}

static const ttrace_probe_fn kind_fn[] = {
	[TTRACE_PROBE_FILTER] = on_filter, [TTRACE_PROBE_COUNT] = on_count,
	[TTRACE_PROBE_HIST] = on_hist, [TTRACE_PROBE_LATENCY] = on_lat_start,
	[TTRACE_PROBE_SNAPSHOT] = on_snapshot, [TTRACE_PROBE_STOP] = on_stop,
	[TTRACE_PROBE_STACKTRACE] = on_stacktrace,
};

static void builtin_free(struct builtin *b)
{
	pages_put(&b->tab_mem);
	ttrace_snapset_free(&b->snap);
	kfree(b);
}

/* Allocates what spec's probe needs; NULL when memory is short. */
static struct builtin *builtin_new(const struct ttrace_probe_spec *spec)
{
	struct builtin *b = kzmalloc(sizeof(*b));
	uint32_t cap = spec->kind == TTRACE_PROBE_COUNT ? COUNT_KEYS : HIST_KEYS;
	uint32_t width = spec->kind == TTRACE_PROBE_COUNT ? 1 :
			 TTRACE_HIST_BUCKETS;
	bool ok = b != NULL;

	if (!b)
		return NULL;
	b->spec = *spec;
	if (spec->kind == TTRACE_PROBE_COUNT || spec->kind == TTRACE_PROBE_HIST ||
	    spec->kind == TTRACE_PROBE_LATENCY) {
		ok = pages_get(&b->tab_mem, ttrace_keytab_bytes(cap, width));
		if (ok)
			ttrace_keytab_init(&b->tab, b->tab_mem.mem, cap, width);
	}
	if (ok && spec->kind == TTRACE_PROBE_SNAPSHOT)
		ok = !ttrace_snapset_alloc(&b->snap, ttrace_ring_bytes(),
					   TTRACE_SNAP_WHOLE);
	if (!ok) {
		builtin_free(b);
		return NULL;
	}
	return b;
}

static int find_slot(const char *name)
{
	for (int i = 0; i < MAX_PROBES; i++)
		if (probes[i] && !strcmp(probes[i]->spec.name, name))
			return i;
	return -1;
}

/* Attaches spec's probe. Returns NULL or why not. ctl mutex held. */
static const char *probe_add(const struct ttrace_probe_spec *spec)
{
	struct builtin *b;
	int slot, err;

	if (find_slot(spec->name) >= 0)
		return "probe: a probe of that name exists (unprobe it first)";
	for (slot = 0; slot < MAX_PROBES && probes[slot]; slot++)
		;
	if (slot == MAX_PROBES)
		return "probe: 16 probes already";
	if (!(b = builtin_new(spec)))
		return "probe: out of memory";
	if (spec->kind == TTRACE_PROBE_STACKTRACE)
		ttrace_stack_name_ksyms();	/* before a chain needs them */
	err = ttrace_probe_attach_locked(&ttrace_main, spec->event,
					 spec->match ? on_lat_open :
					 kind_fn[spec->kind], b);
	if (!err && spec->kind == TTRACE_PROBE_LATENCY)
		err = ttrace_probe_attach_locked(&ttrace_main, spec->end_event,
						 on_lat_end, b);
	if (err) {
		ttrace_probe_detach_arg_locked(&ttrace_main, b);
		builtin_free(b);
		return err == -ENOENT ? "probe: that function probe was "
		       "deleted (fprobe del)" : "probe: out of memory";
	}
	probes[slot] = b;
	return NULL;
}

/* Detaches and frees probe slot i. ctl mutex held. */
static void probe_remove(int i)
{
	struct builtin *b = probes[i];

	probes[i] = NULL;
	/* waits the grace period */
	ttrace_probe_detach_arg_locked(&ttrace_main, b);
	builtin_free(b);
}

/* Detaches and frees every probe, with one grace period. ctl mutex held. */
static void remove_all(void)
{
	struct builtin *all[MAX_PROBES];
	size_t n = 0;

	for (int i = 0; i < MAX_PROBES; i++)
		if (probes[i]) {
			all[n++] = probes[i];
			probes[i] = NULL;
		}
	ttrace_probe_detach_args_locked(&ttrace_main, (void *const *)all, n);
	while (n)
		builtin_free(all[--n]);
}

/* Carries out a parsed probe or unprobe command. ctl mutex held. Returns
 * NULL or why nothing changed. */
const char *ttrace_probes_control(const struct ttrace_ctl_cmd *cmd)
{
	int i;

	if (ttrace_main.off_reason)
		return ttrace_main.off_reason;
	if (cmd->op == TTRACE_CTL_PROBE)
		return probe_add(&cmd->probe);
	if (!strcmp(cmd->probe.name, "*")) {
		remove_all();
		return NULL;
	}
	if ((i = find_slot(cmd->probe.name)) < 0)
		return "unprobe: no such probe";
	probe_remove(i);
	return NULL;
}

/* ---- results ------------------------------------------------------------- */

/* "  key K", or "  key NAME (K)" when b names its keys by an aux tag and
 * names has K's name. */
static void key_text(struct seqbuf *t, const struct builtin *b, uint64_t key,
		     struct ttrace_aux_view *names)
{
	const char *str;
	size_t len = names && b->spec.key_tag ?
		     ttrace_aux_resolve(names, b->spec.key_tag, key, UINT64_MAX,
					&str) : 0;

	if (len)
		seqbuf_printf(t, "  key %.*s (%lu)", (int)len, str, key);
	else
		seqbuf_printf(t, "  key %lu", key);
}

/* One key's histogram: count, percentiles, then its nonempty buckets. */
static void hist_text(struct seqbuf *t, const uint64_t *v)
{
	seqbuf_printf(t, " count %lu p50 %lu p90 %lu p99 %lu\n",
		      ttrace_hist_total(v), ttrace_hist_percentile(v, 50),
		      ttrace_hist_percentile(v, 90),
		      ttrace_hist_percentile(v, 99));
	ttrace_hist_buckets_text(t, v);
}

static void probe_text(struct seqbuf *t, const struct builtin *b,
		       struct ttrace_aux_view *names)
{
	const struct ttrace_probe_spec *s = &b->spec;
	uint64_t key;
	const uint64_t *v;

	ttrace_probe_spec_text(s, ttrace_meta_now(), t);
	seqbuf_printf(t, "\n  hits %lu", b->hits);
	if (s->kind == TTRACE_PROBE_LATENCY)
		seqbuf_printf(t, " unpaired %lu unit ns", b->unpaired);
	if (s->match)
		seqbuf_printf(t, " busy %lu evicted %lu", b->open_busy,
			      b->open_evicted);
	if (b->tab.keys)
		seqbuf_printf(t, " overflow %lu", b->tab.overflow);
	if ((s->kind == TTRACE_PROBE_SNAPSHOT && b->hits) ||
	    (s->kind == TTRACE_PROBE_STOP && b->fired))
		seqbuf_printf(t, " cpu %u ts %lu", b->first_cpu, b->first_ts);
	if (s->kind == TTRACE_PROBE_STOP || s->kind == TTRACE_PROBE_STACKTRACE)
		seqbuf_printf(t, " fired %u", b->fired);
	if (s->kind == TTRACE_PROBE_SNAPSHOT)
		seqbuf_printf(t, " failed %lu", b->snap.failed);
	seqbuf_printf(t, "\n");
	for (uint32_t i = 0; b->tab.keys && i <= b->tab.cap; i++) {
		if (!ttrace_keytab_slot(&b->tab, i, &key, &v))
			continue;
		key_text(t, b, key, names);
		if (s->kind == TTRACE_PROBE_COUNT)
			seqbuf_printf(t, " count %lu\n", v[0]);
		else
			hist_text(t, v);
	}
}

/*
 * The probes and their results as text (docs/probes.md), each opening
 * with the command that made it, appended to s; keys named from names
 * (an aux snapshot, or NULL: numbers). Takes the ctl mutex.
 */
void ttrace_probes_text(struct seqbuf *s, struct ttrace_aux_view *names)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	for (int i = 0; i < MAX_PROBES; i++)
		if (probes[i])
			probe_text(s, probes[i], names);
	ttrace_ctl_mutex_exit(&ttrace_main);
}

/* The probe called name and its results as /dev/ttrace/probes shows
 * them (keys as numbers), appended to s; false if there is none. Takes
 * the ctl mutex. */
bool ttrace_probe_text(const char *name, struct seqbuf *s)
{
	int i;

	ttrace_ctl_mutex_enter(&ttrace_main);
	i = find_slot(name);
	if (i >= 0)
		probe_text(s, probes[i], NULL);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return i >= 0;
}

/* Whether a probe called name exists. ctl mutex held. */
bool ttrace_probe_exists_locked(const char *name)
{
	return find_slot(name) >= 0;
}

/* The set of the snapshot probe whose copy is gen, or with gen 0 the
 * first that took one; NULL if none. ctl mutex held. */
struct ttrace_snapset *ttrace_probe_snapset(uint64_t gen)
{
	for (int i = 0; i < MAX_PROBES; i++) {
		struct ttrace_snapset *s = probes[i] ? &probes[i]->snap : NULL;

		if (s && probes[i]->spec.kind == TTRACE_PROBE_SNAPSHOT &&
		    __atomic_load_n(&s->taken, __ATOMIC_ACQUIRE) &&
		    (!gen || s->gen == gen))
			return s;
	}
	return NULL;
}

/* The commands of the probes whose names begin with prefix, one a line,
 * appended to s (tracefs's filter and trigger files). Returns how many.
 * Takes the ctl mutex. */
unsigned ttrace_probes_named(const char *prefix, struct seqbuf *s)
{
	size_t len = strlen(prefix);
	unsigned n = 0;

	ttrace_ctl_mutex_enter(&ttrace_main);
	for (int i = 0; i < MAX_PROBES; i++)
		if (probes[i] && !strncmp(probes[i]->spec.name, prefix, len)) {
			ttrace_probe_spec_text(&probes[i]->spec,
					       ttrace_meta_now(), s);
			seqbuf_putc(s, '\n');
			n++;
		}
	ttrace_ctl_mutex_exit(&ttrace_main);
	return n;
}

/*
 * Probe name's keys and counts as ftrace's events/.../hist shows a
 * histogram (Documentation/trace/histogram.rst): a header with info
 * (the trigger as it was written), one `{ KEY: N } hitcount: N` line a
 * key, most hits first, and the totals ("Dropped": keys that found no
 * slot). A count probe's hits are its hitcount; a hist probe's, the sum
 * of its buckets. Returns false if there is no such probe. Takes the ctl
 * mutex.
 */
bool ttrace_probe_hist_text(const char *name, const char *info,
			    const char *key_name, struct seqbuf *s)
{
	struct hist_row { uint64_t key, hits; } *row, tmp;
	const struct builtin *b;
	uint32_t n = 0;
	uint64_t key;
	const uint64_t *v;
	int i;

	if (!(row = kmalloc(COUNT_KEYS * sizeof(*row))))
		return false;
	ttrace_ctl_mutex_enter(&ttrace_main);
	if ((i = find_slot(name)) < 0 || !probes[i]->tab.keys) {
		ttrace_ctl_mutex_exit(&ttrace_main);
		kfree(row);
		return false;
	}
	b = probes[i];
	for (uint32_t k = 0; k <= b->tab.cap && n < COUNT_KEYS; k++)
		if (ttrace_keytab_slot(&b->tab, k, &key, &v)) {
			row[n].key = key;
			row[n++].hits = b->spec.kind == TTRACE_PROBE_COUNT ?
					v[0] : ttrace_hist_total(v);
		}
	for (uint32_t a = 1; a < n; a++)	/* most hits first */
		for (uint32_t c = a; c && row[c - 1].hits < row[c].hits; c--) {
			tmp = row[c];
			row[c] = row[c - 1];
			row[c - 1] = tmp;
		}
	seqbuf_printf(s, "# event histogram\n#\n# trigger info: %s [active]\n"
		      "#\n\n", info);
	for (uint32_t k = 0; k < n; k++)
		seqbuf_printf(s, "{ %s: %10lu } hitcount: %10lu\n", key_name,
			      row[k].key, row[k].hits);
	seqbuf_printf(s, "\nTotals:\n    Hits: %lu\n    Entries: %u\n"
		      "    Dropped: %lu\n", b->hits, n, b->tab.overflow);
	ttrace_ctl_mutex_exit(&ttrace_main);
	kfree(row);
	return true;
}
