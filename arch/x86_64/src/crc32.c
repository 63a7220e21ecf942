/*
 * crc32.c: the trace file's CRC-32 folded with PCLMULQDQ in the kernel
 * (ttrace_crc32_fold_pclmul(), kern/trace/lib/file.c: the one
 * implementation the tools use too), on a CPU with PCLMUL and SSE4.1.
 * The software tables cost ~3.8 instructions a byte, which was most of
 * what the drain spent on a record; the fold about half an instruction.
 *
 * The kernel keeps no SSE state per thread (it and user code are built
 * -mgeneral-regs-only) and CR4.OSFXSR stays clear, so SSE instructions
 * fault everywhere but inside fold(): interrupts off, this CPU's OSFXSR
 * set around the fold, and every XMM register cleared before it is clear
 * again (no trace bytes left behind). A fold that interrupts a fold (an
 * NMI's panic dump) finds OSFXSR set and keeps the XMM registers of the
 * one it interrupted (FXSAVE, FXRSTOR).
 */
#include <compiler.h>
#include <ttrace_file.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/x86.h>

#define CPUID1_ECX_PCLMUL	(1u << 1)
#define CPUID1_ECX_SSE41	(1u << 19)

/* Zeroes xmm0-xmm15: the fold leaves trace bytes in them. */
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

/* A ttrace_crc32_fold_fn: the fold with SSE usable on this CPU. */
static uint32_t fold(uint32_t state, const uint8_t *p, uint64_t len)
{
	uint8_t fx[512 + 16];
	uint8_t *save = (uint8_t *)(((uintptr_t)fx + 15) & ~(uintptr_t)15);
	uint64_t flags = arch_irq_save(), cr4 = rcr4();
	bool nested = cr4 & CR4_OSFXSR;

	if (nested)
		__asm__ __volatile__("fxsave64 %0" : "=m"(*(uint8_t(*)[512])save));
	else
		lcr4(cr4 | CR4_OSFXSR);
	state = ttrace_crc32_fold_pclmul(state, p, len);
	if (nested) {
		__asm__ __volatile__("fxrstor64 %0" : :
				     "m"(*(uint8_t(*)[512])save));
	} else {
		xmm_clear();
		lcr4(cr4);
	}
	arch_irq_restore(flags);
	return state;
}

/* Hands the CRC's long stretches to fold() if the CPU can run it. Boot
 * CPU, before the first CRC (ttrace_init()); the others are alike. */
void arch_crc32_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	if ((c & CPUID1_ECX_PCLMUL) && (c & CPUID1_ECX_SSE41))
		ttrace_crc32_set_fold(fold);
}
