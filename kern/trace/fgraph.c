/*
 * The function-graph tracer (docs/function-graph.md), as Linux's
 * function_graph: the kernel is built with -fpatchable-function-entry=5,
 * so every function but the tracer's own (files built without it, and
 * `notrace` functions: the tracer, the text patcher, the trap path) starts
 * with a 5-byte NOP (scripts/fentry_nops.py) whose address is in
 * __patchable_function_entries.
 *
 * While func_entry or func_exit is armed (the one armed byte per event,
 * ttrace_armed[]), fgraph_sync() makes the NOP of every function the filter
 * selects a call to fgraph_trampoline (ttrace_fgraph.S), which calls
 * fgraph_entry() here: record func_entry(fn, depth) and, when func_exit is
 * armed, push the caller's return address on the thread's shadow stack
 * (struct fgraph_shadow in struct kthread) and put fgraph_return_trampoline
 * in its place. The return lands in fgraph_exit(): pop, record
 * func_exit(fn, depth), go on to the real return address. Depth is the
 * shadow stack's; entries and exits pair per thread, and so per CPU
 * between switches. A call the shadow stack has no room for records
 * nothing, and is counted (`overflows` in /dev/ttrace/funcs).
 *
 * The filter is a glob over function names (the kernel symbol table,
 * ksyms.c), "*" by default; names of the selected functions go to aux
 * (tag func, ident = address) each time the sites go live, so the host
 * names them. A glob that matches only functions without a site (the
 * tracer's own) is refused: they cannot be traced, by construction.
 *
 * Function probes (fprobe.c) share the sites and the shadow stack: a site
 * with a live probe calls fprobe_trampoline instead, whose fprobe_entry()
 * does the graph's work too through fgraph_hook(); its frames are tagged
 * (FGRAPH_TAG_*, internal.h) and return through fprobe_return() (docs/function-graph.md,
 * "Sharing the sites").
 */
#include <ttrace.h>
#include <fgraph.h>
#include <ksyms.h>
#include <printfmt.h>
#include <kmalloc.h>
#include <proc.h>
#include <seqbuf.h>
#include <string.h>
#include <text_patch.h>
#include <ttrace_ctl.h>

#include "internal.h"

extern const uint64_t __fentry_sites_start[], __fentry_sites_end[];
void fgraph_trampoline(void);
void ttrace_stack_trampoline(void);
void fgraph_entry(uintptr_t *parent, uintptr_t func);
void fgraph_exit(uint64_t rv, uintptr_t *real);

static char filter[TTRACE_CTL_MAX_LEN + 1] = "*";	/* ctl mutex */
static uint8_t *selected;	/* bit per site; NULL: all (filter "*") */
static uint64_t filter_gen;	/* ctl mutex: bumped by each filter */
uint64_t fgraph_overflows;	/* calls too deep for the shadow stack */
uint64_t fgraph_recursions;	/* hooks refused inside a hook (internal.h) */
bool fgraph_shared;		/* the graph or the stack tracer is on
				 * (done.on || done.stack) */
static struct {
	bool on;
	bool stack;
	uint64_t gen;
	uint32_t hot;		/* fprobe_hot() */
} done;				/* ctl mutex: what the sites are now */

/* The graph narrowed beyond the site filter (ftrace's max_graph_depth,
 * set_graph_notrace, set_ftrace_pid): set under the ctl mutex; hook()
 * looks at them only while `narrowed` says one is set. */
static uint32_t max_depth;	/* calls recorded to this depth; 0: all */
static struct fgraph_globs {
	uint32_t n;
	char glob[FGRAPH_GLOBS][FGRAPH_GLOB_MAX + 1];
	uint8_t *sites;		/* bit per site matching one; allocated once */
} excluded[FGRAPH_EXCLUDES];	/* set_ftrace_notrace, set_graph_notrace */
static bool narrowed;

/* What hook() does with a graph call while the graph is narrowed. */
enum narrow { GRAPH_RECORD, GRAPH_SKIP, GRAPH_FENCE };

/* set_graph_notrace's functions (their sites' addresses), sorted for
 * a binary search: the site table is not in address order. */
