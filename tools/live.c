/*
 * live.c: the live drain's source (live.h, docs/pull.md): the trace of a
 * running guest read out of its shared RAM by the kernel's own reader.
 *
 * Everything the host takes from the guest is checked before it is used,
 * because guest memory is not the host's to trust: the root record by
 * ttrace_root_check(); every region it names must lie inside the RAM
 * (its paddr and size are the guest's word); the descriptors by the
 * pull; and between reads a ring descriptor must still point at the
 * entries and keep the size it had when attached, so every read stays
 * inside the region checked. Only head, start and the counters are taken
 * fresh, and the ring reader is safe with any values of those.
 */
#include <stdlib.h>
#include <string.h>
#include <printfmt.h>

#include "live.h"

enum { AGAIN = 100 };		/* a read to throw away: attach again */

static int fail(struct ttlive *l, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ttlive *l, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
	return rc;
}

/* Guest physical [pa, pa + size) in the host's view; NULL if not all of
 * it is RAM. */
static const void *ram_at(const struct ttlive *l, uint64_t pa, uint64_t size)
{
	if (pa > l->ram_size || size > l->ram_size - pa)
		return NULL;
	return l->ram + pa;
}

/* The root record's generation now. */
static uint64_t root_gen(const struct ttlive *l)
{
	const struct ttrace_root *r = (const void *)(l->ram + l->root_pa);

	return __atomic_load_n(&r->generation, __ATOMIC_ACQUIRE);
}

/* Points dumps[i] at region i of root in the RAM (page aligned, so each
 * is as aligned as ttrace_root_check() found its paddr). */
static int map_regions(struct ttlive *l, const struct ttrace_root *root,
		       struct ttrace_pull_dump *dumps)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(root);

	for (uint32_t i = 0; i < root->nregions; i++) {
		const void *p = ram_at(l, reg[i].paddr, reg[i].size);

		if (!p)
			return fail(l, -1, "region %u (%s) at %#llx, %llu bytes: "
				    "outside guest RAM (%llu bytes)", i,
				    ttrace_root_kind_name(reg[i].kind),
				    (unsigned long long)reg[i].paddr,
				    (unsigned long long)reg[i].size,
				    (unsigned long long)l->ram_size);
		dumps[i] = (struct ttrace_pull_dump){ p, reg[i].size };
	}
	return 0;
}

/* The first region of kind in root, or NULL. */
static const struct ttrace_root_region *
find_region(const struct ttrace_root *root, uint32_t kind)
{
	for (uint32_t i = 0; i < root->nregions; i++)
		if (ttrace_root_regions(root)[i].kind == kind)
			return &ttrace_root_regions(root)[i];
	return NULL;
}

/* The file's header from the first attach: version, TSC, metadata. */
static int adopt_header(struct ttlive *l, const struct ttrace_pull *p)
{
	l->version = p->img.version;
	memcpy(l->tsc, p->tsc, p->img.version.num_cpus * sizeof(*l->tsc));
	l->meta = malloc(p->img.version.meta_size);
	if (!l->meta)
		return fail(l, -1, "out of memory");
	memcpy(l->meta, p->img.meta, p->img.version.meta_size);
	if (p->img.aux && !(l->aux_copy = malloc(p->aux.size)))
		return fail(l, -1, "out of memory");
	return 0;
}

/* Takes the rings and aux of a rebuilt guest; cursors stay. CPUs that
 * came up after the first attach are not in the file. */
