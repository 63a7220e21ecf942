/*
 * pull.c: the root record's checks and the host's rebuilding of the
 * tracer from memory dumps (ttrace_root.h, ttrace_pull.h, docs/pull.md).
 *
 * The root record is the only thing the host finds by itself; everything
 * else is reached through it, so each step checks what the next one uses:
 * the record's magic, version, sizes, generation and CRC; that no region
 * wraps, overlaps another or is misaligned for its kind; each dump's size
 * against its region; each descriptor's pointer against the region the
 * record names for its memory (so a descriptor and a record from either
 * side of a ring resize cannot be paired); each ring's size, shift and
 * counters; the aux counters. Regions are indexed in one pass over the
 * table, so the work is linear in the number of CPUs.
 */
#include <printfmt.h>
#include <string.h>

#include <ttrace_decode.h>
#include <ttrace_pull.h>

/* CRC-32 of the header (generation and crc taken as zero) and the regions
 * in use. Precondition: nregions <= max_regions and the regions are there. */
uint32_t ttrace_root_crc(const struct ttrace_root *root)
{
	struct ttrace_root h = *root;

	h.generation = 0;
	h.crc = 0;
	return ttrace_crc32(ttrace_crc32(0, &h, sizeof(h)),
			    ttrace_root_regions(root),
			    (uint64_t)root->nregions *
			    sizeof(struct ttrace_root_region));
}

/* The alignment a region of kind has in the kernel and its readers'
 * reads of it need: entries and aux by cache lines, descriptors and TSC
 * arrays by words; scalars and metadata are copied bytewise (and a kind
 * this code does not know is not read). */
uint64_t ttrace_root_align(uint32_t kind)
{
	switch (kind) {
	case TTRACE_ROOT_RING_BUF:
	case TTRACE_ROOT_AUX_BUF:
		return 64;
	case TTRACE_ROOT_RING:
	case TTRACE_ROOT_AUX:
	case TTRACE_ROOT_TSC_OFFSET:
	case TTRACE_ROOT_TSC_UNCERTAINTY:
		return 8;
	default:
		return 1;
	}
}

/* Whether the physical ranges of a and b share a byte. */
static int regions_overlap(const struct ttrace_root_region *a,
			   const struct ttrace_root_region *b)
{
	return a->size && b->size && a->paddr < b->paddr + b->size &&
	       b->paddr < a->paddr + a->size;
}

/*
 * Why the regions in use cannot be a kernel's, or NULL: one wraps the
 * address space, is not aligned as its kind needs, or shares memory with
 * another. A reader reads each region's bytes through a pointer of its
 * kind's type, so none of these may reach it. Quadratic in nregions,
 * which the record's length bounds.
 */
static const char *regions_bad(const struct ttrace_root *r)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(r);

	for (uint32_t i = 0; i < r->nregions; i++) {
		uint64_t align = ttrace_root_align(reg[i].kind);

		if (reg[i].paddr + reg[i].size < reg[i].paddr ||
		    reg[i].vaddr + reg[i].size < reg[i].vaddr)
			return "a region of the root record wraps the address "
			       "space";
		if ((reg[i].paddr | reg[i].vaddr) % align)
			return "a region of the root record is not aligned as "
			       "its kind needs";
		for (uint32_t k = 0; k < i; k++)
			if (regions_overlap(&reg[i], &reg[k]))
				return "two regions of the root record overlap";
	}
	return NULL;
}

/*
 * Checks the root record at buf (len bytes, 8-byte aligned) and sets *root.
 * Returns 0; -1 with *why if it is not a root record this code knows (or
 * its regions could not be a kernel's: regions_bad()); -2 with *why if it
 * was caught being changed (odd generation, bad CRC): read it again.
 */
int ttrace_root_check(const void *buf, size_t len,
		      const struct ttrace_root **root, const char **why)
{
	const struct ttrace_root *r = buf;

	if (len < sizeof(*r) || r->magic != TTRACE_ROOT_MAGIC)
		return *why = "no root record there (bad magic)", -1;
	if (r->version != TTRACE_ROOT_VERSION ||
	    r->header_size != TTRACE_ROOT_HDR_SIZE)
		return *why = "root record of an unknown version", -1;
	if (r->max_regions > TTRACE_ROOT_MAX_REGIONS ||
	    r->nregions > r->max_regions ||
	    len < sizeof(*r) + (size_t)r->max_regions *
			       sizeof(struct ttrace_root_region))
		return *why = "root record sizes do not fit", -1;
	if (r->generation & 1)
		return *why = "the kernel was changing the root record (odd "
			      "generation): its trace buffers were moving", -2;
	if (ttrace_root_crc(r) != r->crc)
		return *why = "root record CRC mismatch (torn read)", -2;
	if ((*why = regions_bad(r)))
		return -1;
	*root = r;
	return 0;
}

