/*
 * ttload.c: loading a trace file into views (see ttload.h). The walk over
 * sections is kern/trace/lib/file.c's; this file gives each payload its
 * meaning and checks it against the VERSION section, which must come
 * first, so that nothing later sizes or indexes anything with an unchecked
 * number. ttload_check_ring() goes further for `ttdecode verify`: every
 * ring entry against the metadata and its ring.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <hash.h>
#include <tsc_sync.h>
#include <ttrace_decode.h>

#include "ttcrc32.h"
#include "ttload.h"

#define HUGE_PAGE	(2ULL << 20)

static int fail(struct ttrace_file_error *err, uint64_t off, const char *why)
{
	ttrace_file_set_error(err, off, "%s", why);
	return -1;
}

/*
 * size bytes (not cleared), 64-byte aligned, or NULL; *cap (if not NULL)
 * gets the bytes allocated, size or more. A block of 256 KiB or more is
 * asked to be backed by huge pages: one page fault and one clear of 2 MiB
 * in place of a fault for every 4 KiB, which on a 10k-record trace was a
 * fifth of `ttdecode text`. (A hint only; free() frees it.)
 */
static void *big_alloc(uint64_t size, uint64_t *cap)
{
	bool big = size >= HUGE_PAGE / 8;
	uint64_t align = big ? HUGE_PAGE : TTRACE_FILE_ALIGN;
	uint64_t n = ROUNDUP(size ? size : 1, align);
	void *p = n == (size_t)n ?
		  aligned_alloc((size_t)align, (size_t)n) : NULL;

#ifdef MADV_HUGEPAGE
	if (p && big)
		madvise(p, (size_t)n, MADV_HUGEPAGE);
#endif
	if (cap)
		*cap = n;
	return p;
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
	if (ttrace_file_zero_check(s->payload, s->payload_offset,
				   offsetof(struct ttrace_version, flags),
				   sizeof(t->version), "section VERSION: flags "
				   "or reserved", err) < 0)
		return -1;
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
	for (uint32_t i = 0; i < t->meta.nevents; i++)
		t->words[i] = (uint8_t)ttrace_event_words(&t->meta.events[i]);
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

static int load_stats(struct ttload_cpu *c, const struct ttrace_file_sec *s,
		      struct ttrace_file_error *err)
{
	if (c->has_stats || s->length < TTRACE_FILE_STATS_MIN ||
	    s->length % 8)
		return fail(err, s->offset, "section STATS: duplicate or bad "
			    "length");
	memset(&c->stats, 0, sizeof(c->stats));
	memcpy(&c->stats, s->payload, MIN(s->length, sizeof(c->stats)));
	c->has_stats = true;
	c->has_filtered = s->length >= TTRACE_FILE_STATS_FILTERED;
	c->has_str_dropped = s->length >= TTRACE_FILE_STATS_STR_DROPPED;
	c->has_ring = s->length >= sizeof(c->stats);
	c->stats_offset = s->payload_offset;
	return 0;
}

/* Checks a RECORDS or LOSS payload's prefix against its section. */
static int run_check(const struct ttload *t, const struct ttrace_file_sec *s,
		     const struct ttrace_file_run *h,
		     struct ttrace_file_error *err)
{
	const char *name = ttrace_file_sec_name(s->type);
	bool records = s->type == TTRACE_FILE_SEC_RECORDS;

	if (s->length < sizeof(*h) || h->type != s->type) {
		ttrace_file_set_error(err, s->offset, "section %s: no run "
				      "header of its type", name);
		return -1;
	}
	if (h->count == 0 || h->first + h->count < h->first ||
	    (records ? h->reason != 0 ||
		       h->count > ttrace_file_run_max(t->version.entries_per_cpu) ||
		       s->length != sizeof(*h) + h->count * TTRACE_ENTRY_SIZE :
		       h->reason == 0 || h->reason >= TTRACE_LOSS_NREASONS ||
		       s->length != sizeof(*h))) {
		ttrace_file_set_error(err, s->payload_offset, "section %s: "
				      "bad count, reason or length", name);
		return -1;
	}
	return ttrace_file_zero_check(s->payload, s->payload_offset,
				      offsetof(struct ttrace_file_run, reserved),
				      sizeof(*h), name, err);
}

/* Appends a RECORDS or LOSS run to its cpu: it must start where the cpu's
 * last run ended. */
static int load_run(struct ttload *t, struct ttload_cpu *c,
		    const struct ttrace_file_sec *s, uint32_t n,
		    struct ttrace_file_error *err)
{
	struct ttrace_file_run h;
	struct ttload_run *r;

	memcpy(&h, s->payload, MIN(s->length, sizeof(h)));
	if (run_check(t, s, &h, err) < 0)
		return -1;
	if (c->nruns) {
		const struct ttload_run *last = &c->runs[c->nruns - 1];
		uint64_t end = last->first + last->count;

		if (h.first > end) {
			ttrace_file_set_error(err, s->offset, "cpu %u: logical "
				"indices [%llu, %llu) missing: no LOSS section "
				"declares them", s->cpu, (unsigned long long)end,
				(unsigned long long)h.first);
			return -1;
		}
		if (h.first < end) {
			ttrace_file_set_error(err, s->offset, "cpu %u: run at %llu "
				"overlaps the one before it, which ended at %llu",
				s->cpu, (unsigned long long)h.first,
				(unsigned long long)end);
			return -1;
		}
	}
	if (c->nruns == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 16;
		void *p = realloc(c->runs, cap * sizeof(*c->runs));

		if (!p)
			return fail(err, TTLOAD_NO_OFFSET, "out of memory");
		c->runs = p;
		c->cap = cap;
	}
	r = &c->runs[c->nruns++];
	r->first = h.first;
	r->count = h.count;
	r->type = h.type;
	r->reason = h.reason;
	r->offset = s->payload_offset + sizeof(h);
	r->section = n;
	r->entries = (const struct ttrace_entry *)(const void *)
		     (s->payload + sizeof(h));
	if (h.type == TTRACE_FILE_SEC_RECORDS)
		c->slots += h.count;
	else
		c->lost[h.reason] += h.count;
	return 0;
}

static int load_tsc(struct ttload *t, const struct ttrace_file_sec *s,
		    struct ttrace_file_error *err)
{
	if (t->tsc)
		return fail(err, s->offset, "second TSC section");
	if (s->cpu != 0 || s->length != (uint64_t)t->version.num_cpus *
					 sizeof(*t->tsc))
		return fail(err, s->offset, "section TSC: length is not one "
			    "offset per cpu, or cpu not 0");
	t->tsc = (const struct ttrace_file_tsc *)(const void *)s->payload;
	if (t->tsc[0].offset != 0 || t->tsc[0].uncertainty != 0)
		return fail(err, s->payload_offset, "section TSC: cpu 0 is not "
			    "its own reference (not {0, 0})");
	for (uint32_t c = 1; c < t->version.num_cpus; c++) {
		struct tsc_sync_est e = { t->tsc[c].offset,
					  t->tsc[c].uncertainty, 1 };

		if (tsc_sync_applied(&e) != e.offset) {
			ttrace_file_set_error(err, s->payload_offset +
				c * sizeof(*t->tsc), "section TSC: cpu %u "
				"offset %lld within its uncertainty %llu: not "
				"applied, so written as 0", c,
				(long long)e.offset,
				(unsigned long long)e.uncertainty);
			return -1;
		}
	}
	return 0;
}

static int load_range(struct ttload *t, const struct ttrace_file_sec *s,
		      struct ttrace_file_error *err)
{
	if (t->range)
		return fail(err, s->offset, "second RANGE section");
	if (s->cpu != 0 || s->length != (uint64_t)t->version.num_cpus *
					 sizeof(*t->range))
		return fail(err, s->offset, "section RANGE: length is not one "
			    "range per cpu, or cpu not 0");
	t->range = (const struct ttrace_file_range *)(const void *)s->payload;
	t->range_offset = s->payload_offset;
	return 0;
}

/* With a RANGE section: checks that each cpu's runs cover exactly the
 * indices it names, so a run cut from either end of a cpu's shows. */
static int range_check(const struct ttload *t, struct ttrace_file_error *err)
{
	for (uint32_t c = 0; t->range && c < t->version.num_cpus; c++) {
		const struct ttload_cpu *cpu = &t->cpus[c];
		const struct ttrace_file_range *want = &t->range[c];
		uint64_t first = want->first, end = want->first;
		uint64_t off = t->range_offset + c * sizeof(*want);

		if (cpu->nruns) {
			first = cpu->runs[0].first;
			end = cpu->runs[cpu->nruns - 1].first +
			      cpu->runs[cpu->nruns - 1].count;
		}
		if (want->end < want->first) {
			ttrace_file_set_error(err, off, "section RANGE: cpu %u: "
					      "end before first", c);
			return -1;
		}
		if (first > want->first || end < want->end) {
			bool head = first > want->first;

			ttrace_file_set_error(err, off, "cpu %u: logical indices "
				"[%llu, %llu) missing: the RANGE section covers "
				"[%llu, %llu), the runs only [%llu, %llu)", c,
				(unsigned long long)(head ? want->first : end),
				(unsigned long long)(head ? first : want->end),
				(unsigned long long)want->first,
				(unsigned long long)want->end,
				(unsigned long long)first, (unsigned long long)end);
			return -1;
		}
		if (first != want->first || end != want->end) {
			ttrace_file_set_error(err, off, "cpu %u: runs cover [%llu, "
				"%llu), beyond the RANGE section's [%llu, %llu)",
				c, (unsigned long long)first,
				(unsigned long long)end,
				(unsigned long long)want->first,
				(unsigned long long)want->end);
			return -1;
		}
	}
	return 0;
}

/*
 * A CPU's STATS that name their ring (start, entries, mode) against its
 * runs: counters of the ring the writer found after its runs, so that
 * ring began at or after the runs' first index and no clear the runs
 * declare (a CLEARED loss) came after its start; its head, start +
 * written, is at or past the runs' end; and overwritten is what a ring
 * of that size overwrites of written (none in saturate mode, which
 * writes no more than its size). Returns 0 or -1.
 */
static int stats_check(const struct ttload *t, uint32_t cpu,
		       struct ttrace_file_error *err)
{
	const struct ttload_cpu *c = &t->cpus[cpu];
	const struct ttrace_file_stats *st = &c->stats;
	uint64_t n = st->entries, first, end, over;

	if (!c->has_ring)
		return 0;
	if (!IS_PWR2(n) || n < 2 || n > TTRACE_MAX_RING_ENTRIES ||
	    st->mode > TTRACE_MODE_SATURATE || st->start + st->written <
							st->start)
		return fail(err, c->stats_offset, "section STATS: bad ring size "
			    "or mode, or written past 2^64");
	over = st->written > n ? st->written - n : 0;
	if (st->overwritten != over) {
		ttrace_file_set_error(err, c->stats_offset, "section STATS: "
			"cpu %u: %llu overwritten, but a ring of %llu entries "
			"that wrote %llu overwrote %llu", cpu,
			(unsigned long long)st->overwritten,
			(unsigned long long)n,
			(unsigned long long)st->written,
			(unsigned long long)over);
		return -1;
	}
	if (!c->nruns)
		return 0;
	first = c->runs[0].first;
	end = c->runs[c->nruns - 1].first + c->runs[c->nruns - 1].count;
	for (uint64_t r = c->nruns; r-- > 0;)
		if (c->runs[r].reason == TTRACE_LOSS_CLEARED) {
			first = c->runs[r].first + c->runs[r].count;
			break;
		}
	if (st->start < first || st->start + st->written < end) {
		ttrace_file_set_error(err, c->stats_offset, "section STATS: "
			"cpu %u: the ring of indices [%llu, %llu) is not the "
			"ring the runs ended in, [%llu, %llu) after their "
			"last clear", cpu, (unsigned long long)st->start,
			(unsigned long long)(st->start + st->written),
			(unsigned long long)first, (unsigned long long)end);
		return -1;
	}
	return 0;
}

static int load_percpu(struct ttload *t, const struct ttrace_file_sec *s,
		       uint32_t n, struct ttrace_file_error *err)
{
	if (s->cpu >= t->version.num_cpus) {
		ttrace_file_set_error(err, s->offset, "section %s for cpu %u, "
				      "but the trace has %u cpus",
				      ttrace_file_sec_name(s->type), s->cpu,
				      t->version.num_cpus);
		return -1;
	}
	if (s->type == TTRACE_FILE_SEC_STATS)
		return load_stats(&t->cpus[s->cpu], s, err);
	return load_run(t, &t->cpus[s->cpu], s, n, err);
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
	case TTRACE_FILE_SEC_TSC:
		return load_tsc(t, s, err);
	case TTRACE_FILE_SEC_RANGE:
		return load_range(t, s, err);
	case TTRACE_FILE_SEC_RING:
		return fail(err, s->offset, "section RING (type 4) is format "
			    "1's: not allowed in a format 3 file");
	case TTRACE_FILE_SEC_RECORDS:
	case TTRACE_FILE_SEC_LOSS:
	case TTRACE_FILE_SEC_STATS:
		return load_percpu(t, s, n, err);
	default:
		t->nunknown++;
		return 0;
	}
}

