/*
 * Patching kernel text while every CPU runs it: Linux's int3 scheme
 * (arch/x86/kernel/alternative.c, text_poke_bp_batch), for 5-byte sites
 * whose two states include the 5-byte NOP (text_patch.h).
 *
 * A batch of sites goes through three passes, each followed by a sync (an
 * IPI that makes every other CPU execute a serialising instruction, CPUID,
 * and answer): (1) write int3 over each site's first byte; (2) write bytes
 * 1..4, which no CPU can now start executing; (3) write the first byte.
 * A CPU that meets an int3 at a site of the batch in flight lands in
 * text_patch_bp_fixup(), called from trap() before anything that could be
 * patched, which sends it past the site: it runs the NOP. The Intel SDM's
 * rule for cross-modifying code (vol. 3, 8.1.3) is that the executing CPUs
 * serialise after the write and before they run the new code; the syncs
 * give exactly that, and int3 (one byte, written atomically) is the only
 * instruction a CPU may meet half-way through the change. Why this and not
 * a stop-machine: no CPU ever waits with interrupts off for another, so no
 * lock held with interrupts on elsewhere can deadlock the patcher.
 *
 * Writing: text is read-only everywhere (mmu.c maps it so, in the direct map
 * too); each pass clears CR0.WP on the patching CPU only, interrupts off,
 * stores, and sets it again. No page table changes, so no TLB shootdown,
 * and no window in which another CPU could write text.
 *
 * Nothing here may be traced (the file is built without fentry sites) and
 * it calls nothing that is: the patcher must not meet its own int3s in a
 * state it does not expect, and the #BP path must not recurse.
 */
#include <text_patch.h>
#include <smp.h>
#include <irq.h>
#include <atomic.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/x86.h>

#define INT3	0xcc

static uint32_t patch_busy;		/* the patch mutex */
static struct text_patch *inflight;	/* the batch with int3s out */
static size_t inflight_n;
static uint64_t batch_seq;		/* odd while a batch is in flight */
static uint32_t fixups_running;		/* CPUs inside text_patch_bp_fixup */
static uint64_t sync_gen;		/* patch mutex */
static uint64_t sync_seen[CONFIG_MAX_NUM_CPUS];

/* IRQ_TEXT_SYNC: serialise, then say so. Interrupts off. */
static notrace void sync_ipi(struct trapframe *tf, void *arg)
{
	uint64_t gen = __atomic_load_n(&sync_gen, __ATOMIC_ACQUIRE);

	(void)tf, (void)arg;
	serialize_insns();	/* after the writes gen stands for */
	__atomic_store_n(&sync_seen[core_id()], gen, __ATOMIC_RELEASE);
}

/* Registers the sync IPI. Boot CPU, before the APs start. */
void text_patch_init(void)
{
	irq_register(IRQ_TEXT_SYNC, "text sync IPI", sync_ipi, NULL);
}

/* Returns once every online CPU has executed a serialising instruction
 * after everything this CPU wrote before the call. Patch mutex held. */
static notrace void sync_all(void)
{
	uint32_t me = core_id(), n = READ_ONCE(num_cpus);
	uint64_t gen = __atomic_add_fetch(&sync_gen, 1, __ATOMIC_SEQ_CST);

	serialize_insns();
	for (uint32_t c = 0; c < n; c++)
		if (c != me)
			arch_send_ipi(c, IRQ_TEXT_SYNC);
	for (uint32_t c = 0; c < n; c++)
		while (c != me &&
		       __atomic_load_n(&sync_seen[c], __ATOMIC_ACQUIRE) < gen)
			arch_pause();
}

/* Stores len bytes of src at text address dst, with CR0.WP cleared on this
 * CPU and interrupts off for the store only. */
