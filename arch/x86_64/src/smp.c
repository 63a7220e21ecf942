/*
 * AP bring-up. The BSP copies the real-mode trampoline to 0x8000, maps low
 * memory identity for the trampoline's switch to paging, and starts each CPU
 * the MADT lists with INIT-SIPI-SIPI (Intel SDM Vol. 3, 8.4.4), waiting for
 * each to report online before starting the next so core ids follow MADT
 * order. Core ids are dense from 0 (the BSP); apic ids need not be. On its
 * way up each AP stops to have its TSC's offset from the BSP's measured
 * (tsc_offset.c), while the BSP is waiting for it anyway.
 */
#include <arch_hooks.h>
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <smp.h>
#include <pmem.h>
#include <printk.h>
#include <string.h>
#include <atomic.h>
#include <ttrace.h>

#define TRAMPOLINE_PA	0x8000

extern char trampoline_start[], trampoline_end[];
extern char tramp_cr3[], tramp_stack[], tramp_entry[], tramp_coreid[];
extern char tramp_tsc[];

/* Where a trampoline variable lives once copied to TRAMPOLINE_PA. */
static void *tramp_var(char *sym)
{
	return KADDR(TRAMPOLINE_PA + (sym - trampoline_start));
}

/* Not traced: nothing may read per-CPU data before arch_cpu_init() gives
 * this CPU its GS base (cpu.c and string.c are built without fentry). */
__noreturn static notrace void ap_entry(uint32_t coreid)
{
	struct per_cpu_info *pcpui = &per_cpu_info[coreid];
	uint64_t entered = arch_read_tsc();

	arch_cpu_init(pcpui);
	/* Before anything here can be traced (a contended lock, a trap):
	 * until then the per-CPU type word would name CPU 0. An AP starts
	 * with interrupts off. */
	ttrace_ctx_set(pcpui, TTRACE_CTX_BOOT, 0);
	arch_trace_irqs(true);
	/* The BSP starts no other AP (so no one rewrites the trampoline)
	 * until this one is online. */
	ttrace_boot_phase_at(BOOT_PHASE_AP_TRAMPOLINE,
			     *(uint64_t *)tramp_var(tramp_tsc), coreid);
	ttrace_boot_phase_at(BOOT_PHASE_AP_INIT, entered, coreid);
	lapic_init();
	lapic_timer_start();
	ttrace_boot_phase(BOOT_PHASE_AP_TSC_SYNC, coreid);
	tsc_offset_answer(coreid);
	smp_ap_main();
}

static void map_low_identity(bool on)
{
	static uint64_t *pdpt, *pd;
	uint64_t *pml4 = mmu_kernel_pml4();

	if (on) {
		pdpt = kpage_alloc();
		pd = kpage_alloc();
		pd[0] = PTE_P | PTE_W | PTE_PS;
		pdpt[0] = PADDR(pd) | PTE_P | PTE_W;
		pml4[0] = PADDR(pdpt) | PTE_P | PTE_W;
	} else {
		pml4[0] = 0;
		kpage_free(pdpt);
		kpage_free(pd);
	}
	lcr3(rcr3());
}

/* Starts the CPU with apic_id as core coreid, measuring its TSC offset on
 * the way; returns true once it is up. */
static bool start_ap(uint32_t apic_id, uint32_t coreid)
{
	struct per_cpu_info *pcpui = &per_cpu_info[coreid];
	void *stack = get_cont_pages(2, 0);

	if (!stack)
		return false;
	pcpui->coreid = coreid;
	pcpui->apic_id = apic_id;
	pcpui->stack_top = (uintptr_t)stack + KSTACK_SIZE;
	*(uint64_t *)tramp_var(tramp_stack) = pcpui->stack_top;
	*(uint32_t *)tramp_var(tramp_coreid) = coreid;
	tsc_offset_expect(coreid);
	ttrace_boot_phase(BOOT_PHASE_AP_START, coreid);
	lapic_send_init(apic_id);
	udelay(10000);
	ttrace_boot_phase(BOOT_PHASE_AP_SIPI, coreid);
	for (int sipi = 0; sipi < 2 && !tsc_offset_ap_arrived(); sipi++) {
		lapic_send_sipi(apic_id, TRAMPOLINE_PA >> 12);
		udelay(200);
	}
	for (int ms = 0; ms < 1000 && !tsc_offset_ap_arrived(); ms++)
		udelay(1000);
	if (tsc_offset_ap_arrived())
		tsc_offset_measure(coreid);
	for (int ms = 0; ms < 1000 && !atomic_read(&pcpui->online); ms++)
		udelay(1000);
	ttrace_boot_phase(BOOT_PHASE_AP_ONLINE, coreid);
	return atomic_read(&pcpui->online);
}

/* Brings up every other CPU the MADT lists, up to CONFIG_MAX_NUM_CPUS (or
 * none without CONFIG_SMP), and sets num_cpus. Boot CPU, after mmu_init,
 * acpi_init and lapic_init. */
void smp_boot(void)
{
	uint32_t bsp = lapic_id();

	per_cpu_info[0].apic_id = bsp;
#ifdef CONFIG_SMP
	memcpy(KADDR(TRAMPOLINE_PA), trampoline_start,
	       trampoline_end - trampoline_start);
	*(uint32_t *)tramp_var(tramp_cr3) = (uint32_t)rcr3();
	*(uint64_t *)tramp_var(tramp_entry) = (uintptr_t)ap_entry;
	map_low_identity(true);
	tsc_offset_init();
	for (uint32_t i = 0; i < acpi.ncpus; i++) {
		if (acpi.apic_ids[i] == bsp)
			continue;
		if (num_cpus == CONFIG_MAX_NUM_CPUS) {
			printk(KERN_WARN "smp: CONFIG_MAX_NUM_CPUS=%d reached, "
			       "ignoring the rest\n", CONFIG_MAX_NUM_CPUS);
			break;
		}
		smp_cpu_starting(num_cpus);
		if (start_ap(acpi.apic_ids[i], num_cpus))
			num_cpus++;
		else
			printk(KERN_ERR "smp: apic %u did not start\n",
			       acpi.apic_ids[i]);
	}
	map_low_identity(false);
#endif
}
