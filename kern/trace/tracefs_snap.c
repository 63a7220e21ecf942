/*
 * tracefs_snap.c: the tree's snapshot and stack tracer files
 * (docs/tracefs.md), on what exists: snapshot is a snapshot set
 * (snapset.c), the frozen copy of every CPU's ring the snapshot probe
 * and the latency tracers take, found as the snapshot probe's source
 * (TTRACE_SNAP_PROBE: snaptrace, snapN and the tree's snapshot read the
 * newest copy either took); stack_trace and stack_max_size read the stack
 * tracer's deepest stacks (stack.c) and reset them through ctl
 * `stacktracer reset`.
 *
 *	echo 1 > snapshot	copy every ring now (the set allocated the
 *				first time, as large as a ring)
 *	echo 0 > snapshot	free it
 *	echo 2 > snapshot	forget the copy (any number but 0 and 1)
 *
 * Locking: the set is allocated, copied, forgotten and freed under the
 * ctl mutex (which orders it with the views, snapset.c); the copy itself
 * runs with interrupts off, as the snapshot probe's does.
 */
#include <ksyms.h>
#include <parse_num.h>
#include <seqbuf.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_ctl.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#include "internal.h"

static struct ttrace_snapset tfs_snap;	/* ctl mutex */

/* See internal.h. */
struct ttrace_snapset *tracefs_snapset(uint64_t gen)
{
	struct ttrace_snapset *s = &tfs_snap;

	return s->mem[0] && __atomic_load_n(&s->taken, __ATOMIC_ACQUIRE) &&
	       (!gen || s->gen == gen) ? s : NULL;
}

/* Whether a view holds the set (it may not be freed nor copied into). */
static bool snap_held(void)
{
	return __atomic_load_n(&tfs_snap.state, __ATOMIC_ACQUIRE) != 0;
}

/* echo 1: the set as large as a ring now (made again when the rings were
 * resized), then the copy. ctl mutex held. */
static int snap_take(const char **why)
{
	size_t bytes = ttrace_ring_bytes();
	uint64_t flags;
	bool ok;

	if (tfs_snap.mem[0] && ((size_t)PGSIZE << tfs_snap.order) < bytes &&
	    !snap_held())
		ttrace_snapset_free(&tfs_snap);
	if (!tfs_snap.mem[0] &&
	    ttrace_snapset_alloc(&tfs_snap, bytes, TTRACE_SNAP_WHOLE)) {
		*why = "no memory for a copy of the rings";
		return -ENOMEM;
	}
	flags = arch_irq_save();
	ok = ttrace_snapset_trylock(&tfs_snap);
	if (ok) {
		ttrace_snapset_copy(&tfs_snap);
		ttrace_snapset_unlock(&tfs_snap);
	}
	arch_irq_restore(flags);
	*why = "a reader holds the last copy (close it first)";
	return ok ? 0 : -EBUSY;
}

/* echo 0 or 2. ctl mutex held. */
static int snap_drop(bool free, const char **why)
{
	if (!tfs_snap.mem[0])
		return 0;
	if (snap_held()) {
		*why = "a reader holds the copy (close it first)";
		return -EBUSY;
	}
	if (free) {
		ttrace_snapset_free(&tfs_snap);
	} else {
		ttrace_snapset_lock(&tfs_snap);
		ttrace_snapset_forget(&tfs_snap);
		ttrace_snapset_unlock(&tfs_snap);
	}
	return 0;
}

/* See internal.h. */
int tracefs_snapshot_write(uint32_t inst, char *line, const char **why)
{
	uint64_t v;
	int r;

	(void)inst;
	if (!parse_u64_whole(line, &v))
		return tracefs_refuse(-EINVAL, "snapshot", line, strlen(line),
				      0, "write 0 (free), 1 (take) or 2 "
				      "(clear)", why);
	ttrace_ctl_mutex_enter(&ttrace_main);
	r = v == 1 ? snap_take(why) : snap_drop(v == 0, why);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return r ? tracefs_refuse(r, "snapshot", line, strlen(line), 0, *why,
				  why) : 0;
}

