/*
 * The trace that survives a crash: the persistent area
 * (kern/trace/lib/ttrace_lastboot.h) and the last boot's trace file
 * (/dev/ttrace/lastboot, docs/ttrace-device.md).
 *
 * The area is CONFIG_TTRACE_LASTBOOT_KB of physical memory at
 * CONFIG_TTRACE_LASTBOOT_PADDR, the same every boot, kept from the page
 * allocator (ttrace_persist_range()). A warm reset (QEMU system_reset, a
 * triple fault, a panic with ttrace.reboot_on_panic) keeps RAM, and the
 * loader and the early kernel write nothing there (pmem_boot_spares()
 * checks it is above the kernel, its modules and the allocator's
 * metadata), so what the tracer kept there is still there at the next
 * boot.
 *
 * What it keeps: ttrace_main itself (its ring and aux descriptors with
 * their heads and counters) lives in a control block of the area from
 * kmain's first lines (ttrace_lastboot_claim()), beside copies of the
 * metadata and the scalars a trace file needs and a root record naming
 * all of it by physical address (root.c's, rewritten with the live one:
 * ttrace_lastboot_sync()); the rings' and the aux buffer's memory comes
 * from the area's pool (ttrace_mem_alloc()). Tracepoints pay nothing:
 * they write the same rings through the same pointers.
 *
 * Keeping the previous boot's trace apart. The control block alternates:
 * each boot claims the one the previous boot did not use, because
 * ttrace_main is needed from kmain's first lines, long before anything
 * could hold a copy. The pool is copied: at ttrace_init(), before any
 * ring or aux memory is handed out, the previous block and the used part
 * of the pool are copied into ordinary pages, checked (the header's CRC,
 * the root record's generation and CRC, and pull.c's checks of every
 * region and descriptor), and written once through the one trace-file
 * writer (ttrace_image_write()) into the bytes the lastboot file serves;
 * the copies are freed. Copying costs a boot that follows a crash the
 * pool's used bytes once, where alternating pools would cost the area's
 * size twice on every boot. Slots a CPU was writing, and slots spoiled
 * in memory, fail the rings' sequence check and are declared lost (in
 * flight), as in any trace file.
 *
 * Whose trace it is. Each boot stamps its number into the header from
 * kmain's first lines (ttrace_lastboot_claim()), the previous trace still
 * named there; a boot that resets before ttrace_init() takes the area
 * over leaves that trace stamped as older than the last boot, and the
 * next boot does not serve it (ttrace_lastboot.h).
 */
#include <cmdline.h>
#include <init.h>
#include <multiboot.h>
#include <pmem.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <ttrace_lastboot.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "internal.h"

#define AREA_PADDR	((uint64_t)CONFIG_TTRACE_LASTBOOT_PADDR)
#define AREA_BYTES	((uint64_t)CONFIG_TTRACE_LASTBOOT_KB * 1024)
#define META_MAX	TTRACE_META_BLOB_MAX	/* the metadata's copy */
#define SCRATCH_ORDER	2		/* the writer's entries: 16 KiB */

/* One control block: the root record first (where
 * ttrace_lastboot_build() looks), then what it names. */
struct lastboot_cb {
	struct ttrace_kernel_root root;
	uint32_t num_cpus;
	uint32_t meta_size;
	uint64_t tsc_hz;
	uint64_t tsc_boot;
	int64_t tsc_offset[CONFIG_MAX_NUM_CPUS];
	uint64_t tsc_uncertainty[CONFIG_MAX_NUM_CPUS];
	struct ttrace t __attribute__((aligned(64)));
	uint8_t meta[META_MAX] __attribute__((aligned(64)));
};

#define CB_BYTES	ROUNDUP(sizeof(struct lastboot_cb), PGSIZE)

/* Copies of the area are page aligned: each region's bytes in them are
 * then as aligned as its paddr, which ttrace_root_check() checks. */
static_assert(AREA_PADDR % PGSIZE == 0, "the persistent area is page aligned");
static_assert(AREA_BYTES == 0 ||
	      AREA_BYTES > TTRACE_LASTBOOT_HDR_BYTES + 2 * CB_BYTES,
	      "the persistent area holds its header and control blocks");

static struct {
	struct ttrace_lastboot_hdr *hdr;	/* NULL: no area */
	struct lastboot_cb *cb;		/* this boot's control block */
	uint32_t slot;			/* which one it is */
	struct ttrace_root_src src;	/* cb's scalars and metadata */
	uint8_t *pool;
	uint64_t pool_size;
	bool owned;			/* hdr names cb: the pool is ours */
	struct ttrace_lastboot_hdr prev; /* the previous boot's, if prev_ok */
	bool prev_ok;
	uint64_t boot;			/* this boot's number (1, 2...) */
	const char *why;		/* no area, or no previous header */
	uint8_t *file;			/* the lastboot file, or NULL */
	size_t file_len;
	unsigned file_order;
} lb;