struct sort_key {
	uint64_t ts;
	uint64_t order;			/* position in index order */
	const struct ttrace_entry *e;	/* the event's first entry */
};

static int key_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Slots of the event whose first entry is e, at most left (a run never
 * splits an event in a valid file; verify checks that). */
static uint64_t event_slots(const struct ttrace_entry *e, uint64_t left)
{
	uint64_t n = ttrace_ts_is_cont(e->timestamp) ? 1 :
		     1 + (uint64_t)TTRACE_TYPE_NCONT(e->type);

	return MIN(n, left);
}

/* The events of c in index order as sort keys; returns how many. */
static uint64_t event_keys(const struct ttload_cpu *c, struct sort_key *k)
{
	uint64_t n = 0;

	for (uint64_t r = 0; r < c->nruns; r++) {
		const struct ttload_run *run = &c->runs[r];

		if (run->type != TTRACE_FILE_SEC_RECORDS)
			continue;
		for (uint64_t i = 0; i < run->count;
		     i += event_slots(&run->entries[i], run->count - i)) {
			k[n].ts = run->entries[i].timestamp;
			k[n].order = n;
			k[n++].e = &run->entries[i];
		}
	}
	return n;
}

/* Moves every timestamp of c's RECORDS runs (which live in the loader's
 * own buffer) to CPU 0's clock, in place (ttrace_ts_on_cpu0()). */