/* The name of a region kind, "?" if unknown. */
const char *ttrace_root_kind_name(uint32_t kind)
{
	static const char *const names[TTRACE_ROOT_NKINDS] = {
		[TTRACE_ROOT_META] = "meta",
		[TTRACE_ROOT_NUM_CPUS] = "num_cpus",
		[TTRACE_ROOT_TSC_HZ] = "tsc_hz",
		[TTRACE_ROOT_TSC_BOOT] = "tsc_boot",
		[TTRACE_ROOT_GROUP_MASK] = "group_mask",
		[TTRACE_ROOT_TSC_OFFSET] = "tsc_offset",
		[TTRACE_ROOT_TSC_UNCERTAINTY] = "tsc_uncertainty",
		[TTRACE_ROOT_AUX] = "aux",
		[TTRACE_ROOT_AUX_BUF] = "aux_buf",
		[TTRACE_ROOT_RING] = "ring",
		[TTRACE_ROOT_RING_BUF] = "ring_buf",
	};

	return kind < TTRACE_ROOT_NKINDS && names[kind] ? names[kind] : "?";
}

static int fail(struct ttrace_pull *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct ttrace_pull *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Slot of region r in the index: per kind, or per CPU for rings (NULL:
 * a kind this code does not know, or a CPU beyond max_cpus: ignored). */
static int64_t *index_slot(struct ttrace_pull *p, int64_t *kinds,
			   const struct ttrace_root_region *r)
{
	if (r->kind == TTRACE_ROOT_RING || r->kind == TTRACE_ROOT_RING_BUF) {
		if (r->cpu >= p->max_cpus)
			return NULL;
		return r->kind == TTRACE_ROOT_RING ? &p->cpus[r->cpu].ring :
						     &p->cpus[r->cpu].buf;
	}
	return r->kind && r->kind < TTRACE_ROOT_NKINDS ? &kinds[r->kind] : NULL;
}

/* One pass over the table: each region's dump size, no duplicates. */
static int index_regions(struct ttrace_pull *p, const struct ttrace_root *root,
			 const struct ttrace_pull_dump *dumps, int64_t *kinds)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(root);

	for (uint32_t k = 0; k < TTRACE_ROOT_NKINDS; k++)
		kinds[k] = -1;
	for (uint32_t c = 0; c < p->max_cpus; c++)
		p->cpus[c].ring = p->cpus[c].buf = -1;
	for (uint32_t i = 0; i < root->nregions; i++) {
		int64_t *slot = index_slot(p, kinds, &reg[i]);

		if (dumps[i].size != reg[i].size)
			return fail(p, "region %u (%s): %llu bytes dumped, the "
				    "root record says %llu", i,
				    ttrace_root_kind_name(reg[i].kind),
				    (unsigned long long)dumps[i].size,
				    (unsigned long long)reg[i].size);
		if (slot && *slot >= 0)
			return fail(p, "region %u: a second %s (cpu %u)", i,
				    ttrace_root_kind_name(reg[i].kind),
				    reg[i].cpu);
		if (slot)
			*slot = i;
	}
	return 0;
}

/* The region of kind at index i, which must be there with at least size
 * bytes (exactly, if exact); NULL after fail(). */
static const void *region(struct ttrace_pull *p,
			  const struct ttrace_pull_dump *dumps, int64_t i,
			  uint32_t kind, uint64_t size, int exact)
{
	if (i < 0) {
		fail(p, "the root record has no %s region",
		     ttrace_root_kind_name(kind));
		return NULL;
	}
	if (dumps[i].size < size || (exact && dumps[i].size != size)) {
		fail(p, "region %s: %llu bytes, want %s%llu",
		     ttrace_root_kind_name(kind),
		     (unsigned long long)dumps[i].size, exact ? "" : "at least ",
		     (unsigned long long)size);
		return NULL;
	}
	return dumps[i].data;
}

