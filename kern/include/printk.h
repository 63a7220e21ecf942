/*
 * Kernel logging. printk() takes an optional level prefix as in Linux:
 *
 *	printk(KERN_INFO "cpu%u online\n", id);
 *
 * Messages at or below the console level (the `loglevel=` command line word,
 * default KERN_INFO) go to the serial console; every message also goes to
 * the kmsg ring that /dev/kmsg reads. printk is safe from any context,
 * including interrupt handlers and panic.
 */
#ifndef PRINTK_H
#define PRINTK_H

#include <compiler.h>
#include <stdarg.h>

#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARN	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list ap);
void printk_set_level(int level);
extern int panicking;		/* set once by panic(): printk stops locking */
size_t kmsg_read(char *buf, size_t off, size_t len);

__noreturn void panic_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define panic(...) panic_at(__FILE__, __LINE__, __VA_ARGS__)

#define assert(cond)                                                       \
	do {                                                               \
		if (unlikely(!(cond)))                                     \
			panic("assertion failed: %s", #cond);              \
	} while (0)

#endif /* PRINTK_H */