static void adjust_runs(struct ttload_cpu *c, int64_t offset)
{
	if (!((uint64_t)offset & ~(uint64_t)1))
		return;
	for (uint64_t r = 0; r < c->nruns; r++) {
		struct ttrace_entry *e = (struct ttrace_entry *)c->runs[r].entries;

		for (uint64_t i = 0; c->runs[r].type == TTRACE_FILE_SEC_RECORDS &&
		     i < c->runs[r].count; i++)
			e[i].timestamp = ttrace_ts_on_cpu0(e[i].timestamp,
							   offset);
	}
}

/* Fills c->losses (room for c->nruns) in index order, each LOSS run
 * placed at the timestamp of the first record after it, or at
 * UINT64_MAX (after everything) when none follows. */
static void place_losses(struct ttload_cpu *c)
{
	uint64_t unplaced = 0;

	for (uint64_t r = 0; r < c->nruns; r++) {
		const struct ttload_run *run = &c->runs[r];

		if (run->type == TTRACE_FILE_SEC_LOSS) {
			c->losses[c->nlosses++] = (struct ttload_loss){
				UINT64_MAX, run->first, run->count, run->reason };
			continue;
		}
		for (; unplaced < c->nlosses; unplaced++)
			c->losses[unplaced].ts = run->entries[0].timestamp;
	}
}

/*
 * Sorts the n keys at k by (timestamp, order) by insertion, as a ring's
 * few records stamped out of order move back a short way; gives up
 * (false) rather than move more than budget keys in all, leaving them
 * still a permutation with equal stamps in order (qsort's to finish).
 */
static bool keys_insertion_sort(struct sort_key *k, uint64_t n,
				uint64_t budget)
{
	for (uint64_t i = 1; i < n; i++) {
		struct sort_key x = k[i];
		uint64_t j = i;

		if (x.ts >= k[i - 1].ts)
			continue;
		while (j > 0 && k[j - 1].ts > x.ts)
			j--;
		if (i - j > budget)
			return false;
		budget -= i - j;
		memmove(&k[j + 1], &k[j], (i - j) * sizeof(*k));
		k[j] = x;
	}
	return true;
}

/* c->sorted as a copy: the runs' events sorted by (timestamp, index). */
static int sort_copy(struct ttload_cpu *c)
{
	struct sort_key *k = malloc((c->slots ? c->slots : 1) * sizeof(*k));
	uint64_t n, out = 0;

	c->sorted = big_alloc((c->slots ? c->slots : 1) * sizeof(*c->sorted),
			      NULL);
	if (!k || !c->sorted) {
		free(k);
		return -1;
	}
	n = event_keys(c, k);
	if (c->check.reordered && !keys_insertion_sort(k, n, n))
		qsort(k, n, sizeof(*k), key_cmp);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t m = event_slots(k[i].e, c->slots - out);

		memcpy(&c->sorted[out], k[i].e, m * sizeof(*k[i].e));
		out += m;
	}
	c->nsorted = out;
	free(k);
	return 0;
}

