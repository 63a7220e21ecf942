/*
 * Host tests of the pull (kern/trace/lib/pull.c, kern/trace/lib/image.c): a small
 * "guest" (two CPUs' rings, aux, metadata, TSC offsets) lives in this
 * process; a root record names its pieces as the kernel's would; each
 * region is copied out as QEMU's pmemsave would; the copies are rebuilt,
 * written as a trace file and loaded back with tools/load/ttload.c, which must
 * accept it with every index a record or a declared loss. Then the torn
 * and damaged cases: an odd generation, a flipped byte, a descriptor from
 * the other side of a resize, a short dump, a missing ring.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"

#include <ttrace_pull.h>
#include <ttrace_decode.h>

#include "httrace.h"

#define NCPU		2
#define NENT		64		/* entries per ring */
#define AUX_SIZE	4096
#define NREG		(9 + 2 * NCPU)

static const struct ttrace_arg_meta a_marker[] = {
	{ "marker", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER, 0, 0 },
};
#define W(n) { "w" #n, TTRACE_ARG_U64, 0, 0, 0 }
static const struct ttrace_arg_meta a_wide[] = {
	W(0), W(1), W(2), W(3), W(4), W(5), W(6), W(7),
};
static const struct ttrace_event_meta events[] = {
	{ "user_marker", "%s", a_marker, 0, 0, 1, 1 },
	{ "test_wide", "w0=%llu w1=%llu w2=%llu w3=%llu w4=%llu w5=%llu "
	  "w6=%llu w7=%llu", a_wide, 1, 0, 1, 8 },
};
static const struct ttrace_group_meta groups[] = { { "user", 0, 1 } };
static const struct ttrace_meta_table table = { events, groups, 2, 1 };

/* The guest: what the kernel keeps, at host addresses. */
static struct guest {
	struct trace_ring rings[NCPU];
	struct ttrace_entry *mem[NCPU];
	struct ttrace_aux aux;
	uint8_t *aux_mem;
	uint8_t meta[1024];
	size_t meta_len;
	uint32_t num_cpus;
	uint64_t tsc_hz, tsc_boot, mask;
	int64_t off[NCPU];
	uint64_t unc[NCPU];
	uint64_t in_flight;		/* cpu 1's slot left mid-write */
	struct {
		struct ttrace_root hdr;
		struct ttrace_root_region r[NREG];
	} root;
} g;

/* The copies "pmemsave" made, one per region, and the pull's arrays. */
static struct ttrace_pull_dump dumps[NREG];
static struct trace_ring rings[NCPU];
static struct ttrace_pull_cpu cpus[NCPU];
static struct ttrace_file_tsc tsc[NCPU];
static struct ttrace_pull pull;

static void add(uint32_t kind, uint32_t cpu, const void *p, uint64_t size)
{
	struct ttrace_root_region *r = &g.root.r[g.root.hdr.nregions++];

	r->kind = kind;
	r->cpu = cpu;
	r->paddr = 0x100000 + 0x10000 * g.root.hdr.nregions;
	r->vaddr = (uintptr_t)p;
	r->size = size;
}

/* Fills the root record as kern/trace/root.c does. */
static void make_root(void)
{
	struct ttrace_root *h = &g.root.hdr;

	memset(&g.root, 0, sizeof(g.root));
	*h = (struct ttrace_root){ .magic = TTRACE_ROOT_MAGIC,
		.version = TTRACE_ROOT_VERSION,
		.header_size = TTRACE_ROOT_HDR_SIZE, .generation = 6,
		.max_regions = NREG, .ring_desc_size = sizeof(struct trace_ring),
		.aux_desc_size = sizeof(struct ttrace_aux), .event_count = 2 };
	add(TTRACE_ROOT_META, 0, g.meta, g.meta_len);
	add(TTRACE_ROOT_NUM_CPUS, 0, &g.num_cpus, 4);
	add(TTRACE_ROOT_TSC_HZ, 0, &g.tsc_hz, 8);
	add(TTRACE_ROOT_TSC_BOOT, 0, &g.tsc_boot, 8);
	add(TTRACE_ROOT_GROUP_MASK, 0, &g.mask, 8);
	add(TTRACE_ROOT_TSC_OFFSET, 0, g.off, sizeof(g.off));
	add(TTRACE_ROOT_TSC_UNCERTAINTY, 0, g.unc, sizeof(g.unc));
	add(TTRACE_ROOT_AUX, 0, &g.aux, sizeof(g.aux));
	add(TTRACE_ROOT_AUX_BUF, 0, g.aux_mem, AUX_SIZE);
	for (uint32_t c = 0; c < NCPU; c++) {
		add(TTRACE_ROOT_RING, c, &g.rings[c], sizeof(g.rings[c]));
		add(TTRACE_ROOT_RING_BUF, c, g.mem[c],
		    NENT * sizeof(struct ttrace_entry));
	}
	h->crc = ttrace_root_crc(h);
}

static void put_marker(uint32_t cpu, uint64_t ts, uint64_t id,
		       const char *text)
{
	uint64_t pos;

	if (!ttrace_aux_reserve(&g.aux, TTRACE_AUX_USER_MARKER, cpu,
				strlen(text), &pos)) {
		ttrace_aux_fill(&g.aux, pos, ts, id, text, strlen(text));
		ttrace_aux_publish(&g.aux, pos);
	}
	trace_ring_write(&g.rings[cpu], ts, TTRACE_TYPE(0, TTRACE_CTX_IDLE, 0,
			 0, cpu), 0, id, 0, 0, 0, 0);
}

/* cpu 0 wraps its ring (with a wide event near the end); cpu 1 writes 10
 * markers and is "stopped" in the middle of an eleventh. */
static void make_guest(void)
{
	uint64_t ts = 1000, args[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	memset(&g, 0, sizeof(g));
	g.meta_len = ttrace_meta_serialise(&table, g.meta, sizeof(g.meta));
	g.num_cpus = NCPU;
	g.tsc_hz = 1000000000;
	g.tsc_boot = 10;
	g.mask = 1;
	g.unc[1] = 3;
	g.off[1] = -4;
	g.aux_mem = aligned_alloc(64, AUX_SIZE);
	ttrace_aux_init(&g.aux, g.aux_mem, AUX_SIZE);
	for (uint32_t c = 0; c < NCPU; c++) {
		g.mem[c] = aligned_alloc(64, NENT * sizeof(struct ttrace_entry));
		trace_ring_init(&g.rings[c], g.mem[c],
				NENT * sizeof(struct ttrace_entry),
				TRACE_RING_OVERWRITE);
	}
	for (int i = 0; i < 150; i++)
		put_marker(0, ts += 10, i, i == 149 ? "last-words" : "m");
	trace_ring_write_ext(&g.rings[0], ts += 10, TTRACE_TYPE(1,
			     TTRACE_CTX_IDLE, 0, 0, 0), 0, args, 8);
	for (int i = 0; i < 10; i++)
		put_marker(1, ts += 10, 1000 + i, "cpu1");
	g.in_flight = trace_ring_reserve(&g.rings[1], 1);
	trace_ring_invalidate(trace_ring_slot(&g.rings[1], g.in_flight));
	make_root();
}

/* "pmemsave": each region's bytes copied out by its vaddr. */
static void dump_all(void)
{
	for (uint32_t i = 0; i < g.root.hdr.nregions; i++) {
		const struct ttrace_root_region *r = &g.root.r[i];
		void *copy = aligned_alloc(64, (r->size + 64) & ~63ULL);

		memcpy(copy, (const void *)(uintptr_t)r->vaddr, r->size);
		free((void *)dumps[i].data);
		dumps[i] = (struct ttrace_pull_dump){ copy, r->size };
	}
}

static void free_all(void)
{
	for (uint32_t i = 0; i < NREG; i++) {
		free((void *)dumps[i].data);
		dumps[i].data = NULL;
	}
	for (uint32_t c = 0; c < NCPU; c++)
		free(g.mem[c]);
	free(g.aux_mem);
}

static int rebuild(void)
{
	const struct ttrace_root *root;
	const char *why;

	pull = (struct ttrace_pull){ .rings = rings, .cpus = cpus, .tsc = tsc,
				     .max_cpus = NCPU };
	if (ttrace_root_check(&g.root, sizeof(g.root), &root, &why) < 0)
		return -1;
	return ttrace_pull_image(root, dumps, &pull);
}

/* The guest as dumped (it goes on after the dump). */
static struct ttrace_aux aux_at_dump;
static uint64_t head_at_dump[NCPU];

static int check_file(const struct ttload *t)
{
	const struct ttload_cpu *c0 = &t->cpus[0], *c1 = &t->cpus[1];
	struct ttload_ring_check rc;

	HT_CHECK(t->version.num_cpus == NCPU && t->version.entries_per_cpu ==
		 NENT && t->version.aux_last == aux_at_dump.last &&
		 t->version.aux_first == aux_at_dump.first && t->has_aux &&
		 t->version.tsc_now == 1000 + 10 * 161);
	for (uint32_t c = 0; c < NCPU; c++) {
		HT_CHECK(ht_all_accounted(t, c, &rc));
		HT_CHECK(rc.end_index == head_at_dump[c]);
	}
	/* cpu 0 lapped: its oldest 64 slots, the wide event whole, after
	 * the records overwritten before the dump, declared: its first run,
	 * from the ring's start (0), as RANGE says */
	HT_CHECK(c0->slots == NENT && c0->nruns > 1 && c0->nlosses == 1);
	HT_CHECK(c0->runs[0].type == TTRACE_FILE_SEC_LOSS &&
		 c0->runs[0].first == 0 &&
		 c0->runs[0].count == head_at_dump[0] - NENT &&
		 c0->runs[0].reason == TTRACE_LOSS_OVERWRITTEN);
	HT_CHECK(c0->lost[TTRACE_LOSS_OVERWRITTEN] == head_at_dump[0] - NENT);
	HT_CHECK(t->range && t->range[0].first == 0 &&
		 t->range[0].end == head_at_dump[0]);
	/* cpu 1 never lapped: no leading loss */
	HT_CHECK(c1->runs[0].type == TTRACE_FILE_SEC_RECORDS &&
		 c1->runs[0].first == 0);
	HT_CHECK(ht_count_lines(t, 0, "user_marker: last-words") == 1);
	HT_CHECK(ht_count_lines(t, 0, "w7=8") == 1);
	/* cpu 1: ten records and the slot caught mid-write declared */
	HT_CHECK(c1->slots == 10 && c1->lost[TTRACE_LOSS_IN_FLIGHT] == 1);
	HT_CHECK(c1->nlosses == 1 && c1->losses[0].first == g.in_flight);
	HT_CHECK(ht_count_lines(t, 1, "user_marker: cpu1") == 10);
	HT_CHECK(t->tsc && t->tsc[1].offset == -4);
	return 0;
}

/* An output that is memory, as the drain's host window: runs are read
 * straight into it where place() says (ttrace_file_place_fn). */
struct window {
	uint8_t *base;		/* skew bytes past a 64-byte boundary */
	uint64_t len, size;
	uint64_t in_place;	/* bytes out() found already there */
};

static void *window_place(void *arg, uint64_t len)
{
	struct window *win = arg;

	return len <= win->size - win->len ? win->base + win->len : NULL;
}

static int window_out(void *arg, const void *buf, uint64_t len)
{
	struct window *win = arg;

	if (len > win->size - win->len)
		return -1;
	if (buf == win->base + win->len)
		win->in_place += len;
	else
		memcpy(win->base + win->len, buf, len);
	win->len += len;
	return 0;
}

/* The image written to a window that takes its runs in place is the same
 * file, byte for byte, as written through copies; a window that would put
 * the records off their 64-byte alignment gets them copied, the same. */
static int test_pull_in_place(void)
{
	static struct ttrace_entry scratch[32];
	static uint8_t mem[1 << 20] __attribute__((aligned(64)));
	struct ttrace_file_writer w;
	struct ht_membuf m = { 0 };
	int bad = 0;

	make_guest();
	dump_all();
	if (rebuild() < 0)
		HT_FAIL("rebuild: %s", pull.why);
	ttrace_file_writer_init(&w, ht_mem_out, &m);
	HT_CHECK(ttrace_image_write(&w, &pull.img, scratch, 32) == 0);
	for (uint64_t skew = 0; skew <= 8 && !bad; skew += 8) {
		struct window win = { mem + skew, 0, sizeof(mem) - 8, 0 };

		ttrace_file_writer_init(&w, window_out, &win);
		w.place = window_place;
		memset(mem, 0xa5, sizeof(mem));
		bad = ttrace_image_write(&w, &pull.img, scratch, 32) != 0 ||
		      win.len != m.len || memcmp(win.base, m.p, m.len) ||
		      (skew ? win.in_place != 0 : win.in_place < 1000);
		if (bad)
			snprintf(ht_why, sizeof(ht_why), "skew %llu: %llu bytes "
				 "(want %zu), %llu in place",
				 (unsigned long long)skew,
				 (unsigned long long)win.len, m.len,
				 (unsigned long long)win.in_place);
	}
	free(m.p);
	free_all();
	return bad;
}

static int test_pull_roundtrip(void)
{
	static struct ttrace_entry scratch[32];
	struct ttrace_file_writer w;
	struct ht_membuf m = { 0 };
	struct ttrace_file_error e;
	struct ttload t;
	int bad;

	make_guest();
	dump_all();
	aux_at_dump = g.aux;
	for (uint32_t c = 0; c < NCPU; c++)
		head_at_dump[c] = g.rings[c].head;
	if (rebuild() < 0)
		HT_FAIL("rebuild: %s", pull.why);
	/* after the dump the guest goes on: the file is the dump's */
	put_marker(1, 99999, 77, "after");
	ttrace_file_writer_init(&w, ht_mem_out, &m);
	HT_CHECK(ttrace_image_write(&w, &pull.img, scratch, 32) == 0);
	if (ttload_buffer(&t, m.p, m.len, &e) < 0)
		HT_FAIL("offset %llu: %s", (unsigned long long)e.offset, e.msg);
	bad = check_file(&t) || ht_count_lines(&t, 1, "after") != 0;
	if (bad && !ht_why[0])
		snprintf(ht_why, sizeof(ht_why), "a record written after "
			 "the dump is in the file");
	ttload_free(&t);
	free(m.p);
	free_all();
	return bad;
}

static int test_pull_torn_root(void)
{
	const struct ttrace_root *root;
	const char *why = "";

	make_guest();
	g.root.hdr.generation++;		/* caught mid-change */
	HT_CHECK(ttrace_root_check(&g.root, sizeof(g.root), &root, &why) == -2);
	HT_CHECK(strstr(why, "odd generation") != NULL);
	g.root.hdr.generation++;
	HT_CHECK(ttrace_root_check(&g.root, sizeof(g.root), &root, &why) == 0);
	g.root.r[3].size++;			/* a torn table */
	HT_CHECK(ttrace_root_check(&g.root, sizeof(g.root), &root, &why) == -2);
	HT_CHECK(strstr(why, "CRC") != NULL);
	g.root.r[3].size--;
	HT_CHECK(ttrace_root_check(&g.root, 100, &root, &why) == -1);
	g.root.hdr.magic ^= 1;
	HT_CHECK(ttrace_root_check(&g.root, sizeof(g.root), &root, &why) == -1);
	free_all();
	return 0;
}

/* Breaks one thing in the guest or a dump; the pull must refuse with a
 * message containing want. */
static int refuses(void (*breakit)(void), const char *want)
{
	int rc;

	make_guest();
	breakit();
	make_root();
	dump_all();
	rc = rebuild();
	free_all();
	if (rc != -1 || !strstr(pull.why, want))
		HT_FAIL("rc %d, why '%s', want '%s'", rc, pull.why, want);
	return 0;
}

static void too_many_cpus(void)
{
	g.num_cpus = 3;
}

static void bad_aux(void)
{
	g.aux.last = g.aux.first + AUX_SIZE + 8;
}

static int test_pull_refuses(void)
{
	/* a resize caught half-way: the record names the old entries, the
	 * descriptor already points at others */
	make_guest();
	dump_all();
	HT_CHECK(g.root.r[11].kind == TTRACE_ROOT_RING &&
		 g.root.r[11].cpu == 1);
	((struct trace_ring *)(uintptr_t)dumps[11].data)->entries = g.mem[0];
	HT_CHECK(rebuild() == -1 && strstr(pull.why, "torn read"));
	dumps[12].size--;			/* a short dump */
	HT_CHECK(rebuild() == -1 && strstr(pull.why, "bytes dumped"));
	free_all();
	HT_CHECK(refuses(too_many_cpus, "3 CPUs online") == 0);
	HT_CHECK(refuses(bad_aux, "aux descriptor out of shape") == 0);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_pull_roundtrip, "pull_roundtrip" },
	{ test_pull_in_place, "pull_in_place" },
	{ test_pull_torn_root, "pull_torn_root" },
	{ test_pull_refuses, "pull_refuses" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
