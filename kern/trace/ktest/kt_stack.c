/*
 * Stack chains and the stack tracer (kern/trace/stack.c).
 *
 *	stack_walk_corrupt	the stack record's walk on chains built by
 *				hand: a good chain is recorded word for
 *				word, and a corrupt one (a loop, a frame
 *				pointer off the stack, a misaligned one)
 *				ends the walk, without a fault, at the last
 *				good frame. Each chain is walked at the full
 *				depth (the unrolled walk) and one frame less
 *				(the general one). The frames are on this
 *				thread's kernel stack; the record goes to a
 *				private ring.
 *	stack_walk_trampolines	chains through the graph tracer's
 *				trampolines, built by hand: a tail call's
 *				hooked return (two shadow frames on one slot)
 *				shows the real return address; a return
 *				probe's (fgraph_exit() called by the return
 *				trampoline) goes on through the trampoline's
 *				frame to the caller; an interrupt's pc inside
 *				a trampoline ends the chain
 *	stack_max_reset_race	`stacktracer reset` again and again while a
 *				thread on every other CPU sets that CPU's deepest
 *				stack: no copy a reader takes is torn, and
 *				afterwards no CPU's is busy for good; a
 *				reset then forgets every CPU's.
 */
#include <ktest.h>
#include "../internal.h"
#include "kt.h"
#include <ttrace.h>
#include <fgraph.h>
#include <trace_ring.h>
#include <ttrace_probe_spec.h>
#include <kmsg.h>
#include <proc.h>
#include <sched.h>
#include <smp.h>
#include <arch/arch.h>

#define NWORDS	(TTRACE_STACK_DEPTH + 2)	/* a record's pc words */
#define USER_PC	0x401000UL			/* a trap frame's */

static struct ttrace_entry ring_mem[8] __aligned(64);
static struct trace_ring ring;
/* off the stack: a frame there must end the walk (it links upwards to
 * a frame that loops, so a walk that took it would record 2 more) */
static uintptr_t outside[4];

/* Pc k of a chain: a kernel text address (above the trampolines). */
static uintptr_t pc_of(uint32_t k)
{
	return (uintptr_t)ttrace_stack_record + 16 + k;
}

/* Frame k of st (2 words each): links to next, returns to pc_of(k). */
static void frame(uintptr_t *st, uint32_t k, uintptr_t next)
{
	st[2 * k] = next;
	st[2 * k + 1] = pc_of(k);
}

/* Records the chain from fp at depth into ring; its count, its words
 * into pcs. False when the record is not a stack record. */
static bool record(uintptr_t fp, uint32_t depth, uint32_t *n,
		   uint64_t pcs[NWORDS])
{
	uint64_t idx = ring.head, flags = arch_irq_save();
	const struct ttrace_entry *e = &ring_mem[idx & ring.mask];
	const struct ttrace_entry *c1 = &ring_mem[(idx + 1) & ring.mask];
	const struct ttrace_entry *c2 = &ring_mem[(idx + 2) & ring.mask];

	ttrace_stack_record(&ring, 0, 0, fp, depth);
	arch_irq_restore(flags);
	for (uint32_t i = 0; i < NWORDS; i++)
		pcs[i] = i < 4 ? e->data[1 + i] : i < 11 ? c1->cont[i - 4] :
			 c2->cont[i - 11];
	*n = (uint32_t)e->data[0];
	return ring.head == idx + 3 &&
	       TTRACE_TYPE_ID(e->type) == TTRACE_EV_STACK &&
	       TTRACE_TYPE_NCONT(e->type) == 2;
}

/* The chain from fp at depth is the first want frames of st's, then
 * zeros. */
static bool check(const char *what, uintptr_t fp, uint32_t depth,
		  uint32_t want)
{
	uint64_t pcs[NWORDS];
	uint32_t n;

	KT_ASSERT(record(fp, depth, &n, pcs), "%s: no stack record", what);
	KT_ASSERT(n == want, "%s, depth %u: %u frames, want %u", what, depth,
		  n, want);
	for (uint32_t i = 0; i < NWORDS; i++)
		KT_ASSERT(pcs[i] == (i < want ? pc_of(i) : 0),
			  "%s, depth %u: word %u is %lx", what, depth, i,
			  pcs[i]);
	return true;
}

/* Each chain at the full depth and one less. */
static bool check_both(const char *what, uintptr_t fp, uint32_t want)
{
	return check(what, fp, TTRACE_STACK_DEPTH, want) &&
	       check(what, fp, TTRACE_STACK_DEPTH - 1,
		     MIN(want, TTRACE_STACK_DEPTH - 1));
}

