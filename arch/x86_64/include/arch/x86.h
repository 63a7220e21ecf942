/*
 * x86_64 instruction wrappers. Only arch/ includes this; generic code uses the
 * names in arch/arch.h.
 */
#ifndef ARCH_X86_H
#define ARCH_X86_H

#include <stdint.h>

#define MSR_TSC			0x10	/* IA32_TIME_STAMP_COUNTER */
#define MSR_APIC_BASE		0x1b
#define MSR_TSC_ADJUST		0x3b
#define MSR_TSC_AUX		0xc0000103
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_SFMASK		0xc0000084

#define FL_TF			(1u << 8)
#define FL_IF			(1u << 9)
#define FL_DF			(1u << 10)
#define FL_AC			(1u << 18)

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			     "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b,
			 uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* rdtsc that waits for every earlier instruction (loads included) to
 * finish first, so the stamp is not taken early. */
static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rcr2(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t rcr3(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void lcr3(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t rcr4(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void lcr4(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline uint64_t rcr0(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void lcr0(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr0" : : "r"(v) : "memory");
}

/* A serialising instruction: code written before it (by any CPU, once
 * visible) is what this CPU executes after it (SDM vol. 3, 8.1.3). */
static inline void serialize_insns(void)
{
	uint32_t a = 0, b, c = 0, d;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)
			     : : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void invlpg(const void *va)
{
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
}

#endif /* ARCH_X86_H */
