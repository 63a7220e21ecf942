/*
 * Static keys: every tracepoint site is a 5-byte NOP (ttrace_emit.h, table
 * .ttrace_sites), and every function a 5-byte NOP at its entry (table
 * __patchable_function_entries, fgraph.c). ttrace_patch_sync() makes the text agree
 * with the one notion of "armed" the tracer has, ttrace_armed[] (set by
 * ttrace_ctl_rearm() from the mask and the enable flags): a site of an
 * armed event is a jmp to its recording code, any other site the NOP it
 * was compiled as. Every path that changes ttrace_armed[] calls it before
 * it returns (core.c, control.c, dump.c), under the ctl
 * mutex, at boot, or in panic with the other CPUs stopped.
 *
 * It compares each site's text with what it must be and patches only the
 * differences, in batches of BATCH through the text patcher (text_patch.h),
 * so a ctl command that changes nothing patches nothing, and after every
 * event is disarmed the text is byte for byte the linked image's.
 */
#include <ttrace.h>
#include <string.h>
#include <text_patch.h>
#include <ttrace_ctl.h>

#include "internal.h"

#define BATCH	256

extern const struct ttrace_site __tracepoint_sites_start[], __tracepoint_sites_end[];

static struct text_patch batch[BATCH];	/* ctl mutex (or alone) */
static size_t batch_n;

/* Applies the queued patches. */
void ttrace_patch_flush(enum text_patch_mode mode)
{
	text_patch_apply(batch, batch_n, mode);
	batch_n = 0;
}

/* Queues: the site at addr must be `op target` (op 0: the NOP). */
void ttrace_patch_want(uintptr_t addr, uint8_t op, uintptr_t target,
		       enum text_patch_mode mode)
{
	text_patch_encode(&batch[batch_n++], addr, op, target);
	if (batch_n == BATCH)
		ttrace_patch_flush(mode);
}

/* Whether site s is a latency tracer's hook (not a tracepoint). */
static bool is_lat_key(const struct ttrace_site *s)
{
	return s->id == TTRACE_KEY_IRQSOFF || s->id == TTRACE_KEY_WAKEUP;
}

/* Set once an untraced thread exists (ttrace_untraced_on()). */
static uint8_t untraced_live;

/* An untraced thread exists from now on (kthread_untrace(): kt made, not
 * yet runnable): sched_switch's sites test for one from now on
 * (TTRACE_KEY_UNTRACED). ctl mutex held. */
void ttrace_untraced_on(void)
{
	WRITE_ONCE(untraced_live, 1);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
}

/* Where site s must jump (0: it must be the NOP): nowhere unless its
 * event is armed; to the probe call if a probe is attached to the event
 * or the events' pid list is set (pids.c).
 * The context key's site jumps while ttrace_ctx_live is set, the
 * untraced key's once an untraced thread exists, a latency
 * tracer's while it is on (the wakeup tracer's scheduler hooks also while
 * the profiler wants them). */
static uintptr_t site_target(const struct ttrace_site *s)
{
	if (s->id == TTRACE_KEY_CTX_LIVE)
		return READ_ONCE(ttrace_ctx_live) ? s->target : 0;
	if (s->id == TTRACE_KEY_UNTRACED)
		return READ_ONCE(untraced_live) ? s->target : 0;
	if (is_lat_key(s))
		return ttrace_lat_key_live(s->id) ||
		       (s->id == TTRACE_KEY_WAKEUP && ttrace_profile_sched_live()) ?
		       s->target : 0;
	if (!ttrace_armed[s->id])
		return 0;
	return (ttrace_main.ctl.probed && ttrace_main.ctl.probed[s->id]) ||
	       ttrace_pids_route(s->id) ? s->probe_target : s->target;
}

/* Whether site s holds a jmp to target, or the NOP when target is 0. */
static bool site_holds(const struct ttrace_site *s, uintptr_t target)
{
	struct text_patch want;

	text_patch_encode(&want, s->addr, target ? TEXT_OP_JMP : 0, target);
	return !memcmp((const void *)s->addr, want.insn, TEXT_PATCH_LEN);
}

/* Patches every site that disagrees with ttrace_armed[] and the probes,
 * and the function sites with the graph tracer's state. ctl mutex held
 * (LIVE), or no other CPU running (ALONE). */
void ttrace_patch_sync(enum text_patch_mode mode)
{
	for (const struct ttrace_site *s = __tracepoint_sites_start;
	     s < __tracepoint_sites_end; s++) {
		uintptr_t target = site_target(s);

		if (!site_holds(s, target))
			ttrace_patch_want(s->addr, target ? TEXT_OP_JMP : 0,
					  target, mode);
	}
	ttrace_patch_flush(mode);
	fgraph_sync(mode);
}

/* Whether every tracepoint site agrees with ttrace_armed[] and every
 * function site with the graph tracer. ctl mutex held. For tests. */
bool ttrace_patch_consistent(void)
{
	for (const struct ttrace_site *s = __tracepoint_sites_start;
	     s < __tracepoint_sites_end; s++)
		if (!site_holds(s, site_target(s)))
			return false;
	return fgraph_consistent();
}

/* The number of tracepoint sites (the latency tracers' hooks aside),
 * and of them live (jmp) now. */
void ttrace_patch_counts(uint64_t *sites, uint64_t *live)
{
	*sites = *live = 0;
	for (const struct ttrace_site *s = __tracepoint_sites_start;
	     s < __tracepoint_sites_end; s++) {
		if (is_lat_key(s) || s->id == TTRACE_KEY_UNTRACED)
			continue;
		(*sites)++;
		*live += !text_patch_is_nop(s->addr);
	}
}