static bool test_stack_walk_corrupt(void)
{
	uintptr_t st[2 * (TTRACE_STACK_DEPTH + 2)] __aligned(16);
	uintptr_t fp = (uintptr_t)st;

	KT_ASSERT(trace_ring_init(&ring, ring_mem, sizeof(ring_mem),
				  TRACE_RING_OVERWRITE) == 0, "ring init");
	for (uint32_t k = 0; k < TTRACE_STACK_DEPTH + 2; k++)
		frame(st, k, (uintptr_t)&st[2 * k + 2]);
	if (!check_both("a long chain", fp, TTRACE_STACK_DEPTH))
		return false;
	st[2 * 3 + 1] = USER_PC;
	if (!check_both("a chain to a trap frame", fp, 3))
		return false;
	frame(st, 0, fp);
	if (!check_both("a frame linked to itself", fp, 1))
		return false;
	frame(st, 0, (uintptr_t)&st[2]);
	frame(st, 1, fp);
	if (!check_both("two frames in a loop", fp, 2))
		return false;
	frame(st, 1, (uintptr_t)&st[4] + 3);
	if (!check_both("a misaligned frame pointer", fp, 2))
		return false;
	outside[0] = outside[2] = (uintptr_t)&outside[2];
	outside[1] = outside[3] = pc_of(2);
	frame(st, 1, (uintptr_t)outside);
	if (!check_both("a frame off the stack", fp, 2))
		return false;
	return check_both("a chain that starts off the stack",
			  (uintptr_t)outside, 0);
}
KTEST_REG(stack_walk_corrupt, test_stack_walk_corrupt);

/* ---- chains through the trampolines -------------------------------------- */

extern const char fgraph_trampoline[];
extern const uintptr_t fgraph_trampoline_calls[4];

/* The chain from fp is want[0..n - 1], then zeros, at both walks. */
static bool check_pcs(const char *what, uintptr_t fp, const uint64_t *want,
		      uint32_t n)
{
	for (uint32_t depth = TTRACE_STACK_DEPTH - 1;
	     depth <= TTRACE_STACK_DEPTH; depth++) {
		uint64_t pcs[NWORDS];
		uint32_t got;

		KT_ASSERT(record(fp, depth, &got, pcs), "%s: no stack record",
			  what);
		KT_ASSERT(got == n, "%s, depth %u: %u frames, want %u", what,
			  depth, got, n);
		for (uint32_t i = 0; i < NWORDS; i++)
			KT_ASSERT(pcs[i] == (i < n ? want[i] : 0),
				  "%s, depth %u: word %u is %lx, want %lx",
				  what, depth, i, pcs[i], i < n ? want[i] : 0);
	}
	return true;
}

/* Frame 0 of st returns through the return trampoline after a tail
 * call: its hooked caller's frame (the real return address) and the
 * tail-called function's (the trampoline, as it found its slot) on this
 * thread's shadow stack, both for that slot. */
static bool tail_call_chain(uintptr_t *st)
{
	struct fgraph_shadow *sh = &fgraph_thread()->fgraph;
	uint64_t want[4] = { pc_of(0), pc_of(1), pc_of(2), pc_of(3) };
	uint32_t d = sh->depth;
	uint64_t flags;
	bool ok;

	KT_ASSERT(d + 2 <= FGRAPH_DEPTH, "shadow stack full");
	flags = arch_irq_save();	/* an interrupt's pushes stay above */
	fgraph_push(sh, d, &st[1], pc_of(8), 0);
	fgraph_push(sh, d + 1, &st[1], pc_of(9), 0);
	ok = check_pcs("a tail call's hooked return", (uintptr_t)st, want, 4);
	WRITE_ONCE(sh->depth, d);
	arch_irq_restore(flags);
	st[1] = pc_of(0);
	return ok;
}

static bool test_stack_walk_trampolines(void)
{
	uintptr_t st[2 * 5] __aligned(16);
	uint64_t want[4] = { pc_of(1), pc_of(2), pc_of(3), pc_of(4) };

	KT_ASSERT(trace_ring_init(&ring, ring_mem, sizeof(ring_mem),
				  TRACE_RING_OVERWRITE) == 0, "ring init");
	for (uint32_t k = 0; k < 5; k++)
		frame(st, k, (uintptr_t)&st[2 * k + 2]);
	st[2 * 4 + 1] = USER_PC;		/* the chain's end */
	if (!tail_call_chain(st))
		return false;
	/* a return probe's chain: fgraph_exit()'s frame returns into the
	 * return trampoline, whose frame (frame 1) holds the real return
	 * address; the trampoline is not shown */
	st[1] = fgraph_trampoline_calls[3];
	if (!check_pcs("a return probe's chain", (uintptr_t)st, want, 3))
		return false;
	/* an interrupt that came in inside a trampoline: its frames are
	 * not known, the chain ends there */
	st[1] = pc_of(0);
	st[2 * 2 + 1] = (uintptr_t)fgraph_trampoline + 1;
	want[0] = pc_of(0);
	want[1] = pc_of(1);
	return check_pcs("an interrupt inside a trampoline", (uintptr_t)st,
			 want, 2);
}
KTEST_REG(stack_walk_trampolines, test_stack_walk_trampolines);

/* ---- the stack tracer's reset against its CPUs --------------------------- */