static notrace void poke(uintptr_t dst, const uint8_t *src, size_t len)
{
	uint64_t flags = arch_irq_save(), cr0 = rcr0();

	lcr0(cr0 & ~(uint64_t)CR0_WP);
	for (size_t i = 0; i < len; i++)
		((volatile uint8_t *)dst)[i] = src[i];
	lcr0(cr0);
	arch_irq_restore(flags);
}

static notrace void swap_patch(struct text_patch *a, struct text_patch *b)
{
	struct text_patch t = *a;

	*a = *b;
	*b = t;
}

/* Restores the heap order of p[0..n) below root r. */
static notrace void sift_down(struct text_patch *p, size_t r, size_t n)
{
	for (size_t c; (c = 2 * r + 1) < n; r = c) {
		if (c + 1 < n && p[c + 1].addr > p[c].addr)
			c++;
		if (p[r].addr >= p[c].addr)
			return;
		swap_patch(&p[r], &p[c]);
	}
}

/* Heap sort by address (the #BP fixup binary-searches the batch). */
static notrace void sort_batch(struct text_patch *p, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(p, i, n);
	for (size_t end = n; end > 1;) {
		swap_patch(&p[0], &p[--end]);
		sift_down(p, 0, end);
	}
}

static notrace void patch_lock(void)
{
	while (__atomic_exchange_n(&patch_busy, 1, __ATOMIC_ACQUIRE))
		arch_pause();
}

static notrace void patch_unlock(void)
{
	__atomic_store_n(&patch_busy, 0, __ATOMIC_RELEASE);
}

static notrace void apply_live(struct text_patch *p, size_t n)
{
	static const uint8_t int3 = INT3;

	patch_lock();
	sort_batch(p, n);
	inflight = p;
	__atomic_store_n(&inflight_n, n, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&batch_seq, 1, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < n; i++)
		poke(p[i].addr, &int3, 1);
	sync_all();
	for (size_t i = 0; i < n; i++)
		poke(p[i].addr + 1, p[i].insn + 1, TEXT_PATCH_LEN - 1);
	sync_all();
	for (size_t i = 0; i < n; i++)
		poke(p[i].addr, p[i].insn, 1);
	sync_all();
	/* A CPU that met one of our int3s before the last sync has left the
	 * fixup (it could not take the sync IPI before), but under TCG one can
	 * still meet a stale int3 now and be reading the batch: wait for it
	 * before the caller's batch goes away. With inflight_n 0 first, no
	 * fixup that starts from here on reads the batch. */
	__atomic_store_n(&inflight_n, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&batch_seq, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&fixups_running, __ATOMIC_SEQ_CST))
		arch_pause();
	inflight = NULL;
	patch_unlock();
}

/*
 * Makes each p[i].addr hold p[i].insn (p is sorted by address on return).
 * Every site must hold either its 5-byte NOP or p[i].insn, and one of the
 * two must be the NOP. LIVE: process or boot context, no spinlock held
 * (it waits for every online CPU to take an IPI); ALONE: the caller
 * guarantees no other CPU runs kernel text.
 */
