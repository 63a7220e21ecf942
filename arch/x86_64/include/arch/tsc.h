/* The timestamp counter: frequency, boot stamp, delays. */
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <stdint.h>
#include <stdbool.h>

extern uint64_t tsc_freq_hz;
extern uint64_t tsc_at_boot;

void tsc_init(void);
void udelay(uint64_t usec);
uint64_t tsc_to_ns(uint64_t ticks);

#endif