#define RACE_RESETS	100000
#define RACE_DEPTHS	16		/* stacks an owner makes, deeper each */
#define RACE_MAGIC	0x5ac4000000000000ull	/* pc 0 ^ depth, in a record */

static uint32_t race_stop, race_running;

/* The depth of a function entered with its return address at slot, on
 * the running thread's stack (its kernel stack, or the CPU's own for an
 * idle thread, which runs the ktests): stack_max's bytes. */
static uint64_t race_bytes(const uintptr_t *slot)
{
	const struct kthread *kt = this_cpu()->cur_kthread;

	return (kt->kstack ? kt->kstack + KSTACK_SIZE : this_cpu()->stack_top) -
	       (uintptr_t)slot;
}

/* A function entry at slot parent of area, as a live site makes it, for
 * ttrace_stack_check(): the function entered (pc 0: RACE_MAGIC ^ the
 * depth, so a copy shows whether its words are one write's) and this
 * frame to walk from. */
static void race_entry(uintptr_t *parent)
{
	parent[-2] = (uintptr_t)__builtin_frame_address(0);
	parent[-1] = RACE_MAGIC ^ race_bytes(parent);
	parent[0] = pc_of(0);
	ttrace_stack_check(parent);
}

/* One CPU's owner: function entries ever deeper, again and again, so its
 * CPU writes its deepest stack after every reset, until race_stop; it
 * keeps its CPU (bound there, nothing else needs it) but for kernel
 * messages. */
static void race_owner(void *arg)
{
	uintptr_t area[RACE_DEPTHS + 2];

	(void)arg;
	__atomic_fetch_add(&race_running, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
		for (uint32_t i = RACE_DEPTHS + 1; i >= 2; i--)
			race_entry(&area[i]);
		if (kmsg_pending())
			process_routine_kmsgs();
	}
	__atomic_fetch_sub(&race_running, 1, __ATOMIC_RELEASE);
}

/* Every CPU's deepest stack that a copy gets whole is one write's (or
 * reset: 0); with all, no CPU's may be busy. */
static bool race_check(bool all)
{
	struct ttrace_stack_max m;

	for (uint32_t c = 0; c < num_cpus; c++) {
		if (!ttrace_stack_max_get(c, &m)) {
			KT_ASSERT(!all, "cpu%u's deepest stack is busy for good",
				  c);
			continue;
		}
		KT_ASSERT(m.bytes ? m.pcs[0] == (RACE_MAGIC ^ m.bytes) &&
				    m.nframes >= 2 : !m.nframes,
			  "cpu%u's deepest stack is torn: %lu bytes, %u frames, "
			  "pc0 %lx", c, m.bytes, m.nframes, m.pcs[0]);
	}
	return true;
}

static bool test_stack_max_reset_race(void)
{
	struct ttrace_stack_max m;
	uintptr_t area[4];
	uint64_t flags;
	bool ok = kt_ctl("stacktracer reset");

	race_stop = 0;
	/* not on CPU 0: the ktests run on its idle thread, which a thread
	 * that never sleeps would keep off it, and nothing there could race
	 * this thread's resets (a kernel thread is not preempted) */
	for (uint32_t c = 1; ok && c < num_cpus; c++) {
		struct kthread *kt = kthread_create("kt_stack_race",
						    race_owner, NULL);

		if (!(ok = kt != NULL)) {
			ktest_fail("kthread_create failed");
			break;
		}
		kthread_bind(kt, c);
		sched_make_runnable(kt);
	}
	while (ok && __atomic_load_n(&race_running, __ATOMIC_ACQUIRE) <
		     num_cpus - 1)
		yield();
	ttrace_ctl_mutex_enter(&ttrace_main);	/* ctl's resets, back to back */
	for (uint32_t i = 0; ok && i < RACE_RESETS; i++)
		ok = !ttrace_stack_tracer_control(&ttrace_main,
						  TTRACE_STACKTRACER_RESET) &&
		     (i % 16 || race_check(false));
	ttrace_ctl_mutex_exit(&ttrace_main);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&race_running, __ATOMIC_ACQUIRE))
		yield();
	if (!ok || !race_check(true) || !kt_ctl("stacktracer reset"))
		return false;
	for (uint32_t c = 0; c < num_cpus; c++)
		KT_ASSERT(ttrace_stack_max_get(c, &m) && !m.bytes &&
			  !m.nframes, "cpu%u: %lu bytes after a reset", c,
			  m.bytes);
	flags = arch_irq_save();	/* this CPU's, then read back */
	race_entry(&area[2]);
	ok = ttrace_stack_max_get(core_id(), &m);
	arch_irq_restore(flags);
	KT_ASSERT(ok && m.bytes == race_bytes(&area[2]) && m.nframes >= 2,
		  "a stack after the reset not kept: %lu bytes, want %lu",
		  m.bytes, race_bytes(&area[2]));
	return race_check(true);
}
KTEST_REG(stack_max_reset_race, test_stack_max_reset_race);
