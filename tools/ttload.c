/*
 * ttload.c: loading a trace file into views (see ttload.h). The walk over
 * sections is kern/lib/ttrace_file.c's; this file gives each payload its
 * meaning and checks it against the VERSION section, which must come
 * first, so that nothing later sizes or indexes anything with an unchecked
 * number. ttload_check_ring() goes further for `ttdecode verify`: every
 * ring entry against the metadata and its ring.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <trace_ring.h>
#include <ttrace_decode.h>

#include "ttload.h"

static int fail(struct ttrace_file_error *err, uint64_t off, const char *why)
{
	ttrace_file_set_error(err, off, "%s", why);
	return -1;
}

static int load_version(struct ttload *t, const struct ttrace_file_sec *s,
			struct ttrace_file_error *err)
{
	const char *why;

	if (s->length != sizeof(t->version) || s->cpu != 0)
		return fail(err, s->offset, "section VERSION: bad length or cpu");
	memcpy(&t->version, s->payload, sizeof(t->version));
	if (ttrace_version_check(&t->version, &why) < 0) {
		ttrace_file_set_error(err, s->payload_offset, "section VERSION: "
				      "%s", why);
		return -1;
	}
	t->cpus = calloc(t->version.num_cpus, sizeof(*t->cpus));
	if (!t->cpus)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	return 0;
}

static int load_meta(struct ttload *t, const struct ttrace_file_sec *s,
		     struct ttrace_file_error *err)
{
	const char *why;
	size_t n;

	if (t->meta_blob)
		return fail(err, s->offset, "second META section");
	if (s->cpu != 0 || s->length != t->version.meta_size)
		return fail(err, s->offset, "section META: length differs from "
			    "the version header's meta_size, or cpu not 0");
	n = ttrace_meta_arena_size(s->payload, s->length);
	t->meta_arena = n ? aligned_alloc(16, ROUNDUP(n, 16)) : NULL;
	if (n && !t->meta_arena)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	if (ttrace_meta_parse(s->payload, s->length, t->meta_arena, n,
			      &t->meta, &why) < 0) {
		ttrace_file_set_error(err, s->payload_offset, "section META: %s",
				      why);
		return -1;
	}
	if (t->meta.nevents != t->version.event_count)
		return fail(err, s->payload_offset, "section META: event count "
			    "differs from the version header's");
	t->meta_blob = s->payload;
	t->meta_len = s->length;
	t->meta_offset = s->payload_offset;
	return 0;
}

static int load_aux(struct ttload *t, const struct ttrace_file_sec *s,
		    struct ttrace_file_error *err)
{
	struct ttrace_file_aux a;

	if (t->has_aux)
		return fail(err, s->offset, "second AUX section");
	if (s->cpu != 0 || s->length < sizeof(a))
		return fail(err, s->offset, "section AUX: bad length or cpu");
	memcpy(&a, s->payload, sizeof(a));
	if (a.last < a.first || a.last - a.first != s->length - sizeof(a) ||
	    a.last - a.first > t->version.aux_size ||
	    (a.first | a.last) % TTRACE_AUX_ALIGN)
		return fail(err, s->payload_offset, "section AUX: counters do not "
			    "match the length or the aux size");
	t->has_aux = true;
	t->aux.data = s->payload + sizeof(a);
	t->aux.len = s->length - sizeof(a);
	t->aux.first = a.first;
	t->aux.last = a.last;
	t->aux_offset = s->payload_offset + sizeof(a);
	return 0;
}

static int load_percpu(struct ttload *t, const struct ttrace_file_sec *s,
		       struct ttrace_file_error *err)
{
	const char *name = ttrace_file_sec_name(s->type);
	struct ttload_cpu *c;

	if (s->cpu >= t->version.num_cpus) {
		ttrace_file_set_error(err, s->offset, "section %s for cpu %u, "
				      "but the trace has %u cpus", name, s->cpu,
				      t->version.num_cpus);
		return -1;
	}
	c = &t->cpus[s->cpu];
	if (s->type == TTRACE_FILE_SEC_STATS) {
		if (c->has_stats || s->length < sizeof(c->stats) ||
		    s->length % 8)
			return fail(err, s->offset, "section STATS: duplicate "
				    "or bad length");
		memcpy(&c->stats, s->payload, sizeof(c->stats));
		c->has_stats = true;
		return 0;
	}
	if (c->raw)
		return fail(err, s->offset, "second RING section for its cpu");
	if (s->length != t->version.entries_per_cpu * TTRACE_ENTRY_SIZE)
		return fail(err, s->offset, "section RING: length is not "
			    "entries_per_cpu entries");
	c->raw = (const struct ttrace_entry *)(const void *)s->payload;
	c->nraw = t->version.entries_per_cpu;
	c->raw_offset = s->payload_offset;
	return 0;
}

/* Gives one section its meaning; n is its index in the file. */
static int load_section(struct ttload *t, const struct ttrace_file_sec *s,
			uint32_t n, struct ttrace_file_error *err)
{
	if ((n == 0) != (s->type == TTRACE_FILE_SEC_VERSION))
		return fail(err, s->offset, n ? "second VERSION section" :
			    "the first section is not VERSION");
	switch (s->type) {
	case TTRACE_FILE_SEC_VERSION:
		return load_version(t, s, err);
	case TTRACE_FILE_SEC_META:
		return load_meta(t, s, err);
	case TTRACE_FILE_SEC_AUX:
		return load_aux(t, s, err);
	case TTRACE_FILE_SEC_RING:
	case TTRACE_FILE_SEC_STATS:
		return load_percpu(t, s, err);
	default:
		t->nunknown++;
		return 0;
	}
}

