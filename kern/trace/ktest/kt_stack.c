/*
 * The stack record's walk on chains built by hand (kern/trace/stack.c): a
 * good chain is recorded word for word, and a corrupt one (a loop, a
 * frame pointer off the stack, a misaligned one) ends the walk, without a
 * fault, at the last good frame. Each chain is walked at the full depth
 * (the unrolled walk) and one frame less (the general one). The frames
 * are on this thread's kernel stack; the record goes to a private ring.
 */
#include <ktest.h>
#include "../internal.h"
#include <ttrace.h>
#include <trace_ring.h>
#include <ttrace_probe_spec.h>
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
