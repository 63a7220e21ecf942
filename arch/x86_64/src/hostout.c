/*
 * The host channel: a shared-memory window onto a file on the host. QEMU's
 * ivshmem-plain device (PCI 1af4:1110) exposes a host file (scripts/qemu.sh
 * --hostout) as its BAR2; we append bytes to it with plain stores, so a
 * 16 MiB trace crosses at memcpy speed, where a UART or debugcon would make
 * one host write() per byte.
 *
 * Layout of the window (arch/hostout.h, which scripts/hostout.py reads
 * too): a header { magic, length } in the first page, the data from
 * HOSTOUT_DATA_OFFSET. The length is published after the bytes it covers
 * (release), so the host never reads a half-written tail;
 * scripts/hostout.py cuts the data out into the file the user asked for.
 */
#include <arch/arch.h>
#include <arch/hostout.h>
#include <arch/mmu.h>
#include <arch/x86.h>
#include <compiler.h>
#include <string.h>

#define PCI_ADDR	0xcf8
#define PCI_DATA	0xcfc
#define IVSHMEM_VENDOR	0x1af4
#define IVSHMEM_DEVICE	0x1110
static struct hostout_header *window;	/* NULL: no channel */
static uint64_t window_size;

static uint32_t pci_read(uint32_t dev, uint32_t off)
{
	outl(PCI_ADDR, 0x80000000u | dev << 11 | off);
	return inl(PCI_DATA);
}

/* Looks for ivshmem on bus 0 and maps its BAR2. Boot CPU, after mmu_init. */
void arch_hostout_init(void)
{
	for (uint32_t dev = 0; dev < 32; dev++) {
		uint32_t id = pci_read(dev, 0);
		uint64_t bar, size;

		if ((id & 0xffff) != IVSHMEM_VENDOR || id >> 16 != IVSHMEM_DEVICE)
			continue;
		bar = pci_read(dev, 0x18);
		if ((bar & 6) == 4)			/* 64-bit BAR */
			bar |= (uint64_t)pci_read(dev, 0x1c) << 32;
		bar &= ~0xfull;
		outl(PCI_ADDR, 0x80000000u | dev << 11 | 0x18);
		outl(PCI_DATA, 0xffffffff);		/* size probe */
		size = ~(uint64_t)(inl(PCI_DATA) & ~0xfu) + 1;
		outl(PCI_DATA, (uint32_t)bar);
		size &= 0xffffffff;
		if (!bar || size <= HOSTOUT_DATA_OFFSET ||
		    mmu_map_phys(bar, size))
			return;
		window = KADDR(bar);
		window_size = size;
		window->magic = HOSTOUT_MAGIC;
		window->length = 0;
		return;
	}
}

bool arch_hostout_present(void)
{
	return window != NULL;
}

/* Where the next n bytes would go, or NULL when the window has no room
 * for them. Callers serialise with arch_hostout_write(). */
void *arch_hostout_place(size_t n)
{
	uint64_t len = window->length;

	if (n > window_size - HOSTOUT_DATA_OFFSET - len)
		return NULL;
	return (char *)window + HOSTOUT_DATA_OFFSET + len;
}

/* Appends n bytes to the host file; returns false when the window is full.
 * buf may be where they go (made there in place, arch_hostout_place()):
 * then they are only published. Callers serialise (devhost's lock, or the
 * panicking CPU alone). */
bool arch_hostout_write(const void *buf, size_t n)
{
	uint64_t len = window->length;
	char *dst = (char *)window + HOSTOUT_DATA_OFFSET + len;

	if (n > window_size - HOSTOUT_DATA_OFFSET - len)
		return false;
	if (dst != buf)
		memcpy(dst, buf, n);
	__atomic_store_n(&window->length, len + n, __ATOMIC_RELEASE);
	return true;
}
