/*
 * Interrupt handler registration. The hooks trap dispatch calls into the
 * process layer are in arch_hooks.h.
 */
#ifndef IRQ_H
#define IRQ_H

#include <compiler.h>

struct trapframe;
typedef void (*irq_handler_t)(struct trapframe *tf, void *arg);

void irq_register(uint8_t vector, irq_handler_t fn, void *arg);

#endif /* IRQ_H */
