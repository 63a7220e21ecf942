/*
 * ttrace_root.h: the root record, a small table in the kernel's .data that
 * tells a host where the trace lives in the guest's PHYSICAL memory, so the
 * trace can be pulled out of a hung guest by the hypervisor with no guest
 * code running (scripts/pull, docs/pull.md). Shared by the kernel, which
 * keeps it current (kern/trace/root.c), and the host, which reads it
 * from a memory dump (kern/trace/lib/pull.c, tools/ttpull.c).
 *
 * Finding it: the kernel symbol `ttrace_root` (nm build/kernel.elf); its
 * physical address is the ELF segment's load address for that symbol
 * (here VA - 0xffffffff80000000). `nm -S` gives its size.
 *
 * Shape: a 64-byte header, then max_regions 32-byte regions, of which the
 * first nregions are used. Each region names one piece of kernel memory by
 * physical address, virtual address and size: the event metadata, a few
 * scalars (CPU count, TSC rate and origin, group mask), the TSC offset
 * arrays, the aux descriptor and buffer, and for every CPU its ring
 * descriptor and entries. The descriptors are the kernel's own struct
 * trace_ring and struct ttrace_aux (kern/include), which the host tools
 * build with the same compiler and headers; the header records their
 * sizes so a mismatch is refused, not misread.
 *
 * Torn reads. The record changes only when trace memory moves (boot,
 * a CPU's ring allocated, ring resize). The kernel makes generation odd
 * before it changes anything (ttrace_root_begin) and even again after
 * (ttrace_root_end), with a CRC-32 over the record. A reader refuses a
 * record with an odd generation or a bad CRC, compares the generation
 * before and after it dumps the regions, and checks that every ring
 * descriptor points at the memory its region names (a resize caught
 * half-way shows as a mismatch).
 *
 * Hostile records. A record may come from a previous boot (the lastboot
 * file) or a damaged dump, so it is refused when a region wraps the
 * address space, overlaps another, or is not aligned as its kind's type
 * needs (ttrace_root_align()): no kernel writes one, and each region's
 * bytes are read through a pointer of that type.
 *
 * Usage (host):
 *	const struct ttrace_root *root;
 *	const char *why;
 *	if (ttrace_root_check(buf, len, &root, &why) < 0) fail(why);
 *	for (uint32_t i = 0; i < root->nregions; i++)
 *		dump(ttrace_root_regions(root)[i].paddr, ...size);
 */
#ifndef TTRACE_ROOT_H
#define TTRACE_ROOT_H

#include <stddef.h>
#include <stdint.h>
#include <ttrace_format.h>

/* "TTROOT\0\1" in memory on a little-endian machine. */
#define TTRACE_ROOT_MAGIC	0x0100544f4f525454ULL
#define TTRACE_ROOT_VERSION	1
#define TTRACE_ROOT_HDR_SIZE	64
#define TTRACE_ROOT_MAX_REGIONS	(16 + 2 * TTRACE_MAX_CPUS)

/* What a region holds. */
enum ttrace_root_kind {
	TTRACE_ROOT_META = 1,		/* the event metadata blob */
	TTRACE_ROOT_NUM_CPUS = 2,	/* u32: CPUs online */
	TTRACE_ROOT_TSC_HZ = 3,		/* u64: TSC ticks per second */
	TTRACE_ROOT_TSC_BOOT = 4,	/* u64: TSC at kmain */
	TTRACE_ROOT_GROUP_MASK = 5,	/* u64: enabled event groups */
	TTRACE_ROOT_TSC_OFFSET = 6,	/* i64 per CPU: TSC minus CPU 0's */
	TTRACE_ROOT_TSC_UNCERTAINTY = 7, /* u64 per CPU */
	TTRACE_ROOT_AUX = 8,		/* struct ttrace_aux */
	TTRACE_ROOT_AUX_BUF = 9,	/* the aux bytes (aux.size) */
	TTRACE_ROOT_RING = 10,		/* cpu: struct trace_ring */
	TTRACE_ROOT_RING_BUF = 11,	/* cpu: its entries ((mask+1) * 64) */
	TTRACE_ROOT_NKINDS = 12,
};

struct ttrace_root_region {
	uint32_t kind;			/*  0: enum ttrace_root_kind */
	uint32_t cpu;			/*  4: RING, RING_BUF: the CPU; else 0 */
	uint64_t paddr;			/*  8: guest physical address */
	uint64_t vaddr;			/* 16: the kernel's pointer to it */
	uint64_t size;			/* 24: bytes */
};

struct ttrace_root {
	uint64_t magic;			/*  0: TTRACE_ROOT_MAGIC */
	uint32_t version;		/*  8: TTRACE_ROOT_VERSION */
	uint32_t header_size;		/* 12: TTRACE_ROOT_HDR_SIZE */
	uint64_t generation;		/* 16: odd while being changed */
	uint32_t nregions;		/* 24: regions in use */
	uint32_t max_regions;		/* 28: regions that follow the header */
	uint32_t ring_desc_size;	/* 32: sizeof(struct trace_ring) */
	uint32_t aux_desc_size;		/* 36: sizeof(struct ttrace_aux) */
	uint32_t event_count;		/* 40: events in the metadata */
	uint32_t crc;			/* 44: CRC-32, see ttrace_root_crc() */
	uint64_t reserved[2];		/* 48: zero */
	/* 64: struct ttrace_root_region[max_regions] */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_root) == TTRACE_ROOT_HDR_SIZE,
		     "root header");
TTRACE_STATIC_ASSERT(sizeof(struct ttrace_root_region) == 32, "root region");
TTRACE_OFFSET_ASSERT(struct ttrace_root, generation, 16);
TTRACE_OFFSET_ASSERT(struct ttrace_root, crc, 44);

/* The regions that follow the header. */
static inline const struct ttrace_root_region *
ttrace_root_regions(const struct ttrace_root *root)
{
	return (const struct ttrace_root_region *)(const void *)(root + 1);
}

uint32_t ttrace_root_crc(const struct ttrace_root *root);
uint64_t ttrace_root_align(uint32_t kind);
int ttrace_root_check(const void *buf, size_t len,
		      const struct ttrace_root **root, const char **why);
const char *ttrace_root_kind_name(uint32_t kind);

#endif /* TTRACE_ROOT_H */
