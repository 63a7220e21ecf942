/*
 * fgraph.h: the function-graph tracer's per-thread shadow stack and its
 * interface to the tracer (kern/trace/fgraph.c; docs/function-graph.md).
 *
 * Every kernel function outside the tracer starts with a 5-byte NOP
 * (-fpatchable-function-entry=5 made one NOP by scripts/fentry_nops.py;
 * its address is in __patchable_function_entries). While the func
 * events are armed, the NOPs of the functions the filter selects are calls
 * to fgraph_trampoline, which records func_entry and swaps the caller's
 * return address for fgraph_return_trampoline, keeping the real one on the
 * thread's shadow stack below; the return lands there, records func_exit
 * and goes on to the real return address.
 */
#ifndef FGRAPH_H
#define FGRAPH_H

#include <compiler.h>

/* Calls deeper than this are not recorded (counted as overflows). With
 * three words a frame, 32 keep struct kthread in kmalloc's 1 KiB class:
 * at 48 it went to the 2 KiB class, and after a spawn bomb the pages
 * kmalloc keeps for it broke every free 4-page block, so no kernel stack
 * could be had with 480 MB free (CI: usertests "out of memory"). */
#define FGRAPH_DEPTH	32

struct fgraph_frame {
	uintptr_t ret;		/* the caller's real return address */
	uintptr_t func;		/* the function entered */
	const uintptr_t *slot;	/* where ret was: a backtrace matches it;
				 * its low 2 bits tag a function probe's
				 * frame (fgraph.c TAG_*) */
};

/* A thread's shadow stack (in struct kthread). Only its own thread, and
 * interrupts nesting on that thread's stack, push and pop it, last in
 * first out, so depth is reserved before a frame is written and released
 * after it is read, with no lock. */
struct fgraph_shadow {
	uint32_t depth;
	uint8_t fence;		/* set_graph_notrace: the depth + 1 of the
				 * frame whose calls are not graphed, 0:
				 * none (fgraph.c) */
	uint8_t pids;		/* set_event_pid / set_ftrace_pid list its
				 * process: TTRACE_PIDS_* (pids.c) */
	struct fgraph_frame frames[FGRAPH_DEPTH];
};

/* The return address a backtrace shows for the one read at slot (a stack
 * frame's return address word): what is there, unless it is the return
 * trampoline a hooked function returns through, whose real address the
 * shadow stack s keeps with its slot (as Linux's ftrace_graph_ret_addr),
 * in the newest frame of that slot whose address is not the trampoline
 * (a tail call's frame has it). s may be NULL (no thread). */
#ifdef CONFIG_TTRACE
uintptr_t fgraph_ret_addr(const struct fgraph_shadow *s,
			  const uintptr_t *slot);
#else
static inline uintptr_t fgraph_ret_addr(const struct fgraph_shadow *s,
					const uintptr_t *slot)
{
	(void)s;
	return *slot;
}
#endif

#endif /* FGRAPH_H */
