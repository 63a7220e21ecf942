/*
 * The profiler's record walks (kern/trace/stack.c, profile records;
 * docs/profiling.md), each record into a private ring:
 *
 *	profile_walk_user	the user chain of a ustack record, read through
 *				page tables made for the test: a good chain is
 *				recorded pc for pc (16 at most, one frame's
 *				return address on the next page too), and a
 *				hostile one ends the walk without a fault at
 *				the last good frame: an odd frame pointer, a
 *				kernel address, a frame that loops, an
 *				unmapped page, a kernel return address (never
 *				copied), a return address of 0; a pc that is
 *				no user address writes no record
 *	profile_walk_kernel	a profile record's kernel chain: its header,
 *				the pc, then the walk from a chain built on
 *				this stack (16 at most; a loop ends it), the
 *				words past it 0
 */
#include <ktest.h>
#include "../internal.h"
#include <ttrace.h>
#include <trace_ring.h>
#include <vm.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#define UVA	0x7f0000000000ull	/* the test's user stack: 2 pages */
#define UPC	0x401000ull		/* a user pc */
#define NPCS	TTRACE_STACK_DEPTH

static struct ttrace_entry ring_mem[8] __aligned(64);
static struct trace_ring ring;

/* The pc words of the record at index idx of the ring: a ustack's
 * (stack layout: data[1..4], then the continuations') or a profile
 * record's (the continuations'). */
static void record_pcs(uint64_t idx, bool profile, uint64_t pcs[NPCS + 2])
{
	const struct ttrace_entry *e = &ring_mem[idx & ring.mask];

	for (uint32_t i = 0; i < NPCS + 2; i++) {
		uint32_t w = profile ? TTRACE_ENTRY_ARGS + i : 1 + i;

		pcs[i] = w < TTRACE_ENTRY_ARGS ? e->data[w] :
			 ring_mem[(idx + 1 + (w - TTRACE_ENTRY_ARGS) /
				   TTRACE_CONT_ARGS) & ring.mask]
				 .cont[(w - TTRACE_ENTRY_ARGS) % TTRACE_CONT_ARGS];
	}
}

/* The ustack record of pc0 and frame fp through pml4 has want pcs: pc0,
 * then UPC + 1, UPC + 2, ...; the rest 0. */
static bool check_user(const char *what, const uint64_t *pml4, uint64_t pc0,
		       uint64_t fp, uint32_t want)
{
	uint64_t idx = ring.head, pcs[NPCS + 2], flags = arch_irq_save();
	const struct ttrace_entry *e = &ring_mem[idx & ring.mask];

	ttrace_profile_ustack(&ring, pml4, pc0, fp);
	arch_irq_restore(flags);
	KT_ASSERT(ring.head == idx + 3 &&
		  TTRACE_TYPE_ID(e->type) == TTRACE_EV_USTACK &&
		  TTRACE_TYPE_NCONT(e->type) == 2, "%s: no ustack record", what);
	record_pcs(idx, false, pcs);
	KT_ASSERT(e->data[0] == want, "%s: %lu frames, want %u", what,
		  e->data[0], want);
	for (uint32_t i = 0; i < NPCS + 2; i++)
		KT_ASSERT(pcs[i] == (i == 0 ? pc0 : i < want ? UPC + i : 0),
			  "%s: pc %u is %lx", what, i, pcs[i]);
	return true;
}

/* Frame k of a chain at UVA + off (kva: its page's kernel address): links
 * to next, returns to UPC + k + 1. */
static void uframe(uint64_t *kva, uint64_t off, uint32_t k, uint64_t next)
{
	kva[off / 8 + 2 * k] = next;
	kva[off / 8 + 2 * k + 1] = UPC + k + 1;
}