#define FENCE_FUNCS	512
static uintptr_t *fence_funcs;	/* FENCE_FUNCS; allocated once */
static uint32_t nfence;

/* Whether func (a site's address) is one of set_graph_notrace's. Any
 * context. */
static bool is_fence(uintptr_t func)
{
	uint32_t n = READ_ONCE(nfence), lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (fence_funcs[mid] < func)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && fence_funcs[lo] == func;
}

/* Whether the graph records the call of func at depth d by thread kt:
 * not inside a set_graph_notrace function's call (its fence), nor deeper
 * than max_graph_depth, nor in a thread set_ftrace_pid does not list; a
 * set_graph_notrace function itself is a fence: no record, a frame whose
 * return ends it. Any context; reads what the ctl mutex's holder sets. */
static enum narrow narrow(struct kthread *kt, uintptr_t func, uint32_t d)
{
	uint32_t max = READ_ONCE(max_depth);

	if (READ_ONCE(kt->fgraph.fence) || (max && d >= max) ||
	    ((READ_ONCE(ttrace_pid_lists) & TTRACE_PIDS_FTRACE) &&
	     !ttrace_pids_listed(kt, TTRACE_PIDS_FTRACE)))
		return GRAPH_SKIP;
	if (READ_ONCE(nfence) && is_fence(func))
		return GRAPH_FENCE;
	return GRAPH_RECORD;
}

/* Hooks the call for kind (FGRAPH_HOOK_*, internal.h): records func_entry
 * for the graph, and pushes a shadow frame when its return must be seen;
 * a probe's frame keeps rmask, its return probes (fgraph_frame_word()). */
static __always_inline void hook(uintptr_t *parent, uintptr_t func,
				 unsigned kind, uint32_t rmask)
{
	struct kthread *kt = fgraph_thread();
	uintptr_t tag = kind & FGRAPH_HOOK_FPROBE ? FGRAPH_TAG_FPROBE : 0;
	enum narrow n = GRAPH_RECORD;
	uint64_t flags;
	uint32_t d;

	if (unlikely(READ_ONCE(ttrace_stack_tracer_on)))
		ttrace_stack_check(parent);
	if (!kt)		/* a CPU before its scheduler is up */
		return;
	d = kt->fgraph.depth;
	if (d >= FGRAPH_DEPTH) {
		fgraph_overflow();
		return;
	}
	if ((kind & FGRAPH_HOOK_GRAPH) && unlikely(READ_ONCE(narrowed)) &&
	    (n = narrow(kt, func, d)) != GRAPH_RECORD)
		kind &= ~FGRAPH_HOOK_GRAPH;
	if (!(kind & FGRAPH_HOOK_GRAPH)) {	/* a probe's frame: no record */
		if (n == GRAPH_FENCE)	/* its return ends the fence */
			WRITE_ONCE(kt->fgraph.fence, (uint8_t)(d + 1));
		if (tag || n == GRAPH_FENCE)	/* carries its depth */
			fgraph_push(&kt->fgraph, d, parent, tag ?
				    fgraph_frame_word(func, rmask) : func,
				    tag | FGRAPH_TAG_NOGRAPH);
		return;
	}
	/* The func_entry record and the frame at once for an interrupt, whose
	 * calls nest on this shadow stack: between the two its records would
	 * show the depth of the call just recorded as entered. */
	flags = arch_irq_save_raw();
	ttrace_func_entry(func, d);
	if (!READ_ONCE(ttrace_armed[TTRACE_EV_FUNC_EXIT])) {
		if (!tag)
			goto out;
		tag |= FGRAPH_TAG_NOGRAPH;
	}
	fgraph_push(&kt->fgraph, d, parent,
		    tag ? fgraph_frame_word(func, rmask) : func, tag);
out:
	arch_irq_restore_raw(flags);
}

/* Called by a live function site (through the trampoline) with the
 * address of the function's return address slot; nothing inside another
 * hook (ttrace_hook_enter()). Any context, on the function's own stack. */
