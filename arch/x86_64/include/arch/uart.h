/* 16550 UART on COM1: polled output, interrupt-driven input (IRQ 4). */
#ifndef ARCH_UART_H
#define ARCH_UART_H

#include <stdbool.h>

void uart_init(void);
void uart_enable_irq(void);
void uart_putc(int c);
void uart_irq(void);

#endif
