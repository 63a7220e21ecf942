/*
 * In-kernel tests of the tracer under fire: every CPU but one traces test
 * events at full speed while the remaining CPU snapshots the rings and the
 * aux buffer over and over. Each test record carries a per-CPU sequence
 * number and a checksum of its words; each aux string names its writer and
 * sequence. Accepted records must be intact, and once the writers stop,
 * every ring must hold an unbroken run of sequence numbers starting exactly
 * at its overwrite count.
 */
#include <ktest.h>
#include "../internal.h"
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <trace_ring.h>
#include <pmem.h>
#include <printfmt.h>
#include <string.h>
#include <atomic.h>
#include <smp.h>
#include <printk.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#define EVENTS_PER_CPU	300000
#define AUX_EVERY	512
#define SNAP_ORDER	9		/* 2 MiB: more than a default ring */

static uint64_t checksum(uint64_t seq, uint64_t cpu, uint64_t a)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seq;

	h = (h ^ cpu) * 0x100000001b3ull;
	return (h ^ a) * 0x100000001b3ull;
}

struct stress {
	uint32_t writers_done;
	uint32_t bad_records;
	uint32_t bad_strings;
	uint64_t start;		/* trace clock: older markers are not ours */
	uint64_t snapshots;
	uint64_t records_checked;
	struct ttrace_entry *snap;
	size_t snap_max;
	void *aux_copy;
	size_t aux_size;
};

/* Clears this CPU's ring and fills it with test records, interrupts off so
 * that the ring holds nothing else and the overwrite count is exact. */
static void write_events(struct stress *s)
{
	uint64_t cpu = core_id();
	uint64_t flags = arch_irq_save();
	char str[48];

	trace_ring_clear(ttrace_ring_of(&ttrace_main, core_id()));
	for (uint64_t seq = 0; seq < EVENTS_PER_CPU; seq++) {
		ttrace_test_seq(seq, checksum(seq, cpu, seq * 3), cpu, seq * 3, 0);
		if (seq % AUX_EVERY == 0) {
			fmt_snprintf(str, sizeof(str), "cpu%lu seq%lu", cpu, seq);
			ttrace_aux_string(TTRACE_AUX_USER_MARKER, cpu << 32 | seq,
					  str);
		}
	}
	arch_irq_restore(flags);
	atomic_add(&s->writers_done, 1);
}

/* Checks every test record of one snapshot; sequence numbers must rise. */
static void check_snapshot(struct stress *s, size_t n)
{
	uint64_t last_seq[CONFIG_MAX_NUM_CPUS];

	memset(last_seq, 0xff, sizeof(last_seq));
	for (size_t i = 0; i < n; i++) {
		const struct ttrace_entry *e = &s->snap[i];
		uint32_t cpu = TTRACE_TYPE_CPU(e->type);

		if (TTRACE_TYPE_ID(e->type) != TTRACE_EV_TEST_SEQ)
			continue;
		s->records_checked++;
		if (e->data[3] != e->data[0] * 3 || e->data[2] != cpu ||
		    e->data[1] != checksum(e->data[0], cpu, e->data[3]) ||
		    (last_seq[cpu] != ~0ull && e->data[0] <= last_seq[cpu]))
			s->bad_records++;
		last_seq[cpu] = e->data[0];
	}
}

/* Every valid marker string written since the test started must be
 * exactly what its ident says (earlier ones, e.g. ttrace_patch_loop's
 * user processes' "load", are not the test's). */
static void check_aux(struct stress *s)
{
	struct ttrace_aux_view view;
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec;
	char want[48];

	if (ttrace_aux_read(&ttrace_main, s->aux_copy, s->aux_size, &view))
		return;
	ttrace_aux_iter_init(&it, &view);
	while (ttrace_aux_next(&it, &rec)) {	/* valid records only */
		if (rec.tag != TTRACE_AUX_USER_MARKER || rec.timestamp < s->start)
			continue;
		int n = fmt_snprintf(want, sizeof(want), "cpu%lu seq%lu",
				     rec.ident >> 32, rec.ident & 0xffffffff);
		if ((size_t)n != rec.len || memcmp(want, rec.payload, rec.len))
			s->bad_strings++;
	}
	if (it.malformed)
		s->bad_strings++;
}