/*
 * Moves the entries of c's RECORDS runs together, each right after the one
 * before it, when nothing but c's own runs lies between them in the file
 * (their framing is parsed and no view points into it). Returns the first
 * entry of them all (NULL if c has none), or NULL with *ok false when
 * they cannot be moved.
 */
static struct ttrace_entry *compact_runs(struct ttload_cpu *c, bool *ok)
{
	struct ttrace_entry *base = NULL, *end = NULL;

	*ok = true;
	for (uint64_t r = 1; r < c->nruns; r++)
		if (c->runs[r].section != c->runs[r - 1].section + 1) {
			*ok = false;
			return NULL;
		}
	for (uint64_t r = 0; r < c->nruns; r++) {
		struct ttload_run *run = &c->runs[r];

		if (run->type != TTRACE_FILE_SEC_RECORDS)
			continue;
		if (!base)
			base = end = (struct ttrace_entry *)run->entries;
		else if (end != run->entries)
			memmove(end, run->entries, run->count * sizeof(*end));
		run->entries = end;
		end += run->count;
	}
	return base;
}

/*
 * Builds c->sorted: whole events (first entry, then its continuations) in
 * timestamp order: the runs' own entries moved together when they are in
 * time order, else a sorted copy; and c->losses: each LOSS run placed
 * before the first event after it in index order (or after the last one).
 */
static int sort_ring(struct ttload_cpu *c, int64_t offset)
{
	struct ttrace_entry *in_place;
	bool ok;

	c->losses = calloc(c->nruns ? c->nruns : 1, sizeof(*c->losses));
	if (!c->losses)
		return -1;
	adjust_runs(c, offset);
	place_losses(c);
	if (c->check.reordered)
		return sort_copy(c);
	in_place = compact_runs(c, &ok);
	if (!ok)
		return sort_copy(c);
	c->sorted_in_place = true;
	c->sorted = in_place;
	c->nsorted = c->slots;
	return 0;
}

/* ---- the aux index ------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
	const struct ttload_name *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->ident != y->ident)
		return x->ident < y->ident ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->str < y->str ? -1 : x->str > y->str; /* position */
}

/* The slot of (tag, ident) in t->group_hash (never full: it has twice as
 * many slots as there can be groups): its group's or an empty one. */
static uint32_t *group_slot(const struct ttload *t, uint32_t tag,
			    uint64_t ident)
{
	uint32_t mask = (1u << t->group_bits) - 1;

	for (uint32_t i = hash_word(ident * 31 + tag, t->group_bits);;
	     i = (i + 1) & mask) {
		uint32_t v = t->group_hash[i];

		if (!v || (t->groups[v - 1].tag == tag &&
			   t->groups[v - 1].ident == ident))
			return &t->group_hash[i];
	}
}

/* Counts rec of t's aux in *ac, as ttload_check_aux() does: a tag that
 * no list names (aux_version 1's are 1 to TTRACE_AUX_NTAGS - 1) is an
 * error. Returns 0 or -1. */
static int aux_count(const struct ttload *t, struct ttload_aux_check *ac,
		     const struct ttrace_aux_rec *rec,
		     struct ttrace_file_error *err)
{
	if (!ttrace_aux_tag_name(rec->tag)) {
		ttrace_file_set_error(err, t->aux_offset + 1 +
				      (rec->offset - t->aux.first),
				      "section AUX: record of tag %u, which "
				      "aux version %u does not have", rec->tag,
				      TTRACE_AUX_VERSION);
		return -1;
	}
	ac->bytag[rec->tag]++;
	ac->records++;
	return 0;
}

/* Ends a walk it of t's aux snapshot counted in *ac, whose last good
 * record ended at at: a length that broke the chain, or a record with
 * reserved path bits set, is an error. */
static int aux_walk_end(const struct ttload *t, struct ttload_aux_check *ac,
			const struct ttrace_aux_iter *it, size_t at,
			struct ttrace_file_error *err)
{
	ac->invalid = it->invalid;
	if (it->reserved)
		return fail(err, t->aux_offset + it->reserved - 1, "section "
			    "AUX: path word with reserved bits 1-7 set");
	if (it->malformed)
		return fail(err, t->aux_offset + at, "section AUX: malformed "
			    "record at or after this offset (bad length)");
	return 0;
}

/* Walks t's aux records once (room for cap of them in t->recs): checks
 * and counts them in t->auxcheck (ttload_check_aux()) and chains each to
 * its group (t->groups, found through t->group_hash, zeroed). Returns 0
 * or -1. */
static int walk_groups(struct ttload *t, uint64_t cap,
		       struct ttrace_file_error *err)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec;
	size_t at = 0;

	memset(&t->auxcheck, 0, sizeof(t->auxcheck));
	ttrace_aux_iter_init(&it, &t->aux);
	while (t->nrecs < cap && ttrace_aux_next(&it, &rec)) {
		uint32_t *slot = group_slot(t, rec.tag, rec.ident);
		struct ttload_group *g;

		if (aux_count(t, &t->auxcheck, &rec, err) < 0)
			return -1;
		at = it.pos;
		if (!*slot) {
			t->groups[t->ngroups] = (struct ttload_group){
				rec.ident, rec.tag, 0, 0, 0 };
			*slot = (uint32_t)++t->ngroups;
		}
		g = &t->groups[*slot - 1];
		t->recs[t->nrecs] = (struct ttload_rec){
			(uint32_t)((rec.offset - t->aux.first) /
				   TTRACE_AUX_ALIGN),
			g->count ? g->last + 1 : 0 };
		g->last = (uint32_t)t->nrecs++;
		g->count++;
	}
	return aux_walk_end(t, &t->auxcheck, &it, at, err);
}

