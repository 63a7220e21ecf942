/*
 * Host tests of the last boot's trace (kern/trace/lib/lastboot.c): a
 * persistent area in this process, laid out as kern/trace/lastboot.c lays
 * out the kernel's (a header, two control blocks, a pool), with a
 * two-CPU trace in it: rings and aux in the pool, descriptors, scalars,
 * metadata and a root record naming them by "physical" address in the
 * control block. The next boot's steps follow: the header checked, the
 * block and the pool's used part copied, the copies checked and rebuilt,
 * written as a trace file and loaded back with tools/load/ttload.c.
 * Then damage: a spoiled slot (declared lost, exactly), random bytes in
 * the header, the control block and the pool (refused or declared lost,
 * never a crash), a region outside the area, another layout; root
 * records no kernel writes (misaligned, overlapping, wrapping, out of
 * the area) refused before anything reads through them; a trace older
 * than the last boot (which reset before its tracer started) refused.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"

#include <ttrace_lastboot.h>

#include "httrace.h"

#define NCPU		2
#define NENT		64
#define AUX_SIZE	4096
#define NREG		(9 + 2 * NCPU)
#define PADDR		0x4000000ULL
#define CB_SIZE		16384ULL
#define AREA_SIZE	(TTRACE_LASTBOOT_HDR_BYTES + 2 * CB_SIZE + 65536)
#define SLOT		1		/* the block the trace is in */

/* A control block as the kernel's: the root record first. */
struct cb {
	struct ttrace_root root;
	struct ttrace_root_region r[NREG];
	uint32_t num_cpus;
	uint64_t tsc_hz, tsc_boot, mask;
	int64_t off[NCPU];
	uint64_t unc[NCPU];
	struct trace_ring rings[NCPU];
	struct ttrace_aux aux;
	uint8_t meta[1024];
};

static uint8_t *area;			/* AREA_SIZE bytes, 4096-aligned */
static struct ttrace_lastboot_hdr *hdr;
static struct cb *cb;
static uint8_t *pool;

/* The rebuilt tracer and what it needs. */
static struct ttrace_pull_dump dumps[TTRACE_ROOT_MAX_REGIONS];
static struct trace_ring rings[NCPU];
static struct ttrace_pull_cpu cpus[NCPU];
static struct ttrace_file_tsc tsc[NCPU];
static struct ttrace_pull pull;

static const struct ttrace_lastboot_hdr expect = {
	.paddr = PADDR, .size = AREA_SIZE, .cb_size = CB_SIZE,
};

static uint64_t pa(const void *p)
{
	return PADDR + (uint64_t)((const uint8_t *)p - area);
}

static void add(uint32_t kind, uint32_t cpu, const void *p, uint64_t size)
{
	struct ttrace_root_region *r = &cb->r[cb->root.nregions++];

	*r = (struct ttrace_root_region){ kind, cpu, pa(p), (uintptr_t)p,
					  size };
}

/* The root record and the header, as the kernel publishes them. */
static void publish(void)
{
	cb->root = (struct ttrace_root){ .magic = TTRACE_ROOT_MAGIC,
		.version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE, .generation = 4,
		.max_regions = NREG, .ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux), .event_count = 1 };
	add(TTRACE_ROOT_META, 0, cb->meta,
	    ttrace_meta_serialise(&ht_marker_table, cb->meta, sizeof(cb->meta)));
	add(TTRACE_ROOT_NUM_CPUS, 0, &cb->num_cpus, 4);
	add(TTRACE_ROOT_TSC_HZ, 0, &cb->tsc_hz, 8);
	add(TTRACE_ROOT_TSC_BOOT, 0, &cb->tsc_boot, 8);
	add(TTRACE_ROOT_GROUP_MASK, 0, &cb->mask, 8);
	add(TTRACE_ROOT_TSC_OFFSET, 0, cb->off, sizeof(cb->off));
	add(TTRACE_ROOT_TSC_UNCERTAINTY, 0, cb->unc, sizeof(cb->unc));
	add(TTRACE_ROOT_AUX, 0, &cb->aux, sizeof(cb->aux));
	add(TTRACE_ROOT_AUX_BUF, 0, cb->aux.buf, AUX_SIZE);
	for (uint32_t c = 0; c < NCPU; c++) {
		add(TTRACE_ROOT_RING, c, &cb->rings[c], sizeof(cb->rings[c]));
		add(TTRACE_ROOT_RING_BUF, c, cb->rings[c].entries,
		    NENT * sizeof(struct ttrace_entry));
	}
	cb->root.crc = ttrace_root_crc(&cb->root);
	*hdr = expect;
	hdr->magic = TTRACE_LASTBOOT_MAGIC;
	hdr->version = TTRACE_LASTBOOT_VERSION;
	hdr->slot = SLOT;
	hdr->pool_used = NCPU * NENT * sizeof(struct ttrace_entry) + AUX_SIZE;
	hdr->boot_id = 7;
	hdr->last_boot = 7;
	hdr->crc = ttrace_lastboot_crc(hdr);
}