notrace void fgraph_entry(uintptr_t *parent, uintptr_t func)
{
	if (!ttrace_hook_enter())
		return;
	hook(parent, func, FGRAPH_HOOK_GRAPH, 0);
	ttrace_hook_exit();
}

/* See internal.h (fprobe_entry()'s way to the shadow stack, inside its
 * recursion guard). */
notrace void fgraph_hook(uintptr_t *parent, uintptr_t func, unsigned kind,
			 uint32_t rmask)
{
	hook(parent, func, kind, rmask);
}

/* fgraph_exit() of a frame with a func_exit record: releases frame d of
 * sh and records the exit at once for an interrupt (as hook() does the
 * entry), and fprobe_return() if the frame is also a probe's. */
static __attribute__((noinline)) void graph_exit(struct fgraph_shadow *sh,
						 uint32_t d, uintptr_t func,
						 uintptr_t slot, uint64_t rv)
{
	uint64_t flags = arch_irq_save_raw();

	WRITE_ONCE(sh->depth, d);
	if (unlikely(slot & FGRAPH_TAG_MASK))	/* fprobe_entry()'s frame */
		fprobe_return(func, d, slot, rv);
	else
		ttrace_func_exit(func, d, (int64_t)rv);
	arch_irq_restore_raw(flags);
}

/* Where a hooked function returns (through the return trampoline), with
 * its return value rv: puts the real return address in *real, the
 * trampoline's frame's return address word, before anything else (so a
 * walk from a return probe's stacktrace finds it there). The frame is
 * released in any case; its records are made inside the recursion guard
 * (a hook never pushes a frame inside another, so it is free here unless
 * something is badly wrong: then nothing is recorded, and it counts). */
notrace void fgraph_exit(uint64_t rv, uintptr_t *real)
{
	struct kthread *kt = fgraph_thread();
	struct fgraph_shadow *sh = &kt->fgraph;
	uint32_t d = sh->depth - 1;
	uintptr_t func = sh->frames[d].func;
	uintptr_t slot = (uintptr_t)sh->frames[d].slot;

	*real = sh->frames[d].ret;
	cmb();			/* read the frame before releasing it */
	if (unlikely(sh->fence > d))	/* a set_graph_notrace fence's */
		WRITE_ONCE(sh->fence, 0);
	if (unlikely(!ttrace_hook_enter())) {
		WRITE_ONCE(sh->depth, d);
		return;
	}
	if (!(slot & FGRAPH_TAG_NOGRAPH)) {
		graph_exit(sh, d, func, slot, rv);
	} else {
		WRITE_ONCE(sh->depth, d);	/* a probe's frame: no func_exit */
		if (slot & FGRAPH_TAG_FPROBE)	/* not a fence's only */
			fprobe_return(func, d, slot, rv);
	}
	ttrace_hook_exit();
}

/* See fgraph.h. Any context; s is the walked thread's, which does not
 * run meanwhile (it is the caller, or sleeps). */
notrace uintptr_t fgraph_ret_addr(const struct fgraph_shadow *s,
				  const uintptr_t *slot)
{
	uintptr_t pc = *slot;
	uint32_t d = s ? MIN(READ_ONCE(s->depth), (uint32_t)FGRAPH_DEPTH) : 0;

	if (pc != (uintptr_t)fgraph_return_trampoline)
		return pc;
	/* a tail call's frame has the same slot and the trampoline for its
	 * return address (its caller's hooked one): the frame below it that
	 * has the slot keeps the real one, as Linux skips return_to_handler */
	while (d--)
		if (((uintptr_t)s->frames[d].slot & ~FGRAPH_TAG_MASK) ==
		    (uintptr_t)slot && s->frames[d].ret != pc)
			return s->frames[d].ret;
	return pc;
}

static size_t nsites(void)
{
	return (size_t)(__fentry_sites_end - __fentry_sites_start);
}

static bool in_globs(const struct fgraph_globs *g, size_t i)
{
	return i < nsites() && g->n && (g->sites[i / 8] >> (i % 8) & 1);
}

/* Selected by the filter, and not excluded by set_ftrace_notrace. */
static bool site_selected(size_t i)
{
	return (!selected || (selected[i / 8] >> (i % 8) & 1)) &&
	       !in_globs(&excluded[FGRAPH_FTRACE_NOTRACE], i);
}