/* Record i of t->recs (in group g) as a name, read again by
 * ttrace_aux_next() where the walk found it. */
static struct ttload_name rec_name(const struct ttload *t,
				   const struct ttload_group *g, uint32_t i)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec = { 0 };

	ttrace_aux_iter_init(&it, &t->aux);
	it.pos = (size_t)t->recs[i].pos * TTRACE_AUX_ALIGN;
	ttrace_aux_next(&it, &rec);	/* the walk took it: VALID, whole */
	return (struct ttload_name){ g->ident, rec.timestamp, rec.payload,
				     (uint32_t)rec.len, g->tag };
}

/* Writes g's g->count names to out by (time, position): its chain in
 * position order, sorted only when a writer on another CPU stamped a
 * name out of its place. */
static void group_names(const struct ttload *t, const struct ttload_group *g,
			struct ttload_name *out)
{
	uint32_t i = g->last + 1;
	bool sorted = true;

	for (uint32_t k = g->count; k-- > 0; i = t->recs[i - 1].prev)
		out[k] = rec_name(t, g, i - 1);
	for (uint32_t k = 1; sorted && k < g->count; k++)
		sorted = out[k - 1].ts <= out[k].ts;
	if (!sorted)
		qsort(out, g->count, sizeof(*out), name_cmp);
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ttload_name *x = a, *y = b;

	if (x->ident != y->ident)
		return x->ident < y->ident ? -1 : 1;
	return x->str < y->str ? -1 : x->str > y->str;	/* position */
}

/* t->ksyms: the records of tag ksym by (address, position), for
 * resolve_ksym()'s binary search. Returns 0 or -1 (out of memory). */
static int index_ksyms(struct ttload *t)
{
	uint64_t n = t->auxcheck.bytag[TTRACE_AUX_KSYM_NAME];

	if (!n)
		return 0;
	t->ksyms = malloc(n * sizeof(*t->ksyms));
	if (!t->ksyms)
		return -1;
	for (uint64_t i = 0; i < t->ngroups; i++)
		if (t->groups[i].tag == TTRACE_AUX_KSYM_NAME) {
			group_names(t, &t->groups[i], &t->ksyms[t->nksyms]);
			t->nksyms += t->groups[i].count;
		}
	qsort(t->ksyms, t->nksyms, sizeof(*t->ksyms), ksym_cmp);
	return 0;
}

void *ttload_scratch(struct ttload *t, uint64_t size)
{
	uint64_t used = ROUNDUP(t->size ? t->size : 1, TTRACE_FILE_ALIGN) +
			t->spare_used;

	if (!t->buf || t->buf_cap - used < size)
		return NULL;
	t->spare_used += ROUNDUP(size, TTRACE_FILE_ALIGN);
	return t->buf + used;
}

/*
 * size bytes for t's index, 64-byte aligned: from the spare tail of the
 * file's buffer while they fit (its pages came with the file's huge pages:
 * no fault and nothing more to clear), else a block of their own in
 * t->index_block[i]. NULL if out of memory.
 */
static void *index_alloc(struct ttload *t, uint64_t size, int i)
{
	void *p = ttload_scratch(t, size);

	if (p)
		return p;
	t->index_block[i] = size == (size_t)size ?
			    malloc((size_t)(size ? size : 1)) : NULL;
	return t->index_block[i];
}

/*
 * Checks the aux snapshot (t->auxcheck) and indexes its records: one walk
 * chains each to its (tag, ident) group, t->group_hash finding a group in
 * O(1); a group's names are sorted by time only when a lookup first asks
 * for it (resolve_index()), as a trace's records name a few hundred of the
 * thousands of processes its aux snapshot may hold; the ksym records are
 * sorted apart by address (t->ksyms). Returns 0, or -1 with err set.
 */
static int index_aux(struct ttload *t, struct ttrace_file_error *err)
{
	/* every record is at least its header */
	uint64_t n = t->aux.len / TTRACE_AUX_HDR_SIZE + 1;
	uint8_t *p;

	if (t->aux.len / TTRACE_AUX_ALIGN > UINT32_MAX)
		return fail(err, t->aux_offset, "section AUX: too large to "
			    "index (32 GiB or more)");
	t->group_bits = 4;
	while ((1ULL << t->group_bits) < 2 * n)
		t->group_bits++;
	/* one block: the lookup's state and the hash (cleared), the groups
	 * and the records */
	p = index_alloc(t, sizeof(*t->lookup) +
			(sizeof(*t->group_hash) << t->group_bits) +
			n * (sizeof(*t->groups) + sizeof(*t->recs)), 0);
	if (!p)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	t->lookup = (struct ttload_lookup *)(void *)p;
	t->group_hash = (uint32_t *)(t->lookup + 1);
	t->recs = (struct ttload_rec *)(t->group_hash +
					(1ULL << t->group_bits));
	t->groups = (struct ttload_group *)(t->recs + n);
	memset(p, 0, sizeof(*t->lookup) +
	       (sizeof(*t->group_hash) << t->group_bits));
	if (walk_groups(t, n, err) < 0)
		return -1;
	if (!t->index_block[0])		/* the groups' unused end is spare */
		t->spare_used -= (n - t->ngroups) * sizeof(*t->groups) /
				 TTRACE_FILE_ALIGN * TTRACE_FILE_ALIGN;
	/* the sorted groups, touched only as far as lookups sort them */
	t->lookup->names = index_alloc(t, t->nrecs * sizeof(*t->lookup->names),
				       1);
	if (!t->lookup->names || index_ksyms(t) < 0)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	return 0;
}