/* Snapshots the writers' rings (all CPUs but the reader's, or only CPU 0
 * when it wrote alone) and aux until the writers are done, at least once. */
static void reader(struct stress *s, uint32_t writers)
{
	do {
		for (uint32_t c = writers ? 1 : 0; c < num_cpus; c++) {
			size_t n = trace_ring_collect(ttrace_ring_of(&ttrace_main, c), 0,
						      s->snap, s->snap_max,
						      NULL);
			check_snapshot(s, n);
		}
		check_aux(s);
		s->snapshots++;
	} while (atomic_read(&s->writers_done) < writers);
}

static struct stress *the_stress;

static void stress_cpu(void *arg)
{
	(void)arg;
	if (core_id() == 0 && num_cpus > 1)
		reader(the_stress, num_cpus - 1);
	else
		write_events(the_stress);
}

/* After the run: ring c holds seqs [first, EVENTS_PER_CPU) with no gap,
 * first == its overwritten count. */
static bool check_final(struct stress *s, uint32_t c)
{
	struct trace_ring_stats st;
	size_t n = trace_ring_collect(ttrace_ring_of(&ttrace_main, c), 0, s->snap,
				      s->snap_max, NULL);

	trace_ring_stats(ttrace_ring_of(&ttrace_main, c), &st);
	KT_ASSERT(n == st.live, "cpu %u: %zu records read, %lu live", c, n,
		  st.live);
	KT_ASSERT(n > 0, "cpu %u: empty ring", c);
	KT_ASSERT(s->snap[0].data[0] == st.overwritten,
		  "cpu %u: oldest seq %lu but overwritten %lu", c,
		  s->snap[0].data[0], st.overwritten);
	for (size_t i = 0; i < n; i++)
		KT_ASSERT(s->snap[i].data[0] == st.overwritten + i,
			  "cpu %u: seq gap at %zu", c, i);
	KT_ASSERT(s->snap[n - 1].data[0] == EVENTS_PER_CPU - 1,
		  "cpu %u: newest seq %lu", c, s->snap[n - 1].data[0]);
	return true;
}

/* Only the test group on; returns the old mask. */
static uint64_t test_only(void)
{
	return ttrace_set_mask(1ull << TTRACE_GROUP_TEST, ~0ull);
}

static void restore_mask(uint64_t old)
{
	ttrace_set_mask(old, ~0ull);
}

static bool test_ttrace_stress(void)
{
	static struct stress s;
	bool ok = true;

	memset(&s, 0, sizeof(s));
	s.snap = get_cont_pages(SNAP_ORDER, 0);
	s.aux_size = (size_t)PGSIZE << SNAP_ORDER;
	s.aux_copy = get_cont_pages(SNAP_ORDER, 0);
	KT_ASSERT(s.snap && s.aux_copy, "no memory for snapshots");
	s.snap_max = ((size_t)PGSIZE << SNAP_ORDER) / sizeof(*s.snap);
	s.start = arch_trace_clock();
	the_stress = &s;
	uint64_t old = test_only();
	smp_run_on_all(stress_cpu, NULL);
	if (num_cpus == 1)
		reader(&s, 0);
	printk("ttrace stress: %lu snapshots, %lu records checked\n",
	       s.snapshots, s.records_checked);
	for (uint32_t c = (num_cpus > 1); c < num_cpus && ok; c++)
		ok = check_final(&s, c);
	restore_mask(old);	/* only now: idle CPUs would trace again */
	free_cont_pages(s.snap, SNAP_ORDER);
	free_cont_pages(s.aux_copy, SNAP_ORDER);
	if (!ok)
		return false;	/* check_final said why */
	KT_ASSERT(s.bad_records == 0, "%u torn or out-of-order records",
		  s.bad_records);
	KT_ASSERT(s.bad_strings == 0, "%u torn aux strings", s.bad_strings);
	return true;
}
KTEST_REG(ttrace_stress, test_ttrace_stress);

/* A 13-word event comes back whole through continuation pairing, even with
 * other records in between. */
