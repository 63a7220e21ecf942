/*
 * kmain: the boot sequence, in order. Each phase is a ttrace boot event, so
 * a trace of the boot is a profile of it.
 *
 *   per-CPU state and traps, console -> command line -> physical memory and
 *   page tables -> ttrace -> TSC -> ACPI, APICs -> other CPUs -> timer and
 *   console interrupts -> ktests or the first process.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/uart.h>
#include <arch/x86.h>
#include <cmdline.h>
#include <console.h>
#include <init.h>
#include <irq.h>
#include <kmsg.h>
#include <ktest.h>
#include <multiboot.h>
#include <pmem.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>

char boot_cmdline[1024];
uint64_t boot_modules_end;		/* physical end of the last module */
const struct multiboot_info *boot_mbi;

extern char boot_stack_top[];

static void take_multiboot(uint32_t magic, uint32_t mbi_pa)
{
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC)
		panic("not booted by a Multiboot loader (magic %x)", magic);
	boot_mbi = KADDR(mbi_pa);
	if (boot_mbi->flags & MB_INFO_CMDLINE)
		strlcpy(boot_cmdline, KADDR(boot_mbi->cmdline),
			sizeof(boot_cmdline));
	if (boot_mbi->flags & MB_INFO_MODS) {
		const struct multiboot_module *m = KADDR(boot_mbi->mods_addr);

		for (uint32_t i = 0; i < boot_mbi->mods_count; i++)
			boot_modules_end = MAX(boot_modules_end, m[i].mod_end);
	}
}

static void bsp_cpu_init(void)
{
	struct per_cpu_info *pcpui = &per_cpu_info[0];

	pcpui->coreid = 0;
	pcpui->stack_top = (uintptr_t)boot_stack_top;
	idt_init();
	arch_detect_features();
	arch_cpu_init(pcpui);
}

static void timer_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	this_cpu()->ticks++;
	ttrace_timer_tick(this_cpu()->ticks);
}

static void com1_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	uart_irq();
}

static void panic_ipi(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	arch_halt_forever();
}

static void interrupts_init(void)
{
	lapic_init();
	ioapic_init();
	kmsg_init();
	irq_register(IRQ_TIMER, timer_irq, NULL);
	irq_register(IRQ_COM1, com1_irq, NULL);
	irq_register(IRQ_PANIC, panic_ipi, NULL);
	ioapic_route(4, IRQ_COM1, per_cpu_info[0].apic_id);
}

static void cmdline_settings(void)
{
	uint64_t level;

	if (cmdline_get_u64(boot_cmdline, "loglevel", &level))
		printk_set_level((int)level);
}

/* Deliberate faults for testing the panic path: fault=null|ud|panic. */
static uintptr_t bad_pointer = 8;

static __attribute__((noinline)) void deliberate_fault(void)
{
	char what[16];

	if (!cmdline_get(boot_cmdline, "fault", what, sizeof(what)))
		return;
	printk(KERN_WARN "fault=%s: faulting on purpose\n", what);
	if (!strcmp(what, "null"))
		*(volatile int *)READ_ONCE(bad_pointer) = 1;
	else if (!strcmp(what, "ud"))
		__asm__ __volatile__("ud2");
	else if (!strcmp(what, "panic"))
		panic("panic requested on the command line");
}

static void run_ktests_and_exit(void)
{
	char prefix[64] = "";

	cmdline_get(boot_cmdline, "ktests", prefix, sizeof(prefix));
	arch_poweroff(ktests_run(prefix) ? 2 : 0);
}

__noreturn void kmain(uint32_t magic, uint32_t mbi_pa)
{
	tsc_at_boot = rdtsc();
	bsp_cpu_init();
	uart_init();
	take_multiboot(magic, mbi_pa);
	cmdline_settings();
	printk(KERN_INFO "ttrace kernel booting; command line: '%s'\n",
	       boot_cmdline);
	pmem_init(boot_mbi);
	mmu_init();
	ttrace_init();
	ttrace_boot_phase(BOOT_PHASE_MEMORY);
	tsc_init();
	acpi_init();
	ttrace_boot_phase(BOOT_PHASE_ACPI);
	interrupts_init();
	ttrace_boot_phase(BOOT_PHASE_APIC);
	smp_boot();
	ttrace_cleanup();
	ttrace_boot_phase(BOOT_PHASE_SMP);
	lapic_timer_start();
	arch_irq_enable();
	uart_enable_irq();
	ttrace_boot_phase(BOOT_PHASE_DEVICES);
	printk(KERN_INFO "boot: %u CPUs online, %lu us since kmain\n", num_cpus,
	       tsc_to_ns(rdtsc() - tsc_at_boot) / 1000);
	deliberate_fault();
	if (cmdline_has(boot_cmdline, "ktests"))
		run_ktests_and_exit();
	kernel_monitor();
}