static bool test_profile_walk_user(void)
{
	uint64_t *pml4 = vm_create(), *p0, *p1;
	uint64_t idx;
	bool ok;

	KT_ASSERT(trace_ring_init(&ring, ring_mem, sizeof(ring_mem),
				  TRACE_RING_OVERWRITE) == 0, "ring init");
	KT_ASSERT(pml4 && !vm_map_zero(pml4, UVA, VM_WRITE, (void **)&p0) &&
		  !vm_map_zero(pml4, UVA + PGSIZE, VM_WRITE, (void **)&p1),
		  "no memory for the user stack");
	/* a long chain on page 0: 15 frames after the pc */
	for (uint32_t k = 0; k < NPCS + 2; k++)
		uframe(p0, 0, k, UVA + 16 * (k + 1));
	ok = check_user("a long chain", pml4, UPC, UVA, NPCS);
	/* a frame at the last word of page 0 (its return address the first
	 * of page 1) linking to one on page 1, which links to an odd
	 * address */
	p0[PGSIZE / 8 - 1] = UVA + PGSIZE + 8;
	p1[0] = UPC + 1;
	p1[1] = 0x123457;
	p1[2] = UPC + 2;
	ok = ok && check_user("across the page", pml4, UPC,
			      UVA + PGSIZE - 8, 3);
	uframe(p0, 0, 0, 0x123457);		/* odd */
	ok = ok && check_user("an odd frame pointer", pml4, UPC, UVA, 2);
	uframe(p0, 0, 0, KERNBASE + 0x100000);	/* a kernel address */
	ok = ok && check_user("a kernel frame pointer", pml4, UPC, UVA, 2);
	uframe(p0, 0, 0, UVA);			/* back to itself */
	ok = ok && check_user("a loop", pml4, UPC, UVA, 2);
	uframe(p0, 0, 0, UVA + 4 * PGSIZE);	/* nothing maps it */
	ok = ok && check_user("an unmapped page", pml4, UPC, UVA, 2);
	uframe(p0, 0, 0, UVA + 16);
	p0[3] = 0xffffffff80100000ull;		/* frame 1 returns there */
	ok = ok && check_user("a kernel return address", pml4, UPC, UVA, 2);
	p0[3] = 0;
	ok = ok && check_user("a return address of 0", pml4, UPC, UVA, 2);
	ok = ok && check_user("a kernel rbp at once", pml4, UPC,
			      KERNBASE + 0x100000, 1);
	idx = ring.head;
	ttrace_profile_ustack(&ring, pml4, KERNBASE + 0x100000, UVA);
	KT_ASSERT(ring.head == idx, "a ustack of a kernel pc");
	vm_free(pml4);
	return ok;
}
KTEST_REG(profile_walk_user, test_profile_walk_user);

/* A chain of kernel frames on this stack: frame k links to k + 1 and
 * returns to a kernel text address. */
static uintptr_t kpc(uint32_t k)
{
	return (uintptr_t)ttrace_profile_record + 16 + k;
}

static bool check_kernel(const char *what, uintptr_t fp, uint32_t want)
{
	static const uint64_t h[3] = { 7, 0, 997 };	/* pid, mode, word */
	uint64_t idx = ring.head, pcs[NPCS + 2], flags = arch_irq_save();
	const struct ttrace_entry *e = &ring_mem[idx & ring.mask];

	KT_ASSERT(ttrace_profile_record(&ring, TTRACE_EV_PROFILE_SAMPLE, h,
					current_kthread(), kpc(100), fp),
		  "%s: not written", what);
	arch_irq_restore(flags);
	KT_ASSERT(ring.head == idx + 4 && TTRACE_TYPE_NCONT(e->type) == 3 &&
		  TTRACE_TYPE_ID(e->type) == TTRACE_EV_PROFILE_SAMPLE &&
		  e->data[0] == 7 && e->data[1] == current_kthread()->id &&
		  e->data[3] == 997 &&
		  e->data[4] == want, "%s: header %lu %lu %lu %lu, frames %lu, "
		  "want %u", what, e->data[0], e->data[1], e->data[2],
		  e->data[3], e->data[4], want);
	record_pcs(idx, true, pcs);
	for (uint32_t i = 0; i < NPCS + 2; i++)
		KT_ASSERT(pcs[i] == (i == 0 ? kpc(100) : i < want ? kpc(i) : 0),
			  "%s: pc %u is %lx", what, i, pcs[i]);
	for (uint32_t i = NPCS + 2; i < 3 * TTRACE_CONT_ARGS; i++)
		KT_ASSERT(!ring_mem[(idx + 1 + i / TTRACE_CONT_ARGS) &
				    ring.mask].cont[i % TTRACE_CONT_ARGS],
			  "%s: word %u past the pcs is not 0", what, i);
	return true;
}

static bool test_profile_walk_kernel(void)
{
	uintptr_t st[2 * (NPCS + 2)] __aligned(16);
	bool ok;

	KT_ASSERT(trace_ring_init(&ring, ring_mem, sizeof(ring_mem),
				  TRACE_RING_OVERWRITE) == 0, "ring init");
	for (uint32_t k = 0; k < NPCS + 2; k++) {
		st[2 * k] = (uintptr_t)&st[2 * k + 2];
		st[2 * k + 1] = kpc(k + 1);
	}
	ok = check_kernel("a long chain", (uintptr_t)st, NPCS);
	st[2 * 2] = (uintptr_t)st;		/* frame 2 back to 0 */
	ok = ok && check_kernel("a loop", (uintptr_t)st, 4);
	return ok;
}
KTEST_REG(profile_walk_kernel, test_profile_walk_kernel);
