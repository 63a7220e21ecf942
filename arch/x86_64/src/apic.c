/*
 * Local APIC and IOAPIC. Every CPU runs lapic_init(); the BSP also routes
 * the ISA interrupts it uses (COM1) through the IOAPIC to itself. The LAPIC
 * timer is one-shot, armed by the scheduler for a TSC deadline
 * (arch_timer_set): in TSC-deadline mode where the CPU has it (CPUID.1
 * ECX bit 24), the deadline written to IA32_TSC_DEADLINE as is; else in
 * one-shot count mode, the time to the deadline converted at the rate
 * calibrated once against the TSC (whose frequency tsc_init() already
 * knows) and reused on every CPU.
 */
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <smp.h>
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
#define TIMER_TSC_DEADLINE	0x00040000
#define MSR_TSC_DEADLINE	0x6e0

static bool tsc_deadline;		/* the timer runs in TSC-deadline mode */
static uint64_t count_per_tsc_q32;	/* one-shot count: LAPIC ticks per TSC
					   tick, times 2^32 */

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
	return elapsed;
}

/* Sets this CPU's timer up one-shot on vector IRQ_TIMER, unarmed. The
 * first CPU chooses the mode (and calibrates the count mode's rate). */
void lapic_timer_start(void)
{
	if (!tsc_deadline && !count_per_tsc_q32) {
		uint32_t a, b, c, d;

		cpuid(1, 0, &a, &b, &c, &d);
		tsc_deadline = c & (1u << 24);
		if (tsc_deadline) {
			printk(KERN_INFO "apic: one-shot timer, TSC-deadline "
			       "mode\n");
		} else {
			uint32_t per_10ms = calibrate_timer();

			count_per_tsc_q32 = ((uint64_t)per_10ms << 32) /
					    (tsc_freq_hz / 100);
			printk(KERN_INFO "apic: one-shot timer, count mode, %u "
			       "ticks per 10 ms\n", per_10ms);
		}
	}
	lapic_write(LAPIC_TDCR, 0x3);
	lapic_write(LAPIC_TIMER, (tsc_deadline ? TIMER_TSC_DEADLINE : 0) |
		    IRQ_TIMER);
}

/* Arms this CPU's timer to interrupt at its TSC deadline (at once if that
 * has passed), or disarms it (deadline 0). Interrupts off. */
void arch_timer_set(uint64_t deadline)
{
	uint64_t now, count;

	if (tsc_deadline) {
		wrmsr(MSR_TSC_DEADLINE, deadline);
		return;
	}
	if (!deadline) {
		lapic_write(LAPIC_TICR, 0);
		return;
	}
	now = arch_read_tsc();
	count = deadline > now ? (uint64_t)(((unsigned __int128)(deadline - now) *
					     count_per_tsc_q32) >> 32) : 0;
	lapic_write(LAPIC_TICR, (uint32_t)MIN(MAX(count, 1), 0xffffffffull));
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