static void marker(uint32_t cpu, uint64_t ts, uint64_t id, const char *text)
{
	uint64_t pos;

	if (!ttrace_aux_reserve(&cb->aux, TTRACE_AUX_USER_MARKER, cpu,
				strlen(text), &pos)) {
		ttrace_aux_fill(&cb->aux, pos, ts, id, text, strlen(text));
		ttrace_aux_publish(&cb->aux, pos);
	}
	trace_ring_write(&cb->rings[cpu], ts, TTRACE_TYPE(0, TTRACE_CTX_IDLE,
			 0, 0, cpu), 0, id, 0, 0, 0, 0);
}

/* The previous boot: cpu 0 writes 20 markers, the last "last-words";
 * cpu 1 writes 5. */
static void boot_once(void)
{
	size_t ring_bytes = NENT * sizeof(struct ttrace_entry);

	free(area);
	area = aligned_alloc(4096, AREA_SIZE);
	memset(area, 0, AREA_SIZE);
	hdr = (struct ttrace_lastboot_hdr *)area;
	cb = (struct cb *)(area + TTRACE_LASTBOOT_HDR_BYTES + SLOT * CB_SIZE);
	pool = area + TTRACE_LASTBOOT_HDR_BYTES + 2 * CB_SIZE;
	cb->num_cpus = NCPU;
	cb->tsc_hz = 1000000000;
	cb->tsc_boot = 10;
	cb->mask = 1;
	for (uint32_t c = 0; c < NCPU; c++)
		trace_ring_init(&cb->rings[c], pool + c * ring_bytes,
				ring_bytes, TRACE_RING_OVERWRITE);
	ttrace_aux_init(&cb->aux, pool + NCPU * ring_bytes, AUX_SIZE);
	for (int i = 0; i < 20; i++)
		marker(0, 1000 + 10 * i, i, i == 19 ? "last-words" : "m");
	for (int i = 0; i < 5; i++)
		marker(1, 2000 + 10 * i, 100 + i, "cpu1");
	publish();
}

/* The next boot: checks the header, copies the block and the pool's used
 * part (as the kernel's keep_prev()), rebuilds. Returns the build's
 * result (-1 with *why), or -2 when the header is refused. */
static int next_boot(const char **why)
{
	static uint8_t cb_copy[CB_SIZE] __attribute__((aligned(4096)));
	static uint8_t pool_copy[65536] __attribute__((aligned(4096)));
	struct ttrace_lastboot_hdr h;

	if (ttrace_lastboot_hdr_check(area, AREA_SIZE, &expect, why) < 0)
		return -2;
	h = *hdr;
	memcpy(cb_copy, area + ttrace_lastboot_cb_off(&h, h.slot), CB_SIZE);
	memcpy(pool_copy, area + ttrace_lastboot_pool_off(&h), h.pool_used);
	pull = (struct ttrace_pull){ .rings = rings, .cpus = cpus, .tsc = tsc,
				     .max_cpus = NCPU };
	return ttrace_lastboot_build(&h, cb_copy, pool_copy, dumps, &pull, why);
}

/* Writes the rebuilt trace and loads it into t; 0 or -1. */
static int write_and_load(struct ttload *t)
{
	static struct ttrace_entry scratch[32];
	struct ttrace_file_writer w;
	struct ht_membuf m = { 0 };
	struct ttrace_file_error e;
	int r;

	ttrace_file_writer_init(&w, ht_mem_out, &m);
	r = ttrace_image_write(&w, &pull.img, scratch, 32);
	if (!r)
		r = ttload_buffer(t, m.p, m.len, &e);
	free(m.p);
	return r;
}

/* Every index of each CPU a record or a declared loss. */
static int all_accounted(const struct ttload *t)
{
	struct ttload_ring_check rc;

	for (uint32_t c = 0; c < NCPU; c++)
		HT_CHECK(ht_all_accounted(t, c, &rc));
	return 0;
}

static int test_lastboot_intact(void)
{
	const char *why = "";
	struct ttload t;

	boot_once();
	if (next_boot(&why) < 0)
		HT_FAIL("refused: %s", why);
	HT_CHECK(write_and_load(&t) == 0);
	HT_CHECK(all_accounted(&t) == 0);
	HT_CHECK(t.cpus[0].slots == 20 && t.cpus[0].nlosses == 0);
	HT_CHECK(t.cpus[1].slots == 5 && t.cpus[1].nlosses == 0);
	HT_CHECK(ht_count_lines(&t, 0, "user_marker: last-words") == 1);
	HT_CHECK(ht_count_lines(&t, 1, "user_marker: cpu1") == 5);
	ttload_free(&t);
	return 0;
}

