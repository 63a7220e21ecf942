/*
 * tracefs_trig.c: the enable_event and disable_event triggers of
 * events/GROUP/EVENT/trigger (docs/tracefs.md), as Linux builds them
 * (events.rst, "Event triggers"): soft-disable.
 *
 * Neither re-arming an event (the ctl mutex, text patching) nor anything
 * else that waits may happen where a trigger fires, so the target's state
 * is settled when the trigger is written: in process context the target
 * gets a gate probe (its site goes through ttrace_probe_fire(), as any
 * probed event's: only targets pay the test) and, if it was not recorded,
 * is enabled as its enable file's 1 would, with its soft-off byte set
 * first so the gate keeps it from recording. The trigger is a probe on
 * the triggering event that, when its `if` tests pass and the target is
 * not in the state it asks for already, claims one of its count (one
 * compare-and-swap; none left: nothing) and flips the byte with one
 * store. Removing the last trigger of a target takes its gate off and,
 * if a trigger enabled it, disables it again: its state before.
 *
 * Locking: the table and the bytes' owners change under the ctl mutex;
 * enabling or disabling a target goes through ctl (which takes it), so a
 * target in transition is marked busy and other writes naming it are
 * refused meanwhile (-EBUSY). The probes read only their own trigger and
 * the soft-off bytes.
 */
#include <kmalloc.h>
#include <parse_num.h>
#include <seqbuf.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_probe.h>
#include <abi/errno.h>

#include "internal.h"
#include "tracefs.h"

#define TRIGS_MAX	16
#define TRACING		TTRACE_NUM_EVENTS	/* traceon's target: no event */

struct trig {
	uint32_t ev, target;
	bool enable;			/* enable_event, else disable_event */
	int64_t count;			/* flips left; -1: unlimited */
	struct ttrace_probe_spec spec;	/* the `if` tests */
	char cond[160];			/* the `if` text as written, or "" */
};

static struct trig *trigs[TRIGS_MAX];		/* ctl mutex */
static uint8_t soft_off[TRACING + 1];		/* the gates' bytes */
static struct {
	uint8_t users;		/* triggers naming it */
	bool armed;		/* a trigger enabled it */
	bool busy;		/* being enabled or disabled */
} targets[TRACING + 1];				/* ctl mutex */

/* The gate on a target: its record only while its soft-off byte is 0. */
static bool on_gate(void *arg, const struct ttrace_probe_hit *h)
{
	(void)h;
	return !__atomic_load_n((uint8_t *)arg, __ATOMIC_RELAXED);
}