/* The aux descriptor, pointed at its dumped buffer. */
static int pull_aux(struct ttrace_pull *p, const struct ttrace_root *root,
		    const struct ttrace_pull_dump *dumps, const int64_t *kinds)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(root);
	const void *d = region(p, dumps, kinds[TTRACE_ROOT_AUX],
			       TTRACE_ROOT_AUX, sizeof(p->aux), 1);
	struct ttrace_aux *a = &p->aux;
	int64_t b = kinds[TTRACE_ROOT_AUX_BUF];

	if (!d || root->aux_desc_size != sizeof(*a) ||
	    !region(p, dumps, b, TTRACE_ROOT_AUX_BUF, 0, 0))
		return p->why[0] ? -1 : fail(p, "aux descriptor of %u bytes, "
					     "this tool knows %zu",
					     root->aux_desc_size, sizeof(*a));
	memcpy(a, d, sizeof(*a));
	if ((uint64_t)(uintptr_t)a->buf != reg[b].vaddr)
		return fail(p, "the aux descriptor points at %#llx, the root "
			    "record at %#llx (torn read)",
			    (unsigned long long)(uintptr_t)a->buf,
			    (unsigned long long)reg[b].vaddr);
	if (!IS_PWR2(a->size) || a->mask != a->size - 1 ||
	    a->size != dumps[b].size || a->last < a->first ||
	    a->last - a->first > a->size || (a->first | a->last) % 8)
		return fail(p, "aux descriptor out of shape: size %llu first "
			    "%llu last %llu", (unsigned long long)a->size,
			    (unsigned long long)a->first,
			    (unsigned long long)a->last);
	a->buf = (uint8_t *)(uintptr_t)dumps[b].data;
	p->img.aux = a;
	return 0;
}

/* CPU c's ring descriptor, pointed at its dumped entries; n is CPU 0's
 * entry count (0 for CPU 0 itself). */
static int pull_ring(struct ttrace_pull *p, const struct ttrace_root *root,
		     const struct ttrace_pull_dump *dumps, uint32_t c,
		     uint64_t n)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(root);
	struct trace_ring *r = &p->rings[c];
	int64_t d = p->cpus[c].ring, b = p->cpus[c].buf;
	uint64_t have;

	if (d < 0 || b < 0)
		return fail(p, "cpu %u: no ring in the root record", c);
	if (root->ring_desc_size != sizeof(*r) || dumps[d].size != sizeof(*r))
		return fail(p, "ring descriptor of %u bytes, this tool knows "
			    "%zu", root->ring_desc_size, sizeof(*r));
	memcpy(r, dumps[d].data, sizeof(*r));
	if ((uint64_t)(uintptr_t)r->entries != reg[b].vaddr)
		return fail(p, "cpu %u: the ring descriptor points at %#llx, "
			    "the root record at %#llx (torn read: a resize)",
			    c, (unsigned long long)(uintptr_t)r->entries,
			    (unsigned long long)reg[b].vaddr);
	have = r->mask + 1;
	if (!IS_PWR2(have) || have < 2 || have > TTRACE_MAX_RING_ENTRIES ||
	    r->shift != (uint32_t)__builtin_ctzll(have) ||
	    have * sizeof(struct ttrace_entry) != dumps[b].size ||
	    r->mode > TRACE_RING_SATURATE || r->start > r->head ||
	    r->not_copied || (n && have != n))
		return fail(p, "cpu %u: ring descriptor out of shape: %llu "
			    "entries (cpu 0: %llu), start %llu head %llu", c,
			    (unsigned long long)have, (unsigned long long)n,
			    (unsigned long long)r->start,
			    (unsigned long long)r->head);
	r->entries = (struct ttrace_entry *)(uintptr_t)dumps[b].data;
	return 0;
}

/* The newest first-entry timestamp in the rings: the dump has no clock of
 * its own, so this stands for "now" in the version header. */
static uint64_t newest_ts(const struct ttrace_pull *p, uint32_t ncpus)
{
	uint64_t best = 0;

	for (uint32_t c = 0; c < ncpus; c++)
		for (uint64_t i = 0; i <= p->rings[c].mask; i++) {
			uint64_t ts = p->rings[c].entries[i].timestamp;

			if (ttrace_ts_valid(ts) && !ttrace_ts_is_cont(ts) &&
			    ts > best)
				best = ts;
		}
	return best;
}

