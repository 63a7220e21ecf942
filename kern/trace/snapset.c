/*
 * snapset.c: snapshot sets. A snapshot set is a frozen copy of every
 * CPU's ring (trace_ring_copy_newest()), taken in one go by whoever owns
 * the set (the snapshot probe on its first hit, a latency tracer at each
 * new maximum) and read afterwards as the rings are read: snapN, and a
 * whole trace file through the one writer (tracefile.c: snaptrace,
 * irqsoff_trace, wakeup_trace).
 *
 * One word, state, keeps copies and readers apart without a lock that
 * could spin with interrupts off:
 *	SNAP_COPYING	a copy (or a reset) is being made: readers wait
 *	2 * readers	views hold the copy: a copy is refused (the taker
 *			counts it in busy and changes nothing)
 * A copy is taken only from state 0 (ttrace_snapset_trylock()), so two
 * CPUs that each see a new maximum at once never tear one copy: the loser
 * counts busy. A view (struct ttrace_snap_view) holds the copy from its
 * begin to its end, so a trace file read over many reads is one copy; a
 * latency tracer's new maximum meanwhile is measured but not kept (Linux
 * stops recording while its trace file is open for the same reason).
 *
 * Sets are found by source (enum ttrace_snap_src) under the ctl mutex,
 * which also orders their allocation and freeing with the readers; gen
 * names each copy, so a view never reads a copy other than the one it
 * began with (the snapshot probe's set may be freed and made again).
 *
 * A copy keeps the metadata its records were written under: a reference
 * to the snapshot current when it was taken (metasnap.c; taken before
 * the slots are read, so a function probe added since cannot have
 * records in it), and a view holds one more, which its trace file's
 * META carries. Function probe ids deleted and given to other probes
 * after a clear so never rename a frozen copy's records.
 */
#include <pmem.h>
#include <smp.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#include "internal.h"

#define SNAP_COPYING	1u
#define SNAP_READER	2u

static uint64_t snap_gen;	/* the last copy's gen, any set */

/*
 * Gives s bytes of memory per online CPU (rounded up to pages), to copy
 * the newest records that fit (fit NEWEST) or the whole ring, failing
 * when the ring is larger (fit WHOLE). Returns 0 or -ENOMEM (s as if
 * freed). Process context; s unused by any CPU.
 */