/* Claims one of t's count: false when none is left. */
static bool claim(struct trig *t)
{
	int64_t c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);

	do {
		if (!c)
			return false;
	} while (c > 0 && !__atomic_compare_exchange_n(&t->count, &c, c - 1,
						      false, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	return true;
}

/* The trigger: the target on (enable_event) or off, or tracing back on
 * after a traceoff's freeze (traceon), count permitting. */
static bool on_trig(void *arg, const struct ttrace_probe_hit *h)
{
	struct trig *t = arg;
	uint8_t want = !t->enable;

	if (!ttrace_probe_test(&t->spec, h))
		return true;
	if (t->target == TRACING) {
		if (__atomic_load_n(&ttrace_main.frozen, __ATOMIC_ACQUIRE) &&
		    claim(t))
			ttrace_unfreeze(&ttrace_main);
	} else if (__atomic_load_n(&soft_off[t->target], __ATOMIC_RELAXED) !=
		   want && claim(t)) {
		__atomic_store_n(&soft_off[t->target], want, __ATOMIC_RELAXED);
	}
	return true;
}

/* The slot of the trigger on ev of kind enable with target, or -1. ctl
 * mutex held. */
static int find(uint32_t ev, bool enable, uint32_t target)
{
	for (int i = 0; i < TRIGS_MAX; i++)
		if (trigs[i] && trigs[i]->ev == ev &&
		    trigs[i]->enable == enable && trigs[i]->target == target)
			return i;
	return -1;
}

/* The id of "GROUP:EVENT" in *spec (moved past it), or -1 with *why. */
static int target_of(char **spec, const char **why)
{
	const struct ttrace_meta_table *m = ttrace_meta_now();
	char *group = *spec, *name = strchr(group, ':'), *end;
	const struct ttrace_group_meta *g;

	if (!name) {
		*why = "trigger: enable_event:GROUP:EVENT[:COUNT]";
		return -1;
	}
	*name++ = 0;
	if ((end = strchr(name, ':')))
		*end++ = 0;
	*spec = end;
	for (uint32_t e = 0; e < m->nevents; e++)
		if (!strcmp(m->events[e].name, name) &&
		    (g = ttrace_meta_group(m, m->events[e].group)) &&
		    !strcmp(g->name, group))
			return (int)e;
	*why = "trigger: no such event (cat available_events)";
	return -1;
}

/* Takes trigger slot i off, and the target's gate with its last. ctl
 * mutex held. */
static void detach(int i)
{
	struct trig *t = trigs[i];
	uint32_t e = t->target;

	ttrace_probe_detach_arg_locked(&ttrace_main, t);
	trigs[i] = NULL;
	kfree(t);
	if (!--targets[e].users && e != TRACING) {
		ttrace_probe_detach_arg_locked(&ttrace_main, &soft_off[e]);
		soft_off[e] = 0;
	}
}

/* Enables or disables target e through ctl (the ctl mutex dropped and
 * taken again), e busy meanwhile. Returns ctl's result. ctl mutex held. */
static int settle(uint32_t e, bool on, const char **why)
{
	int r;

	targets[e].busy = true;
	ttrace_ctl_mutex_exit(&ttrace_main);
	r = tracefs_event_set(e, on, why);
	ttrace_ctl_mutex_enter(&ttrace_main);
	targets[e].busy = false;
	return r;
}

/* Removes the trigger on ev of kind enable with target: 0, -ENOENT or
 * -EBUSY. The last of a target that a trigger enabled disables it
 * before its gate goes. ctl mutex held. */
static int remove_locked(uint32_t ev, bool enable, uint32_t target,
			 const char **why)
{
	int i;

	if (targets[target].busy) {
		*why = "trigger: the target is changing, again";
		return -EBUSY;
	}
	if ((i = find(ev, enable, target)) < 0) {
		*why = "trigger: no such trigger";
		return -ENOENT;
	}
	if (targets[target].users == 1 && targets[target].armed) {
		settle(target, false, why);	/* disable needs no memory */
		targets[target].armed = false;	/* slot i kept: target busy */
	}
	detach(i);
	return 0;
}

static int remove(uint32_t ev, bool enable, uint32_t target,
		  const char **why)
{
	int r;

	ttrace_ctl_mutex_enter(&ttrace_main);
	r = remove_locked(ev, enable, target, why);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return r;
}

/* Attaches *tp in slot i; *tp becomes NULL once the table has it (freed
 * there on a later failure). The first trigger of a target that is not
 * recorded shuts its gate and enables it. ctl mutex held. */
static int attach(int i, struct trig **tp, const char **why)
{
	struct trig *t = *tp;
	uint32_t e = t->target;
	bool arm = false;
	int r = 0;

	if (!targets[e].users && e != TRACING) {
		arm = !ttrace_ctl_records(&ttrace_main.ctl,
					  ttrace_main.ctl.mask, e);
		soft_off[e] = arm;
		r = ttrace_probe_attach_locked(&ttrace_main, e, on_gate,
					       &soft_off[e]);
	}
	if (!r && (r = ttrace_probe_attach_locked(&ttrace_main, t->ev, on_trig,
						  t)) && !targets[e].users &&
	    e != TRACING)
		ttrace_probe_detach_arg_locked(&ttrace_main, &soft_off[e]);
	if (r) {
		*why = r == -ENOENT ? "trigger: the event was deleted (-:)" :
		       "trigger: out of memory";
		return r;
	}
	trigs[i] = t;
	*tp = NULL;
	targets[e].users++;
	if (arm && (r = settle(e, true, why))) {
		const char *ignored;

		remove_locked(t->ev, t->enable, e, &ignored);
		return r;
	}
	targets[e].armed = arm;
	return 0;
}

/* Adds t (filled): 0 or -errno with *why; t is freed on error. */
static int add(struct trig *t, const char **why)
{
	int i = 0, r = 0;

	ttrace_ctl_mutex_enter(&ttrace_main);
	while (i < TRIGS_MAX && trigs[i])
		i++;
	if (targets[t->target].busy) {
		*why = "trigger: the target is changing, again";
		r = -EBUSY;
	} else if (find(t->ev, t->enable, t->target) >= 0) {
		*why = "trigger: that trigger exists ('!' removes it)";
		r = -EEXIST;
	} else if (i == TRIGS_MAX) {
		*why = "trigger: 16 enable/disable_event triggers already";
		r = -ENOSPC;
	} else {
		r = attach(i, &t, why);
	}
	ttrace_ctl_mutex_exit(&ttrace_main);
	kfree(t);
	return r;
}

/*
 * The trigger spec (`enable_event:GROUP:EVENT[:COUNT]`, or disable_)
 * written to event ev's trigger file, with cond its `if` text (NULL:
 * none) and del for `!`. Returns 1 when spec is no such trigger (the
 * caller's), else 0 or -errno with *why (nothing changed).
 */
int tracefs_soft_trigger(uint32_t ev, char *spec, char *cond, bool del,
			 const char **why)
{
	bool enable = !strncmp(spec, "enable_event:", 13);
	char *rest = strchr(spec, ':');
	uint64_t count = 0;
	struct trig *t;
	int target = TRACING, r;

	if (!strncmp(spec, "traceon", 7) && (!spec[7] || spec[7] == ':'))
		rest = rest ? rest + 1 : NULL;
	else if (!enable && strncmp(spec, "disable_event:", 14))
		return 1;
	else if ((rest = spec + (enable ? 13 : 14),
		  target = target_of(&rest, why)) < 0)
		return -EINVAL;
	if (rest && (!parse_u64_whole(rest, &count) || !count)) {
		*why = "trigger: the count is a number from 1";
		return -EINVAL;
	}
	if (del)
		return remove(ev, enable, (uint32_t)target, why);
	if (!(t = kzmalloc(sizeof(*t)))) {
		*why = "trigger: out of memory";
		return -ENOMEM;
	}
	t->ev = ev;
	t->target = (uint32_t)target;
	t->enable = enable;
	t->count = rest ? (int64_t)count : -1;
	if (cond) {
		strlcpy(t->cond, cond, sizeof(t->cond));
		if ((r = tracefs_filter_spec(ev, cond, &t->spec, why))) {
			kfree(t);
			return r;
		}
	}
	return add(t, why);
}

/* The enable/disable_event triggers on ev as Linux lists them, appended
 * to s; returns how many. Takes the ctl mutex. */
unsigned tracefs_soft_text(struct seqbuf *s, uint32_t ev)
{
	const struct ttrace_meta_table *m = ttrace_meta_now();
	unsigned n = 0;

	ttrace_ctl_mutex_enter(&ttrace_main);
	for (int i = 0; i < TRIGS_MAX; i++) {
		const struct trig *t = trigs[i];
		const struct ttrace_group_meta *g;
		int64_t c;

		if (!t || t->ev != ev)
			continue;
		c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);
		if (t->target == TRACING) {
			seqbuf_puts(s, "traceon");
		} else {
			g = ttrace_meta_group(m, m->events[t->target].group);
			seqbuf_printf(s, "%s_event:%s:%s", t->enable ?
				      "enable" : "disable", g ? g->name : "?",
				      m->events[t->target].name);
		}
		if (c < 0)
			seqbuf_puts(s, ":unlimited");
		else
			seqbuf_printf(s, ":count=%ld", c);
		seqbuf_printf(s, "%s%s\n", t->cond[0] ? " if " : "", t->cond);
		n++;
	}
	ttrace_ctl_mutex_exit(&ttrace_main);
	return n;
}
