/*
 * The kernel monitor: a few commands on the serial console for looking at a
 * running kernel without user space (init=monitor, or when no first program
 * can start). Input is line-buffered with echo and backspace.
 */
#include <init.h>
#include <console.h>
#include <printk.h>
#include <pmem.h>
#include <smp.h>
#include <string.h>
#include <ktest.h>
#include <ksyms.h>
#include <arch/arch.h>

static size_t read_line(char *buf, size_t len)
{
	size_t n = 0;

	for (;;) {
		int c = console_getc();

		if (c == '\r' || c == '\n') {
			console_putc('\n');
			buf[n] = 0;
			return n;
		}
		if ((c == 0x7f || c == '\b') && n > 0) {
			n--;
			console_write("\b \b", 3);
		} else if (c >= ' ' && c < 0x7f && n + 1 < len) {
			buf[n++] = (char)c;
			console_putc(c);
		}
	}
}

static void cmd_cpus(void)
{
	for (uint32_t i = 0; i < num_cpus; i++)
		printk("cpu %u: apic %u, %lu timer ticks\n", i,
		       per_cpu_info[i].apic_id, READ_ONCE(per_cpu_info[i].ticks));
}

static void run(const char *cmd)
{
	if (!strcmp(cmd, "help"))
		printk("commands: help cpus mem backtrace ktests poweroff panic\n");
	else if (!strcmp(cmd, "cpus"))
		cmd_cpus();
	else if (!strcmp(cmd, "mem"))
		printk("%zu of %zu pages free\n", pmem_nr_free_pages(),
		       pmem_nr_total_pages());
	else if (!strcmp(cmd, "backtrace"))
		backtrace_print(arch_frame_pointer());
	else if (!strcmp(cmd, "ktests"))
		ktests_run("");
	else if (!strcmp(cmd, "poweroff"))
		arch_poweroff(0);
	else if (!strcmp(cmd, "panic"))
		panic("panic requested from the monitor");
	else if (cmd[0])
		printk("unknown command '%s' (try help)\n", cmd);
}

/* Reads and runs monitor commands forever. Interrupts must be on. */
__noreturn void kernel_monitor(void)
{
	char line[128];

	printk("kernel monitor: type 'help'\n");
	for (;;) {
		console_write("K> ", 3);
		read_line(line, sizeof(line));
		run(line);
	}
}