const struct ttload_name *ttload_names(const struct ttload *t, uint64_t *n)
{
	struct ttload_lookup *lk = t->lookup;
	uint64_t k = 0;

	*n = 0;
	if (!lk)
		return NULL;
	if (!lk->all) {
		lk->all = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*lk->all));
		if (!lk->all)
			return NULL;
		for (uint64_t i = 0; i < t->ngroups; i++) {
			group_names(t, &t->groups[i], &lk->all[k]);
			k += t->groups[i].count;
		}
	}
	*n = t->nrecs;
	return lk->all;
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
	/* the reader's CRC covers everything before END */
	t->file_crc = ttrace_crc32(r.crc, t->buf + r.pos, t->size - r.pos);
	if (!t->cpus)
		return fail(err, TTRACE_FILE_HDR_SIZE, "no VERSION section");
	if (!t->meta_blob)
		return fail(err, TTRACE_FILE_HDR_SIZE, "no META section");
	if (range_check(t, err) < 0)
		return -1;
	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		if (stats_check(t, c, err) < 0)
			return -1;
	if (index_aux(t, err) < 0)
		return -1;
	for (uint32_t c = 0; c < t->version.num_cpus; c++) {
		if (ttload_check_ring(t, c, &t->cpus[c].check, err) < 0)
			return -1;
		if (sort_ring(&t->cpus[c], t->tsc ? t->tsc[c].offset : 0) < 0)
			return fail(err, TTLOAD_NO_OFFSET, "out of memory");
		t->nevents += t->cpus[c].check.firsts;
	}
	return 0;
}

/* Loads the file in t->buf (t->size bytes, zero padded to a multiple of
 * 64). Returns 0, or -1 with err filled and t emptied. */
static int load_own_buffer(struct ttload *t, struct ttrace_file_error *err)
{
	if (load_walk(t, err) < 0) {
		ttload_free(t);
		return -1;
	}
	return 0;
}

/* An aligned buffer for a file of size bytes, zero padded to a multiple
 * of 64, or NULL; *cap gets the bytes allocated. */
static uint8_t *file_buffer(uint64_t size, uint64_t *cap)
{
	uint8_t *p = big_alloc(ROUNDUP(size ? size : 1, TTRACE_FILE_ALIGN),
			       cap);

	if (p)
		memset(p + size, 0, ROUNDUP(size ? size : 1,
					    TTRACE_FILE_ALIGN) - size);
	return p;
}

/*
 * Loads the size bytes of a trace file at data (copied into an aligned
 * buffer, so data may be freed). Returns 0, or -1 with err filled and t
 * left empty.
 */
int ttload_buffer(struct ttload *t, const void *data, uint64_t size,
		  struct ttrace_file_error *err)
{
	memset(t, 0, sizeof(*t));
	ttcrc32_install();
	t->buf = file_buffer(size, &t->buf_cap);
	if (!t->buf)
		return fail(err, TTLOAD_NO_OFFSET, "out of memory");
	memcpy(t->buf, data, size);
	t->size = size;
	return load_own_buffer(t, err);
}

/* Reads size bytes of f into a buffer of file_buffer() (*cap bytes); NULL
 * on failure, with *why saying what failed. */
static uint8_t *file_read(FILE *f, uint64_t size, uint64_t *cap,
			  const char **why)
{
	uint8_t *p = file_buffer(size, cap);

	*why = "out of memory";
	if (p && fread(p, 1, (size_t)size, f) != (size_t)size) {
		*why = "read failed";
		free(p);
		p = NULL;
	}
	return p;
}

/* Reads the file at path straight into the loader's buffer and loads it,
 * as ttload_buffer(). */
int ttload_file(struct ttload *t, const char *path,
		struct ttrace_file_error *err)
{
	FILE *f = fopen(path, "rb");
	const char *why;
	struct stat st;

	memset(t, 0, sizeof(*t));
	ttcrc32_install();
	if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		ttrace_file_set_error(err, TTLOAD_NO_OFFSET, "%s",
				      f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	t->size = (uint64_t)st.st_size;
	t->buf = file_read(f, t->size, &t->buf_cap, &why);
	fclose(f);
	if (!t->buf) {
		ttrace_file_set_error(err, TTLOAD_NO_OFFSET, "%s", why);
		t->size = 0;
		return -1;
	}
	return load_own_buffer(t, err);
}

/* Frees everything t holds; t is then empty (safe to call twice). */
void ttload_free(struct ttload *t)
{
	if (t->cpus)
		for (uint32_t c = 0; c < t->version.num_cpus; c++) {
			if (!t->cpus[c].sorted_in_place)
				free(t->cpus[c].sorted);
			free(t->cpus[c].runs);
			free(t->cpus[c].losses);
		}
	free(t->cpus);
	if (t->lookup)
		free(t->lookup->all);
	free(t->index_block[0]);	/* NULL when in buf's tail */
	free(t->index_block[1]);
	free(t->ksyms);
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
		if (aux_count(t, ac, &rec, err) < 0)
			return -1;
		at = it.pos;
	}
	return aux_walk_end(t, ac, &it, at, err);
}

/* The type word flags t's format reserves: all of them before version 3
 * (docs/trace-format.md, Type word). */
static uint32_t flags_reserved(const struct ttload *t)
{
	return t->version.percpu_version < 3 ? TTRACE_TYPE_FLAGS_MASK :
	       TTRACE_TYPE_FLAGS_RESERVED;
}

/* Checks one first entry e (at file offset off) of cpu's ring. */
static int entry_check(const struct ttload *t, uint32_t cpu,
		       const struct ttrace_entry *e, uint64_t off,
		       struct ttrace_file_error *err)
{
	uint64_t type = e->type;
	uint32_t id = TTRACE_TYPE_ID(type), ncont = TTRACE_TYPE_NCONT(type);
	const struct ttrace_event_meta *m;

