/*
 * metasnap.c: the metadata's versions (docs/trace-file.md, "The
 * metadata a file carries"). The live table (fprobe.c: the generated
 * events with the function probes' filled in) changes under the ctl
 * mutex; each change publishes a new snapshot of it that nothing writes
 * again: its blob (what a trace file's META holds) and the table parsed
 * back from that blob (what the in-kernel decoder names events with).
 * Whoever reads records over time keeps a reference to the snapshot that
 * describes them:
 *	a trace file of the rings (trace, stream) and a cpuN text reader:
 *	  the snapshot current when it began (a "reader",
 *	  ttrace_meta_reader_begin());
 *	a frozen copy (snapset.c): the one current when it was taken, and
 *	  a trace file of it (snaptrace, NAME_trace) that one.
 * So a file's META is whole and is the one its records were written
 * under, however many probes come and go while it is read, and a frozen
 * copy read long after names its records as they were.
 *
 * References are taken without a lock, as RCU readers do: ttrace_meta_get()
 * loads the current snapshot and counts a reference, in any context that
 * does not block in between (a frozen copy does it in a tracer hook, the
 * drain with interrupts off). The publisher waits a grace period
 * (ttrace_grace_period()) after replacing the current snapshot before it
 * drops the reference that being current held, so every CPU that loaded
 * the old pointer has counted its reference (and its reader) by then. A
 * reference is dropped with an atomic decrement in any context
 * (ttrace_meta_drop(): a hook never calls the allocator); the snapshots
 * nobody holds any more are freed by the next sweep, under the ctl mutex
 * (a publish, the end of a view, a frozen copy forgotten). Replaced
 * snapshots wait on a list until then: each is held by someone or was
 * dropped since the last sweep, so the list is bounded by the number of
 * holders, plus one.
 *
 * Ids: the function probe ids a reader's snapshot names as probes are
 * not given to another probe while it reads (ttrace_meta_reader_fprobes(),
 * asked by fprobe.c when it picks a free id): a reader reads records
 * written after a clear, which its snapshot would name as the old
 * probe's. The grace period makes the count exact for every replaced
 * snapshot, and the current one names no free id as a probe. A frozen
 * copy does not hold ids back: every record it holds is older than the
 * clear, and it names them with its own snapshot.
 */
#include <kmalloc.h>
#include <printk.h>
#include <ttrace_meta.h>

#include "internal.h"

/* The build's metadata (ttrace_meta_blob: the generated table serialised
 * on the host, the same bytes, test_ttrace_events checks), current until
 * the first function probe; never freed. */
static struct ttrace_meta_snap meta_builtin = {
	.refs = 1, .blob = ttrace_meta_blob, .table = &ttrace_meta_builtin,
};
/* The current snapshot, at the head of the list of those not freed yet
 * (->older: the replaced ones, newest first; ctl mutex). */
static struct ttrace_meta_snap *meta_current = &meta_builtin;

/* The build's blob's size (a link-time constant, not a compile-time
 * one). Boot, alone, before any use. */
void ttrace_meta_init(void)
{
	if (ttrace_meta_blob_size > TTRACE_META_BLOB_MAX)
		panic("ttrace: the event metadata does not fit %u bytes",
		      TTRACE_META_BLOB_MAX);
	meta_builtin.size = ttrace_meta_blob_size;
}

/* See internal.h. */
const uint8_t *ttrace_meta_blob_now(uint32_t *size)
{
	const struct ttrace_meta_snap *m = __atomic_load_n(&meta_current,
							  __ATOMIC_ACQUIRE);

	*size = m->size;
	return m->blob;
}

/* See internal.h. */
struct ttrace_meta_snap *ttrace_meta_ref(struct ttrace_meta_snap *m)
{
	__atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

/* See internal.h. */
struct ttrace_meta_snap *ttrace_meta_get(void)
{
	return ttrace_meta_ref(__atomic_load_n(&meta_current, __ATOMIC_ACQUIRE));
}

/* See internal.h. */
void ttrace_meta_drop(struct ttrace_meta_snap *m)
{
	if (m)
		__atomic_fetch_sub(&m->refs, 1, __ATOMIC_RELEASE);
}

static void snap_free(struct ttrace_meta_snap *m)
{
	if (m != &meta_builtin) {
		kfree(m->arena);
		kfree(m);
	}
}

/* See internal.h. */
void ttrace_meta_sweep(void)
{
	struct ttrace_meta_snap **p = &meta_current->older, *m;

	while ((m = *p)) {
		if (__atomic_load_n(&m->refs, __ATOMIC_ACQUIRE)) {
			p = &m->older;
			continue;
		}
		*p = m->older;
		snap_free(m);
	}
}

/* See internal.h. */
struct ttrace_meta_snap *ttrace_meta_reader_begin(void)
{
	struct ttrace_meta_snap *m = ttrace_meta_get();

	__atomic_fetch_add(&m->readers, 1, __ATOMIC_RELAXED);
	return m;
}

/* See internal.h. */
void ttrace_meta_reader_end(struct ttrace_meta_snap *m)
{
	if (m) {
		__atomic_fetch_sub(&m->readers, 1, __ATOMIC_RELAXED);
		ttrace_meta_drop(m);
	}
}

/* See internal.h. */
uint32_t ttrace_meta_reader_fprobes(void)
{
	uint32_t held = 0;

	for (const struct ttrace_meta_snap *m = meta_current; m; m = m->older)
		if (__atomic_load_n(&m->readers, __ATOMIC_ACQUIRE))
			held |= m->fprobes;
	return held;
}

/* A snapshot of table (refs 1: being current), or NULL when memory is
 * short or the table breaks the format's limits. Process context. */
static struct ttrace_meta_snap *snap_new(const struct ttrace_meta_table *table,
					 uint32_t fprobes)
{
	size_t n = ttrace_meta_serialise(table, NULL, 0), arena;
	struct ttrace_meta_snap *m;
	uint8_t *blob;
	const char *why;

	if (!n || n > TTRACE_META_BLOB_MAX || !(m = kzmalloc(sizeof(*m) + n)))
		return NULL;
	blob = (uint8_t *)(m + 1);
	ttrace_meta_serialise(table, blob, n);
	arena = ttrace_meta_arena_size(blob, n);
	m->arena = arena ? kmalloc(arena) : NULL;
	if (!m->arena ||
	    ttrace_meta_parse(blob, n, m->arena, arena, &m->parsed, &why)) {
		snap_free(m);
		return NULL;
	}
	m->refs = 1;
	m->size = (uint32_t)n;
	m->fprobes = fprobes;
	m->blob = blob;
	m->table = &m->parsed;
	return m;
}

/* See internal.h. */
bool ttrace_meta_publish(struct ttrace *t, const struct ttrace_meta_table *table,
			 uint32_t fprobes)
{
	struct ttrace_meta_snap *m = snap_new(table, fprobes);
	struct ttrace_meta_snap *old = meta_current;

	if (!m)
		return false;
	m->older = old;
	__atomic_store_n(&meta_current, m, __ATOMIC_RELEASE);
	ttrace_aux_blob(t, TTRACE_AUX_EVENT_META, 0, m->blob, m->size);
	ttrace_root_update(t);
	ttrace_grace_period(t);	/* every ttrace_meta_get() of old counted */
	ttrace_meta_drop(old);	/* being current's reference */
	ttrace_meta_sweep();
	return true;
}
