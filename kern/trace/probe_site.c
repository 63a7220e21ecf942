/*
 * probe_site.c: the probe API (kern/include/ttrace_probe.h): callbacks
 * attached to events at run time.
 *
 * Each event has a singly linked list of probes, its head in
 * ttrace_probes[id] (NULL: none; the generated tracepoint tests it once
 * the event is armed, so an event without probes pays one compare when
 * armed and nothing when not). Lists change only under the ctl mutex;
 * tracepoints walk them without a lock, as RCU readers do: a probe is
 * filled, then published by one release store of the pointer that reaches
 * it; a removed probe is unlinked by one store, and freed only after a
 * grace period over every CPU (ttrace_grace_period(), the one ring resizes
 * use), by which time no CPU is still in the tracepoint that may have
 * read the old pointer. The ctl state's probed[] bytes keep every event
 * with a probe armed (ttrace_ctl_wants()), so there is one notion of a
 * live site; ttrace_probe_fire() then writes the normal record only when
 * the event is enabled and every probe agreed, followed by a stack record
 * (stack.c) when a stacktrace probe asked for one and `stack` is enabled.
 */
#include <ttrace.h>
#include <ttrace_ctl.h>
#include <ttrace_probe.h>
#include <trace_ring.h>
#include <kmalloc.h>
#include <string.h>
#include <smp.h>
#include <abi/errno.h>
#include <arch/arch.h>

#include "internal.h"

struct ttrace_probe {
	ttrace_probe_fn fn;
	void *arg;
	struct ttrace_probe *next;
	struct ttrace_probe *dead;	/* detach's list of unlinked probes */
};

struct ttrace_probe *ttrace_probes[TTRACE_NUM_EVENTS];

/* The pid of a record made in this context word pair, or -1. */
static int32_t hit_pid(uint64_t base, uint64_t ctx)
{
	uint32_t kind = TTRACE_TYPE_CTX(base);

	if (kind == TTRACE_CTX_SYSC || kind == TTRACE_CTX_TRAP)
		return (int32_t)TTRACE_CTX_PID(ctx);
	return -1;
}

/* Writes event id's record into r with timestamp ts and the given
 * context, as the inline emitters would. */
static void record(struct trace_ring *r, uint32_t id, uint64_t ts,
		   uint64_t base, uint64_t ctx, const uint64_t *args,
		   uint32_t nargs)
{
	uint64_t d[5] = { 0 };

	if (nargs > 5) {
		trace_ring_write_ext(r, ts, base | id, ctx, args, nargs);
		return;
	}
	for (uint32_t i = 0; i < nargs; i++)
		d[i] = args[i];
	trace_ring_write_id(r, ts, base, id, ctx, d[0], d[1], d[2], d[3], d[4]);
}

/*
 * Runs event id's probes, then writes its record unless one of them said
 * no (counted in the ring's filtered) or the event was not enabled when it
 * fired; nothing of either while set_event_pid does not list the thread
 * running (filtered too); strs: NULL, or the text of its str arguments.
 * Any context. Inlined in both entry points (the tracepoint of an armed
 * event whose ttrace_probes[id] is set calls one), so a tracepoint's call
 * pays no second one.
 */
static __always_inline void probe_fire(uint32_t id, const uint64_t *args,
				       const char *const *strs,
				       uint32_t nargs)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct trace_ring *r = pcpui->ttrace_ring;	/* before a stop */
	uint64_t base = pcpui->ttrace_type_base, ctx = pcpui->ttrace_ctx;
	uint32_t stack = 0;
	struct ttrace_probe_hit h = {
		.id = id, .nargs = nargs, .cpu = pcpui->coreid,
		.pid = hit_pid(base, ctx), .ts = arch_trace_clock(),
		.args = args, .strs = strs, .stack = &stack,
	};
	struct ttrace_ctl_state *st = &ttrace_main.ctl;
	uint64_t mask = __atomic_load_n(&st->mask, __ATOMIC_RELAXED);
	/* decided before the probes run: a probe that stops tracing keeps
	 * the record of the event that stopped it */
	bool enabled = ttrace_ctl_records(st, mask, id);
	bool keep = true;

	if (unlikely(ttrace_pids_route(id)) &&	/* set_event_pid (pids.c) */
	    !ttrace_pids_listed(pcpui->cur_kthread, TTRACE_PIDS_EVENT)) {
		if (enabled)
			trace_ring_count_filtered(r);
		return;
	}
	for (struct ttrace_probe *p = __atomic_load_n(&ttrace_probes[id],
						      __ATOMIC_ACQUIRE);
	     p; p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE))
		keep &= p->fn(p->arg, &h);
	if (enabled && keep) {
		record(r, id, h.ts, base, ctx, args, nargs);
		/* the chain that reached the tracepoint: from this frame,
		 * whose return is into it */
		if (stack && ttrace_ctl_records(st, mask, TTRACE_EV_STACK))
			ttrace_stack_record(r, base, ctx, (uintptr_t)
					    __builtin_frame_address(0), stack);
	} else if (enabled) {
		trace_ring_count_filtered(r);
	}
}

