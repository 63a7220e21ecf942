/*
 * The metadata a trace file carries (kern/trace/metasnap.c,
 * docs/trace-file.md) stays the metadata of its records, whatever
 * function probes do while it is read or after a copy is frozen:
 *
 *	frozenmeta_torn		two `fprobe add`s after a trace file's first
 *				read (its header made, its META not yet
 *				copied out) leave its META whole: the blob
 *				the version header's meta_size says, which
 *				parses (bug: the second add rewrote the blob
 *				the file was copying: "size does not match")
 *	frozenmeta_frozen	a snapshot probe's copy holding a probe's
 *				record, read after the probe was deleted,
 *				the rings cleared and its id given to another
 *				probe, names the record as the first probe's
 *				(bug: as the new probe's, verify OK)
 *	frozenmeta_ids		a deleted probe's id, freed by a clear, is
 *				not given to a new probe while a trace file
 *				begun before still reads the rings (it would
 *				name the new probe's records as the old
 *				one's), and is once that file is closed
 *
 * Each puts the tracer back (probes deleted, the rings cleared so their
 * ids come free, the ring size).
 */
#include <ktest.h>
#include <kmalloc.h>
#include <ns.h>
#include <pmem.h>
#include <printfmt.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <ttrace_meta.h>
#include <ttrace_probe.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#include "../internal.h"
#include "kt.h"

#define HEAD_ORDER	4	/* 64 KiB: a file's header, VERSION, META */
#define FILE_ORDER	10	/* 4 MiB: a whole snaptrace of 64 KiB rings */
#define SNAP_TAG	0xf0e7a5ull	/* test_seq's seq of the trigger */

/* A trace file's metadata, parsed (its strings point into the file). */
struct file_meta {
	struct ttrace_meta_table table;
	void *arena;
};

/* Reads tf from where it is (at off) into buf[off..size) until its end or
 * size. Returns the bytes now in buf, or -1 if a read failed. */
static long read_on(struct ttrace_tracefile *tf, uint8_t *buf, size_t size,
		    size_t off)
{
	long n;

	while (off < size &&
	       (n = ttrace_tracefile_read(tf, buf + off, size - off, off)) > 0)
		off += (size_t)n;
	return n < 0 ? -1 : (long)off;
}

/*
 * Walks the file in buf[0..len) (whole: to its END; else its first
 * sections) and parses its META, which must be the version header's
 * meta_size bytes, into m (free m->arena after); each RECORDS section is
 * handed to each_run(arg). NULL, or why not.
 */
static const char *file_meta(const uint8_t *buf, size_t len, bool whole,
			     struct file_meta *m,
			     void (*each_run)(void *, const struct ttrace_file_sec *,
					      const struct ttrace_meta_table *),
			     void *arg)
{
	struct ttrace_file_reader r;
	struct ttrace_file_error err;
	struct ttrace_file_sec sec;
	uint32_t meta_size = 0;
	const char *why;
	size_t arena;
	int k;

	m->arena = NULL;
	if (ttrace_file_open(&r, buf, len, &err))
		return "not a trace file";
	while ((k = ttrace_file_next(&r, &sec, &err)) > 0) {
		if (sec.type == TTRACE_FILE_SEC_VERSION)
			meta_size = ((const struct ttrace_version *)
				     sec.payload)->meta_size;
		if (sec.type == TTRACE_FILE_SEC_RECORDS && m->arena && each_run)
			each_run(arg, &sec, &m->table);
		if (sec.type != TTRACE_FILE_SEC_META)
			continue;
		if (sec.length != meta_size)
			return "META's length is not the version's meta_size";
		arena = ttrace_meta_arena_size(sec.payload, sec.length);
		m->arena = arena ? kmalloc(arena) : NULL;
		if (arena && !m->arena)
			return "out of memory";
		if (ttrace_meta_parse(sec.payload, sec.length, m->arena, arena,
				      &m->table, &why))
			return why;	/* a broken blob: no arena needed */
		if (!whole)
			return NULL;
	}
	if (k < 0 || !r.done)
		return "the trace file does not walk to its END";
	return m->arena ? NULL : "no META section";
}

