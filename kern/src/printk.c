/*
 * printk: formatted kernel messages to the serial console and the kmsg ring.
 *
 * Output is serialised by one irqsave spinlock so lines from different CPUs
 * do not interleave mid-line. The kmsg ring keeps the last KMSG_SIZE bytes of
 * every message whatever its level, for /dev/kmsg. Once panic starts, printk
 * stops taking the lock: the panicking CPU may have been inside printk.
 */
#include <printk.h>
#include <printfmt.h>
#include <console.h>
#include <spinlock.h>
#include <atomic.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#define KMSG_SIZE	(64 * 1024)

static struct spinlock printk_lock = SPINLOCK_INIT("printk");
static int console_level = 6;
static char kmsg_buf[KMSG_SIZE];
static size_t kmsg_head;		/* total bytes ever logged */
int panicking;

static bool line_start = true;

static void emit(int c, bool to_console)
{
	kmsg_buf[kmsg_head++ % KMSG_SIZE] = (char)c;
	if (to_console)
		console_putc(c);
}

/* Prints "[seconds.micros] " since boot, as Linux does, once the TSC rate
 * is known. printk_lock held. */
static void print_stamp(bool to_console)
{
	char buf[32];
	uint64_t us;

	if (!tsc_freq_hz)
		return;
	us = tsc_to_ns(arch_read_tsc() - tsc_at_boot) / 1000;
	fmt_snprintf(buf, sizeof(buf), "[%5lu.%06lu] ", us / 1000000,
		     us % 1000000);
	for (char *p = buf; *p; p++)
		emit(*p, to_console);
}

/* fmt_vprintf's output function: stamps each new line. */
static void printk_putc(int c, void *arg)
{
	bool *to_console = arg;

	if (line_start)
		print_stamp(*to_console);
	emit(c, *to_console);
	line_start = c == '\n';
}

/* Strips a KERN_* prefix from *fmt and returns its level (default info). */
static int take_level(const char **fmt)
{
	const char *f = *fmt;

	if (f[0] == KERN_SOH[0] && f[1] >= '0' && f[1] <= '7') {
		*fmt = f + 2;
		return f[1] - '0';
	}
	return 6;
}

int vprintk(const char *fmt, va_list ap)
{
	bool to_console = take_level(&fmt) <= console_level;
	bool locked = !READ_ONCE(panicking);
	uint64_t flags = 0;
	int n;

	if (locked)
		flags = spin_lock_irqsave(&printk_lock);
	n = fmt_vprintf(printk_putc, &to_console, fmt, ap);
	if (locked)
		spin_unlock_irqrestore(&printk_lock, flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

/* Messages above level are kept in kmsg but not printed. */
void printk_set_level(int level)
{
	console_level = level;
}

/* Copies up to len bytes of the kmsg log starting at byte off of what is
 * still held; returns the count (0 at the end). */
size_t kmsg_read(char *buf, size_t off, size_t len)
{
	uint64_t flags = spin_lock_irqsave(&printk_lock);
	size_t head = kmsg_head;
	size_t start = head > KMSG_SIZE ? head - KMSG_SIZE : 0;
	size_t n = 0;

	for (size_t pos = start + off; pos < head && n < len; pos++)
		buf[n++] = kmsg_buf[pos % KMSG_SIZE];
	spin_unlock_irqrestore(&printk_lock, flags);
	return n;
}