	if (TTRACE_TYPE_CTX(type) >= TTRACE_CTX_NKINDS)
		return fail(err, off, "entry: unknown context kind");
	if (TTRACE_TYPE_CPU(type) != cpu) {
		ttrace_file_set_error(err, off, "entry: written by cpu %u but in "
				      "the ring of cpu %u",
				      TTRACE_TYPE_CPU(type), cpu);
		return -1;
	}
	if (TTRACE_TYPE_FLAGS(type) & flags_reserved(t)) {
		ttrace_file_set_error(err, off, "entry: type flags %#x are "
				      "reserved in format %u",
				      TTRACE_TYPE_FLAGS(type),
				      t->version.percpu_version);
		return -1;
	}
	if (id >= t->meta.nevents) {
		ttrace_file_set_error(err, off, "entry: event id %u is not in "
				      "the metadata (%u events)", id,
				      t->meta.nevents);
		return -1;
	}
	m = &t->meta.events[id];
	if (ncont != ttrace_ncont(t->words[id])) {
		ttrace_file_set_error(err, off, "entry: event %s with %u "
				      "argument words announces %u "
				      "continuations", m->name, t->words[id],
				      ncont);
		return -1;
	}
	return 0;
}

/* Checks the first entry e at index idx (file offset off) of cpu's ring:
 * its seq is its index's, and entry_check(). */
static int first_check(const struct ttload *t, uint32_t cpu,
		       const struct ttrace_entry *e, uint64_t idx, uint64_t off,
		       struct ttrace_file_error *err)
{
	if (TTRACE_TYPE_SEQ(e->type) != TTRACE_SEQ_OF(idx)) {
		ttrace_file_set_error(err, off, "entry: cpu %u index %llu holds "
			"the record of seq %u: records are missing or out of "
			"place", cpu, (unsigned long long)idx,
			TTRACE_TYPE_SEQ(e->type));
		return -1;
	}
	return entry_check(t, cpu, e, off, err);
}

/* Whether a first entry of type word type at index idx of cpu's ring
 * passes first_check(), told at a glance: its seq and cpu in one
 * comparison, then its context kind, flags, event id and continuations. */
static bool first_ok(const struct ttload *t, uint32_t cpu, uint64_t type,
		     uint64_t idx)
{
	uint32_t id = TTRACE_TYPE_ID(type);

	return type >> TTRACE_TYPE_CPU_SHIFT ==
	       ((uint64_t)TTRACE_SEQ_OF(idx) <<
		(TTRACE_TYPE_SEQ_SHIFT - TTRACE_TYPE_CPU_SHIFT) | cpu) &&
	       TTRACE_TYPE_CTX(type) < TTRACE_CTX_NKINDS &&
	       !(TTRACE_TYPE_FLAGS(type) & flags_reserved(t)) &&
	       id < t->meta.nevents &&
	       TTRACE_TYPE_NCONT(type) == ttrace_ncont(t->words[id]);
}

/* Checks that the words of an event's last continuation e (at file
 * offset off) after its used ones are zero, as the format says. */
static int unused_words_check(const struct ttrace_entry *e, uint32_t used,
			      uint64_t off, struct ttrace_file_error *err)
{
	for (uint32_t k = used; k < TTRACE_CONT_ARGS; k++)
		if (e->cont[k]) {
			ttrace_file_set_error(err, off + 8 + 8 * k, "entry: "
				"continuation word %u is not zero, but its "
				"event has no argument there", k);
			return -1;
		}
	return 0;
}

/* Checks run r's entries: every first entry's seq is its index's, every
 * continuation follows its first entry, no event is cut. Counts them in
 * *rc, *prev_ts being the last first entry's stamp (kept in locals: the
 * loop runs once per record of the file). */
static int run_entries_check(const struct ttload *t, uint32_t cpu,
			     const struct ttload_run *r,
			     struct ttload_ring_check *rc, uint64_t *prev_ts,
			     struct ttrace_file_error *err)
{
	uint64_t parent_ts = 0, prev = *prev_ts, boot = t->version.tsc_boot;
	uint64_t firsts = 0, conts = 0, before_boot = 0, reordered = 0, i;
	uint32_t want_conts = 0, tail_words = 0;
	int ret = -1;

	for (i = 0; i < r->count; i++) {
		const struct ttrace_entry *e = &r->entries[i];
		uint64_t ts = e->timestamp, idx = r->first + i;

		if (!ttrace_ts_valid(ts)) {
			fail(err, r->offset + i * TTRACE_ENTRY_SIZE, "entry: "
			     "invalid timestamp in a RECORDS section");
			goto out;
		}
		if (ttrace_ts_is_cont(ts)) {
			if (!want_conts || ts != (parent_ts | 1)) {
				fail(err, r->offset + i * TTRACE_ENTRY_SIZE,
				     "entry: continuation without its first "
				     "entry");
				goto out;
			}
			if (!--want_conts && unused_words_check(e, tail_words,
					r->offset + i * TTRACE_ENTRY_SIZE, err) < 0)
				goto out;
			conts++;
			continue;
		}
		if (want_conts) {
			fail(err, r->offset + i * TTRACE_ENTRY_SIZE, "entry: an "
			     "event's continuation is missing");
			goto out;
		}
		if (!first_ok(t, cpu, e->type, idx) &&
		    first_check(t, cpu, e, idx, r->offset + i * TTRACE_ENTRY_SIZE,
				err) < 0)
			goto out;
		firsts++;
		before_boot += ts < boot;
		reordered += ts < prev;
		prev = parent_ts = ts;
		want_conts = TTRACE_TYPE_NCONT(e->type);
		if (want_conts)	/* argument words in the last continuation */
			tail_words = t->words[TTRACE_TYPE_ID(e->type)] -
				     TTRACE_ENTRY_ARGS -
				     (want_conts - 1) * TTRACE_CONT_ARGS;
	}
	if (want_conts)
		fail(err, r->offset + r->count * TTRACE_ENTRY_SIZE,
		     "entry: the section ends inside an event");
	else
		ret = 0;
out:
	rc->firsts += firsts;
	rc->conts += conts;
	rc->before_boot += before_boot;
	rc->reordered += reordered;
	*prev_ts = prev;
	return ret;
}

