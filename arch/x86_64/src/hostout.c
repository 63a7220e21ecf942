/*
 * The host channel: QEMU's isa-debugcon device at port 0xe9, wired by
 * scripts/qemu.sh to a file on the host. `rep outsb` hands KVM a whole
 * buffer per exit (and TCG a loop it runs without exits), so a 16 MiB trace
 * crosses in seconds, where a UART would take minutes. Reading the port
 * gives 0xe9 back when the device is there, which is how we know.
 */
#include <arch/arch.h>
#include <arch/x86.h>

#define DEBUGCON_PORT	0xe9

/* True when QEMU's debugcon answers on its port. */
bool arch_hostout_present(void)
{
	return inb(DEBUGCON_PORT) == DEBUGCON_PORT;
}

/* Writes n bytes to the host file. Any context. */
void arch_hostout_write(const void *buf, size_t n)
{
	__asm__ __volatile__("rep outsb"
			     : "+S"(buf), "+c"(n)
			     : "d"(DEBUGCON_PORT)
			     : "memory");
}
