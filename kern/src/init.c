/*
 * kmain: the boot sequence, in order. Each phase is a ttrace boot event, so
 * a trace of the boot is a profile of it.
 *
 *   per-CPU state and traps, console -> command line -> physical memory and
 *   page tables -> ttrace -> TSC -> ACPI, APICs -> other CPUs -> timer and
 *   console interrupts -> ktests or the first process.
 */
#include <arch_hooks.h>
#include <abi/insn_mark.h>
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/uart.h>
#include <cmdline.h>
#include <console.h>
#include <exit_status.h>
#include <init.h>
#include <irq.h>
#include <kmsg.h>
#include <ktest.h>
#include <multiboot.h>
#include <pmem.h>
#include <kmalloc.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <ns.h>
#include <proc.h>
#include <sched.h>
#include <ttrace.h>
#include <text_patch.h>

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
	sched_tick();
}

static void com1_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	uart_irq();
}

/* IRQ_RESCHED: another CPU queued a thread here or asks the running one
 * to yield sooner (a halted CPU's idle loop runs the thread). */
static void resched_ipi(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	sched_resched_ipi();
}

static void panic_ipi(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	smp_stop_self();
}

static void backtrace_ipi(struct trapframe *tf, void *arg)
{
	(void)arg;
	proc_dump_here(tf);
}

static void interrupts_init(void)
{
	lapic_init();
	ioapic_init();
	kmsg_init();
	irq_register(IRQ_TIMER, "timer", timer_irq, NULL);
	irq_register(IRQ_COM1, "serial", com1_irq, NULL);
	irq_register(IRQ_PANIC, "panic IPI", panic_ipi, NULL);
	irq_register(IRQ_RESCHED, "resched IPI", resched_ipi, NULL);
	irq_register(IRQ_BACKTRACE, "backtrace IPI", backtrace_ipi, NULL);
	text_patch_init();
	ioapic_route(4, IRQ_COM1, per_cpu_info[0].apic_id);
}

static void cmdline_settings(void)
{
	uint64_t level;

	if (cmdline_get_u64(boot_cmdline, "loglevel", &level))
		printk_set_level((int)level);
}

/* Deliberate faults for testing the panic path: fault=null|ud|panic, and
 * the debug kernel's checks (docs/debug.md): fault=redzone|redzone_scan|
 * uaf|page_uaf|guard|shift. */
static uintptr_t bad_pointer = 8;
static size_t bad_index = 100;		/* one past a 100-byte block */
static int bad_shift = 40;

/* Waits up to 30 s for the slab scan (timer interrupts) to panic. */
static void wait_for_scan(void)
{
	uint64_t start = arch_read_tsc();

	while (tsc_to_ns(arch_read_tsc() - start) < 30000000000ull)
		arch_pause();
	printk(KERN_WARN "fault=redzone_scan: the scan found nothing\n");
}

/* Writes to a freed page, then takes pages until the allocator hands
 * that one out again (it panics then), and gives them back. */
static __attribute__((noinline)) void page_uaf(void)
{
	char *p = get_cont_pages(0, 0), *q, *taken = NULL;

	free_cont_pages(p, 0);
	p[READ_ONCE(bad_index)] = 1;
	for (int n = 0; n < 4096 && (q = get_cont_pages(0, 0)); n++) {
		*(char **)q = taken;
		taken = q;
	}
	while ((q = taken)) {
		taken = *(char **)q;
		free_cont_pages(q, 0);
	}
	printk(KERN_WARN "fault=page_uaf: the page was not handed out again\n");
}

/* The memory and UB faults; false when what is none of them. */
static __attribute__((noinline)) bool memory_fault(const char *what)
{
	char *p;

	if (!strcmp(what, "shift")) {
		printk(KERN_INFO "1 << %d = %d\n", READ_ONCE(bad_shift),
		       1 << READ_ONCE(bad_shift));
		return true;
	}
	if (!strcmp(what, "page_uaf")) {
		page_uaf();
		return true;
	}
	if (!strcmp(what, "guard")) {
		p = get_cont_pages(1, 0);	/* the text buffer's size */
		p[2 * PGSIZE + READ_ONCE(bad_index) - 100] = 1;
		return true;
	}
	if (strcmp(what, "redzone") && strcmp(what, "redzone_scan") &&
	    strcmp(what, "uaf"))
		return false;
	p = kmalloc(100);
	if (!strcmp(what, "uaf")) {
		kfree(p);
		p[8] = 1;
		kfree(kmalloc(100));	/* the same block again */
		return true;
	}
	p[READ_ONCE(bad_index)] = 1;
	if (!strcmp(what, "redzone"))
		kfree(p);
	else
		wait_for_scan();
	return true;
}

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
	else
		memory_fault(what);
}

