/*
 * Per-CPU processor state: the GDT (with this CPU's TSS), the shared IDT,
 * GS base pointing at per_cpu_info, IA32_TSC_AUX = core id so rdtscp names
 * the CPU, and the SYSCALL MSRs. Every CPU runs arch_cpu_init() once, the BSP
 * from kmain and each AP from its trampoline.
 */
#include <arch/pcpu.h>
#include <arch/x86.h>
#include <arch/trap.h>
#include <arch/mmu.h>
#include <smp.h>
#include <string.h>

struct idt_gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __attribute__((packed));

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static struct idt_gate idt[256];
extern char trap_vectors_start[];
extern char syscall_entry[];

#define SEG_CODE64(dpl)	(0x00209a0000000000ull | ((uint64_t)(dpl) << 45))
#define SEG_DATA(dpl)	(0x0000920000000000ull | ((uint64_t)(dpl) << 45))

/* Fills the IDT: every vector goes to its stub; the breakpoint vector may be
 * raised from user mode. Run once, on the BSP. */
void idt_init(void)
{
	for (int i = 0; i < 256; i++) {
		uintptr_t off = (uintptr_t)trap_vectors_start + 16 * i;
		struct idt_gate *g = &idt[i];

		g->off_lo = off & 0xffff;
		g->off_mid = (off >> 16) & 0xffff;
		g->off_hi = off >> 32;
		g->sel = GD_KT;
		g->ist = i == T_DBLFLT || i == T_NMI ? 1 : 0;
		g->type = 0x8e | (i == T_BRKPT ? 0x60 : 0);	/* interrupt gate */
		g->zero = 0;
	}
}

void idt_load(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uintptr_t)idt };

	__asm__ __volatile__("lidt %0" : : "m"(p));
}

static void gdt_load(struct arch_pcpu *a)
{
	struct desc_ptr p = { sizeof(a->gdt) - 1, (uintptr_t)a->gdt };
	uintptr_t tss = (uintptr_t)&a->tss;

	a->gdt[0] = 0;
	a->gdt[GD_KT >> 3] = SEG_CODE64(0);
	a->gdt[GD_KD >> 3] = SEG_DATA(0);
	a->gdt[3] = 0;
	a->gdt[GD_UD >> 3] = SEG_DATA(3);
	a->gdt[GD_UT >> 3] = SEG_CODE64(3);
	a->gdt[GD_TSS >> 3] = (sizeof(struct tss) - 1) | (tss & 0xffffff) << 16 |
			      0x0000890000000000ull | ((tss >> 24) & 0xff) << 56;
	a->gdt[(GD_TSS >> 3) + 1] = tss >> 32;
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ds\n\t"
		"movw %w2, %%es\n\t"
		"movw %w2, %%ss\n\t"
		"ltr %w3"
		: : "m"(p), "i"(GD_KT), "r"(GD_KD), "r"(GD_TSS) : "rax", "memory");
}

/* Sets up the calling CPU: descriptor tables, TSS with a double-fault stack,
 * GS base and IA32_TSC_AUX. pcpui->coreid and stack_top must be set. */
void arch_cpu_init(struct per_cpu_info *pcpui)
{
	static uint8_t df_stacks[CONFIG_MAX_NUM_CPUS][4096] __aligned(16);
	struct arch_pcpu *a = &pcpui->arch;

	memset(&a->tss, 0, sizeof(a->tss));
	a->tss.rsp[0] = pcpui->stack_top;
	a->tss.ist[0] = (uintptr_t)(df_stacks[pcpui->coreid] + 4096);
	a->tss.iomap_base = sizeof(struct tss);
	gdt_load(a);
	idt_load();
	pcpui->self = pcpui;
	wrmsr(MSR_GS_BASE, (uintptr_t)pcpui);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	if (arch_has_rdtscp)
		wrmsr(MSR_TSC_AUX, pcpui->coreid);
	/* SYSCALL: kernel CS/SS from STAR[47:32]; SYSRET's user CS/SS are
	 * STAR[63:48] + 16 / + 8, i.e. GD_UT and GD_UD. */
	wrmsr(MSR_STAR, (uint64_t)GD_KT << 32 | (uint64_t)(GD_UD - 8) << 48);
	wrmsr(MSR_LSTAR, (uintptr_t)syscall_entry);
	wrmsr(MSR_SFMASK, FL_IF | FL_DF | FL_TF | FL_AC);
}

bool arch_has_rdtscp;

/* The hypervisor we run under, from CPUID's hypervisor leaf: "KVM", "TCG",
 * or "bare metal or unknown". */
const char *arch_hypervisor(void)
{
	uint32_t a, sig[3];

	cpuid(1, 0, &a, &sig[0], &sig[1], &sig[2]);
	if (!(sig[1] & (1u << 31)))		/* ECX bit 31: hypervisor present */
		return "bare metal or unknown";
	cpuid(0x40000000, 0, &a, &sig[0], &sig[1], &sig[2]);
	if (!memcmp(sig, "TCGTCGTCGTCG", 12))
		return "TCG";
	if (!memcmp(sig, "KVMKVMKVM", 9))
		return "KVM";
	return "bare metal or unknown";
}

/* Reads the CPU features the kernel adapts to. BSP, before arch_cpu_init. */
void arch_detect_features(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000001, 0, &a, &b, &c, &d);
	arch_has_rdtscp = d & (1u << 27);
}

/* Stack the CPU switches to when an interrupt or SYSCALL arrives from user
 * mode: the running thread's kernel stack top. Interrupts off. */
void arch_set_kernel_stack(uintptr_t top)
{
	struct per_cpu_info *pcpui = this_cpu();

	pcpui->arch.tss.rsp[0] = top;
	pcpui->kstack_top = top;
}