/* The name of the function whose site is i (NULL if the symbol table does
 * not know it). */
static const char *site_name(size_t i)
{
	uintptr_t off;

	return ksym_lookup(__fentry_sites_start[i], &off);
}

/* Whether the func events want the function sites live. */
static bool wanted(void)
{
	return ttrace_armed[TTRACE_EV_FUNC_ENTRY] ||
	       ttrace_armed[TTRACE_EV_FUNC_EXIT];
}

/* Names every selected function in aux, before any record names it. */
static void name_selected(void)
{
	for (size_t i = 0; i < nsites(); i++) {
		const char *name = site_name(i);

		if (site_selected(i) && name)
			ttrace_aux_string(TTRACE_AUX_FUNC_NAME,
					  __fentry_sites_start[i], name);
	}
}

/* What function site i must call (0: nothing, the NOP): fprobe's
 * trampoline while a probe of hot is on its function, which does the
 * graph's work too; else the graph's, while the graph selects it; else
 * the stack tracer's while it is on (stack.c). */
static uintptr_t site_target(size_t i, bool on, uint32_t hot, bool stack)
{
	if (hot && fprobe_site_hot(__fentry_sites_start[i], hot))
		return (uintptr_t)fprobe_trampoline;
	if (on && site_selected(i))
		return (uintptr_t)fgraph_trampoline;
	return stack ? (uintptr_t)ttrace_stack_trampoline : 0;
}

/* Whether the site at a holds a call to target, or the NOP for 0. */
static bool site_holds(uintptr_t a, uintptr_t target)
{
	struct text_patch want;

	text_patch_encode(&want, a, target ? TEXT_OP_CALL : 0, target);
	return !memcmp((const void *)a, want.insn, TEXT_PATCH_LEN);
}

/* See internal.h. */
bool fgraph_graphs(size_t i)
{
	return wanted() && site_selected(i);
}

/* Makes the function sites what the armed bytes, the filter, the
 * function probes and the stack tracer say: walks them only when one of
 * them changed since the last time. The probes' hit path sees the union
 * of the old and new probes while the sites change. Same context as
 * ttrace_patch_sync(). */
void fgraph_sync(enum text_patch_mode mode)
{
	bool on = wanted(), stack = READ_ONCE(ttrace_stack_tracer_on);
	uint32_t hot = fprobe_hot();

	if (on == done.on && stack == done.stack &&
	    (!on || done.gen == filter_gen) && hot == done.hot)
		return;
	if (on)
		name_selected();
	fprobe_set_hot(hot | done.hot);
	for (size_t i = 0; i < nsites(); i++) {
		uintptr_t a = __fentry_sites_start[i];
		uintptr_t target = site_target(i, on, hot, stack);

		if (!site_holds(a, target))
			ttrace_patch_want(a, target ? TEXT_OP_CALL : 0, target,
					  mode);
	}
	ttrace_patch_flush(mode);
	fprobe_set_hot(hot);
	done.on = on;
	WRITE_ONCE(fgraph_shared, on || stack);
	done.stack = stack;
	done.gen = filter_gen;
	done.hot = hot;
}

/* Whether every function site calls what it must. */
bool fgraph_consistent(void)
{
	bool on = wanted(), stack = READ_ONCE(ttrace_stack_tracer_on);
	uint32_t hot = fprobe_hot();

	for (size_t i = 0; i < nsites(); i++)
		if (!site_holds(__fentry_sites_start[i],
				site_target(i, on, hot, stack)))
			return false;
	return true;
}

/* Marks the sites whose function matches glob in sel too; returns how
 * many. */
static size_t mark_sites(uint8_t *sel, const char *glob)
{
	size_t n = 0;

	for (size_t i = 0; i < nsites(); i++) {
		const char *name = site_name(i);

		if (name && ttrace_glob_match(glob, name)) {
			sel[i / 8] |= (uint8_t)(1u << (i % 8));
			n++;
		}
	}
	return n;
}

