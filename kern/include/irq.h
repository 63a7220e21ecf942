/*
 * Interrupt handler registration. The hooks trap dispatch calls into the
 * process layer are in arch_hooks.h.
 */
#ifndef IRQ_H
#define IRQ_H

#include <compiler.h>

struct trapframe;
typedef void (*irq_handler_t)(struct trapframe *tf, void *arg);

/* Installs fn as the handler of vector, named name in traces (aux tag
 * irq: irq_enter's and irq_exit's name). Call before the vector can
 * fire, after ttrace_init(). */
void irq_register(uint8_t vector, const char *name, irq_handler_t fn,
		  void *arg);

#endif /* IRQ_H */
