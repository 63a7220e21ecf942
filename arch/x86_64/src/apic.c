/*
 * Local APIC and IOAPIC. Every CPU runs lapic_init(); the BSP also routes
 * the ISA interrupts it uses (COM1) through the IOAPIC to itself. The LAPIC
 * timer runs periodic at TIMER_HZ, its rate calibrated once against the TSC
 * (whose frequency tsc_init() already knows) and reused on every CPU.
 */
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <smp.h>
#include <timer.h>
#include <printk.h>

#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_ESR	0x280
#define LAPIC_ICRLO	0x300
#define LAPIC_ICRHI	0x310
#define LAPIC_TIMER	0x320
#define LAPIC_LINT0	0x350
#define LAPIC_LINT1	0x360
#define LAPIC_ERROR	0x370
#define LAPIC_TICR	0x380
#define LAPIC_TCCR	0x390
#define LAPIC_TDCR	0x3e0

#define ICR_INIT	0x00000500
#define ICR_STARTUP	0x00000600
#define ICR_LEVEL	0x00008000
#define ICR_ASSERT	0x00004000
#define ICR_PENDING	0x00001000
#define ICR_OTHERS	0x000c0000
#define LVT_MASKED	0x00010000
#define TIMER_PERIODIC	0x00020000

static uint32_t timer_count;		/* LAPIC ticks per timer period */

static volatile uint32_t *lapic_reg(uint32_t off)
{
	return (volatile uint32_t *)((uintptr_t)KADDR(acpi.lapic_phys) + off);
}

static uint32_t lapic_read(uint32_t off)
{
	return *lapic_reg(off);
}

static void lapic_write(uint32_t off, uint32_t v)
{
	*lapic_reg(off) = v;
	(void)lapic_read(LAPIC_ID);	/* wait for the write to land */
}

uint32_t lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

/* Enables this CPU's LAPIC with spurious vector IRQ_SPURIOUS, masks LINT0/1
 * and the timer. Interrupts must be off. */
void lapic_init(void)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | (1u << 11));
	lapic_write(LAPIC_SVR, 0x100 | IRQ_SPURIOUS);
	lapic_write(LAPIC_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LINT1, LVT_MASKED);
	lapic_write(LAPIC_TIMER, LVT_MASKED);
	lapic_write(LAPIC_ERROR, LVT_MASKED);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_EOI, 0);
	lapic_write(LAPIC_TPR, 0);
}

void lapic_eoi(void)
{
	*lapic_reg(LAPIC_EOI) = 0;
}

/* Counts LAPIC timer ticks (divide by 16) over 10 ms of TSC time. */
static uint32_t calibrate_timer(void)
{
	lapic_write(LAPIC_TDCR, 0x3);
	lapic_write(LAPIC_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TICR, 0xffffffff);
	udelay(10000);
	uint32_t elapsed = 0xffffffff - lapic_read(LAPIC_TCCR);
	lapic_write(LAPIC_TICR, 0);
	return elapsed * 100 / TIMER_HZ;
}

/* Starts this CPU's periodic timer on vector IRQ_TIMER. */
void lapic_timer_start(void)
{
	if (!timer_count) {
		timer_count = calibrate_timer();
		printk(KERN_INFO "apic: timer %u ticks per %u Hz period\n",
		       timer_count, TIMER_HZ);
	}
	lapic_write(LAPIC_TDCR, 0x3);
	lapic_write(LAPIC_TIMER, TIMER_PERIODIC | IRQ_TIMER);
	lapic_write(LAPIC_TICR, timer_count);
}

static void icr_send(uint32_t apic_id, uint32_t lo)
{
	uint64_t flags = arch_irq_save();

	lapic_write(LAPIC_ICRHI, apic_id << 24);
	lapic_write(LAPIC_ICRLO, lo);
	while (lapic_read(LAPIC_ICRLO) & ICR_PENDING)
		arch_pause();
	arch_irq_restore(flags);
}

void lapic_send_init(uint32_t apic_id)
{
	icr_send(apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
	udelay(200);
	icr_send(apic_id, ICR_INIT | ICR_LEVEL);
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	icr_send(apic_id, ICR_STARTUP | page);
}

/* Sends vector to the CPU with the given core id. */
void arch_send_ipi(uint32_t coreid, uint8_t vector)
{
	icr_send(per_cpu_info[coreid].apic_id, vector);
}

/* Sends vector to every CPU but this one. */
void arch_send_ipi_others(uint8_t vector)
{
	icr_send(0, ICR_OTHERS | vector);
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	volatile uint32_t *base = KADDR(acpi.ioapic_phys);

	base[0] = reg;
	base[4] = v;
}

/* Masks every IOAPIC input. Boot CPU. */
void ioapic_init(void)
{
	for (uint32_t i = 0; i < 24; i++)
		ioapic_write(0x10 + 2 * i, LVT_MASKED);
}

/* Routes ISA irq (after ACPI overrides) to vector on the CPU dest_apic. */
void ioapic_route(uint32_t isa_irq, uint8_t vector, uint32_t dest_apic)
{
	uint32_t gsi = acpi.isa_gsi[isa_irq] - acpi.ioapic_gsi_base;
	uint16_t fl = acpi.isa_flags[isa_irq];
	uint32_t lo = vector;

	if ((fl & 3) == 3)
		lo |= 1u << 13;		/* active low */
	if (((fl >> 2) & 3) == 3)
		lo |= 1u << 15;		/* level triggered */
	ioapic_write(0x10 + 2 * gsi + 1, dest_apic << 24);
	ioapic_write(0x10 + 2 * gsi, lo);
}