/* See internal.h. */
bool tracefs_snapshot_taken(void)
{
	bool taken;

	ttrace_ctl_mutex_enter(&ttrace_main);
	taken = tracefs_snapset(0) || ttrace_probe_snapset(0);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return taken;
}

/* See internal.h: Linux's text with no snapshot to show. */
void tracefs_snapshot_help(struct seqbuf *s)
{
	seqbuf_puts(s, "#\n# * Snapshot is freed *\n#\n"
		    "# Snapshot commands:\n"
		    "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
		    "# echo 1 > snapshot : Allocates snapshot buffer, if not "
		    "already allocated.\n"
		    "#                      Takes a snapshot of the main buffer.\n"
		    "# echo 2 > snapshot : Clears snapshot buffer (but does not "
		    "allocate or free)\n"
		    "#                      (Doesn't have to be '2' works with "
		    "any number that\n"
		    "#                       is not a '0' or '1')\n");
}

/* ---- the stack tracer ---------------------------------------------------- */

/* The deepest stack of any CPU into *m; false if none was seen. */
static bool deepest(struct ttrace_stack_max *m)
{
	struct ttrace_stack_max c;

	m->bytes = 0;
	for (uint32_t cpu = 0; cpu < num_cpus; cpu++)
		if (ttrace_stack_max_get(cpu, &c) && c.bytes > m->bytes)
			*m = c;
	return m->bytes != 0;
}

/* See internal.h. */
void tracefs_stack_max_size_text(struct seqbuf *s, uint32_t inst)
{
	struct ttrace_stack_max m;

	(void)inst;
	deepest(&m);
	seqbuf_printf(s, "%lu\n", m.bytes);
}

/* See internal.h: 0 forgets the maxima (ctl stacktracer reset). */
int tracefs_stack_max_size_write(uint32_t inst, char *line, const char **why)
{
	uint64_t v;

	(void)inst;
	if (!parse_u64_whole(line, &v) || v)
		return tracefs_refuse(-EINVAL, "stack_max_size", line,
				      strlen(line), 0, "here only 0 (forget "
				      "the maxima)", why);
	return ttrace_control("stacktracer reset", 17, why);
}

/*
 * See internal.h: Linux's layout (kernel/trace/trace_stack.c), the
 * deepest CPU's chain. Our walk keeps return addresses, not where each
 * frame sat, so Depth and Size are the whole stack's on the first line
 * and the next lines give the location only.
 */
void tracefs_stack_trace_text(struct seqbuf *s, uint32_t inst)
{
	struct ttrace_stack_max m;
	uintptr_t off;
	const char *name;

	(void)inst;
	deepest(&m);
	seqbuf_printf(s, "        Depth    Size   Location    (%u entries)\n"
		      "        -----    ----   --------\n", m.nframes);
	if (!READ_ONCE(ttrace_stack_tracer_on) && !m.bytes)
		seqbuf_puts(s, "#  Stack tracer disabled\n#\n# To enable the "
			    "stack tracer: echo stacktracer on > "
			    "/dev/ttrace/ctl\n#\n");
	for (uint32_t i = 0; i < m.nframes; i++) {
		name = ksym_lookup(m.pcs[i], &off);
		if (i)
			seqbuf_printf(s, "%3u) %8s   %5s   ", i, "", "");
		else
			seqbuf_printf(s, "%3u) %8lu   %5lu   ", i, m.bytes,
				      m.bytes);
		if (name)
			seqbuf_printf(s, "%s+0x%lx\n", name, off);
		else
			seqbuf_printf(s, "0x%lx\n", m.pcs[i]);
	}
}

/* See internal.h: every function is checked (no filter here). */
void tracefs_stack_filter_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_puts(s, "#### all functions enabled ####\n");
}

/* See internal.h. */
int tracefs_stack_filter_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	return tracefs_refuse(-EINVAL, "stack_trace_filter", line,
			      strlen(line), 0, "not here: the stack tracer "
			      "checks every function site", why);
}