/* The header this kernel writes, but for slot, pool_used, boot_id,
 * last_boot, crc. */
static struct ttrace_lastboot_hdr layout(void)
{
	return (struct ttrace_lastboot_hdr){
		.magic = TTRACE_LASTBOOT_MAGIC,
		.version = TTRACE_LASTBOOT_VERSION,
		.paddr = AREA_PADDR, .size = AREA_BYTES, .cb_size = CB_BYTES,
	};
}

/* Makes cb's root record empty (odd generation until the first sync)
 * and src point at cb's copies. */
static void cb_init(struct lastboot_cb *cb)
{
	cb->root.hdr = (struct ttrace_root){
		.magic = TTRACE_ROOT_MAGIC, .version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE, .generation = 1,
		.max_regions = TTRACE_ROOT_NREGIONS,
		.ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux),
		.event_count = TTRACE_NUM_EVENTS,
	};
	lb.src = (struct ttrace_root_src){
		.meta = cb->meta, .meta_size = &cb->meta_size,
		.num_cpus = &cb->num_cpus, .tsc_hz = &cb->tsc_hz,
		.tsc_boot = &cb->tsc_boot, .tsc_offset = cb->tsc_offset,
		.tsc_uncertainty = cb->tsc_uncertainty,
	};
}

/* Rewrites the header: slot, pool_used and boot_id as given, last_boot
 * this boot. Boot CPU or ctl mutex. */
static void hdr_write(uint32_t slot, uint64_t pool_used, uint64_t boot_id)
{
	struct ttrace_lastboot_hdr h = layout();

	h.slot = slot;
	h.pool_used = pool_used;
	h.boot_id = boot_id;
	h.last_boot = lb.boot;
	h.crc = ttrace_lastboot_crc(&h);
	*lb.hdr = h;
}

/*
 * Finds the area and returns where ttrace_main is to live: a zeroed
 * struct ttrace in the control block the previous boot did not use, or
 * fallback when there is no area. Notes the previous boot's header and
 * stamps this boot's number into it (ttrace_lastboot.h, "Whose trace it
 * is"). Boot CPU, from ttrace_early_init(), boot_mbi set, nothing
 * traced yet.
 */
struct ttrace *ttrace_lastboot_claim(struct ttrace *fallback)
{
	struct ttrace_lastboot_hdr want = layout();

	if (!AREA_BYTES || !boot_mbi ||
	    !pmem_boot_spares(boot_mbi, AREA_PADDR, AREA_PADDR + AREA_BYTES))
		return lb.why = "no persistent area (no spare memory at "
				"CONFIG_TTRACE_LASTBOOT_PADDR)", fallback;
	lb.hdr = KADDR(AREA_PADDR);
	if (!ttrace_lastboot_hdr_check(lb.hdr, sizeof(*lb.hdr), &want,
				       &lb.why)) {
		lb.prev = *lb.hdr;
		lb.prev_ok = true;
		lb.slot = !lb.prev.slot;
	}
	/* this boot's number, stamped now: a reset before ttrace_init()
	 * must not leave the previous trace passing for the last boot's */
	lb.boot = lb.prev_ok ? lb.prev.last_boot + 1 : 1;
	if (lb.prev_ok)
		hdr_write(lb.prev.slot, lb.prev.pool_used, lb.prev.boot_id);
	else
		hdr_write(0, 0, 0);
	lb.cb = KADDR(AREA_PADDR + TTRACE_LASTBOOT_HDR_BYTES +
		      lb.slot * CB_BYTES);
	memset(lb.cb, 0, offsetof(struct lastboot_cb, meta));	/* meta: copied */
	cb_init(lb.cb);
	lb.pool = KADDR(AREA_PADDR + TTRACE_LASTBOOT_HDR_BYTES + 2 * CB_BYTES);
	lb.pool_size = AREA_BYTES - TTRACE_LASTBOOT_HDR_BYTES - 2 * CB_BYTES;
	return &lb.cb->t;
}

/* The area's physical range, for the page allocator to leave alone. */
bool ttrace_persist_range(uint64_t *start, uint64_t *end)
{
	if (!lb.hdr)
		return false;
	*start = AREA_PADDR;
	*end = AREA_PADDR + AREA_BYTES;
	return true;
}

/* Copies the area's root record's scalars from the kernel's and
 * republishes it; t must be ttrace_main. After ttrace_root_end(). */
