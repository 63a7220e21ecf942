/*
 * simd.c: a section of kernel code that may use SSE (the drain's record
 * copies, kern/trace/lib/ring.c's simd). The kernel keeps no SSE state per
 * thread (it and user code are built -mgeneral-regs-only) and leaves
 * CR4.OSFXSR clear, so SSE faults everywhere but here: this CPU's OSFXSR
 * set for the section, with interrupts off so nothing else runs on it,
 * and every XMM register zeroed before it ends (no trace bytes left
 * behind; user code still cannot execute SSE).
 */
#include <compiler.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/x86.h>

/* Zeroes xmm0-xmm15. */
static void xmm_clear(void)
{
	__asm__ __volatile__(
		"pxor %xmm0, %xmm0\n\tpxor %xmm1, %xmm1\n\t"
		"pxor %xmm2, %xmm2\n\tpxor %xmm3, %xmm3\n\t"
		"pxor %xmm4, %xmm4\n\tpxor %xmm5, %xmm5\n\t"
		"pxor %xmm6, %xmm6\n\tpxor %xmm7, %xmm7\n\t"
		"pxor %xmm8, %xmm8\n\tpxor %xmm9, %xmm9\n\t"
		"pxor %xmm10, %xmm10\n\tpxor %xmm11, %xmm11\n\t"
		"pxor %xmm12, %xmm12\n\tpxor %xmm13, %xmm13\n\t"
		"pxor %xmm14, %xmm14\n\tpxor %xmm15, %xmm15");
}

/*
 * Makes SSE usable on this CPU until arch_simd_end(). Interrupts must be
 * off until then: the section owns the XMM registers, nothing saves them.
 * Returns false, changing nothing, if a section is open already (one this
 * code interrupted, as an NMI's would): the caller goes without.
 */
bool arch_simd_begin(void)
{
	uint64_t cr4 = rcr4();

	if (cr4 & CR4_OSFXSR)
		return false;
	lcr4(cr4 | CR4_OSFXSR);
	return true;
}

/* Ends the section arch_simd_begin() opened (it returned true). */
void arch_simd_end(void)
{
	xmm_clear();
	lcr4(rcr4() & ~(uint64_t)CR4_OSFXSR);
}