/*
 * Checks every record of cpu: fields an intact kernel record always has
 * right (reserved bits, context kind, cpu, event id, continuation count,
 * seq at its index, continuations in place) are errors, reported with the
 * entry's file offset; the rest is counted in *rc. Returns 0 or -1.
 */
int ttload_check_ring(const struct ttload *t, uint32_t cpu,
		      struct ttload_ring_check *rc,
		      struct ttrace_file_error *err)
{
	const struct ttload_cpu *c = &t->cpus[cpu];
	uint64_t prev_ts = 0;

	memset(rc, 0, sizeof(*rc));
	if (c->nruns) {
		rc->first_index = c->runs[0].first;
		rc->end_index = c->runs[c->nruns - 1].first +
				c->runs[c->nruns - 1].count;
	}
	for (uint64_t r = 0; r < c->nruns; r++)
		if (c->runs[r].type == TTRACE_FILE_SEC_RECORDS &&
		    run_entries_check(t, cpu, &c->runs[r], rc, &prev_ts, err) < 0)
			return -1;
	return 0;
}

/* The ksym name of pc (tag ksym: the symbol with the largest address at
 * or below pc, the last written of that address, at any time) by a
 * binary search of t->ksyms; *m gets it, for every ts. */
static void resolve_ksym(const struct ttload *t, uint64_t pc,
			 struct ttload_name_memo *m)
{
	uint64_t lo = 0, hi = t->nksyms;

	*m = (struct ttload_name_memo){ pc, 0, UINT64_MAX, NULL, 0,
					TTRACE_AUX_KSYM_NAME };
	while (lo < hi) {	/* lo: the first symbol above pc */
		uint64_t mid = lo + (hi - lo) / 2;

		if (t->ksyms[mid].ident <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		m->str = t->ksyms[lo - 1].str;
		m->len = t->ksyms[lo - 1].len;
	}
}

/* The name of (tag, ident) at ts looked up in the index (its group
 * sorted on the first lookup); *m gets it with the times [lo, hi) for
 * which it is the answer. */
static void resolve_index(const struct ttload *t, unsigned tag,
			  uint64_t ident, uint64_t ts,
			  struct ttload_name_memo *m)
{
	struct ttload_lookup *lk = t->lookup;
	uint32_t v = *group_slot(t, tag, ident);
	const struct ttload_name *n;
	struct ttload_group *g;
	uint64_t u, k, hi;

	*m = (struct ttload_name_memo){ ident, 0, UINT64_MAX, NULL, 0, tag };
	if (!v)
		return;
	g = &t->groups[v - 1];
	if (!g->start) {
		group_names(t, g, &lk->names[lk->nnames]);
		g->start = (uint32_t)lk->nnames + 1;
		lk->nnames += g->count;
	}
	/* g's names by time: u is the first one after ts (a few looked at,
	 * then a binary search) */
	n = &lk->names[g->start - 1];
	for (u = 0; u < 8 && u < g->count && n[u].ts <= ts; u++)
		;
	for (hi = u < 8 ? u : g->count; u < hi;) {
		uint64_t mid = u + (hi - u) / 2;

		if (n[mid].ts <= ts)
			u = mid + 1;
		else
			hi = mid;
	}
	/* the newest at or before ts, else the oldest after it: the answer
	 * until the next name of (tag, ident), which is newer than ts */
	k = u ? u - 1 : 0;
	m->lo = k ? n[k].ts : 0;
	if (k + 1 < g->count)
		m->hi = n[k + 1].ts;
	m->str = n[k].str;
	m->len = n[k].len;
}

/* ttload_resolve() when memo m does not hold the answer: looks it up and
 * keeps it in m. Out of line, so that the memo's hit saves no registers. */
static __attribute__((noinline)) size_t resolve_miss(const struct ttload *t,
			unsigned tag, uint64_t ident, uint64_t ts,
			struct ttload_name_memo *m, const char **str)
{
	if (tag == TTRACE_AUX_KSYM_NAME)
		resolve_ksym(t, ident, m);
	else
		resolve_index(t, tag, ident, ts, m);
	*str = (const char *)m->str;
	return m->len;
}

size_t ttload_resolve(void *arg, unsigned tag, uint64_t ident, uint64_t ts,
		      const char **str)
{
	const struct ttload *t = arg;
	struct ttload_name_memo *m;

	if (!t->lookup) {
		*str = NULL;
		return 0;
	}
	m = &t->lookup->memo[hash_word(ident * 31 + tag, TTLOAD_MEMO_BITS)];
	if (m->tag != tag || m->ident != ident || ts < m->lo || ts >= m->hi)
		return resolve_miss(t, tag, ident, ts, m, str);
	*str = (const char *)m->str;
	return m->len;
}

/* Prints "ttdecode: PATH: offset N: problem". Returns the exit status, 1. */
int ttload_report(const char *path, const struct ttrace_file_error *err)
{
	if (err->offset == TTLOAD_NO_OFFSET)
		fprintf(stderr, "ttdecode: %s: %s\n", path, err->msg);
	else
		fprintf(stderr, "ttdecode: %s: offset %llu: %s\n", path,
			(unsigned long long)err->offset, err->msg);
	return 1;
}

/* Loads path into t, or reports why not. Returns 0 or the exit status. */
int ttload_open(struct ttload *t, const char *path)
{
	struct ttrace_file_error err;

	if (ttload_file(t, path, &err) < 0)
		return ttload_report(path, &err);
	return 0;
}
