/*
 * Ending the machine: ACPI soft-off (PM1a_CNT with SLP_TYPa|SLP_EN, found by
 * acpi_init) so QEMU exits with status 0, and QEMU's isa-debug-exit port for
 * a non-zero status: writing v there makes QEMU exit with (v << 1) | 1.
 * On real hardware without either, we halt.
 */
#include <compiler.h>
#include <arch/arch.h>
#include <arch/acpi.h>
#include <arch/x86.h>
#include <arch/tsc.h>

#define DEBUG_EXIT_PORT	0xf4

__noreturn void arch_halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* Exits QEMU with a non-zero status derived from status (see above). */
__noreturn void arch_exit_qemu(int status)
{
	outl(DEBUG_EXIT_PORT, (uint32_t)status);
	arch_halt_forever();
}

/*
 * Resets the machine as a warm reset: the chipset's reset control register
 * (0xcf9, which QEMU's PIIX and Q35 have), then the keyboard controller's
 * reset line, then a triple fault (an empty IDT and an interrupt). RAM
 * keeps its contents; QEMU with -no-reboot exits instead.
 */
__noreturn void arch_reset(void)
{
	static const struct { uint16_t limit; uint64_t base; }
		__attribute__((packed)) empty = { 0, 0 };

	arch_irq_disable();
	outb(0xcf9, 0x02);
	outb(0xcf9, 0x06);
	udelay(100000);
	outb(0x64, 0xfe);
	udelay(100000);
	__asm__ __volatile__("lidt %0; int3" : : "m"(empty));
	arch_halt_forever();
}

/* Powers off: status 0 is a clean ACPI shutdown, anything else exits QEMU
 * through isa-debug-exit with a non-zero code. */
__noreturn void arch_poweroff(int status)
{
	arch_irq_disable();
	if (status == 0 && acpi.pm1a_cnt) {
		outw(acpi.pm1a_cnt, acpi.slp_typa | (1u << 13));
		udelay(1000000);	/* QEMU acts on it asynchronously */
	}
	arch_exit_qemu(status ? status : 1);
}