static bool test_ttrace_continuation(void)
{
	static struct ttrace_entry buf[256];
	uint64_t from;
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	uint64_t old = test_only();
	int found = 0;

	arch_irq_disable();
	from = trace_ring_head(ttrace_ring_of(&ttrace_main, core_id()));
	for (uint64_t i = 0; i < 10; i++) {
		ttrace_test_wide(i, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, i + 12);
		ttrace_test_seq(i, 0, 0, 0, 0);
	}
	arch_irq_enable();
	size_t n = trace_ring_collect(ttrace_ring_of(&ttrace_main, core_id()), from, buf,
				      ARRAY_SIZE(buf), NULL);
	restore_mask(old);
	ttrace_pair_init(&it, buf, n, &ttrace_meta_builtin);
	while (ttrace_pair_next(&it, &ev)) {
		if (ev.id != TTRACE_EV_TEST_WIDE)
			continue;
		KT_ASSERT(ev.nwords >= 13 && ev.ncont == 2 && ev.ncont_found == 2,
			  "wide event: %u words, %u/%u continuations",
			  ev.nwords, ev.ncont_found, ev.ncont);
		for (uint64_t w = 2; w < 12; w++)
			KT_ASSERT(ev.args[w] == w, "word %lu = %lu", w, ev.args[w]);
		KT_ASSERT(ev.args[12] == ev.args[0] + 12, "last word wrong");
		found++;
	}
	KT_ASSERT(found == 10, "%d of 10 wide events decoded", found);
	return true;
}
KTEST_REG(ttrace_continuation, test_ttrace_continuation);

/* Each round patches text (static keys): three IPI rounds to every CPU,
 * milliseconds under TCG, so fewer rounds than the armed bytes alone
 * needed. MASK_FLIPS in all, shared by the CPUs (100 each at 2 CPUs):
 * every flip races the other CPUs' flips whatever their number, while a
 * flip's IPI rounds cost more with each CPU (100 each at 8 vCPUs took
 * minutes of make test on a loaded 2-core host). */
#define MASK_FLIPS	200

/* Every CPU flips group bits through the locked API; CPU 0 also turns an
 * event off and on through ctl. */
static void flip_masks(void *arg)
{
	uint64_t bit = 1ull << (core_id() % 4 == 0 ? TTRACE_GROUP_SCHED :
				core_id() % 4 == 1 ? TTRACE_GROUP_IRQ :
				core_id() % 4 == 2 ? TTRACE_GROUP_LOCK :
				TTRACE_GROUP_USER);
	int rounds = MASK_FLIPS / (int)MAX(num_cpus, 2);
	const char *why;

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		ttrace_set_mask(i & 1 ? bit : 0, bit);
		const char *cmd = i & 1 ? "enable page_alloc" :
					  "disable page_alloc";

		if (core_id() == 0)
			ttrace_control(cmd, strlen(cmd), &why);
	}
}

/*
 * After concurrent mask and enable changes, every armed byte is what the
 * final mask and enable flags say (bug: the ktest and the benchmark rearmed
 * without the ctl lock, racing ctl writers).
 */
static bool test_ttrace_mask_concurrent(void)
{
	uint64_t old = ttrace_set_mask(0, 0);
	const char *why, *restore = ttrace_main.ctl.enabled[TTRACE_EV_PAGE_ALLOC] ?
				    "enable page_alloc" : "disable page_alloc";
	bool ok;

	smp_run_on_all(flip_masks, NULL);
	ok = ttrace_armed_consistent(&ttrace_main);
	ttrace_set_mask(old, ~0ull);
	ttrace_control(restore, strlen(restore), &why);
	KT_ASSERT(ok, "armed bytes disagree with the mask and enable flags");
	return true;
}
KTEST_REG(ttrace_mask_concurrent, test_ttrace_mask_concurrent);

/* ---- a private tracer ---------------------------------------------------- */

#define PRIV_SEQ	100	/* test_seq records: more than a page's 64 */
#define PRIV_SLOTS	64	/* a ring of one page */
#define PRIV_MAGIC	0x7072697661746521ull	/* their checksum word */
#define PRIV_MARKER	"a private tracer's marker"

/* Reads r to its end into buf (size bytes); returns the bytes read. */
static size_t read_all(struct ttrace_reader *r, void *buf, size_t size)
{
	size_t done = 0;
	long n;

	while (done < size &&
	       (n = ttrace_reader_read(r, (char *)buf + done, size - done,
				       done)) > 0)
		done += (size_t)n;
	return done;
}