/* Marks the sites whose function matches glob in sel (cleared first);
 * returns how many. */
static size_t select_sites(uint8_t *sel, const char *glob)
{
	memset(sel, 0, nsites() / 8 + 1);
	return mark_sites(sel, glob);
}

/*
 * Sets the filter to glob (len bytes, a trailing newline ignored); the
 * sites follow at the next fgraph_sync(). Returns NULL, or why nothing
 * changed: no function matches, or only functions that cannot be traced.
 * ctl mutex held, process context.
 */
const char *fgraph_set_filter(const char *glob, size_t len)
{
	static char why[TTRACE_CTL_MAX_LEN + 96], g[TTRACE_CTL_MAX_LEN + 1];
	const char *untraceable;
	struct seqbuf s;

	while (len && (glob[len - 1] == '\n' || glob[len - 1] == ' '))
		len--;
	if (!len || len > TTRACE_CTL_MAX_LEN)
		return "funcs: give one glob of 1 to 256 characters";
	memcpy(g, glob, len);
	g[len] = 0;
	if (!selected && !(selected = kzmalloc(nsites() / 8 + 1)))
		return "funcs: out of memory";
	if (!select_sites(selected, g)) {
		untraceable = ksym_find(ttrace_glob_match, g);
		seqbuf_init(&s, why, sizeof(why));
		seqbuf_printf(&s, untraceable ?
			      "funcs: %s is not traceable (the tracer, the text "
			      "patcher or the trap path uses it)" :
			      "funcs: '%s' matches no function", untraceable ?
			      untraceable : g);
		seqbuf_mark_cut(&s);
		select_sites(selected, filter);		/* as it was */
		return why;
	}
	strlcpy(filter, g, sizeof(filter));
	filter_gen++;
	return NULL;
}

/* The number of function sites, and of them live (a call) now. */
void fgraph_counts(uint64_t *sites, uint64_t *live)
{
	*sites = nsites();
	*live = 0;
	for (size_t i = 0; i < nsites(); i++)
		*live += !text_patch_is_nop(__fentry_sites_start[i]);
}

/* The filter and the site counts as text. ctl mutex held. */
/* Every function with a site, one name a line (available_filter_
 * functions): what a filter glob can select. */
void fgraph_sites_text(struct seqbuf *s)
{
	for (size_t i = 0; i < nsites() && !seqbuf_overflowed(s); i++) {
		const char *name = site_name(i);

		if (name)
			seqbuf_printf(s, "%s\n", name);
	}
}

const char *fgraph_filter(void)
{
	return filter;
}

void fgraph_state_text(struct seqbuf *s)
{
	uint64_t sel = 0, sites, live;

	for (size_t i = 0; i < nsites(); i++)
		sel += site_selected(i);
	fgraph_counts(&sites, &live);
	seqbuf_printf(s, "filter %s\nfunctions %lu\nselected %lu\nlive %lu\n"
		      "overflows %lu\nrecursions %lu\n", filter, sites, sel,
		      live, __atomic_load_n(&fgraph_overflows, __ATOMIC_RELAXED),
		      __atomic_load_n(&fgraph_recursions, __ATOMIC_RELAXED));
}

/* Whether the graph is narrowed now (see narrow()). ctl mutex held. */
void fgraph_narrow_update(void)
{
	WRITE_ONCE(narrowed, max_depth ||
		   excluded[FGRAPH_GRAPH_NOTRACE].n ||
		   (READ_ONCE(ttrace_pid_lists) & TTRACE_PIDS_FTRACE));
}

/* Rebuilds fence_funcs from set_graph_notrace's sites (insertion
 * sorted); false if they are more than FENCE_FUNCS (then none). */
static bool fence_build(void)
{
	const struct fgraph_globs *g = &excluded[FGRAPH_GRAPH_NOTRACE];
	uint32_t n = 0;

	WRITE_ONCE(nfence, 0);	/* hook() sees none while it changes */
	for (size_t i = 0; i < nsites(); i++) {
		uintptr_t a = __fentry_sites_start[i];
		uint32_t k = n;

		if (!in_globs(g, i))
			continue;
		if (n == FENCE_FUNCS)
			return false;
		for (; k && fence_funcs[k - 1] > a; k--)
			fence_funcs[k] = fence_funcs[k - 1];
		fence_funcs[k] = a;
		n++;
	}
	WRITE_ONCE(nfence, n);
	return true;
}