/* num_cpus, the TSC offsets and the scalars of the version header. */
static int pull_scalars(struct ttrace_pull *p,
			const struct ttrace_pull_dump *dumps,
			const int64_t *kinds, struct ttrace_version *v)
{
	const void *ncpu = region(p, dumps, kinds[TTRACE_ROOT_NUM_CPUS],
				  TTRACE_ROOT_NUM_CPUS, 4, 1);
	const void *hz = region(p, dumps, kinds[TTRACE_ROOT_TSC_HZ],
				TTRACE_ROOT_TSC_HZ, 8, 1);
	const void *boot = region(p, dumps, kinds[TTRACE_ROOT_TSC_BOOT],
				  TTRACE_ROOT_TSC_BOOT, 8, 1);
	const void *mask = region(p, dumps, kinds[TTRACE_ROOT_GROUP_MASK],
				  TTRACE_ROOT_GROUP_MASK, 8, 1);
	const int64_t *off;
	const uint64_t *unc;

	if (!ncpu || !hz || !boot || !mask)
		return -1;
	memcpy(&v->num_cpus, ncpu, 4);
	memcpy(&v->tsc_hz, hz, 8);
	memcpy(&v->tsc_boot, boot, 8);
	memcpy(&v->group_mask, mask, 8);
	if (v->num_cpus == 0 || v->num_cpus > p->max_cpus)
		return fail(p, "%u CPUs online: not 1 to %u", v->num_cpus,
			    p->max_cpus);
	off = region(p, dumps, kinds[TTRACE_ROOT_TSC_OFFSET],
		     TTRACE_ROOT_TSC_OFFSET, v->num_cpus * 8ULL, 0);
	unc = region(p, dumps, kinds[TTRACE_ROOT_TSC_UNCERTAINTY],
		     TTRACE_ROOT_TSC_UNCERTAINTY, v->num_cpus * 8ULL, 0);
	if (!off || !unc)
		return -1;
	for (uint32_t c = 0; c < v->num_cpus; c++) {
		p->tsc[c].offset = off[c];
		p->tsc[c].uncertainty = unc[c];
	}
	return 0;
}

/*
 * Rebuilds p->img from the dumps of every region of root (dumps[i] is
 * region i's bytes, as aligned as its paddr, which ttrace_root_check()
 * found aligned for its kind): the rings, aux, TSC offsets and a
 * complete version header. Returns 0, or -1 with p->why.
 */
int ttrace_pull_image(const struct ttrace_root *root,
		      const struct ttrace_pull_dump *dumps,
		      struct ttrace_pull *p)
{
	struct ttrace_version *v = &p->img.version;
	int64_t kinds[TTRACE_ROOT_NKINDS];
	const void *meta;

	p->why[0] = 0;
	memset(&p->img, 0, sizeof(p->img));
	ttrace_version_init(v);
	if (index_regions(p, root, dumps, kinds) < 0 ||
	    pull_scalars(p, dumps, kinds, v) < 0)
		return -1;
	meta = region(p, dumps, kinds[TTRACE_ROOT_META], TTRACE_ROOT_META, 1, 0);
	if (!meta)
		return -1;
	if (dumps[kinds[TTRACE_ROOT_META]].size > UINT32_MAX)
		return fail(p, "metadata of %llu bytes",
			    (unsigned long long)dumps[kinds[TTRACE_ROOT_META]].size);
	if (kinds[TTRACE_ROOT_AUX] >= 0 && pull_aux(p, root, dumps, kinds) < 0)
		return -1;
	for (uint32_t c = 0; c < v->num_cpus; c++)
		if (pull_ring(p, root, dumps, c,
			      c ? p->rings[0].mask + 1 : 0) < 0)
			return -1;
	p->img.meta = meta;
	p->img.rings = p->rings;
	p->img.tsc = p->tsc;
	v->meta_size = (uint32_t)dumps[kinds[TTRACE_ROOT_META]].size;
	v->event_count = root->event_count;
	v->entries_per_cpu = p->rings[0].mask + 1;
	v->ring_mode = p->rings[0].mode;
	if (p->img.aux) {
		v->aux_size = p->aux.size;
		v->aux_mask = p->aux.mask;
		v->aux_first = p->aux.first;
		v->aux_last = p->aux.last;
	}
	v->tsc_now = newest_ts(p, v->num_cpus);
	return 0;
}
