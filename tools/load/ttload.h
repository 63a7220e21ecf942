/*
 * ttload: a whole ttrace trace file (docs/trace-file.md) loaded into memory
 * and turned into views that decoders and exporters use: the version
 * header, the parsed event metadata, the aux snapshot, and per CPU its
 * runs of records and declared losses (index order), its events sorted by
 * time, and its losses placed in time. A gap between runs that no LOSS
 * section declares makes the file invalid.
 *
 * Host code (it allocates); the framing is checked by kern/trace/lib/file.c
 * and the payloads here, against the VERSION section that must come first,
 * so every view is safe to index by the sizes it carries. Any problem is
 * reported as "offset N: what" in a struct ttrace_file_error (offset
 * TTLOAD_NO_OFFSET when the file could not even be read).
 *
 * Loading costs O(n log n) at most and memory about the file's size: the
 * file is read once into an aligned buffer, each CPU's entries get their
 * TSC offset subtracted in place, and a CPU whose records are in time
 * order in sections one after the other (the usual case) has them moved
 * together in place (over the framing between them; runs[].entries
 * follow) and uses them as its sorted view; the aux records are checked
 * and chained by (tag, ident) in one walk, and a (tag, ident)'s names are
 * sorted by time only when a lookup first asks for it (a trace names
 * thousands of processes, its records a few hundred), so that
 * ttload_resolve() is a hash and a binary search,
 * and it remembers its recent answers with the time range each holds
 * for, so a decoder's repeated lookups cost one hash.
 *
 * Usage:
 *	struct ttload t;
 *	struct ttrace_file_error err;
 *	if (ttload_file(&t, path, &err) < 0)
 *		fail(path, &err);
 *	for (uint32_t c = 0; c < t.version.num_cpus; c++)
 *		walk(t.cpus[c].sorted, t.cpus[c].nsorted);
 *	ttload_free(&t);
 */
#ifndef TTLOAD_H
#define TTLOAD_H

#include <ttrace_aux.h>
#include <ttrace_file.h>
#include <ttrace_meta.h>

#define TTLOAD_NO_OFFSET	UINT64_MAX

/* What ttload_check_ring() found in one CPU's records. */
struct ttload_ring_check {
	uint64_t firsts;		/* first entries (= events) */
	uint64_t conts;			/* continuation entries */
	uint64_t reordered;		/* first entries older than the one
					   before them in index order */
	uint64_t before_boot;		/* timestamps before tsc_boot */
	uint64_t first_index;		/* the index range the runs cover */
	uint64_t end_index;
};

/* One RECORDS or LOSS section: logical indices [first, first + count). */
struct ttload_run {
	uint64_t first;
	uint64_t count;
	uint32_t type;			/* TTRACE_FILE_SEC_RECORDS or _LOSS */
	uint32_t reason;		/* LOSS: enum ttrace_loss_reason */
	const struct ttrace_entry *entries; /* RECORDS: count entries, in
					   index order, their timestamps on
					   CPU 0's clock once loaded */
	uint64_t offset;		/* file offset of entries[0] (or of
					   the LOSS section) */
	uint32_t section;		/* index of its section in the file */
};

/* A declared loss placed in time: before the event at timestamp ts. */
struct ttload_loss {
	uint64_t ts;
	uint64_t first;
	uint64_t count;
	uint32_t reason;
};

struct ttload_cpu {
	struct ttload_run *runs;	/* in index order, contiguous */
	uint64_t nruns;
	uint64_t cap;
	uint64_t slots;			/* entries in RECORDS runs */
	uint64_t lost[TTRACE_LOSS_NREASONS]; /* declared, by reason */
	struct ttrace_entry *sorted;	/* whole events by (timestamp, index),
					   timestamps on CPU 0's clock (the
					   TSC section's offset subtracted) */
	uint64_t nsorted;
	bool sorted_in_place;		/* sorted points into buf (not owned) */
	struct ttload_loss *losses;	/* the LOSS runs, placed in time */
	uint64_t nlosses;
	bool has_stats;
	bool has_filtered;		/* the STATS has filtered (newer) */
	bool has_str_dropped;		/* ... and str_dropped (newer still) */
	bool has_ring;			/* ... and start, entries, mode */
	uint64_t stats_offset;		/* file offset of the STATS payload */
	struct ttrace_file_stats stats;
	struct ttload_ring_check check;	/* made at load: the file is valid */
};

/* One aux name: a record's (tag, ident, timestamp), its text and (str)
 * its place. */
struct ttload_name {
	uint64_t ident;
	uint64_t ts;
	const uint8_t *str;
	uint32_t len;
	uint32_t tag;
};

/* A lookup ttload_resolve() made: (tag, ident) resolves to str/len for
 * every ts in [lo, hi) (empty while lo == hi). */
struct ttload_name_memo {
	uint64_t ident;
	uint64_t lo;
	uint64_t hi;
	const uint8_t *str;
	uint32_t len;
	uint32_t tag;
};

#define TTLOAD_MEMO_BITS	8

/* The aux records of one (tag, ident): chained newest first from last
 * (t->recs) until a lookup first asks for them, then sorted by (time,
 * position) at start - 1 in the lookup's names. */
