/*
 * The console: the serial line as the kernel's terminal. The UART driver
 * hands received bytes to console_receive() from its interrupt handler; the
 * console keeps them in a ring until a reader takes them, so typed-ahead
 * input is never lost while nobody reads.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <compiler.h>

void console_putc(int c);
void console_write(const char *s, size_t n);
void console_receive(int c);
int console_getc(void);
bool console_input_pending(void);

#endif /* CONSOLE_H */
