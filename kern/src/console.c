/*
 * The console's line discipline (behaviour in console.h).
 *
 * All input lives in one ring of CONS_RING bytes indexed by free-running
 * counters rd <= done <= wr: [rd, done) holds finished lines, each ending
 * in '\n' or in a ^D byte (which a read consumes but never returns), and
 * [done, wr) the line being edited. Editing happens in the interrupt
 * handler, so echo appears as keys are typed, whoever is reading.
 *
 * The ring is large so a script pasted or piped into QEMU's serial port is
 * held in full while earlier commands run. Only when it is full are bytes
 * dropped, and one byte is kept free so a line can always be ended.
 *
 * Locking: cons_lock is taken with interrupts off (the interrupt handler
 * takes it). A reader sleeps on the ring with it held: ksleep keeps
 * interrupts off while it retakes the lock. The
 * interrupt handler calls kwakeup and proc_kill, both safe there; ^C
 * kills after dropping cons_lock.
 */
#include <arch_hooks.h>
#include <console.h>
#include <proc.h>
#include <spinlock.h>
#include <atomic.h>
#include <ttrace.h>
#include <arch/uart.h>
#include <abi/errno.h>

#define CONS_RING	4096
#define CTRL_C		0x03
#define CTRL_D		0x04
#define CTRL_T		0x14
#define BACKSPACE	0x08
#define DEL		0x7f

static struct spinlock cons_lock = SPINLOCK_INIT("cons");
static char cons_ring[CONS_RING];
static size_t cons_rd, cons_done, cons_wr;	/* see above */
static int cons_fg;				/* ^C's victim; 0: none */

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

void console_set_fg(int pid)
{
	WRITE_ONCE(cons_fg, pid);
}

/* Appends c to the line being edited if that leaves reserve bytes of the
 * ring free. Returns false if it did not fit. cons_lock held. */
static bool put(char c, size_t reserve)
{
	if (cons_wr - cons_rd + reserve >= CONS_RING)
		return false;
	cons_ring[cons_wr++ % CONS_RING] = c;
	return true;
}

/* Finishes the line being edited with c ('\n' or ^D) and wakes readers.
 * cons_lock held. */
static void end_line(char c)
{
	if (!put(c, 0))
		return;
	cons_done = cons_wr;
	kwakeup(cons_ring);
}

/* Edits the current line with one received byte. Returns true for ^C.
 * cons_lock held. */
static bool cook(int c)
{
	if (c == '\r' || c == '\n') {
		console_putc('\n');
		end_line('\n');
	} else if (c == CTRL_D) {
		end_line(CTRL_D);
	} else if (c == CTRL_C) {
		cons_wr = cons_done;
		console_write("^C\n", 3);
		return true;
	} else if (c == BACKSPACE || c == DEL) {
		if (cons_wr > cons_done) {
			cons_wr--;
			console_write("\b \b", 3);
		}
	} else if ((c >= ' ' && c < DEL) || c == '\t') {
		if (put((char)c, 1))
			console_putc(c);
	}
	return false;
}

void console_receive(int c)
{
	if (c == CTRL_T) {	/* status, as on BSD; not part of any line */
		proc_dump();
		return;
	}
	uint64_t flags = spin_lock_irqsave(&cons_lock);
	bool interrupt = cook(c);
	int fg = READ_ONCE(cons_fg);

	spin_unlock_irqrestore(&cons_lock, flags);
	if (interrupt && fg > 0)
		proc_kill(fg);
}

/* Moves the next finished line, or up to n bytes of it, into buf;
 * consumes a ^D that ends it. Returns the count. cons_lock held. */
static size_t take_line(char *buf, size_t n)
{
	size_t k = 0;

	while (k < n && cons_rd < cons_done) {
		char c = cons_ring[cons_rd++ % CONS_RING];

		if (c == CTRL_D)
			break;
		buf[k++] = c;
		if (c == '\n')
			break;
	}
	return k;
}

/* The boot ends when a program first waits for the keyboard: the shell
 * has printed its prompt (docs/boot-profile.md). */
static void note_shell_ready(void)
{
	static bool reached;

	if (!READ_ONCE(reached) && !atomic_swap(&reached, true))
		ttrace_boot_phase(BOOT_PHASE_SHELL_READY, 0);
}

long console_read(char *buf, size_t n)
{
	uint64_t flags;
	long r = 0;

	note_shell_ready();
	flags = spin_lock_irqsave(&cons_lock);

	while (cons_rd == cons_done && r == 0)
		r = ksleep(cons_ring, &cons_lock);
	if (r == 0)
		r = (long)take_line(buf, n);
	spin_unlock_irqrestore(&cons_lock, flags);
	return r;
}