static int adopt(struct ttlive *l, const struct ttrace_root *root,
		 const struct ttrace_pull *p)
{
	const struct ttrace_root_region *reg = ttrace_root_regions(root);
	const struct ttrace_root_region *aux = find_region(root,
							   TTRACE_ROOT_AUX);
	const struct ttrace_root_region *aux_buf =
		find_region(root, TTRACE_ROOT_AUX_BUF);

	if (!l->attached && p->img.version.num_cpus < l->want_cpus)
		return fail(l, -2, "%u of %u CPUs up", p->img.version.num_cpus,
			    l->want_cpus);
	if (!l->attached && !p->img.aux)	/* early boot: CPU 0's sink */
		return fail(l, -2, "the tracer is not up yet (no aux buffer)");
	if (!l->attached && adopt_header(l, p) < 0)
		return -1;
	if (p->img.version.num_cpus < l->version.num_cpus)
		return fail(l, -1, "%u CPUs online, %u when the drain began",
			    p->img.version.num_cpus, l->version.num_cpus);
	if (!p->img.aux || (l->attached && p->aux.size != l->aux.size))
		return fail(l, -1, "the aux buffer changed");
	for (uint32_t c = 0; c < l->version.num_cpus; c++) {
		struct ttlive_cpu *lc = &l->cpu[c];

		lc->ring = p->rings[c];
		lc->desc_pa = reg[p->cpus[c].ring].paddr;
		lc->entries_va = reg[p->cpus[c].buf].vaddr;
	}
	if (p->img.aux) {
		l->aux = p->aux;
		l->root_pa_aux = aux->paddr;
		l->aux_va = aux_buf->vaddr;
	}
	l->generation = root->generation;
	l->attached = true;
	l->attaches++;
	return 0;
}

/* The root record copied out of the RAM and checked; NULL after fail()
 * (why set: rc -1, or -2 for a record being changed). */
static void *read_root(struct ttlive *l, const struct ttrace_root **root,
		       int *rc)
{
	const void *src = ram_at(l, l->root_pa, l->root_size);
	void *copy;
	const char *why;

	*rc = -1;
	if (!src || l->root_size < sizeof(**root) || l->root_pa % 64) {
		fail(l, -1, "the root record at %#llx, %llu bytes: not in "
		     "guest RAM (%llu bytes)", (unsigned long long)l->root_pa,
		     (unsigned long long)l->root_size,
		     (unsigned long long)l->ram_size);
		return NULL;
	}
	copy = aligned_alloc(64, (l->root_size + 63) & ~63ULL);
	if (!copy) {
		fail(l, -1, "out of memory");
		return NULL;
	}
	memcpy(copy, src, l->root_size);
	*rc = ttrace_root_check(copy, l->root_size, root, &why);
	if (*rc < 0) {
		fail(l, *rc, "%s", why);
		free(copy);
		return NULL;
	}
	return copy;
}

/*
 * Finds the guest's trace through its root record and takes its rings
 * and aux (the first time, the file's header too). Returns 0; -2 with
 * l->why when the record is being changed, or the tracer is not up yet
 * (try again); -1 with l->why when it cannot be read (before the first
 * success: not written yet, perhaps).
 */
int ttlive_attach(struct ttlive *l)
{
	struct ttrace_pull p = { .max_cpus = TTRACE_MAX_CPUS };
	struct ttrace_pull_dump *dumps = NULL;
	const struct ttrace_root *root;
	int rc;
	void *copy;

	l->why[0] = 0;
	copy = read_root(l, &root, &rc);
	if (!copy)
		return rc;
	dumps = calloc(root->nregions + 1, sizeof(*dumps));
	p.rings = calloc(p.max_cpus, sizeof(*p.rings));
	p.cpus = calloc(p.max_cpus, sizeof(*p.cpus));
	p.tsc = calloc(p.max_cpus, sizeof(*p.tsc));
	if (!dumps || !p.rings || !p.cpus || !p.tsc)
		rc = fail(l, -1, "out of memory");
	else if ((rc = map_regions(l, root, dumps)) == 0 &&
		 ttrace_pull_image(root, dumps, &p) < 0)
		rc = fail(l, -1, "%s", p.why);
	/* a descriptor read as the kernel moved it is a changed record */
	if (rc == 0 || rc == -1)
		if (root_gen(l) != root->generation)
			rc = fail(l, -2, "the root record changed as it was read");
	if (rc == 0)
		rc = adopt(l, root, &p);
	free(p.rings);
	free(p.cpus);
	free(p.tsc);
	free(dumps);
	free(copy);
	return rc;
}

/*
 * Takes c's head, start and counters from the guest's descriptor.
 * Returns 0; -1 if it no longer describes the ring attached (a resize
 * under way: attach again); -2 with l->why if its head went back (the
 * guest restarted: the drain cannot go on).
 */
