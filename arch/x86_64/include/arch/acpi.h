/*
 * What the kernel takes from the ACPI tables: the CPUs and interrupt
 * controllers (MADT) and how to power off (FADT + the DSDT's \_S5 object).
 */
#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include <stdint.h>

#define ACPI_MAX_CPUS	64

struct acpi_info {
	uint32_t ncpus;
	uint8_t apic_ids[ACPI_MAX_CPUS];
	uint64_t lapic_phys;
	uint64_t ioapic_phys;
	uint32_t ioapic_gsi_base;
	uint32_t isa_gsi[16];		/* ISA IRQ -> GSI, after overrides */
	uint16_t isa_flags[16];		/* MPS polarity/trigger flags */
	uint16_t pm1a_cnt;		/* PM1a control port, 0 if none */
	uint16_t slp_typa;		/* S5 sleep type */
};

extern struct acpi_info acpi;

void acpi_init(void);

#endif /* ARCH_ACPI_H */
