/*
 * Boot entry: GRUB (or QEMU -kernel) enters _start in 32-bit protected mode
 * with paging off, eax = Multiboot magic and ebx = physical address of the
 * Multiboot info. We build just enough page tables to enter long mode and run
 * at KERN_LOAD, then call kmain(). mmu_init() later replaces these tables with
 * ones that map the kernel's sections with the right permissions.
 *
 * Multiboot v1 rather than v2: QEMU's -kernel loader speaks only v1, so tests
 * boot the very same image GRUB boots, without an ISO; we use the a.out
 * kludge (header fields give load addresses) because the kernel is a 64-bit
 * ELF, which a v1 loader does not parse, and boot a flat binary of it.
 */
#include <arch/mmu.h>

#define MB_MAGIC	0x1badb002
#define MB_FLAGS	((1 << 0) | (1 << 1) | (1 << 16))	/* align, mem, a.out kludge */
#define V2P(x)		((x) - KERN_LOAD)

	.section .multiboot, "a"
	.align 4
mb_header:
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)
	.long mb_header			/* header_addr (physical: .boot is identity) */
	.long KERN_PHYS			/* load_addr */
	.long V2P(__data_end)		/* load_end_addr */
	.long V2P(__bss_end)		/* bss_end_addr */
	.long _start			/* entry_addr */

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	movl	%eax, %edi			/* multiboot magic -> kmain arg 0 */
	movl	%ebx, %esi			/* multiboot info  -> kmain arg 1 */
	/* The TSC counts from reset: this read is how long the firmware and
	 * the boot loader took (the boot profile's first phase). Paging is
	 * off, so the store goes to the variable's physical address. */
	rdtsc
	movl	%eax, V2P(boot_entry_tsc)
	movl	%edx, V2P(boot_entry_tsc) + 4
	movl	$V2P(boot_stack_top), %esp

	/* PML4[0] and PML4[256] -> pdpt_low (identity and direct map of 1 GiB),
	 * PML4[511] -> pdpt_high whose entry 510 maps KERN_LOAD to 0. */
	movl	$V2P(boot_pdpt_low) + 3, %eax
	movl	%eax, V2P(boot_pml4)
	movl	%eax, V2P(boot_pml4) + 256 * 8
	movl	$V2P(boot_pdpt_high) + 3, %eax
	movl	%eax, V2P(boot_pml4) + 511 * 8
	movl	$V2P(boot_pd) + 3, %eax
	movl	%eax, V2P(boot_pdpt_low)
	movl	%eax, V2P(boot_pdpt_high) + 510 * 8
	/* boot_pd: 512 2 MiB pages covering the first GiB */
	xorl	%ecx, %ecx
1:	movl	%ecx, %eax
	shll	$21, %eax
	orl	$(PTE_P | PTE_W | PTE_PS), %eax
	movl	%eax, V2P(boot_pd)(, %ecx, 8)
	incl	%ecx
	cmpl	$512, %ecx
	jne	1b

	movl	$V2P(boot_pml4), %eax
	movl	%eax, %cr3
	movl	%cr4, %eax
	orl	$(CR4_PAE | CR4_PGE), %eax
	movl	%eax, %cr4
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	movl	%cr0, %eax
	andl	$~(CR0_CD | CR0_NW), %eax	/* caches on, whatever the loader left */
	orl	$(CR0_PG | CR0_PE | CR0_WP | CR0_NE | CR0_MP), %eax
	movl	%eax, %cr0

	lgdt	boot_gdt_desc
	ljmp	$0x08, $long_mode

	.code64
long_mode:
	movabsq	$high_half, %rax
	jmp	*%rax

	.text
high_half:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs
	movabsq	$boot_stack_top, %rsp
	xorq	%rbp, %rbp			/* backtraces stop here */
	call	kmain
2:	hlt
	jmp	2b

	.section .boot.text, "ax"
	.align 16
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff		/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff		/* 0x10: data */
boot_gdt_desc:
	.word boot_gdt_desc - boot_gdt - 1
	.long boot_gdt

	.data
	.align 8
	.globl boot_entry_tsc
boot_entry_tsc:	.quad 0			/* TSC at _start (arch/tsc.h) */

	.bss
	.align 4096
boot_pml4:	.space 4096
boot_pdpt_low:	.space 4096
boot_pdpt_high:	.space 4096
boot_pd:	.space 4096
	.globl boot_stack_top
boot_stack:	.space 16384
boot_stack_top:
