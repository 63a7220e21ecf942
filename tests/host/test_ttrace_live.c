/*
 * Host tests of the live drain's source (tools/live.c): a "guest RAM"
 * buffer in this process holds a root record, two CPUs' ring
 * descriptors and entries, aux and the scalars at fixed physical
 * addresses, the descriptors holding guest virtual pointers as the
 * kernel's do. A writer in this process plays the guest between the
 * drain's steps: records lapped before the host read them, a resize (the
 * root record's generation odd meanwhile, then the rings in other
 * memory), records after it. The file must load with every index a
 * record or a declared loss, each record the one written at its index.
 * Then hostile RAM: a root record or a region outside it, a corrupt
 * record, a descriptor gone out of shape under the drain.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include "httrace.h"

#include <ttrace_decode.h>
#include "live.h"
#include "ttload.h"

#define NCPU		2
#define NENT		64
#define RAM_SIZE	(1 << 20)
#define VA		0xffff800000000000ULL	/* the guest's direct map */
#define ROOT_PA		0x1000
#define NREG		(9 + 2 * NCPU)
#define ROOT_SIZE	(64 + NREG * 32)
#define META_PA		0x2000
#define SCALAR_PA	0x3000		/* num_cpus, hz, boot, mask, off, unc */
#define AUX_PA		0x3100
#define DESC_PA(c)	(0x3200 + 0x80 * (c))
#define AUX_BUF_PA	0x4000
#define AUX_SIZE	4096
#define BUF_PA(bank, c)	(0x10000 + 0x10000 * (bank) + 0x1000 * (c))
#define MAGIC(c)	(0x5a5a000000ULL * ((c) + 1))

static uint8_t *ram;
static struct trace_ring w[NCPU];	/* the guest's rings, host pointers */
static struct ttrace_aux waux;
static uint64_t ts = 1000;

static void *at(uint64_t pa)
{
	return ram + pa;
}

/* The guest's descriptors in its RAM, with its own pointers. */
static void publish(void)
{
	struct ttrace_aux a = waux;

	for (uint32_t c = 0; c < NCPU; c++) {
		struct trace_ring d = w[c];

		d.entries = (void *)(uintptr_t)(VA + ((uint8_t *)w[c].entries -
						      ram));
		memcpy(at(DESC_PA(c)), &d, sizeof(d));
	}
	a.buf = (void *)(uintptr_t)(VA + AUX_BUF_PA);
	memcpy(at(AUX_PA), &a, sizeof(a));
}

static void region(uint32_t kind, uint32_t cpu, uint64_t pa, uint64_t size)
{
	struct ttrace_root *h = at(ROOT_PA);
	struct ttrace_root_region *r =
		(struct ttrace_root_region *)(h + 1) + h->nregions++;

	*r = (struct ttrace_root_region){ kind, cpu, pa, VA + pa, size };
}

/* The root record as kern/trace/root.c writes it, rings in bank. */
static void make_root(int bank, uint64_t generation)
{
	struct ttrace_root *h = at(ROOT_PA);

	memset(h, 0, ROOT_SIZE);
	*h = (struct ttrace_root){ .magic = TTRACE_ROOT_MAGIC,
		.version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE, .generation = generation,
		.max_regions = NREG, .ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux), .event_count = 1 };
	region(TTRACE_ROOT_META, 0, META_PA, ttrace_meta_serialise(&ht_marker_table,
	       at(META_PA), 0x1000));
	region(TTRACE_ROOT_NUM_CPUS, 0, SCALAR_PA, 4);
	region(TTRACE_ROOT_TSC_HZ, 0, SCALAR_PA + 8, 8);
	region(TTRACE_ROOT_TSC_BOOT, 0, SCALAR_PA + 16, 8);
	region(TTRACE_ROOT_GROUP_MASK, 0, SCALAR_PA + 24, 8);
	region(TTRACE_ROOT_TSC_OFFSET, 0, SCALAR_PA + 64, 8 * NCPU);
	region(TTRACE_ROOT_TSC_UNCERTAINTY, 0, SCALAR_PA + 128, 8 * NCPU);
	region(TTRACE_ROOT_AUX, 0, AUX_PA, sizeof(struct ttrace_aux));
	region(TTRACE_ROOT_AUX_BUF, 0, AUX_BUF_PA, AUX_SIZE);
	for (uint32_t c = 0; c < NCPU; c++) {
		region(TTRACE_ROOT_RING, c, DESC_PA(c), sizeof(struct trace_ring));
		region(TTRACE_ROOT_RING_BUF, c, BUF_PA(bank, c),
		       NENT * sizeof(struct ttrace_entry));
	}
	h->crc = ttrace_root_crc(h);
}

static void make_guest(void)
{
	uint32_t ncpu = NCPU;
	uint64_t hz = 1000000000;

	ram = aligned_alloc(4096, RAM_SIZE);
	memset(ram, 0, RAM_SIZE);
	memcpy(at(SCALAR_PA), &ncpu, 4);
	memcpy(at(SCALAR_PA + 8), &hz, 8);
	ttrace_aux_init(&waux, at(AUX_BUF_PA), AUX_SIZE);
	for (uint32_t c = 0; c < NCPU; c++)
		trace_ring_init(&w[c], at(BUF_PA(0, c)),
				NENT * sizeof(struct ttrace_entry),
				TRACE_RING_OVERWRITE);
	make_root(0, 2);
	publish();
}

/* n events on cpu, each carrying its own index (checked in the file). */
static void write_events(uint32_t cpu, int n)
{
	for (int i = 0; i < n; i++)
		trace_ring_write(&w[cpu], ts += 10, TTRACE_TYPE(0,
				 TTRACE_CTX_IDLE, 0, 0, cpu), 0,
				 w[cpu].head ^ MAGIC(cpu), 0, 0, 0, 0);
	publish();
}

static void put_marker(uint32_t cpu, const char *text)
{
	uint64_t pos;

	if (!ttrace_aux_reserve(&waux, TTRACE_AUX_USER_MARKER, cpu,
				strlen(text), &pos)) {
		ttrace_aux_fill(&waux, pos, ts, 4242, text, strlen(text));
		ttrace_aux_publish(&waux, pos);
	}
	trace_ring_write(&w[cpu], ts += 10, TTRACE_TYPE(0, TTRACE_CTX_IDLE, 0,
			 0, cpu), 0, 4242, 0, 0, 0, 0);
	publish();
}

/* A bufsize: generation odd, every ring replaced (indices go on). */
static void resize_begin(void)
{
	struct ttrace_root *h = at(ROOT_PA);

	h->generation |= 1;
	for (uint32_t c = 0; c < NCPU; c++) {
		uint64_t head = w[c].head;

		trace_ring_init(&w[c], at(BUF_PA(1, c)),
				NENT * sizeof(struct ttrace_entry),
				TRACE_RING_OVERWRITE);
		trace_ring_restart(&w[c], head);
	}
	publish();
}

static void resize_end(void)
{
	make_root(1, ((struct ttrace_root *)at(ROOT_PA))->generation + 1);
}

static uint64_t clock_ns;

static uint64_t fake_now(void)
{
	return clock_ns += 1000000;	/* 1 ms a look */
}

static struct ttlive *new_live(void)
{
	struct ttlive *l = calloc(1, sizeof(*l));

	l->ram = ram;
	l->ram_size = RAM_SIZE;
	l->root_pa = ROOT_PA;
	l->root_size = ROOT_SIZE;
	l->now_ns = fake_now;
	l->want_cpus = NCPU;
	return l;
}

/* Steps g until it waits (or is done); returns the last step. */
static int step_all(struct ttrace_image_gen *g)
{
	int k;

	while ((k = ttrace_image_step(g)) == TTRACE_IMAGE_MORE)
		;
	return k;
}

/* Every record of t carries its own index (write_events), or is the
 * marker: none is stale, torn or another's. */
static int records_true(const struct ttload *t)
{
	for (uint32_t c = 0; c < NCPU; c++)
		for (uint64_t i = 0; i < t->cpus[c].nsorted; i++) {
			const struct ttrace_entry *e = &t->cpus[c].sorted[i];
			uint64_t idx = e->data[0] ^ MAGIC(c);

			if (e->data[0] != 4242 &&
			    TTRACE_SEQ_OF(idx) != TTRACE_TYPE_SEQ(e->type))
				HT_FAIL("cpu %u: record of seq %llu carries "
					"index %llu", c, (unsigned long long)
					TTRACE_TYPE_SEQ(e->type),
					(unsigned long long)idx);
		}
	return 0;
}

static int check_accounted(const struct ttload *t)
{
	struct ttrace_file_error e;
	struct ttload_ring_check rc;

	for (uint32_t c = 0; c < NCPU; c++) {
		uint64_t lost = 0;

		HT_CHECK(ttload_check_ring(t, c, &rc, &e) == 0);
		for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
			lost += t->cpus[c].lost[r];
		HT_CHECK(rc.first_index == 0 && rc.end_index == w[c].head);
		HT_CHECK(t->cpus[c].slots + lost == w[c].head);
	}
	return records_true(t);
}

/* A drain into memory, and the guest it drains. */
struct drain {
	struct ttlive *l;
	struct ttrace_file_writer fw;
	struct ttrace_image_gen g;
	struct ht_membuf m;
	struct ttrace_entry scratch[32];
};

/* A guest with 10 events on cpu 0, attached and read up to its heads. */
static int start_drain(struct drain *d)
{
	memset(d, 0, sizeof(*d));
	make_guest();
	write_events(0, 10);
	d->l = new_live();
	HT_CHECK(ttlive_attach(d->l) == 0);
	ttrace_file_writer_init(&d->fw, ht_mem_out, &d->m);
	ttlive_gen_init(d->l, &d->g, &d->fw, d->scratch, 32);
	HT_CHECK(step_all(&d->g) == TTRACE_IMAGE_WAIT && d->l->records == 10);
	return 0;
}

static int test_live_stream(void)
{
	static struct drain d;
	struct ttlive *l;
	struct ttrace_file_error e;
	struct ttload t;
	int bad;

	HT_CHECK(start_drain(&d) == 0);
	l = d.l;
	write_events(0, 3 * NENT);		/* laps: overwritten before read */
	write_events(1, 20);
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_WAIT);
	HT_CHECK(l->lost[TTRACE_LOSS_OVERWRITTEN] == 2 * NENT);
	write_events(0, 5);			/* left unread by the resize */
	resize_begin();				/* caught half-way: nothing */
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_WAIT);
	HT_CHECK(l->records == 10 + NENT + 20 && l->attaches == 1);
	resize_end();
	write_events(0, 7);
	write_events(1, 9);
	put_marker(1, "after-resize");
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_WAIT && l->attaches == 2);
	HT_CHECK(l->lost[TTRACE_LOSS_CLEARED] == 5);
	write_events(1, 4);			/* after the end: not read */
	ttlive_end(l, &d.g);
	write_events(1, 4);
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_DONE && d.fw.error == 0);
	HT_CHECK(l->why[0] == 0);
	if (ttload_buffer(&t, d.m.p, d.m.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	/* the end bounded cpu 1 at its head then: 4 records unread */
	w[1].head -= 4;
	bad = check_accounted(&t);
	if (!bad && (t.cpus[0].slots != 10 + NENT + 7 || t.cpus[1].slots != 20 + 9
		     + 1 + 4 || !t.has_aux))
		bad = 1, snprintf(ht_why, sizeof(ht_why), "slots %llu, %llu",
				  (unsigned long long)t.cpus[0].slots,
				  (unsigned long long)t.cpus[1].slots);
	ttload_free(&t);
	ttlive_free(l);
	free(l);
	free(d.m.p);
	free(ram);
	return bad;
}

/* The drain must refuse RAM as broken by breakit with a message that
 * contains want, and read nothing out of bounds (ASan watches). */
static int refuses(void (*breakit)(void), const char *want)
{
	struct ttlive *l;
	int rc;

	make_guest();
	breakit();
	l = new_live();
	rc = ttlive_attach(l);
	if (rc != -1 || !strstr(l->why, want))
		HT_FAIL("rc %d, why '%s', want '%s'", rc, l->why, want);
	ttlive_free(l);
	free(l);
	free(ram);
	return 0;
}

static void region_outside(void)
{
	struct ttrace_root *h = at(ROOT_PA);
	struct ttrace_root_region *r = (struct ttrace_root_region *)(h + 1);

	r[10].paddr = RAM_SIZE - 64;		/* cpu 0's entries */
	h->crc = ttrace_root_crc(h);
}

static void region_wraps(void)
{
	struct ttrace_root *h = at(ROOT_PA);
	struct ttrace_root_region *r = (struct ttrace_root_region *)(h + 1);

	r[3].paddr = ~0ULL - 4;			/* paddr + size wraps */
	h->crc = ttrace_root_crc(h);
}

static void root_corrupt(void)
{
	((uint8_t *)at(ROOT_PA))[70] ^= 0x10;
}

static void root_garbage(void)
{
	memset(at(ROOT_PA), 0xa5, ROOT_SIZE);
}

static void ring_misplaced(void)
{
	struct ttrace_root *h = at(ROOT_PA);
	struct ttrace_root_region *r = (struct ttrace_root_region *)(h + 1);

	r[12].paddr += 8;			/* cpu 1's entries */
	h->crc = ttrace_root_crc(h);
}

static int test_live_hostile(void)
{
	struct ttlive *l;

	HT_CHECK(refuses(region_outside, "outside guest RAM") == 0);
	HT_CHECK(refuses(region_wraps, "wraps the address space") == 0);
	HT_CHECK(refuses(root_garbage, "bad magic") == 0);
	HT_CHECK(refuses(ring_misplaced, "not aligned as its kind") == 0);
	/* a torn or corrupt record is "try again", with the reason */
	make_guest();
	root_corrupt();
	l = new_live();
	HT_CHECK(ttlive_attach(l) == -2 && strstr(l->why, "CRC"));
	l->root_pa = RAM_SIZE - 64;		/* the record past the RAM */
	HT_CHECK(ttlive_attach(l) == -1 && strstr(l->why, "not in guest RAM"));
	free(l);
	free(ram);
	return 0;
}

/* A descriptor gone out of shape under a running drain: the drain stops
 * with the reason, the file still ends whole, nothing read out of it. */
static int test_live_descriptor_broken(void)
{
	static struct drain d;
	struct ttlive *l;
	struct ttrace_file_error e;
	struct ttload t;

	HT_CHECK(start_drain(&d) == 0);
	l = d.l;
	write_events(0, 10);
	((struct trace_ring *)at(DESC_PA(0)))->mask = (1ULL << 40) - 1;
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_WAIT);
	HT_CHECK(strstr(l->why, "out of shape") && l->records == 10);
	ttlive_end(l, &d.g);
	HT_CHECK(step_all(&d.g) == TTRACE_IMAGE_DONE && d.fw.error == 0);
	HT_CHECK(ttload_buffer(&t, d.m.p, d.m.len, &e) == 0);
	HT_CHECK(t.cpus[0].slots == 10);
	ttload_free(&t);
	ttlive_free(l);
	free(l);
	free(d.m.p);
	free(ram);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_live_stream, "live_stream" },
	{ test_live_hostile, "live_hostile" },
	{ test_live_descriptor_broken, "live_descriptor_broken" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