notrace void text_patch_apply(struct text_patch *p, size_t n,
			      enum text_patch_mode mode)
{
	if (!n)
		return;
	if (mode == TEXT_PATCH_LIVE && READ_ONCE(num_cpus) > 1) {
		apply_live(p, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		poke(p[i].addr, p[i].insn, TEXT_PATCH_LEN);
	serialize_insns();
}

/* True if site is in inflight[0..n) (sorted by address). */
static notrace bool in_batch(uintptr_t site, size_t n)
{
	size_t lo = 0;

	while (n > 1) {			/* inflight[lo..lo+n) may hold site */
		size_t half = n / 2;

		if (inflight[lo + half].addr <= site)
			lo += half;
		n -= half;
	}
	return n && inflight[lo].addr == site;
}

/*
 * Stores byte b at site again, unless the byte there is no longer b (a
 * new patch put its int3 there meanwhile: then nothing is written). For
 * QEMU's multi-threaded TCG, whose tracking of written code pages can miss
 * a store racing with another vCPU's translation of the same page: that
 * vCPU then keeps running a stale translation of the int3 after memory
 * lost it, and resuming at the site traps again, forever (seen with every
 * function site patched under load, the CPU spinning in #BP with
 * interrupts off and the patcher waiting for its sync). A store from the
 * trapping CPU itself always makes QEMU drop the translations it covers;
 * on hardware, rewriting a byte with its own value changes nothing.
 * Interrupts off.
 */
static notrace void restore_byte(uintptr_t site, uint8_t b)
{
	uint64_t cr0 = rcr0();

	lcr0(cr0 & ~(uint64_t)CR0_WP);
	__atomic_compare_exchange_n((uint8_t *)site, &b, b, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	lcr0(cr0);
}

/*
 * The #BP hook, first thing in trap(): if tf stopped at an int3 this
 * patcher wrote, resumes after the site when the site is in flight (its
 * NOP), or at the site when the int3 is gone (the patch finished: the
 * trap's iretq serialises, so the CPU fetches what memory holds now; QEMU's
 * TCG can run a translation of the int3 after the last sync, which
 * restore_byte() makes it drop). Returns false for any other int3.
 * Interrupts off.
 */
notrace bool text_patch_bp_fixup(struct trapframe *tf)
{
	uintptr_t site = tf->rip - 1;
	uint64_t seq;
	bool in_flight;
	uint8_t b;

	if (tf->cs & 3)
		return false;
	/*
	 * The batch and the byte are read as one snapshot, seqlock-style:
	 * read apart, the batch this int3 belonged to could end in between
	 * and the next one write its int3 at the same site, and the trap
	 * looked like nobody's (the text_patch_race ktest). A patcher
	 * stalled mid-batch (waiting for this CPU's sync) keeps batch_seq
	 * still, so the loop ends.
	 */
	do {
		seq = __atomic_load_n(&batch_seq, __ATOMIC_SEQ_CST);
		/* Counted while it reads the batch: apply_live() waits. */
		__atomic_add_fetch(&fixups_running, 1, __ATOMIC_SEQ_CST);
		in_flight = in_batch(site, __atomic_load_n(&inflight_n,
							   __ATOMIC_SEQ_CST));
		__atomic_sub_fetch(&fixups_running, 1, __ATOMIC_RELEASE);
		b = *(const volatile uint8_t *)site;
	} while (__atomic_load_n(&batch_seq, __ATOMIC_SEQ_CST) != seq);
	if (in_flight) {
		tf->rip = site + TEXT_PATCH_LEN;
		return true;
	}
	if (b != INT3) {
		restore_byte(site, b);
		tf->rip = site;
		return true;
	}
	return false;
}

/* Fills p with `op rel32` at addr reaching target (op: TEXT_OP_JMP or
 * TEXT_OP_CALL), or the NOP when op is 0. */
notrace void text_patch_encode(struct text_patch *p, uintptr_t addr,
			       uint8_t op, uintptr_t target)
{
	static const uint8_t nop[TEXT_PATCH_LEN] = TEXT_NOP5;
	int32_t rel = (int32_t)(target - (addr + TEXT_PATCH_LEN));

	p->addr = addr;
	if (!op) {
		for (int i = 0; i < TEXT_PATCH_LEN; i++)
			p->insn[i] = nop[i];
		return;
	}
	p->insn[0] = op;
	for (int i = 0; i < 4; i++)
		p->insn[1 + i] = (uint8_t)((uint32_t)rel >> (8 * i));
}

/* Whether the site at addr holds the 5-byte NOP now. */
notrace bool text_patch_is_nop(uintptr_t addr)
{
	static const uint8_t nop[TEXT_PATCH_LEN] = TEXT_NOP5;
	const volatile uint8_t *t = (const uint8_t *)addr;

	for (int i = 0; i < TEXT_PATCH_LEN; i++)
		if (t[i] != nop[i])
			return false;
	return true;
}