/* ---- frozenmeta_torn ---------------------------------------------------- */

static bool test_frozenmeta_torn(void)
{
	uint8_t *buf = get_cont_pages(HEAD_ORDER, 0);
	size_t size = (size_t)PGSIZE << HEAD_ORDER;
	struct ttrace_tracefile *tf = ttrace_tracefile_new(TTRACE_READ_RAW);
	struct file_meta m = { 0 };
	const char *why = "out of memory";
	long len = -1;
	bool ok;

	ok = kt_ctl("fprobe add kt_torn0 ns_clean out=arg0:ptr");
	if (ok && buf && tf && ttrace_tracefile_read(tf, buf, 1, 0) == 1) {
		/* the header is made, the metadata taken; META comes next */
		ok = kt_ctl("fprobe add kt_torn1 ns_clean path=arg1:u64") &&
		     kt_ctl("fprobe add kt_torn2 ns_clean%return ret:s64");
		len = read_on(tf, buf, size, 1);
	}
	if (len > 0)
		why = file_meta(buf, (size_t)len, false, &m, NULL, NULL);
	kfree(m.arena);
	ttrace_tracefile_free(tf);
	if (buf)
		free_cont_pages(buf, HEAD_ORDER);
	ok &= kt_ctl("fprobe del kt_torn0");
	ok &= ttrace_event_id("kt_torn1") < 0 || kt_ctl("fprobe del kt_torn1");
	ok &= ttrace_event_id("kt_torn2") < 0 || kt_ctl("fprobe del kt_torn2");
	ok &= kt_ctl("clear");
	KT_ASSERT(ok, "a ctl command was refused");
	KT_ASSERT(!why, "the trace file's META: %s", why);
	return true;
}
KTEST_REG(frozenmeta_torn, test_frozenmeta_torn);

/* ---- frozenmeta_frozen -------------------------------------------------- */

/* What a snaptrace says of the probe's records (event id). */
struct named {
	uint32_t id;
	uint32_t records;	/* of the id */
	char name[TTRACE_META_MAX_NAME + 1];	/* the file's name of the id,
						   at its first record */
};

static void name_records(void *arg, const struct ttrace_file_sec *sec,
			 const struct ttrace_meta_table *t)
{
	struct named *nm = arg;
	const struct ttrace_entry *e = (const void *)(sec->payload +
					sizeof(struct ttrace_file_run));
	uint64_t n = (sec->length - sizeof(struct ttrace_file_run)) /
		     sizeof(*e);

	for (uint64_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(e[i].type)) {
		if (TTRACE_TYPE_ID(e[i].type) != nm->id)
			continue;
		if (!nm->records++)
			strlcpy(nm->name, nm->id < t->nevents ?
				t->events[nm->id].name : "(none)",
				sizeof(nm->name));
	}
}

/* Reads the snapshot probe's copy whole and names the records of nm->id
 * in it. NULL, or why not. */
static const char *read_snaptrace(struct named *nm)
{
	uint8_t *buf = get_cont_pages(FILE_ORDER, 0);
	struct ttrace_tracefile *tf = ttrace_tracefile_new(TTRACE_READ_SNAP);
	struct file_meta m = { 0 };
	const char *why = "out of memory";
	long len;

	if (buf && tf) {
		len = read_on(tf, buf, (size_t)PGSIZE << FILE_ORDER, 0);
		why = len < 0 ? "read failed" :
		      file_meta(buf, (size_t)len, true, &m, name_records, nm);
	}
	kfree(m.arena);
	ttrace_tracefile_free(tf);
	if (buf)
		free_cont_pages(buf, FILE_ORDER);
	return why;
}

/* Probe kt_froz's record, then the copy (the trigger), both in the rings;
 * the probe deleted, the rings cleared (its id free) and another probe
 * added: its id, if it took the same. */