void ttrace_lastboot_sync(struct ttrace *t)
{
	struct lastboot_cb *cb = lb.cb;
	const uint8_t *meta;
	uint32_t size;

	if (!cb || t != &cb->t)
		return;
	ttrace_root_begin_of(&cb->root);
	cb->num_cpus = num_cpus;
	cb->tsc_hz = tsc_freq_hz;
	cb->tsc_boot = tsc_at_boot;
	memcpy(cb->tsc_offset, tsc_offset, sizeof(cb->tsc_offset));
	memcpy(cb->tsc_uncertainty, tsc_offset_uncertainty,
	       sizeof(cb->tsc_uncertainty));
	meta = ttrace_meta_blob_now(&size);
	cb->meta_size = MIN(size, (uint32_t)META_MAX);	/* == size */
	memcpy(cb->meta, meta, cb->meta_size);
	ttrace_root_end_of(&cb->root, t, &lb.src);
}

/* Every CPU is up, the TSC is known: the area's scalars are final. Boot
 * CPU, after smp_boot(). */
void ttrace_boot_done(void)
{
	ttrace_lastboot_sync(&ttrace_main);
}

/* 2^order pages for t's rings or aux: from the pool for ttrace_main once
 * it owns the area, else from the page allocator. Not cleared, as the
 * allocator's are not: trace_ring_init() marks every slot unwritten, so
 * no slot of the previous boot (same indices, same seq) passes for one
 * of this boot's, and aux readers see only bytes written first. */
void *ttrace_mem_alloc(struct ttrace *t, unsigned order)
{
	uint64_t bytes = (uint64_t)PGSIZE << order, used;
	void *mem;

	if (!lb.owned || t != &lb.cb->t ||
	    lb.pool_size - lb.hdr->pool_used < bytes)
		return get_cont_pages(order, 0);
	used = lb.hdr->pool_used;
	mem = lb.pool + used;
	hdr_write(lb.hdr->slot, used + bytes, lb.hdr->boot_id);
	return mem;
}

/* Frees memory from ttrace_mem_alloc(); the pool's is handed out once per
 * boot and stays (a resize takes ordinary pages). */
void ttrace_mem_free(void *mem, unsigned order)
{
	if (lb.owned && (uint8_t *)mem >= lb.pool &&
	    (uint8_t *)mem < lb.pool + lb.pool_size)
		return;
	free_cont_pages(mem, order);
}

/* A writer into lb.file (or only counting, file NULL). */
struct file_out {
	uint8_t *buf;
	size_t len, max;
};

static int file_put(void *arg, const void *buf, uint64_t len)
{
	struct file_out *o = arg;

	if (o->buf && len > o->max - o->len)
		return -1;
	if (o->buf)
		memcpy(o->buf + o->len, buf, len);
	o->len += len;
	return 0;
}

/* Writes img as the lastboot file: once to count, once into pages.
 * Returns NULL or why not. */
static const char *write_file(const struct ttrace_image *img)
{
	struct ttrace_entry *scratch = get_cont_pages(SCRATCH_ORDER, 0);
	size_t max = ((size_t)PGSIZE << SCRATCH_ORDER) / sizeof(*scratch);
	struct file_out o = { 0 };
	struct ttrace_file_writer w;
	const char *why = NULL;

	if (!scratch)
		return "out of memory";
	ttrace_file_writer_init(&w, file_put, &o);
	ttrace_image_write(&w, img, scratch, max);
	lb.file_order = ttrace_order_for(o.len);
	if (((size_t)PGSIZE << lb.file_order) < o.len ||
	    !(lb.file = get_cont_pages(lb.file_order, 0)))
		why = "out of memory for the file";
	else {
		o = (struct file_out){ .buf = lb.file,
				       .max = (size_t)PGSIZE << lb.file_order };
		ttrace_file_writer_init(&w, file_put, &o);
		if (ttrace_image_write(&w, img, scratch, max))
			why = "the trace file could not be written";
		lb.file_len = o.len;
	}
	free_cont_pages(scratch, SCRATCH_ORDER);
	return why;
}

/* Checks the copies of the previous boot's control block and pool, and
 * makes the lastboot file of them. Returns NULL or why not. */
static const char *keep_copies(const void *cb, const void *pool)
{
	static struct ttrace_pull_dump dumps[TTRACE_ROOT_MAX_REGIONS];
	static struct trace_ring rings[CONFIG_MAX_NUM_CPUS];
	static struct ttrace_pull_cpu cpus[CONFIG_MAX_NUM_CPUS];
	static struct ttrace_file_tsc tsc[CONFIG_MAX_NUM_CPUS];
	static struct ttrace_pull p = { .rings = rings, .cpus = cpus,
					.tsc = tsc,
					.max_cpus = CONFIG_MAX_NUM_CPUS };
	const char *why;

	if (ttrace_lastboot_build(&lb.prev, cb, pool, dumps, &p, &why) < 0)
		return why;
	return write_file(&p.img);
}

