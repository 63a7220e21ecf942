/* Multiboot v1 information structure (the parts we read). */
#ifndef MULTIBOOT_H
#define MULTIBOOT_H

#include <stdint.h>

#define MULTIBOOT_BOOTLOADER_MAGIC	0x2badb002
#define MB_INFO_MEMORY			(1u << 0)
#define MB_INFO_CMDLINE			(1u << 2)
#define MB_INFO_MODS			(1u << 3)
#define MB_INFO_MMAP			(1u << 6)
#define MB_MMAP_AVAILABLE		1

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
} __attribute__((packed));

struct multiboot_mmap_entry {
	uint32_t size;		/* of the rest of the entry */
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

struct multiboot_module {
	uint32_t mod_start, mod_end;
	uint32_t string;
	uint32_t reserved;
} __attribute__((packed));

#endif /* MULTIBOOT_H */