/* A change of exclude list which: the sites follow at the next
 * fgraph_sync() (set_ftrace_notrace), hook() at once. False if
 * set_graph_notrace now names too many functions. */
static bool excluded_changed(enum fgraph_exclude which)
{
	bool fits = which == FGRAPH_FTRACE_NOTRACE || fence_build();

	if (which == FGRAPH_FTRACE_NOTRACE)
		filter_gen++;
	fgraph_narrow_update();
	return fits;
}

/*
 * Adds glob to exclude list which (set_ftrace_notrace: functions not
 * traced; set_graph_notrace: functions whose calls are not graphed,
 * with everything they call). Returns NULL, or why nothing changed: too
 * long, the list full, no function with a site matches, or (graph_notrace)
 * more than 512 would. ctl mutex
 * held, process context.
 */
const char *fgraph_exclude_add(enum fgraph_exclude which, const char *glob)
{
	static char why[FGRAPH_GLOB_MAX + 64];
	struct fgraph_globs *g = &excluded[which];
	size_t len = strlen(glob);

	if (!len || len > FGRAPH_GLOB_MAX)
		return "give a glob of 1 to 64 characters";
	if (g->n == FGRAPH_GLOBS)
		return "at most 8 globs ('>' empties the list)";
	if ((!g->sites && !(g->sites = kzmalloc(nsites() / 8 + 1))) ||
	    (which == FGRAPH_GRAPH_NOTRACE && !fence_funcs &&
	     !(fence_funcs = kmalloc(FENCE_FUNCS * sizeof(*fence_funcs)))))
		return "out of memory";
	if (!mark_sites(g->sites, glob)) {	/* marked nothing */
		fmt_snprintf(why, sizeof(why), "'%s' matches no function with "
			     "a site (available_filter_functions)", glob);
		return why;
	}
	memcpy(g->glob[g->n], glob, len + 1);
	WRITE_ONCE(g->n, g->n + 1);	/* after its sites' bits */
	if (!excluded_changed(which)) {
		fgraph_exclude_drop_last(which);
		return "set_graph_notrace: more than 512 functions";
	}
	return NULL;
}

/* Empties exclude list which. ctl mutex held. */
void fgraph_exclude_clear(enum fgraph_exclude which)
{
	struct fgraph_globs *g = &excluded[which];

	WRITE_ONCE(g->n, 0);	/* before the bits: hook() reads n first */
	if (g->sites)
		memset(g->sites, 0, nsites() / 8 + 1);
	excluded_changed(which);
}

/* Drops the glob exclude list which got last (a write's that another
 * glob of made fail). ctl mutex held. */
void fgraph_exclude_drop_last(enum fgraph_exclude which)
{
	struct fgraph_globs *g = &excluded[which];
	uint32_t n = g->n - 1;

	WRITE_ONCE(g->n, 0);
	memset(g->sites, 0, nsites() / 8 + 1);
	for (uint32_t i = 0; i < n; i++)
		mark_sites(g->sites, g->glob[i]);
	WRITE_ONCE(g->n, n);
	excluded_changed(which);
}

/* The functions exclude list which names, one a line, as ftrace lists
 * them. ctl mutex held. */
void fgraph_exclude_text(enum fgraph_exclude which, struct seqbuf *s)
{
	for (size_t i = 0; i < nsites() && !seqbuf_overflowed(s); i++)
		if (in_globs(&excluded[which], i) && site_name(i))
			seqbuf_printf(s, "%s\n", site_name(i));
}

/* max_graph_depth: calls are recorded to depth max (1: the outermost
 * only), 0 for no limit. ctl mutex held. */
void fgraph_set_max_depth(uint32_t max)
{
	WRITE_ONCE(max_depth, max);
	fgraph_narrow_update();
}

uint32_t fgraph_max_depth(void)
{
	return max_depth;
}
