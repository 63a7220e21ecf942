/*
 * panic: stop every CPU, print why with a backtrace, and end the run. Under
 * QEMU the isa-debug-exit device makes the emulator exit non-zero, so a test
 * harness sees a panic as a failure even before it reads the log. With
 * ttrace.reboot_on_panic on the command line it resets the machine
 * instead, so the next boot serves this one's trace (/dev/ttrace/lastboot).
 */
#include <exit_status.h>
#include <printk.h>
#include <ksyms.h>
#include <smp.h>
#include <atomic.h>
#include <arch/arch.h>
#include <cmdline.h>
#include <init.h>
#include <ttrace.h>

/* How long a panic waits for the other CPUs to stop (Linux waits 1 s). */
#define PANIC_STOP_WAIT_US	1000000

__noreturn void panic_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	arch_irq_disable();
	if (atomic_swap(&panicking, 1)) {
		/* another CPU is already reporting: just stop */
		smp_stop_self();
	}
	/* the others stop first, so the trace dumped below stands still */
	smp_stop_others(PANIC_STOP_WAIT_US);
	printk(KERN_EMERG "panic on cpu %u at %s:%d: ", core_id(), file, line);
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "\n");
	backtrace_print(arch_frame_pointer());
	ttrace_panic_dump();
	if (cmdline_has(boot_cmdline, "ttrace.reboot_on_panic")) {
		printk(KERN_EMERG "panic: rebooting (ttrace.reboot_on_panic)\n");
		arch_reset();
	}
	printk(KERN_EMERG "panic: system halted\n");
	arch_exit_qemu(EXIT_CODE_PANIC);
}