static bool frozen_then_reused(struct named *nm, int *other)
{
	static char out[64];

	if (!kt_ctl("fprobe add kt_froz ns_clean out=arg0:ptr path=arg1:str") ||
	    !kt_ctl("probe kt_frozsnap snapshot test_seq if a==2"))
		return false;
	nm->id = (uint32_t)ttrace_event_id("kt_froz");
	ns_clean(out, "/kt/frozen");
	ttrace_test_seq(SNAP_TAG, 0, 2, 0, 0);	/* the copy */
	if (!kt_ctl("fprobe del kt_froz") || !kt_ctl("clear") ||
	    !kt_ctl("fprobe add kt_frozb ns_clean%return r=ret:s64"))
		return false;
	*other = ttrace_event_id("kt_frozb");
	return true;
}

static bool test_frozenmeta_frozen(void)
{
	uint64_t kb = ttrace_ring_bytes() / 1024;
	struct named nm = { 0 };
	const char *why = NULL;
	char restore[32];
	int other = -1;
	bool ok;

	fmt_snprintf(restore, sizeof(restore), "bufsize %lu", kb);
	/* small rings: the whole copy read into FILE_ORDER pages */
	ok = kt_ctl("bufsize 64") && frozen_then_reused(&nm, &other);
	if (ok)
		why = read_snaptrace(&nm);
	ok &= kt_ctl("unprobe kt_frozsnap");
	ok &= other < 0 || kt_ctl("fprobe del kt_frozb");
	ok &= kt_ctl("clear") && kt_ctl(restore);
	KT_ASSERT(ok, "a ctl command was refused");
	KT_ASSERT(!why, "snaptrace: %s", why);
	KT_ASSERT(nm.records >= 1, "snaptrace: no record of kt_froz (id %u)",
		  nm.id);
	KT_ASSERT(!strcmp(nm.name, "kt_froz"),
		  "snaptrace names kt_froz's records (id %u) '%s' (the id's "
		  "new probe: id %d)", nm.id, nm.name, other);
	return true;
}
KTEST_REG(frozenmeta_frozen, test_frozenmeta_frozen);

/* ---- frozenmeta_ids ----------------------------------------------------- */

static bool test_frozenmeta_ids(void)
{
	struct ttrace_tracefile *tf = ttrace_tracefile_new(TTRACE_READ_RAW);
	uint8_t byte;
	int first, during = -1, after = -1;
	bool ok;

	/* deleted probes' ids free: kt_ids0 takes the lowest free one */
	ok = tf && kt_ctl("clear") &&
	     kt_ctl("fprobe add kt_ids0 ns_clean out=arg0:ptr");
	first = ttrace_event_id("kt_ids0");
	/* the file begins: its metadata names kt_ids0 */
	ok = ok && ttrace_tracefile_read(tf, &byte, 1, 0) == 1 &&
	     kt_ctl("fprobe del kt_ids0") && kt_ctl("clear") &&
	     kt_ctl("fprobe add kt_ids1 ns_clean%return r=ret:s64");
	during = ttrace_event_id("kt_ids1");
	ttrace_tracefile_free(tf);
	/* closed: the id can be given again */
	ok = ok && kt_ctl("fprobe del kt_ids1") && kt_ctl("clear") &&
	     kt_ctl("fprobe add kt_ids2 ns_clean path=arg1:u64");
	after = ttrace_event_id("kt_ids2");
	ok &= after < 0 || kt_ctl("fprobe del kt_ids2");
	ok &= kt_ctl("clear");
	KT_ASSERT(ok, "a ctl command was refused or out of memory");
	KT_ASSERT(during != first,
		  "kt_ids0's id %d went to kt_ids1 while a trace file begun "
		  "before still read the rings", first);
	KT_ASSERT(after == first, "after the file closed, kt_ids2 took id %d, "
		  "not the lowest free one, %d", after, first);
	return true;
}
KTEST_REG(frozenmeta_ids, test_frozenmeta_ids);