/* Whether aux view holds a USER_MARKER record of ident 7 saying
 * PRIV_MARKER. */
static bool has_marker(const struct ttrace_aux_view *view)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec rec;

	ttrace_aux_iter_init(&it, view);
	while (ttrace_aux_next(&it, &rec))
		if (rec.tag == TTRACE_AUX_USER_MARKER && rec.ident == 7 &&
		    rec.len == sizeof(PRIV_MARKER) - 1 &&
		    !memcmp(rec.payload, PRIV_MARKER, rec.len))
			return true;
	return false;
}

/* Writes t's CPU 0 ring through the tracepoints' write path: PRIV_SEQ
 * test_seq records, then one test_wide (3 slots); and a marker to its
 * aux. */
static void priv_write(struct ttrace *t)
{
	uint64_t wide[13] = { PRIV_SEQ, PRIV_MAGIC };

	for (uint64_t w = 2; w < 13; w++)
		wide[w] = w;
	for (uint64_t i = 0; i < PRIV_SEQ; i++)
		ttrace_record_to(&t->rings[0], arch_trace_clock(),
				 TTRACE_EV_TEST_SEQ, i, PRIV_MAGIC, i * 3, 0, 0);
	ttrace_record_ext_to(&t->rings[0], arch_trace_clock(),
			     TTRACE_EV_TEST_WIDE, wide, 13);
	ttrace_aux_blob(t, TTRACE_AUX_USER_MARKER, 7, PRIV_MARKER,
			sizeof(PRIV_MARKER) - 1);
}

/* rawN of t's CPU 0: the records the ring lapped, [0, first), declared
 * as one OVERWRITTEN loss (a reader starts at the ring's start), then one
 * run of its last PRIV_SLOTS slots, from the oldest kept test_seq to the
 * wide record, each whole. */
static bool priv_check_raw(struct ttrace *t, uint8_t *buf, size_t size)
{
	struct ttrace_reader *r = ttrace_reader_open(t, TTRACE_READ_RAW, 0);
	const struct ttrace_file_run *l = (const void *)buf;
	const struct ttrace_file_run *h = l + 1;
	const struct ttrace_entry *e = (const void *)(h + 1);
	uint64_t first = PRIV_SEQ + 3 - PRIV_SLOTS;
	size_t n;

	KT_ASSERT(r, "no memory for a reader");
	n = read_all(r, buf, size);
	ttrace_reader_free(r);
	KT_ASSERT(n == sizeof(*h) * (2 + PRIV_SLOTS), "raw read %zu bytes", n);
	KT_ASSERT(l->type == TTRACE_FILE_SEC_LOSS && l->first == 0 &&
		  l->count == first && l->reason == TTRACE_LOSS_OVERWRITTEN,
		  "loss type %u first %lu count %lu reason %u", l->type,
		  l->first, l->count, l->reason);
	KT_ASSERT(h->type == TTRACE_FILE_SEC_RECORDS && h->first == first &&
		  h->count == PRIV_SLOTS, "run type %u first %lu count %lu",
		  h->type, h->first, h->count);
	for (uint64_t i = 0; i < PRIV_SEQ - first; i++)
		KT_ASSERT(TTRACE_TYPE_ID(e[i].type) == TTRACE_EV_TEST_SEQ &&
			  e[i].data[0] == first + i &&
			  e[i].data[1] == PRIV_MAGIC &&
			  e[i].data[2] == (first + i) * 3,
			  "slot %lu is not test_seq %lu", first + i, first + i);
	KT_ASSERT(TTRACE_TYPE_ID(e[PRIV_SEQ - first].type) ==
		  TTRACE_EV_TEST_WIDE, "the wide record is not last");
	return true;
}

/* cpuN of t's CPU 0: a line per kept record, each with its words. */
static bool priv_check_text(struct ttrace *t, char *buf, size_t size)
{
	struct ttrace_reader *r = ttrace_reader_open(t, TTRACE_READ_TEXT, 0);
	size_t n, lines = 0, wide = 0;

	KT_ASSERT(r, "no memory for a reader");
	n = read_all(r, buf, size - 1);
	ttrace_reader_free(r);
	buf[n] = 0;
	for (char *p = buf; (p = strstr(p, " sum=0x7072697661746521 ")); p++)
		lines++;
	for (char *p = buf; (p = strstr(p, " w11=11 w12=12")); p++)
		wide++;
	KT_ASSERT(lines == PRIV_SLOTS - 3 + 1 && wide == 1,
		  "text: %zu lines of the magic, %zu of the wide record in "
		  "%zu bytes", lines, wide, n);
	return true;
}