/* Starts the first process: init=PROGRAM ARGS... (default /bin/sh), with
 * the console as its stdin, stdout and stderr. */
static void start_init(void)
{
	static char init[256];
	char *argv[16];
	int argc = 0, pid;

	if (!cmdline_get(boot_cmdline, "init", init, sizeof(init)))
		strlcpy(init, "/bin/sh", sizeof(init));
	for (char *p = init; *p && argc < 15;) {
		while (*p == ' ')
			*p++ = 0;
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	argv[argc] = NULL;
	if (argc == 0)
		panic("init= is empty");
	ttrace_boot_phase(BOOT_PHASE_INIT_SPAWN, 0);
	pid = proc_spawn(NULL, argv[0], argc, argv, NULL);
	if (pid < 0)
		panic("cannot start init %s: error %d", argv[0], -pid);
	ttrace_boot_phase(BOOT_PHASE_FIRST_PROCESS, 0);
}

static void run_ktests_and_exit(void)
{
	char prefix[64] = "";

	cmdline_get(boot_cmdline, "ktests", prefix, sizeof(prefix));
	arch_poweroff(ktests_run(prefix) ? EXIT_CODE_KTESTS_FAILED : 0);
}

__noreturn void kmain(uint32_t magic, uint32_t mbi_pa)
{
	INSN_MARK(INSN_MARK_BOOT);	/* make bench: boot starts */
	tsc_at_boot = arch_read_tsc();
	bsp_cpu_init();
	take_multiboot(magic, mbi_pa);	/* the tracer's persistent area */
	ttrace_early_init();
	/* the two phases before anything could be recorded, at their TSCs */
	ttrace_boot_phase_at(BOOT_PHASE_ENTRY, boot_entry_tsc, 0);
	ttrace_boot_phase_at(BOOT_PHASE_KMAIN, tsc_at_boot, 0);
	sched_init_cpu();
	uart_init();
	cmdline_settings();
	printk(KERN_INFO "ttrace kernel booting; command line: '%s'\n",
	       boot_cmdline);
	ttrace_boot_phase(BOOT_PHASE_MEMORY, 0);
	pmem_init(boot_mbi);
	mmu_init();
	pmem_window_init();
	ttrace_boot_phase(BOOT_PHASE_TTRACE, 0);
	ttrace_init();
	ttrace_boot_phase(BOOT_PHASE_TSC, 0);
	tsc_init();
	ttrace_boot_phase(BOOT_PHASE_ACPI, 0);
	acpi_init();
	ttrace_boot_phase(BOOT_PHASE_APIC, 0);
	interrupts_init();
	ttrace_boot_phase(BOOT_PHASE_SMP, 0);
	smp_boot();
	ttrace_boot_done();
	lapic_timer_start();
	ttrace_profile_boot();
	kmem_debug_start_cpu();
	arch_irq_enable();
	uart_enable_irq();
	ttrace_boot_phase(BOOT_PHASE_DEVICES, 0);
	arch_hostout_init();
	ns_init();
	printk(KERN_INFO "boot: %u CPUs online, %lu us since kmain\n", num_cpus,
	       tsc_to_ns(arch_read_tsc() - tsc_at_boot) / 1000);
#ifdef CONFIG_TTRACE
	if (cmdline_has(boot_cmdline, "ttrace.bootprof"))
		ttrace_print_boot_profile();
	if (cmdline_has(boot_cmdline, "bench")) {
		ttrace_bench();
		arch_poweroff(0);
	}
#endif
	deliberate_fault();
	if (cmdline_has(boot_cmdline, "ktests"))
		run_ktests_and_exit();
	start_init();
	cpu_idle();
}