static int test_lastboot_spoiled_slot(void)
{
	const char *why = "";
	struct ttload t;

	boot_once();
	memset(trace_ring_slot(&cb->rings[0], 7), 0x5a,
	       sizeof(struct ttrace_entry));
	if (next_boot(&why) < 0)
		HT_FAIL("refused: %s", why);
	HT_CHECK(write_and_load(&t) == 0);
	HT_CHECK(all_accounted(&t) == 0);
	HT_CHECK(t.cpus[0].slots == 19 && t.cpus[0].nlosses == 1);
	HT_CHECK(t.cpus[0].losses[0].first == 7 &&
		 t.cpus[0].losses[0].count == 1);
	HT_CHECK(t.cpus[1].slots == 5 && t.cpus[1].nlosses == 0);
	HT_CHECK(ht_count_lines(&t, 0, "user_marker: last-words") == 1);
	ttload_free(&t);
	return 0;
}

/* Random bytes over [off, off + len) of the area. */
static void scribble(uint64_t *seed, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		area[off + i] = (uint8_t)ht_rand(seed);
}

static int test_lastboot_garbage(void)
{
	uint64_t seed = 22;
	const char *why = "";
	struct ttload t;

	/* a cold boot: zeroes; then random headers, some with the magic */
	boot_once();
	memset(area, 0, TTRACE_LASTBOOT_HDR_BYTES);
	HT_CHECK(next_boot(&why) == -2 && strstr(why, "cold boot"));
	for (int i = 0; i < 2000; i++) {
		scribble(&seed, 0, sizeof(*hdr));
		if (i & 1)
			hdr->magic = TTRACE_LASTBOOT_MAGIC;
		HT_CHECK(next_boot(&why) == -2);
	}
	/* a header that checks over a random control block: refused */
	for (int i = 0; i < 200; i++) {
		boot_once();
		scribble(&seed, ttrace_lastboot_cb_off(hdr, SLOT), CB_SIZE);
		HT_CHECK(next_boot(&why) == -1 && why[0]);
	}
	/* intact descriptors over a random pool: every slot declared lost */
	boot_once();
	scribble(&seed, ttrace_lastboot_pool_off(hdr),
		 NCPU * NENT * sizeof(struct ttrace_entry));
	if (next_boot(&why) < 0)
		HT_FAIL("refused: %s", why);
	HT_CHECK(write_and_load(&t) == 0);
	HT_CHECK(all_accounted(&t) == 0);
	HT_CHECK(t.cpus[0].slots == 0 && t.cpus[1].slots == 0);
	ttload_free(&t);
	return 0;
}

static int test_lastboot_refuses(void)
{
	const char *why = "";
	struct ttrace_lastboot_hdr other = expect;

	boot_once();			/* a ring outside the area */
	cb->r[NREG - 1].paddr = PADDR + AREA_SIZE;
	cb->root.crc = ttrace_root_crc(&cb->root);
	HT_CHECK(next_boot(&why) == -1 && strstr(why, "outside"));
	boot_once();			/* a pool larger than the area */
	hdr->pool_used = AREA_SIZE;
	hdr->crc = ttrace_lastboot_crc(hdr);
	HT_CHECK(next_boot(&why) == -2 && strstr(why, "pool"));
	boot_once();			/* one flipped bit */
	hdr->boot_id ^= 1;
	HT_CHECK(next_boot(&why) == -2 && strstr(why, "CRC"));
	boot_once();			/* another kernel's layout */
	other.cb_size *= 2;
	HT_CHECK(ttrace_lastboot_hdr_check(area, AREA_SIZE, &other, &why) < 0 &&
		 strstr(why, "layout"));
	free(area);
	area = NULL;
	return 0;
}

/* A boot after boot 7 stamps its number (8) from kmain's first lines and
 * resets before its tracer starts: boot 7's trace, intact, is not boot
 * 8's, and the next boot (9) must not serve it as the last boot's. Nor
 * after a second such boot; nor a header that names no trace. */