/* Copies the previous boot's control block and used pool aside and makes
 * the lastboot file of them. Returns NULL or why not. */
static const char *keep_prev(void)
{
	const struct ttrace_lastboot_hdr *h = &lb.prev;
	unsigned cb_order = ttrace_order_for(CB_BYTES);
	unsigned pool_order = ttrace_order_for(h->pool_used);
	void *cb = get_cont_pages(cb_order, 0);
	void *pool = get_cont_pages(pool_order, 0);
	const char *why = "out of memory for its copy";

	if (cb && pool && ((size_t)PGSIZE << pool_order) >= h->pool_used) {
		memcpy(cb, (uint8_t *)lb.hdr + ttrace_lastboot_cb_off(h, h->slot),
		       CB_BYTES);
		memcpy(pool, lb.pool, h->pool_used);
		why = keep_copies(cb, pool);
	}
	if (cb)
		free_cont_pages(cb, cb_order);
	if (pool)
		free_cont_pages(pool, pool_order);
	return why;
}

/*
 * Keeps the previous boot's trace (the lastboot file), then makes the
 * area this boot's: the header names this boot's control block and the
 * pool is handed out from its start. Boot CPU, from ttrace_init(), after
 * the page allocator, before any ring or aux memory is taken.
 */
void ttrace_lastboot_take(void)
{
	const char *why = lb.why;

	if (!lb.hdr) {
		printk(KERN_INFO "ttrace: last boot: none: %s\n", why);
		return;
	}
	if (lb.prev_ok)
		why = keep_prev();
	if (why && lb.prev_ok)
		printk(KERN_INFO "ttrace: last boot %lu: none kept: %s (the "
		       "area's trace: boot %lu's)\n", lb.prev.last_boot, why,
		       lb.prev.boot_id);
	else if (why)
		printk(KERN_INFO "ttrace: last boot: none kept: %s\n", why);
	else
		printk(KERN_INFO "ttrace: last boot %lu: its trace is "
		       "/dev/ttrace/lastboot (%zu bytes)\n", lb.prev.boot_id,
		       lb.file_len);
	hdr_write(lb.slot, 0, lb.boot);
	lb.owned = true;
	printk(KERN_INFO "ttrace: this is boot %lu; its trace is kept in %lu "
	       "KiB at %#lx for the next boot\n", lb.boot, AREA_BYTES / 1024,
	       AREA_PADDR);
}

/* The lastboot file's bytes: empty when there is no last boot's trace. */
const uint8_t *ttrace_lastboot_bytes(size_t *len)
{
	*len = lb.file_len;
	return lb.file;
}

/* Whether slot idx of r holds the whole of an intact one-slot event. */
static bool one_slot_event(struct trace_ring *r, uint64_t idx)
{
	const struct ttrace_entry *e = trace_ring_slot(r, idx);

	return ttrace_ts_valid(e->timestamp) && !ttrace_ts_is_cont(e->timestamp) &&
	       TTRACE_TYPE_SEQ(e->type) == TTRACE_SEQ_OF(idx) &&
	       !TTRACE_TYPE_NCONT(e->type);
}

/*
 * Spoils one slot of this CPU's ring, as memory damage would: the newest
 * one-slot event at least two slots below the head (so records follow it)
 * is overwritten with a byte pattern; says which on the console. Returns
 * NULL or why not.
 */
static const char *corrupt_slot(struct ttrace *t)
{
	uint64_t irq = arch_irq_save();
	uint32_t cpu = core_id();
	struct trace_ring *r = &t->rings[cpu];
	uint64_t head = trace_ring_head(r);
	uint64_t lo = MAX(r->start, head > r->mask ? head - r->mask : 0);
	uint64_t idx = head < 2 ? 0 : head - 2;

	while (idx > lo && !one_slot_event(r, idx))
		idx--;
	if (head < 2 || idx < lo || !one_slot_event(r, idx)) {
		arch_irq_restore(irq);
		return "crash corrupt: no one-slot event on this CPU's ring";
	}
	memset(trace_ring_slot(r, idx), 0x5a, sizeof(struct ttrace_entry));
	arch_irq_restore(irq);
	printk(KERN_WARN "ttrace: crash corrupt: cpu %u slot %lu spoiled\n",
	       cpu, idx);
	return NULL;
}

/* ctl crash (a panic) or crash corrupt, refused without
 * ttrace.crashtest. ctl mutex held. */
const char *ttrace_lastboot_crash(struct ttrace *t, uint32_t what)
{
	if (!cmdline_has(boot_cmdline, "ttrace.crashtest"))
		return "crash: only with ttrace.crashtest on the command line";
	if (what == TTRACE_CRASH_PANIC)
		panic("ttrace: ctl crash: on purpose (ttrace.crashtest)");
	return corrupt_slot(t);
}