static int sync_ring(struct ttlive *l, struct ttlive_cpu *c, uint32_t cpu)
{
	const struct trace_ring *g = (const void *)(l->ram + c->desc_pa);
	uint64_t head;

	if ((uint64_t)(uintptr_t)READ_ONCE(g->entries) != c->entries_va ||
	    READ_ONCE(g->mask) != c->ring.mask)
		return -1;
	c->ring.start = __atomic_load_n(&g->start, __ATOMIC_ACQUIRE);
	head = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE);
	if (head < c->ring.head)
		return fail(l, -2, "cpu %u: ring head went back from %llu to "
			    "%llu (the guest restarted?)", cpu,
			    (unsigned long long)c->ring.head,
			    (unsigned long long)head);
	c->ring.head = head;
	c->ring.mode = READ_ONCE(g->mode);
	c->ring.dropped = READ_ONCE(g->dropped);
	c->ring.dropped_at_clear = READ_ONCE(g->dropped_at_clear);
	c->ring.filtered = READ_ONCE(g->filtered);
	c->ring.filtered_at_clear = READ_ONCE(g->filtered_at_clear);
	c->ring.str_dropped = READ_ONCE(g->str_dropped);
	c->ring.str_dropped_at_clear = READ_ONCE(g->str_dropped_at_clear);
	return 0;
}

/*
 * One trace_ring_read_crc() of cpu's ring as the guest has it now. Returns
 * its kind, or AGAIN when the root record changed (attach again); a run
 * whose first slot the writer lapped during the copy is read again, the
 * head taken anew, so the reader declares what it overwrote.
 */
static uint32_t read_guest(struct ttlive *l, uint32_t cpu,
			   struct ttrace_entry *buf, size_t max,
			   struct trace_ring_run *run)
{
	struct ttlive_cpu *c = &l->cpu[cpu];

	for (;;) {
		struct trace_ring_cursor saved = c->cur;
		const struct trace_ring *g = (const void *)(l->ram +
							    c->desc_pa);
		uint32_t k;
		int s = root_gen(l) == l->generation ? sync_ring(l, c, cpu) : -1;

		if (s < 0)
			return s == -1 ? AGAIN : TRACE_RUN_NONE;
		k = trace_ring_read_crc(&c->ring, &c->cur, c->end, buf, max,
					run, false);
		rmb();
		if (root_gen(l) != l->generation) {
			c->cur = saved;
			return AGAIN;
		}
		if (k != TRACE_RUN_RECORDS ||
		    __atomic_load_n(&g->head, __ATOMIC_ACQUIRE) - run->first <=
		    c->ring.mask + 1)
			return k;
		c->cur = saved;
	}
}

/* cpu's cursor at its ring's start: every index from there on is a record
 * or a declared loss, the overwritten ones first. */
static void start_cpu(struct ttlive *l, struct ttlive_cpu *c)
{
	trace_ring_cursor_start(&c->ring, &c->cur);
	c->wait.limit = TTLIVE_PATIENCE_NS;
	if (!l->ending)
		c->end = UINT64_MAX;
	c->started = true;
}

/* Counts and bounds a run handed to the writer. */
static void tally(struct ttlive *l, struct ttlive_cpu *c, uint32_t k,
		  const struct trace_ring_run *run)
{
	if (k == TRACE_RUN_RECORDS)
		l->records += run->count;
	else
		l->lost[run->reason < TTRACE_LOSS_NREASONS ? run->reason : 0] +=
			run->count;
	if (c->range.first == c->range.end)
		c->range.first = run->first;
	c->range.end = run->first + run->count;
}

/*
 * The writer's run: cpu's next run, or TRACE_RUN_NONE for now (caught
 * up, a slot in flight not given up yet, the record being changed) or for
 * good (after ttlive_end(), or an error: l->why). At the end a slot in
 * flight is waited for up to the patience, then declared lost.
 */