struct ttload_group {
	uint64_t ident;
	uint32_t tag;
	uint32_t count;			/* records */
	uint32_t last;			/* its newest record, in t->recs */
	uint32_t start;			/* 0 until sorted */
};

/* An aux record in the walk's order: its offset in the snapshot (in
 * units of TTRACE_AUX_ALIGN) and 1 + the index of the record of its
 * group before it (0: the group's first). */
struct ttload_rec {
	uint32_t pos;
	uint32_t prev;
};

/* What ttload_resolve() changes as it goes (the one mutable part of a
 * loaded trace: ttload_resolve is not thread-safe). */
struct ttload_lookup {
	struct ttload_name_memo memo[1u << TTLOAD_MEMO_BITS]; /* recent
					   lookups */
	struct ttload_name *names;	/* the groups sorted so far, each
					   by (time, position) */
	uint64_t nnames;
	struct ttload_name *all;	/* ttload_names(), once asked */
};

/* What ttload_check_aux() found in the aux snapshot. */
struct ttload_aux_check {
	uint64_t records;		/* VALID records */
	uint64_t bytag[TTRACE_AUX_NTAGS]; /* ... by tag */
	uint64_t invalid;		/* records still being written */
};

struct ttload {
	uint8_t *buf;			/* the whole file, 64-byte aligned */
	uint64_t size;
	uint64_t buf_cap;		/* bytes allocated at buf (the spare
					   tail's pages come with the file's
					   huge pages) */
	uint32_t file_crc;		/* CRC-32 of the whole file */
	uint32_t nsections;		/* sections before END */
	uint32_t nunknown;		/* sections of types skipped */
	struct ttrace_version version;
	const uint8_t *meta_blob;
	uint64_t meta_len;
	uint64_t meta_offset;
	struct ttrace_meta_table meta;
	uint8_t words[TTRACE_META_MAX_EVENTS];	/* each event's argument
						   words (packed: fewer than
						   its arguments) */
	void *meta_arena;
	bool has_aux;
	struct ttrace_aux_view aux;	/* empty if the file has no AUX */
	uint64_t aux_offset;		/* file offset of aux byte 0 */
	struct ttload_aux_check auxcheck; /* made at load: the aux is valid */
	struct ttload_group *groups;	/* each (tag, ident) of the aux
					   records, by its first record */
	uint64_t ngroups;
	struct ttload_rec *recs;	/* the aux records, walk order */
	uint64_t nrecs;
	uint32_t *group_hash;		/* (tag, ident) -> 1 + its group;
					   0 empty */
	uint32_t group_bits;
	struct ttload_name *ksyms;	/* the ksym records by (address,
					   position), for ttload_resolve */
	uint64_t nksyms;
	struct ttload_lookup *lookup;
	uint64_t spare_used;		/* bytes of buf's spare tail given to
					   the index */
	void *index_block[2];		/* the index's memory when not in
					   buf's spare tail (owned) */
	const struct ttrace_file_tsc *tsc; /* num_cpus offsets, or NULL */
	const struct ttrace_file_range *range; /* num_cpus, or NULL */
	uint64_t range_offset;		/* file offset of range[0] */
	struct ttload_cpu *cpus;	/* version.num_cpus */
	uint64_t nevents;		/* first entries of all cpus */
};

int ttload_file(struct ttload *t, const char *path,
		struct ttrace_file_error *err);
int ttload_buffer(struct ttload *t, const void *data, uint64_t size,
		  struct ttrace_file_error *err);
void ttload_free(struct ttload *t);
int ttload_check_aux(const struct ttload *t, struct ttload_aux_check *ac,
		     struct ttrace_file_error *err);
int ttload_check_ring(const struct ttload *t, uint32_t cpu,
		      struct ttload_ring_check *rc,
		      struct ttrace_file_error *err);

/*
 * The name (aux record of tag/ident, newest at or before ts, else the
 * oldest after it: ttrace_aux_lookup's choice) an event refers to, as a
 * ttrace_resolve_fn whose arg is the struct ttload:
 *	ttrace_format_args(buf, n, e, &ev, ttload_resolve, &t);
 * Every decoder and exporter looks names up through this one function;
 * O(log n) in the aux records.
 */
/* For the commands: load or print "ttdecode: PATH: offset N: problem" on
 * stderr; both return 0 or the exit status (1). */
int ttload_report(const char *path, const struct ttrace_file_error *err);
int ttload_open(struct ttload *t, const char *path);

size_t ttload_resolve(void *t, unsigned tag, uint64_t ident, uint64_t ts,
		      const char **str);

/* size bytes, 64-byte aligned, for the caller's use until ttload_free(),
 * from the spare tail of t's file buffer (pages already faulted in with
 * the file's huge pages, so cheaper than a block of their own), or NULL
 * when they do not fit there. */
void *ttload_scratch(struct ttload *t, uint64_t size);

/* Every aux name (*n of them), grouped by (tag, ident) in the order of
 * each group's first record, each group by (time, position); built on
 * the first call, or NULL when out of memory. */
const struct ttload_name *ttload_names(const struct ttload *t, uint64_t *n);

#endif /* TTLOAD_H */