/* aux of t: the version header of t's rings and aux, then its marker. */
static bool priv_check_aux(struct ttrace *t, uint8_t *buf, size_t size)
{
	struct ttrace_reader *r = ttrace_reader_open(t, TTRACE_READ_AUX, 0);
	struct ttrace_version v;
	struct ttrace_aux_view view;
	size_t n;

	KT_ASSERT(r, "no memory for a reader");
	n = read_all(r, buf, size);
	ttrace_reader_free(r);
	KT_ASSERT(n >= sizeof(v), "aux read %zu bytes", n);
	memcpy(&v, buf, sizeof(v));
	KT_ASSERT(v.entries_per_cpu == PRIV_SLOTS && v.aux_size == PGSIZE,
		  "version: %lu entries a CPU, aux %lu bytes",
		  (uint64_t)v.entries_per_cpu, (uint64_t)v.aux_size);
	view = (struct ttrace_aux_view){ buf + sizeof(v), n - sizeof(v),
					 v.aux_first, v.aux_last };
	KT_ASSERT(has_marker(&view), "the marker is not in the private aux");
	return true;
}

/* The kernel's tracer kept none of it: no record with PRIV_MAGIC since
 * from on this CPU's ring, no marker in its aux. */
static bool priv_check_global(uint64_t from, uint8_t *buf, size_t size)
{
	struct ttrace_entry *e = (void *)buf;
	struct ttrace_aux_view view;
	size_t n = trace_ring_collect(ttrace_ring_of(&ttrace_main, core_id()),
				      from, e, size / sizeof(*e), NULL);

	for (size_t i = 0; i < n; i++)
		KT_ASSERT(e[i].data[1] != PRIV_MAGIC,
			  "a private record in the kernel's ring");
	if (!ttrace_aux_read(&ttrace_main, buf, size, &view))
		KT_ASSERT(!has_marker(&view),
			  "the private marker in the kernel's aux");
	return true;
}

/* One round: build, write, read back through each reader, tear down. */
static bool priv_round(uint8_t *buf, size_t size)
{
	uint64_t from, flags;
	struct ttrace *t = ttrace_new(0, 0);
	bool ok;

	KT_ASSERT(t, "no memory for a private tracer");
	flags = arch_irq_save();	/* stay on this CPU for from */
	from = trace_ring_head(ttrace_ring_of(&ttrace_main, core_id()));
	priv_write(t);
	ok = priv_check_global(from, buf, size);
	arch_irq_restore(flags);
	ok = ok && priv_check_raw(t, buf, size) &&
	     priv_check_text(t, (char *)buf, size) &&
	     priv_check_aux(t, buf, size);
	ttrace_delete(t);
	return ok;
}

/*
 * A private tracer (ttrace_new()), as Zircon's tests build one: small
 * rings and aux of its own, written through the tracepoints' write path
 * (ttrace_record_to()) and aux's, read back through the device's readers
 * (raw, text, aux), then freed with every page returned; the kernel's
 * tracer, written meanwhile by everything else, never sees its records.
 * The first round warms kmalloc's size classes; the second counts pages.
 */
static bool test_ttrace_private(void)
{
	unsigned order = ttrace_order_for(ttrace_ring_bytes());
	uint8_t *buf = get_cont_pages(order, 0);
	size_t before = 0, after = 0;
	bool ok = true;

	KT_ASSERT(buf, "no memory for the read buffer");
	for (int round = 0; round < 2 && ok; round++) {
		before = pmem_nr_free_pages();
		ok = priv_round(buf, (size_t)PGSIZE << order);
		after = pmem_nr_free_pages();
	}
	free_cont_pages(buf, order);
	if (!ok)
		return false;	/* the round said why */
	KT_ASSERT(after == before, "free pages %zu before a private tracer, "
		  "%zu after", before, after);
	return true;
}
KTEST_REG(ttrace_private, test_ttrace_private);
