/* The x86_64 part of each CPU's per_cpu_info: its GDT and TSS. */
#ifndef ARCH_PCPU_H
#define ARCH_PCPU_H

#include <stdint.h>

#define GD_KT		0x08	/* kernel code */
#define GD_KD		0x10	/* kernel data */
#define GD_UD		0x20	/* user data (SYSRET: STAR base + 8) */
#define GD_UT		0x28	/* user code (SYSRET: STAR base + 16) */
#define GD_TSS		0x30	/* 16-byte TSS descriptor */
#define GDT_ENTRIES	8

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct arch_pcpu {
	uint64_t gdt[GDT_ENTRIES];
	struct tss tss;
};

struct per_cpu_info;
void arch_cpu_init(struct per_cpu_info *pcpui);
void arch_detect_features(void);
void arch_set_kernel_stack(uintptr_t top);

#endif /* ARCH_PCPU_H */
