/*
 * ttrace_lastboot.h: the persistent area, where the tracer keeps its trace
 * so that the next boot can read it after a warm reset (QEMU
 * system_reset, a triple fault, a panic with ttrace.reboot_on_panic): RAM
 * keeps its contents across those, so a fixed physical region that
 * neither the loader nor the early kernel writes survives them. The
 * kernel side is kern/trace/lastboot.c; docs/ttrace-device.md (the
 * lastboot file) says what a user sees.
 *
 * Layout of the area (size bytes at physical address paddr):
 *
 *	[0, 4096)		the header (struct ttrace_lastboot_hdr)
 *	two control blocks	cb_size bytes each, at 4096 + slot * cb_size:
 *				a root record (ttrace_root.h) naming this
 *				boot's trace by physical address, then the
 *				tracer's descriptors, scalars and metadata
 *	the pool		the rest: the rings' and the aux buffer's
 *				memory, handed out in order (pool_used)
 *
 * Each boot writes the control block the previous one did not use, from
 * kmain's first lines, so the previous boot's descriptors survive until
 * the new boot's allocator can hold a copy of them and of the pool
 * (ttrace_init); only then is the header rewritten to name the new block
 * and the pool handed out again. The header's CRC covers the header; the
 * root record has its own generation and CRC; the rings' sequence
 * protocol (trace_ring.h) tells which slots are intact.
 *
 * Whose trace it is. Boots are numbered from the first after a cold boot
 * (1). Each boot stamps its number into last_boot from kmain's first
 * lines, the header otherwise unchanged; boot_id becomes its number only
 * when it takes the area over. So a boot that reset before that (or
 * that could not keep a trace) leaves boot_id < last_boot, and its
 * successor is not served the older trace as the last boot's: a trace
 * is the last boot's only when boot_id == last_boot.
 *
 * Reading the previous boot's trace (pure, so a host test feeds it
 * garbage): ttrace_lastboot_hdr_check() says whether the area holds a
 * header of this layout; ttrace_lastboot_build() checks that its trace is
 * the last boot's, checks the copied control block's root record, maps
 * every region it names onto the copies, and
 * rebuilds the tracer's structures with ttrace_pull_image() (pull.c's
 * checks of sizes, pointers and counters), ready for ttrace_image_write().
 * Anything that does not check is refused with a reason.
 *
 * Usage:
 *	if (ttrace_lastboot_hdr_check(area, 4096, &expect, &why) < 0) none(why);
 *	copy the block h->slot and the pool's first h->pool_used bytes;
 *	if (ttrace_lastboot_build(h, cb, pool, dumps, &p, &why) < 0) none(why);
 *	ttrace_image_write(&w, &p.img, scratch, n);
 */
#ifndef TTRACE_LASTBOOT_H
#define TTRACE_LASTBOOT_H

#include <ttrace_pull.h>

/* "TTLASTB\1" in memory on a little-endian machine. */
#define TTRACE_LASTBOOT_MAGIC	0x01425453414c5454ULL
#define TTRACE_LASTBOOT_VERSION	2
#define TTRACE_LASTBOOT_HDR_BYTES 4096	/* the header's page */

struct ttrace_lastboot_hdr {
	uint64_t magic;			/*  0: TTRACE_LASTBOOT_MAGIC */
	uint32_t version;		/*  8: TTRACE_LASTBOOT_VERSION */
	uint32_t slot;			/* 12: the control block in use: 0, 1 */
	uint64_t paddr;			/* 16: the area's physical address */
	uint64_t size;			/* 24: the area's bytes */
	uint64_t cb_size;		/* 32: one control block's bytes */
	uint64_t pool_used;		/* 40: pool bytes handed out */
	uint64_t boot_id;		/* 48: the boot whose trace the area
					   holds (1, 2...; 0: none) */
	uint64_t last_boot;		/* 56: the newest boot that started */
	uint32_t crc;			/* 64: CRC-32 of the header, crc 0 */
	uint32_t reserved;		/* 68: zero */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_lastboot_hdr) == 72,
		     "lastboot header");

/* Where the area's parts are, from its header. */
static inline uint64_t ttrace_lastboot_cb_off(const struct ttrace_lastboot_hdr *h,
					      uint32_t slot)
{
	return TTRACE_LASTBOOT_HDR_BYTES + slot * h->cb_size;
}

static inline uint64_t ttrace_lastboot_pool_off(const struct ttrace_lastboot_hdr *h)
{
	return TTRACE_LASTBOOT_HDR_BYTES + 2 * h->cb_size;
}

uint32_t ttrace_lastboot_crc(const struct ttrace_lastboot_hdr *h);
int ttrace_lastboot_hdr_check(const void *buf, size_t len,
			      const struct ttrace_lastboot_hdr *expect,
			      const char **why);
int ttrace_lastboot_build(const struct ttrace_lastboot_hdr *h,
			  const void *cb, const void *pool,
			  struct ttrace_pull_dump *dumps, struct ttrace_pull *p,
			  const char **why);

#endif /* TTRACE_LASTBOOT_H */