static uint32_t live_run(void *arg, uint32_t cpu, struct ttrace_entry *buf,
			 size_t max, struct trace_ring_run *run)
{
	struct ttlive *l = arg;
	struct ttlive_cpu *c = &l->cpu[cpu];
	uint32_t k;

	if (l->why[0])
		return TRACE_RUN_NONE;
	if (!c->started && sync_ring(l, c, cpu) == 0)
		start_cpu(l, c);
	for (;;) {
		k = c->started ? read_guest(l, cpu, buf, max, run) : AGAIN;
		if (k == AGAIN) {
			int rc = ttlive_attach(l);

			if (rc == -1 || (rc == -2 && l->ending))
				return TRACE_RUN_NONE;	/* l->why says */
			l->why[0] = 0;		/* -2: not an error */
			if (rc == -2)
				return TRACE_RUN_NONE;	/* moving: later */
			if (!c->started)
				start_cpu(l, c);
			continue;
		}
		k = trace_ring_wait(&c->wait, &c->cur, run, k, l->now_ns());
		if (k != TRACE_RUN_BUSY)
			break;
		if (!l->ending)
			return TRACE_RUN_NONE;
	}
	if (k != TRACE_RUN_NONE)
		tally(l, c, k, run);
	return k;
}

static void live_range(void *arg, uint32_t cpu, struct ttrace_file_range *r)
{
	*r = ((struct ttlive *)arg)->cpu[cpu].range;
}

/*
 * The aux snapshot, read lock-free as the kernel's readers read it
 * (first, last, the chain, first again: ttrace_aux_copy and _trim):
 * returns 1; 0 for no AUX section (none, or no consistent copy in a few
 * tries: l->why says).
 */
static int live_aux(void *arg, struct ttrace_file_aux *a,
		    const uint8_t *piece[2], uint64_t len[2])
{
	struct ttlive *l = arg;
	const struct ttrace_aux *g = (const void *)(l->ram + l->root_pa_aux);
	struct ttrace_aux_view view;

	if (!l->aux_copy || l->why[0])
		return 0;
	for (int tries = 0; tries < 8; tries++) {
		uint64_t first = __atomic_load_n(&g->first, __ATOMIC_ACQUIRE);
		uint64_t last = __atomic_load_n(&g->last, __ATOMIC_ACQUIRE);

		if ((uint64_t)(uintptr_t)READ_ONCE(g->buf) != l->aux_va)
			break;
		if (last < first || last - first > l->aux.size ||
		    !ttrace_aux_copy(&l->aux, first, last, l->aux_copy,
				     l->aux.size))
			continue;
		rmb();
		if (ttrace_aux_trim(l->aux_copy, first, last,
				    __atomic_load_n(&g->first,
						    __ATOMIC_ACQUIRE),
				    &view) == 0) {
			*a = (struct ttrace_file_aux){ view.first, view.last };
			piece[0] = view.data;
			len[0] = view.len;
			len[1] = 0;
			return 1;
		}
	}
	fail(l, 0, "aux: no consistent copy of the guest's aux buffer");
	return 0;
}

static void live_stats(void *arg, uint32_t cpu, struct ttrace_file_stats *fs)
{
	struct ttlive *l = arg;
	struct trace_ring_stats st;

	if (!l->why[0])
		sync_ring(l, &l->cpu[cpu], cpu);
	trace_ring_stats(&l->cpu[cpu].ring, &st);
	ttrace_image_stats(fs, &st);
}

static const struct ttrace_image_ops live_ops = {
	.run = live_run,
	.range = live_range,
	.aux = live_aux,
	.stats = live_stats,
};

/* Starts g, a stream of l (attached) to w through buf (max entries). */
void ttlive_gen_init(struct ttlive *l, struct ttrace_image_gen *g,
		     struct ttrace_file_writer *w, struct ttrace_entry *buf,
		     size_t max)
{
	*g = (struct ttrace_image_gen){
		.version = &l->version, .meta = l->meta, .tsc = l->tsc,
		.ops = &live_ops, .arg = l, .w = w, .buf = buf, .max = max,
		.stream = true,
	};
}

/* Ends the stream: every CPU bounded at its head now; the writer then
 * reads up to there and writes the rest of the file. */
void ttlive_end(struct ttlive *l, struct ttrace_image_gen *g)
{
	l->ending = true;
	for (uint32_t c = 0; c < l->version.num_cpus; c++) {
		if (!l->why[0])
			sync_ring(l, &l->cpu[c], c);	/* moving: head kept */
		l->cpu[c].end = l->cpu[c].ring.head;
	}
	ttrace_image_end(g);
}

void ttlive_free(struct ttlive *l)
{
	free(l->meta);
	free(l->aux_copy);
	l->meta = NULL;
	l->aux_copy = NULL;
}
