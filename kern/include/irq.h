/*
 * Interrupt handler registration and the hooks trap dispatch calls into the
 * process layer.
 */
#ifndef IRQ_H
#define IRQ_H

#include <compiler.h>

struct trapframe;
typedef void (*irq_handler_t)(struct trapframe *tf, void *arg);

void irq_register(uint8_t vector, irq_handler_t fn, void *arg);

/* A trap from user mode: returns true when the process layer dealt with it
 * (killed the process), false to treat it as fatal. */
bool user_trap(struct trapframe *tf);
/* Called before every return to user mode: may exit or reschedule. */
void user_trap_return(struct trapframe *tf);

#endif /* IRQ_H */