struct sort_key {
	uint64_t ts;
	uint64_t slot;
};

static int key_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Builds c->sorted: the valid entries in timestamp order. A continuation
 * (parent | 1) then directly follows its parent, whatever the slots, so
 * the pairing finds it however the ring was read.
 */
static int sort_ring(struct ttload_cpu *c)
{
	struct sort_key *k = malloc((c->nraw ? c->nraw : 1) * sizeof(*k));
	uint64_t n = 0;

	if (!k)
		return -1;
	for (uint64_t s = 0; s < c->nraw; s++) {
		if (!ttrace_ts_valid(c->raw[s].timestamp)) {
			c->ninvalid++;
			continue;
		}
		k[n].ts = c->raw[s].timestamp;
		k[n++].slot = s;
	}
	qsort(k, n, sizeof(*k), key_cmp);
	c->sorted = aligned_alloc(TTRACE_ENTRY_SIZE,
				  (n ? n : 1) * sizeof(*c->sorted));
	if (!c->sorted) {
		free(k);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		c->sorted[i] = c->raw[k[i].slot];
	c->nsorted = n;
	free(k);
	return 0;
}

static int load_walk(struct ttload *t, struct ttrace_file_error *err)
{
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	int rc;

	if (ttrace_file_open(&r, t->buf, t->size, err) < 0)
		return -1;
	while ((rc = ttrace_file_next(&r, &s, err)) > 0)
		if (load_section(t, &s, r.nsections - 1, err) < 0)
			return -1;
	if (rc < 0)
		return -1;
	t->nsections = r.nsections;
	if (!t->cpus)
		return fail(err, TTRACE_FILE_HDR_SIZE, "no VERSION section");
	if (!t->meta_blob)
		return fail(err, TTRACE_FILE_HDR_SIZE, "no META section");
	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		if (sort_ring(&t->cpus[c]) < 0)
			return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	return 0;
}

/*
 * Loads the size bytes of a trace file at data (copied into an aligned
 * buffer, so data may be freed). Returns 0, or -1 with err filled and t
 * left empty.
 */
int ttload_buffer(struct ttload *t, const void *data, uint64_t size,
		  struct ttrace_file_error *err)
{
	uint64_t cap = ROUNDUP(size ? size : 1, TTRACE_FILE_ALIGN);

	memset(t, 0, sizeof(*t));
	t->buf = aligned_alloc(TTRACE_FILE_ALIGN, cap);
	if (!t->buf)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	memcpy(t->buf, data, size);
	memset(t->buf + size, 0, cap - size);
	t->size = size;
	t->file_crc = ttrace_crc32(0, t->buf, size);
	if (load_walk(t, err) < 0) {
		ttload_free(t);
		return -1;
	}
	return 0;
}

/* Reads the file at path and loads it, as ttload_buffer(). */
int ttload_file(struct ttload *t, const char *path,
		struct ttrace_file_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	void *data;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		ttrace_file_set_error(err, TTLOAD_NO_OFFSET, "%s",
				      f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data || fread(data, 1, (size_t)st.st_size, f) !=
		     (size_t)st.st_size) {
		ttrace_file_set_error(err, TTLOAD_NO_OFFSET, "%s",
				      data ? "read failed" : "out of memory");
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = ttload_buffer(t, data, (uint64_t)st.st_size, err);
	free(data);
	return rc;
}

/* Frees everything t holds; t is then empty (safe to call twice). */
void ttload_free(struct ttload *t)
{
	if (t->cpus)
		for (uint32_t c = 0; c < t->version.num_cpus; c++)
			free(t->cpus[c].sorted);
	free(t->cpus);
	free(t->meta_arena);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* ---- checks for verify --------------------------------------------------- */

/*
 * Walks every aux record, counting them in *ac. A length that breaks the
 * chain is an error (a snapshot from the kernel never has one), reported
 * at the end of the last good record. Returns 0 or -1.
 */
int ttload_check_aux(const struct ttload *t, struct ttload_aux_check *ac,
		     struct ttrace_file_error *err)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec;
	size_t at = 0;

	memset(ac, 0, sizeof(*ac));
	ttrace_aux_iter_init(&it, &t->aux);
	while (ttrace_aux_next(&it, &rec)) {
		if (rec.tag > 0 && rec.tag < TTRACE_AUX_NTAGS)
			ac->bytag[rec.tag]++;
		else
			ac->unknown_tag++;
		ac->records++;
		at = it.pos;
	}
	ac->invalid = it.invalid;
	if (it.malformed)
		return fail(err, t->aux_offset + at, "section AUX: malformed "
			    "record at or after this offset (bad length)");
	return 0;
}


/* Checks one first entry e (at file offset off) of cpu's ring. */
static int entry_check(const struct ttload *t, uint32_t cpu,
		       const struct ttrace_entry *e, uint64_t off,
		       struct ttrace_file_error *err)
{
	uint64_t type = e->type;
	uint32_t id = TTRACE_TYPE_ID(type), ncont = TTRACE_TYPE_NCONT(type);
	const struct ttrace_event_meta *m;

	if (type & (0xfULL << 28))
		return fail(err, off, "entry: reserved type bits set");
	if (TTRACE_TYPE_CTX(type) >= TTRACE_CTX_NKINDS)
		return fail(err, off, "entry: unknown context kind");
	if (TTRACE_TYPE_CPU(type) != cpu) {
		ttrace_file_set_error(err, off, "entry: written by cpu %u but in "
				      "the ring of cpu %u",
				      TTRACE_TYPE_CPU(type), cpu);
		return -1;
	}
	if (id >= t->meta.nevents) {
		ttrace_file_set_error(err, off, "entry: event id %u is not in "
				      "the metadata (%u events)", id,
				      t->meta.nevents);
		return -1;
	}
	m = &t->meta.events[id];
	if (ncont != trace_ring_ncont(m->nargs)) {
		ttrace_file_set_error(err, off, "entry: event %s with %u "
				      "arguments announces %u continuations",
				      m->name, m->nargs, ncont);
		return -1;
	}
	return 0;
}

struct lap_key {
	int64_t idx;
	uint64_t ts;
};

static int lap_cmp(const void *a, const void *b)
{
	const struct lap_key *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Counts first entries whose timestamp is below that of the entry before
 * them in logical-index order (lap, slot; laps compared modulo 2^16 against
 * the first one seen). A few are normal: an interrupt's records come just
 * before the record it interrupted. Returns the count, or -1 (no memory).
 */
static int64_t count_reordered(const struct ttload_cpu *c)
{
	struct lap_key *k = malloc((c->nraw ? c->nraw : 1) * sizeof(*k));
	uint64_t n = 0, reordered = 0;
	uint32_t ref = 0;

	if (!k)
		return -1;
	for (uint64_t s = 0; s < c->nraw; s++) {
		const struct ttrace_entry *e = &c->raw[s];
		uint32_t lap = TTRACE_TYPE_LAP(e->type);

		if (!ttrace_ts_valid(e->timestamp) ||
		    ttrace_ts_is_cont(e->timestamp))
			continue;
		if (n == 0)
			ref = lap;
		k[n].idx = (int64_t)(int16_t)(uint16_t)(lap - ref) *
			   (int64_t)c->nraw + (int64_t)s;
		k[n++].ts = e->timestamp;
	}
	qsort(k, n, sizeof(*k), lap_cmp);
	for (uint64_t i = 1; i < n; i++)
		reordered += k[i].ts < k[i - 1].ts;
	free(k);
	return (int64_t)reordered;
}

/*
 * Checks every entry of cpu's ring: fields an intact kernel record always
 * has right (reserved bits, context kind, cpu, event id, continuation
 * count) are errors, reported with the entry's file offset; the rest is
 * counted in *rc. Returns 0 or -1.
 */
int ttload_check_ring(const struct ttload *t, uint32_t cpu,
		      struct ttload_ring_check *rc,
		      struct ttrace_file_error *err)
{
	const struct ttload_cpu *c = &t->cpus[cpu];
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	int64_t reordered;

	memset(rc, 0, sizeof(*rc));
	for (uint64_t s = 0; s < c->nraw; s++) {
		const struct ttrace_entry *e = &c->raw[s];

		if (!ttrace_ts_valid(e->timestamp)) {
			rc->invalid++;
		} else if (ttrace_ts_is_cont(e->timestamp)) {
			rc->conts++;
		} else {
			if (entry_check(t, cpu, e, c->raw_offset +
					s * TTRACE_ENTRY_SIZE, err) < 0)
				return -1;
			rc->firsts++;
			rc->before_boot += e->timestamp < t->version.tsc_boot;
		}
	}
	reordered = count_reordered(c);
	if (reordered < 0)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	rc->reordered = (uint64_t)reordered;
	ttrace_pair_init(&it, c->sorted, c->nsorted);
	while (ttrace_pair_next(&it, &ev))
		rc->events++;
	rc->orphans = it.orphans;
	rc->incomplete = it.incomplete;
	return 0;
}
