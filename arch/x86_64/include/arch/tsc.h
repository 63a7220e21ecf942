/*
 * The timestamp counter: frequency, boot stamp, delays, and how far each
 * CPU's counter is from CPU 0's.
 *
 * tsc_offset[] and tsc_offset_uncertainty[] are filled at boot, one AP at a
 * time, as each comes up (arch/x86_64/src/tsc_offset.c): CPU n's TSC minus
 * CPU 0's, in cycles, and how far the true value may be from it. CPU 0 is
 * 0 +- 0; an AP no round trip reached is 0 +- UINT64_MAX. Written only by
 * the boot CPU in smp_boot(), read-only once it returns; valid for core ids
 * below num_cpus.
 */
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <stdint.h>
#include <stdbool.h>

extern uint64_t tsc_freq_hz;
extern uint64_t tsc_at_boot;
/* The TSC at the kernel's first instruction (entry.S, before long mode):
 * the TSC counts from reset, so this is the firmware's and the boot
 * loader's time. 0 if the CPU has no TSC to read there. */
extern uint64_t boot_entry_tsc;
extern int64_t tsc_offset[CONFIG_MAX_NUM_CPUS];
extern uint64_t tsc_offset_uncertainty[CONFIG_MAX_NUM_CPUS];

void tsc_init(void);
void udelay(uint64_t usec);
uint64_t tsc_to_ns(uint64_t ticks);

void tsc_offset_init(void);
void tsc_offset_expect(uint32_t coreid);
bool tsc_offset_ap_arrived(void);
void tsc_offset_measure(uint32_t coreid);
void tsc_offset_answer(uint32_t coreid);

#endif
