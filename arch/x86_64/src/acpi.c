/*
 * ACPI table discovery: RSDP (BIOS areas) -> RSDT or XSDT -> MADT and FADT.
 * Only what the kernel needs is kept, in `acpi`. Every table's checksum is
 * verified; a bad or missing MADT falls back to one CPU with the standard
 * APIC addresses, so the kernel still boots on odd firmware.
 */
#include <arch/acpi.h>
#include <arch/mmu.h>
#include <printk.h>
#include <string.h>

struct acpi_info acpi;

struct sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

struct rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t xchecksum, reserved[3];
} __attribute__((packed));

static bool checksum_ok(const void *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

static const struct rsdp *scan_rsdp(uint64_t start, uint64_t end)
{
	for (uint64_t pa = start; pa < end; pa += 16) {
		const struct rsdp *r = KADDR(pa);

		if (!memcmp(r->sig, "RSD PTR ", 8) && checksum_ok(r, 20))
			return r;
	}
	return NULL;
}

static const struct rsdp *find_rsdp(void)
{
	uint64_t ebda = (uint64_t)*(const uint16_t *)KADDR(0x40e) << 4;
	const struct rsdp *r = NULL;

	if (ebda)
		r = scan_rsdp(ebda, ebda + 1024);
	return r ? r : scan_rsdp(0xe0000, 0x100000);
}

/* Returns the table with signature sig from the RSDT/XSDT, or NULL. */
static const struct sdt_header *find_table(const struct rsdp *r, const char *sig)
{
	bool x = r->revision >= 2 && r->xsdt;
	const struct sdt_header *root = KADDR(x ? r->xsdt : r->rsdt);
	size_t esize = x ? 8 : 4;

	if (!checksum_ok(root, root->length))
		return NULL;
	size_t n = (root->length - sizeof(*root)) / esize;
	const uint8_t *ents = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t pa = 0;

		memcpy(&pa, ents + i * esize, esize);
		const struct sdt_header *t = KADDR(pa);
		if (!memcmp(t->sig, sig, 4) && checksum_ok(t, t->length))
			return t;
	}
	return NULL;
}

static void madt_entry(const uint8_t *e)
{
	switch (e[0]) {
	case 0:		/* processor local APIC: acpi id, apic id, flags */
		if ((e[4] & 1) && acpi.ncpus < ACPI_MAX_CPUS)
			acpi.apic_ids[acpi.ncpus++] = e[3];
		break;
	case 1:		/* IOAPIC: id, reserved, address, GSI base */
		if (!acpi.ioapic_phys) {
			memcpy(&acpi.ioapic_phys, e + 4, 4);
			memcpy(&acpi.ioapic_gsi_base, e + 8, 4);
		}
		break;
	case 2:		/* interrupt source override: bus, irq, gsi, flags */
		if (e[3] < 16) {
			memcpy(&acpi.isa_gsi[e[3]], e + 4, 4);
			memcpy(&acpi.isa_flags[e[3]], e + 8, 2);
		}
		break;
	}
}

static void parse_madt(const struct sdt_header *madt)
{
	const uint8_t *p = (const uint8_t *)madt + sizeof(*madt) + 8;
	const uint8_t *end = (const uint8_t *)madt + madt->length;
	uint32_t lapic;

	memcpy(&lapic, (const uint8_t *)madt + sizeof(*madt), 4);
	acpi.lapic_phys = lapic;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		madt_entry(p);
		p += p[1];
	}
}

/* Finds \_S5's first package element in the DSDT AML: the SLP_TYPa value
 * for soft-off. A byte scan, as every small kernel does, rather than an AML
 * interpreter. */
static void parse_s5(const struct sdt_header *dsdt)
{
	const uint8_t *p = (const uint8_t *)(dsdt + 1);
	const uint8_t *end = (const uint8_t *)dsdt + dsdt->length;

	for (; p + 8 < end; p++) {
		if (memcmp(p, "_S5_", 4) || p[4] != 0x12)
			continue;
		p += 5;			/* PackageOp */
		p += ((*p & 0xc0) >> 6) + 2;	/* PkgLength, NumElements */
		if (*p == 0x0a)		/* BytePrefix */
			p++;
		acpi.slp_typa = (uint16_t)(*p << 10);
		return;
	}
}

static void parse_fadt(const struct sdt_header *fadt)
{
	uint32_t dsdt, pm1a;

	memcpy(&dsdt, (const uint8_t *)fadt + 40, 4);
	memcpy(&pm1a, (const uint8_t *)fadt + 64, 4);
	acpi.pm1a_cnt = (uint16_t)pm1a;
	if (dsdt)
		parse_s5(KADDR(dsdt));
}

/* Reads the ACPI tables into `acpi`. Boot CPU, after mmu_init. */
void acpi_init(void)
{
	const struct rsdp *r = find_rsdp();
	const struct sdt_header *t;

	for (int i = 0; i < 16; i++)
		acpi.isa_gsi[i] = i;
	acpi.lapic_phys = 0xfee00000;
	acpi.ioapic_phys = 0xfec00000;
	if (r && (t = find_table(r, "APIC")))
		parse_madt(t);
	if (r && (t = find_table(r, "FACP")))
		parse_fadt(t);
	if (!acpi.ncpus) {
		printk(KERN_WARN "acpi: no MADT, assuming one CPU\n");
		acpi.apic_ids[acpi.ncpus++] = 0;
	}
	printk(KERN_INFO "acpi: %u CPUs, LAPIC %lx, IOAPIC %lx (GSI %u), "
	       "PM1a_CNT %x, S5 type %u\n", acpi.ncpus, acpi.lapic_phys,
	       acpi.ioapic_phys, acpi.ioapic_gsi_base, acpi.pm1a_cnt,
	       acpi.slp_typa >> 10);
}
