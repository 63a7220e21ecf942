/* Local APIC (xAPIC MMIO), IOAPIC, LAPIC timer, IPIs. */
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include <stdint.h>

void lapic_init(void);
void lapic_eoi(void);
uint32_t lapic_id(void);
void lapic_timer_start(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);
void ioapic_init(void);
void ioapic_route(uint32_t isa_irq, uint8_t vector, uint32_t dest_apic);

#endif
