/*
 * 16550 UART driver for COM1, the console. Output is polled (a panic must be
 * able to print with interrupts off); input is interrupt driven: the receive
 * interrupt drains the FIFO into the console's ring, so bytes QEMU delivers
 * while the kernel is busy are kept, never dropped.
 */
#include <arch_hooks.h>
#include <arch/uart.h>
#include <arch/x86.h>
#include <arch/arch.h>
#include <console.h>

#define COM1		0x3f8
#define UART_DATA	0
#define UART_IER	1
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define LSR_DR		0x01
#define LSR_THRE	0x20

/* Sets 115200 8N1 with FIFOs on. Receive interrupts stay off until
 * uart_enable_irq(), once the IOAPIC routes IRQ 4. */
void uart_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, 0x80);		/* DLAB */
	outb(COM1 + UART_DATA, 1);		/* divisor 1: 115200 baud */
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, 0x03);		/* 8N1 */
	/* FCR is left alone: changing FIFO enable resets both FIFOs on a
	 * 16550 (and in QEMU), which would drop typed-ahead input. */
	outb(COM1 + UART_MCR, 0x0b);		/* DTR, RTS, OUT2 (IRQ line) */
}

/* Turns on receive interrupts and takes whatever already waits. The
 * drain runs with interrupts off: an interrupt between its LSR check and
 * its RBR read would take the byte first, and the drain would read the
 * stale RBR again, doubling a byte. */
void uart_enable_irq(void)
{
	uint64_t flags = arch_irq_save();

	outb(COM1 + UART_IER, 0x01);		/* received data available */
	uart_irq();
	arch_irq_restore(flags);
}

/*
 * Writes one byte, busy-waiting for the transmitter however long it takes:
 * QEMU holds THRE clear while the host side of the serial port is not
 * reading (a busy host), and a byte dropped then would corrupt a panic's
 * hex dump. A missing UART reads all ones, THRE set, so this never hangs
 * on one. Any context.
 */
void uart_putc(int c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THRE))
		__asm__ __volatile__("pause");
	outb(COM1 + UART_DATA, (uint8_t)c);
}

/* Receive interrupt: moves every byte waiting in the FIFO to the console. */
void uart_irq(void)
{
	while (inb(COM1 + UART_LSR) & LSR_DR)
		console_receive(inb(COM1 + UART_DATA));
}