/* Runs probe_fire() for the tracepoint of an armed event whose
 * ttrace_probes[id] is set; any context. */
void ttrace_probe_fire(uint32_t id, const uint64_t *args, uint32_t nargs)
{
	probe_fire(id, args, NULL, nargs);
}

/* See ttrace_emit.h: an fprobe's hit, its strings' text at hand. */
void ttrace_probe_fire_strs(uint32_t id, const uint64_t *args,
			    const char *const *strs, uint32_t nargs)
{
	probe_fire(id, args, strs, nargs);
}

/* Sets event id's probed byte from its list and re-arms. ctl mutex held. */
static void update_probed(struct ttrace *t, uint32_t id)
{
	t->ctl.probed[id] = ttrace_probes[id] != NULL;
	ttrace_rearm_locked(t);
}

/* Attaches p (filled) to event id unless its fn and arg are there
 * already (-EEXIST) or id is a deleted function probe's (-ENOENT). ctl
 * mutex held. */
static int attach_locked(struct ttrace *t, uint32_t id,
			 struct ttrace_probe *p)
{
	if (fprobe_deleted(id))		/* its id goes to another at a clear */
		return -ENOENT;
	for (struct ttrace_probe *q = ttrace_probes[id]; q; q = q->next)
		if (q->fn == p->fn && q->arg == p->arg)
			return -EEXIST;
	p->next = ttrace_probes[id];
	__atomic_store_n(&ttrace_probes[id], p, __ATOMIC_RELEASE);
	update_probed(t, id);
	return 0;
}

/* A new probe node for fn and arg, or NULL (bad id or out of memory). */
static struct ttrace_probe *probe_new(uint32_t id, ttrace_probe_fn fn,
				     void *arg)
{
	struct ttrace_probe *p;

	if (id >= TTRACE_NUM_EVENTS || !fn || !(p = kzmalloc(sizeof(*p))))
		return NULL;
	p->fn = fn;
	p->arg = arg;
	return p;
}

/*
 * Attaches fn(arg, hit) to event id. Returns 0, -EINVAL for a bad id,
 * -EEXIST when fn with arg is attached there already, -ENOMEM. Process
 * context, no spinlock held; takes the ctl mutex.
 */
int ttrace_probe_attach(uint32_t id, ttrace_probe_fn fn, void *arg)
{
	struct ttrace *t = &ttrace_main;
	struct ttrace_probe *p;
	int err;

	if (id >= TTRACE_NUM_EVENTS || !fn)
		return -EINVAL;
	if (!(p = probe_new(id, fn, arg)))
		return -ENOMEM;
	ttrace_ctl_mutex_enter(t);
	err = attach_locked(t, id, p);
	ttrace_ctl_mutex_exit(t);
	if (err)
		kfree(p);
	return err;
}

/* ttrace_probe_attach() for callers that hold the ctl mutex. */
int ttrace_probe_attach_locked(struct ttrace *t, uint32_t id,
			       ttrace_probe_fn fn, void *arg)
{
	struct ttrace_probe *p = probe_new(id, fn, arg);
	int err;

	if (!p)
		return id >= TTRACE_NUM_EVENTS || !fn ? -EINVAL : -ENOMEM;
	err = attach_locked(t, id, p);
	if (err)
		kfree(p);
	return err;
}

static bool probe_matches(const struct ttrace_probe *p, ttrace_probe_fn fn,
			  void *arg)
{
	return (!fn || p->fn == fn) && p->arg == arg;
}

/*
 * When every probe of event id matches, the event stops being probed:
 * it is disarmed first (its site a NOP again, unless its group is on) and
 * a grace period lets every CPU leave the site, while the probes still
 * decide, so a CPU that took the site before the patch cannot find the
 * list empty and write a record its group did not ask for. ctl mutex held.
 */
static void unprobe_first(struct ttrace *t, uint32_t id, ttrace_probe_fn fn,
			  void *arg)
{
	for (struct ttrace_probe *p = ttrace_probes[id]; p; p = p->next)
		if (!probe_matches(p, fn, arg))
			return;
	t->ctl.probed[id] = 0;
	ttrace_rearm_locked(t);
	ttrace_grace_period(t);
}

/* Unlinks event id's probes that match fn (NULL: any) and arg onto *dead;
 * returns how many. ctl mutex held. */
static unsigned unlink_matching(struct ttrace *t, uint32_t id,
				ttrace_probe_fn fn, void *arg,
				struct ttrace_probe **dead)
{
	struct ttrace_probe **link = &ttrace_probes[id], *p;
	unsigned n = 0;

	if (ttrace_probes[id])
		unprobe_first(t, id, fn, arg);
	while ((p = *link)) {
		if (probe_matches(p, fn, arg)) {
			__atomic_store_n(link, p->next, __ATOMIC_RELEASE);
			p->dead = *dead;
			*dead = p;
			n++;
		} else {
			link = &p->next;
		}
	}
	if (n)
		update_probed(t, id);
	return n;
}

