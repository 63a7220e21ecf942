/*
 * The console: output to the UART, input kept in a ring filled from the UART
 * interrupt. The ring is large (4 KiB) so a script piped into QEMU's serial
 * port is held in full while the kernel boots; when it is full the UART's own
 * FIFO and QEMU's flow control hold further bytes back rather than drop them,
 * because we stop draining the FIFO.
 */
#include <console.h>
#include <spinlock.h>
#include <arch/arch.h>
#include <arch/uart.h>

#define CONS_RING	4096

static struct spinlock cons_lock = SPINLOCK_INIT("cons");
static char cons_ring[CONS_RING];
static size_t cons_rd, cons_wr;		/* free-running indices */

void console_putc(int c)
{
	if (c == '\n')
		uart_putc('\r');
	uart_putc(c);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		console_putc(s[i]);
}

/* Called from the UART interrupt with one received byte. Bytes that do not
 * fit are dropped only if the ring is full, i.e. 4 KiB nobody read. */
void console_receive(int c)
{
	uint64_t flags = spin_lock_irqsave(&cons_lock);

	if (cons_wr - cons_rd < CONS_RING)
		cons_ring[cons_wr++ % CONS_RING] = (char)c;
	spin_unlock_irqrestore(&cons_lock, flags);
}

bool console_input_pending(void)
{
	return READ_ONCE(cons_wr) != READ_ONCE(cons_rd);
}

/* Returns the next input byte, halting until one arrives. Must be called
 * with interrupts enabled (or it would wait forever). */
int console_getc(void)
{
	for (;;) {
		uint64_t flags = arch_irq_save();

		spin_lock(&cons_lock);
		if (cons_wr != cons_rd) {
			int c = (unsigned char)cons_ring[cons_rd++ % CONS_RING];

			spin_unlock_irqrestore(&cons_lock, flags);
			return c;
		}
		spin_unlock(&cons_lock);
		arch_idle();	/* sti; hlt: no wakeup is lost in between */
	}
}
