/*
 * Fixed offsets in struct per_cpu_info (smp.h) that assembly reads through
 * GS; kern/src/smp.c static_asserts that the struct agrees.
 */
#ifndef ARCH_PCPU_OFFSETS_H
#define ARCH_PCPU_OFFSETS_H

#define PCPU_SELF_OFFSET	0	/* the struct's own address */
#define PCPU_COREID_OFFSET	8	/* core id */
#define PCPU_KSTACK_OFFSET	16	/* kernel stack top for SYSCALL */
#define PCPU_USER_RSP_OFFSET	24	/* user rsp saved by SYSCALL entry */
#define PCPU_TTRACE_TYPE_OFFSET	32	/* ttrace_type_base: records' flags */

#endif