/* Waits until no CPU can be in a probe on dead, then frees them. ctl
 * mutex held. */
static void bury(struct ttrace *t, struct ttrace_probe *dead)
{
	if (dead)
		ttrace_grace_period(t);
	while (dead) {
		struct ttrace_probe *next = dead->dead;

		kfree(dead);
		dead = next;
	}
}

/*
 * Detaches fn with arg from event id and returns once it cannot run any
 * more (a grace period). Returns 0 or -ENOENT. Process context, no
 * spinlock held; takes the ctl mutex.
 */
int ttrace_probe_detach(uint32_t id, ttrace_probe_fn fn, void *arg)
{
	struct ttrace *t = &ttrace_main;
	struct ttrace_probe *dead = NULL;
	unsigned n;

	if (id >= TTRACE_NUM_EVENTS || !fn)
		return -ENOENT;
	ttrace_ctl_mutex_enter(t);
	n = unlink_matching(t, id, fn, arg, &dead);
	bury(t, dead);
	ttrace_ctl_mutex_exit(t);
	return n ? 0 : -ENOENT;
}

/*
 * Detaches every callback attached with arg, from every event, with one
 * grace period; returns how many. For owners of several attachments (a
 * built-in probe, a probe module). Same context as ttrace_probe_detach().
 */
unsigned ttrace_probe_detach_arg(void *arg)
{
	struct ttrace *t = &ttrace_main;
	unsigned n;

	ttrace_ctl_mutex_enter(t);
	n = ttrace_probe_detach_arg_locked(t, arg);
	ttrace_ctl_mutex_exit(t);
	return n;
}

/* ttrace_probe_detach_arg() for callers that hold the ctl mutex. */
unsigned ttrace_probe_detach_arg_locked(struct ttrace *t, void *arg)
{
	return ttrace_probe_detach_args_locked(t, &arg, 1);
}

/* ttrace_probe_detach_arg_locked() of args[0..n), with one grace period
 * for them all. */
unsigned ttrace_probe_detach_args_locked(struct ttrace *t, void *const *args,
					 size_t n)
{
	struct ttrace_probe *dead = NULL;
	unsigned k = 0;

	for (size_t a = 0; a < n; a++)
		for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++)
			k += unlink_matching(t, id, NULL, args[a], &dead);
	bury(t, dead);
	return k;
}

/* Unlinks, from every event, the probes whose callback lies in [lo, hi)
 * onto *dead; returns how many. ctl mutex held. */
static unsigned unlink_range(struct ttrace *t, uintptr_t lo, uintptr_t hi,
			     struct ttrace_probe **dead)
{
	unsigned n = 0;

	for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++)
		for (struct ttrace_probe *p = ttrace_probes[id]; p; p = p->next)
			if ((uintptr_t)p->fn >= lo && (uintptr_t)p->fn < hi)
				n += unlink_matching(t, id, p->fn, p->arg,
						     dead);
	return n;
}

/*
 * Detaches every probe whose callback lies in [lo, hi) (a module's code),
 * with one grace period; returns how many. Same context as
 * ttrace_probe_detach().
 */
unsigned ttrace_probe_detach_range(uintptr_t lo, uintptr_t hi)
{
	struct ttrace *t = &ttrace_main;
	struct ttrace_probe *dead = NULL;
	unsigned n;

	ttrace_ctl_mutex_enter(t);
	n = unlink_range(t, lo, hi, &dead);
	bury(t, dead);
	ttrace_ctl_mutex_exit(t);
	return n;
}

/* The id of the event called name (a function probe's too), or -ENOENT. */
int ttrace_event_id(const char *name)
{
	for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++)
		if (!strcmp(ttrace_meta_now()->events[id].name, name))
			return (int)id;
	return -ENOENT;
}

/*
 * Attaches fn(arg) to every event whose name matches glob (* and ?).
 * Returns how many, or -ENOENT when none matches, or the first error (the
 * ones attached before it stay). Same context as ttrace_probe_attach().
 */
int ttrace_probe_attach_glob(const char *glob, ttrace_probe_fn fn, void *arg)
{
	int n = 0, err;

	for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++) {
		if (!ttrace_glob_match(glob, ttrace_meta_now()->events[id].name))
			continue;
		if ((err = ttrace_probe_attach(id, fn, arg)))
			return err;
		n++;
	}
	return n ? n : -ENOENT;
}

/* How many probes event id has now. For tests and listings. */
unsigned ttrace_probe_count(uint32_t id)
{
	unsigned n = 0;

	ttrace_ctl_mutex_enter(&ttrace_main);
	for (struct ttrace_probe *p = ttrace_probes[id]; p; p = p->next)
		n++;
	ttrace_ctl_mutex_exit(&ttrace_main);
	return n;
}
