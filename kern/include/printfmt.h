/*
 * printfmt: the one printf formatter, shared by the kernel console, panic,
 * the trace tools and the user libc. It knows nothing about where output
 * goes: fmt_vprintf() hands each character to a callback, and the snprintf
 * pair is that callback writing into a buffer.
 *
 * Conversions: %d %i %u %x %X %o %p %s %c %%, with the flags - 0 + space #,
 * a width and a precision (either may be `*`), and the length modifiers hh
 * h l ll z t j. Results match C99 printf, with three deliberate differences:
 * %p prints "0x0" for NULL (glibc says "(nil)"), %s of NULL prints "(null)"
 * cut by the precision like any string, and anything else after a '%' (for
 * instance %n or %f: there is no floating point in the kernel) is printed
 * literally, taking no argument beyond those of any `*` in it. A width or
 * precision above INT_MAX, or a total above INT_MAX characters, makes the
 * call return -1.
 *
 *	static void serial_putch(int c, void *arg) { uart_write(arg, c); }
 *	fmt_vprintf(serial_putch, uart0, fmt, ap);
 *
 *	char name[16];
 *	if (fmt_snprintf(name, sizeof(name), "cpu%u", id) >= (int)sizeof(name))
 *		... truncated ...
 */
#ifndef PRINTFMT_H
#define PRINTFMT_H

#include <stdarg.h>
#include <stddef.h>

int fmt_vprintf(void (*putch)(int c, void *arg), void *arg, const char *fmt,
		va_list ap) __attribute__((format(printf, 3, 0)));
int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int fmt_snprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* PRINTFMT_H */