int ttrace_snapset_alloc(struct ttrace_snapset *s, size_t bytes,
			 enum ttrace_snap_fit fit)
{
	memset(s, 0, sizeof(*s));
	s->order = ttrace_order_for(bytes);
	s->fit = fit;
	for (uint32_t c = 0; c < num_cpus; c++) {
		s->mem[c] = get_cont_pages(s->order, 0);
		if (!s->mem[c]) {
			ttrace_snapset_free(s);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Frees s's memory and its copy's metadata. Nobody may copy into or read
 * s any more. ctl mutex held. */
void ttrace_snapset_free(struct ttrace_snapset *s)
{
	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++)
		if (s->mem[c])
			free_cont_pages(s->mem[c], s->order);
	ttrace_snapset_forget(s);
	memset(s, 0, sizeof(*s));
}

/* Forgets s's copy (its readers' views keep theirs): nothing to read.
 * s claimed (ttrace_snapset_lock()) or unused; ctl mutex held. */
void ttrace_snapset_forget(struct ttrace_snapset *s)
{
	s->taken = 0;
	ttrace_meta_drop(s->meta);
	s->meta = NULL;
	ttrace_meta_sweep();
}

/* Claims s for a copy. Returns true, or false (counted in busy) when
 * another copy is being made or a view holds the last one. Any context. */
bool ttrace_snapset_trylock(struct ttrace_snapset *s)
{
	uint32_t zero = 0;

	if (s->mem[0] && __atomic_compare_exchange_n(&s->state, &zero,
			SNAP_COPYING, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return true;
	__atomic_fetch_add(&s->busy, 1, __ATOMIC_RELAXED);
	return false;
}

/* Claims s for a change of its owner's state (a reset), waiting for a
 * copy in flight but not for views. Process context. */
void ttrace_snapset_lock(struct ttrace_snapset *s)
{
	uint32_t st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);

	for (;;) {
		if (!(st & SNAP_COPYING) &&
		    __atomic_compare_exchange_n(&s->state, &st,
						st | SNAP_COPYING, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		arch_pause();
		st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
	}
}

void ttrace_snapset_unlock(struct ttrace_snapset *s)
{
	__atomic_fetch_and(&s->state, ~SNAP_COPYING, __ATOMIC_RELEASE);
}

/* Copies every online CPU's ring into s, with the metadata current now,
 * and marks it taken with a new gen. s claimed (ttrace_snapset_trylock());
 * any context. A CPU whose copy fails (its ring outgrew a WHOLE set) is
 * counted in failed. */
void ttrace_snapset_copy(struct ttrace_snapset *s)
{
	size_t bytes = (size_t)PGSIZE << s->order;
	struct ttrace_meta_snap *old = s->meta;

	s->meta = ttrace_meta_get();	/* before any slot is read */
	ttrace_meta_drop(old);		/* freed by the next sweep if last */

	for (uint32_t c = 0; c < num_cpus; c++) {
		int err = s->fit == TTRACE_SNAP_WHOLE ?
			trace_ring_copy(&s->ring[c], s->mem[c], bytes,
					&ttrace_main.rings[c]) :
			trace_ring_copy_newest(&s->ring[c], s->mem[c], bytes,
					       &ttrace_main.rings[c]);

		if (err) {
			s->ring[c].entries = NULL;
			s->failed++;
		}
	}
	s->gen = __atomic_add_fetch(&snap_gen, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->taken, 1, __ATOMIC_RELEASE);
}

/* Takes a view's hold on s: waits while a copy is being made. */
static void hold(struct ttrace_snapset *s)
{
	uint32_t st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);

	for (;;) {
		if (!(st & SNAP_COPYING) &&
		    __atomic_compare_exchange_n(&s->state, &st,
						st + SNAP_READER, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		arch_pause();
		st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
	}
}

static void release(struct ttrace_snapset *s)
{
	__atomic_fetch_sub(&s->state, SNAP_READER, __ATOMIC_RELEASE);
}

/* The set of source src holding copy gen (0: any copy, or none yet),
 * or NULL. ctl mutex held. */
static struct ttrace_snapset *set_of(uint32_t src, uint64_t gen)
{
	struct ttrace_snapset *s;

	if (src == TTRACE_SNAP_PROBE) {	/* the probe's or the tree's */
		struct ttrace_snapset *p = ttrace_probe_snapset(gen);

		s = tracefs_snapset(gen);
		return !p ? s : !s || p->gen > s->gen ? p : s;
	}
	s = ttrace_lat_snapset(src - TTRACE_SNAP_LAT);
	return s && (!gen || s->gen == gen) ? s : NULL;
}

/* Begins view v of source src: holds the copy taken last and its
 * metadata, if any (a view of none reads nothing, and holds the current
 * metadata). Takes the ctl mutex. */
void ttrace_snap_view_begin(struct ttrace_snap_view *v, uint32_t src)
{
	struct ttrace_snapset *s;

	v->src = src;
	v->gen = 0;
	ttrace_ctl_mutex_enter(&ttrace_main);
	s = set_of(src, 0);
	if (s && __atomic_load_n(&s->taken, __ATOMIC_ACQUIRE)) {
		hold(s);
		v->gen = s->gen;	/* a copy waited for is the one held */
		if (!s->taken) {	/* a reset cleared it meanwhile */
			release(s);
			v->gen = 0;
		}
	}
	v->meta = v->gen ? ttrace_meta_ref(s->meta) : ttrace_meta_get();
	ttrace_ctl_mutex_exit(&ttrace_main);
}

/* Ends view v (one never begun, or of nothing, is fine). Takes the ctl
 * mutex. */
void ttrace_snap_view_end(struct ttrace_snap_view *v)
{
	struct ttrace_snapset *s;

	if (!v->meta)
		return;
	ttrace_ctl_mutex_enter(&ttrace_main);
	s = v->gen ? set_of(v->src, v->gen) : NULL;
	if (s)			/* else freed with its holds */
		release(s);
	v->gen = 0;
	ttrace_meta_drop(v->meta);
	v->meta = NULL;
	ttrace_meta_sweep();
	ttrace_ctl_mutex_exit(&ttrace_main);
}

/*
 * View v's copy of cpu's ring, read as ttrace_ring_read() reads the live
 * one (snapN, the snapshot trace files). With *end == 0 it starts at the
 * copy's clear point (what the ring overwrote before the copy, declared
 * lost, comes first), and *end is set to the copy's head. A slot that was
 * in flight when copied is declared lost at once. Returns TRACE_RUN_NONE
 * when the view holds no copy. how: as ttrace_copy_run(). Takes the ctl
 * mutex.
 */
uint32_t ttrace_snap_read(struct ttrace_snap_view *v, uint32_t cpu,
			  struct trace_ring_cursor *cur, uint64_t *end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run, enum ttrace_copy how)
{
	uint32_t kind = TRACE_RUN_NONE;
	struct ttrace_snapset *s;
	struct trace_ring *r;

	ttrace_ctl_mutex_enter(&ttrace_main);
	s = v->gen ? set_of(v->src, v->gen) : NULL;
	r = s ? &s->ring[cpu] : NULL;
	if (r && r->entries) {
		if (!*end) {
			trace_ring_cursor_start(r, cur);
			*end = trace_ring_head(r);
		}
		kind = ttrace_copy_run(r, cur, *end, out, max, run, how);
		if (kind == TRACE_RUN_BUSY) {	/* a copy: nothing completes it */
			trace_ring_give_up(cur, run);
			kind = TRACE_RUN_LOST;
		}
	}
	ttrace_ctl_mutex_exit(&ttrace_main);
	return kind;
}