static int test_lastboot_stale(void)
{
	const char *why = "";

	boot_once();
	hdr->last_boot = 8;
	hdr->crc = ttrace_lastboot_crc(hdr);
	HT_CHECK(next_boot(&why) == -1 && strstr(why, "kept no trace"));
	hdr->last_boot = 9;
	hdr->crc = ttrace_lastboot_crc(hdr);
	HT_CHECK(next_boot(&why) == -1 && strstr(why, "kept no trace"));
	hdr->boot_id = 0;		/* stamped after a cold boot */
	hdr->last_boot = 1;
	hdr->crc = ttrace_lastboot_crc(hdr);
	HT_CHECK(next_boot(&why) == -1 && strstr(why, "kept no trace"));
	hdr->last_boot = 0;		/* no kernel writes this */
	hdr->crc = ttrace_lastboot_crc(hdr);
	HT_CHECK(next_boot(&why) == -1 && strstr(why, "kept no trace"));
	return 0;
}

/* Region kind (of cpu) of the published root record. */
static struct ttrace_root_region *region_of(uint32_t kind, uint32_t cpu)
{
	for (uint32_t i = 0; i < cb->root.nregions; i++)
		if (cb->r[i].kind == kind && cb->r[i].cpu == cpu)
			return &cb->r[i];
	abort();
}

/* Moves region r by delta bytes, in both address spaces. */
static void move_region(struct ttrace_root_region *r, int64_t delta)
{
	r->paddr += (uint64_t)delta;
	r->vaddr += (uint64_t)delta;
}

/* The previous boot once more, with its root record's region (kind, cpu)
 * changed by change and the record sealed again (a valid CRC): hostile,
 * not torn. Returns next_boot()'s result. */
static int hostile(uint32_t kind, uint32_t cpu,
		   void (*change)(struct ttrace_root_region *r),
		   const char **why)
{
	boot_once();
	change(region_of(kind, cpu));
	cb->root.crc = ttrace_root_crc(&cb->root);
	return next_boot(why);
}

/* 4 bytes on: the TSC offsets, read as int64_t */
static void off_by_4(struct ttrace_root_region *r)
{
	move_region(r, 4);
}

/* 8 bytes on: cpu 0's entries, read as 64-byte entries (its descriptor
 * follows, or the record would be refused as torn) */
static void entries_off_by_8(struct ttrace_root_region *r)
{
	move_region(r, 8);
	cb->rings[0].entries = (struct ttrace_entry *)(uintptr_t)r->vaddr;
}

/* cpu 1's entries are cpu 0's */
static void entries_shared(struct ttrace_root_region *r)
{
	*r = *region_of(TTRACE_ROOT_RING_BUF, 0);
	r->cpu = 1;
	cb->rings[1].entries = cb->rings[0].entries;
}

/* the metadata runs past the end of the address space */
static void size_wraps(struct ttrace_root_region *r)
{
	r->size = 0 - r->paddr + 64;
}

/* the metadata before the area, across the other control block's end,
 * after the area */
static void before_area(struct ttrace_root_region *r)
{
	move_region(r, (int64_t)(PADDR - 4096 - r->paddr));
}

static void across_blocks(struct ttrace_root_region *r)
{
	move_region(r, (int64_t)(pa(cb) - 64 - r->paddr));
	r->size = 128;
}

static void after_area(struct ttrace_root_region *r)
{
	move_region(r, (int64_t)(PADDR + AREA_SIZE - r->paddr));
}

/* Root records no kernel writes, each sealed with a valid CRC: refused
 * with a reason, never read (a misaligned read would stop this test:
 * UBSan, no recovery). */
static int test_lastboot_hostile(void)
{
	const char *why = "";

	HT_CHECK(hostile(TTRACE_ROOT_TSC_OFFSET, 0, off_by_4, &why) == -1 &&
		 strstr(why, "aligned"));
	HT_CHECK(hostile(TTRACE_ROOT_RING_BUF, 0, entries_off_by_8, &why) ==
		 -1 && strstr(why, "aligned"));
	HT_CHECK(hostile(TTRACE_ROOT_RING_BUF, 1, entries_shared, &why) == -1 &&
		 strstr(why, "overlap"));
	HT_CHECK(hostile(TTRACE_ROOT_META, 0, size_wraps, &why) == -1 &&
		 strstr(why, "wraps"));
	HT_CHECK(hostile(TTRACE_ROOT_META, 0, before_area, &why) == -1 &&
		 strstr(why, "outside"));
	HT_CHECK(hostile(TTRACE_ROOT_META, 0, across_blocks, &why) == -1 &&
		 strstr(why, "outside"));
	HT_CHECK(hostile(TTRACE_ROOT_META, 0, after_area, &why) == -1 &&
		 strstr(why, "outside"));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_lastboot_intact, "lastboot_intact" },
	{ test_lastboot_spoiled_slot, "lastboot_spoiled_slot" },
	{ test_lastboot_garbage, "lastboot_garbage" },
	{ test_lastboot_refuses, "lastboot_refuses" },
	{ test_lastboot_hostile, "lastboot_hostile" },
	{ test_lastboot_stale, "lastboot_stale" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
