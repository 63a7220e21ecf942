/*
 * crc32.c: tells the trace file's CRC-32C (kern/trace/lib/file.c) that
 * this CPU has SSE4.2's crc32 instruction. The instruction works in
 * general registers and needs no SSE state (CR4.OSFXSR stays clear: the
 * kernel and user code are -mgeneral-regs-only), so the kernel runs it
 * anywhere, the drain's ring reader included, with interrupts on.
 */
#include <ttrace_file.h>
#include <arch/arch.h>
#include <arch/x86.h>

#define CPUID1_ECX_SSE42	(1u << 20)

/* Boot CPU, before the first CRC (ttrace_init()); the others are alike. */
void arch_crc32_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	ttrace_crc32_set_hw(c & CPUID1_ECX_SSE42);
}
