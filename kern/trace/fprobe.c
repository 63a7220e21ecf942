/*
 * Function probes (docs/probes.md, "Function probes"), as Linux's fprobe:
 * an event defined at run time on a kernel function's entry, with the
 * argument registers it names, or on its return, with the return value.
 *
 * Each probe takes one of the event ids ttrace.events reserves (`reserve
 * fprobe fprobe 16`), so every array indexed by event id (armed, enabled,
 * probed, the probe lists) has room for it, and the built-in probes,
 * filters and the ctl's enable/disable treat it as any event. Its
 * metadata goes into the live table (ttrace_meta_now(): the generated
 * one with the probes' entries filled in), which the ctl parser, the
 * events file, the in-kernel decoder and every trace file (its header,
 * the meta file, the root record, the panic dump, an aux record) use, so
 * decoders name its fields.
 *
 * The probe arms its function's fentry site (fgraph.c, shared with the
 * function-graph tracer): a site with an armed probe calls
 * fprobe_trampoline, whose fprobe_entry() records the entry probes and
 * does the graph tracer's work when the graph wants the site too; a
 * return probe hooks the return through the graph tracer's shadow stack
 * (a frame tagged for fprobe_exit()). fgraph_sync() asks fprobe_hot()
 * which probes are live and armed whenever the armed bytes change.
 *
 * Ids: a deleted probe's id keeps its metadata (its records may still be
 * in the rings) and comes free only at the next `clear`; adding the same
 * definition again takes it back. A string argument (str, ustr) is copied
 * into aux as a marker record (at most TTRACE_FPROBE_STR_MAX bytes, each
 * page checked present in the page tables first: no fault), its record
 * word the marker's id.
 *
 * Locking: slots, the live table and the blobs change under the ctl mutex;
 * the hit path reads fp_hot and the live slots without a lock: a slot is
 * filled before its bit is set, and a deleted one keeps its contents for
 * a grace period and until the next clear.
 */
#include <ttrace.h>
#include <fgraph.h>
#include <ksyms.h>
#include <printk.h>
#include <seqbuf.h>
#include <string.h>
#include <ttrace_ctl.h>
#include <ttrace_fprobe.h>
#include <ttrace_probe.h>
#include <arch/mmu.h>
#include <arch/x86.h>

#include "internal.h"

#define FP_N		TTRACE_EV_FPROBE_COUNT
#define FP_FIRST	TTRACE_EV_FPROBE_FIRST
#define BLOB_MAX	(16 * 1024)

void fprobe_entry(uintptr_t *parent, uintptr_t func, const uint64_t *regs);

extern const uint64_t __fentry_sites_start[], __fentry_sites_end[];

enum fp_state { FP_FREE, FP_LIVE, FP_DEAD };

struct fprobe {
	struct ttrace_fprobe_spec spec;
	uintptr_t func;		/* the function: its fentry site */
	size_t site;		/* the site's index */
	uint32_t state;		/* enum fp_state */
};

static struct fprobe slots[FP_N];		/* slot i is event FP_FIRST + i */
static struct ttrace_fprobe_meta slot_meta[FP_N];
static struct ttrace_event_meta live_events[TTRACE_NUM_EVENTS];
static const struct ttrace_meta_table live_table = {
	live_events, ttrace_group_table, TTRACE_NUM_EVENTS, TTRACE_NUM_GROUPS,
};
static uint8_t blobs[2][BLOB_MAX];
static uint64_t blob_word;	/* size << 1 | which blob: one load */
static uint32_t fp_hot;		/* bit per slot live with its event armed */

/* ---- the live metadata --------------------------------------------------- */

/* See internal.h. */
const struct ttrace_meta_table *ttrace_meta_now(void)
{
	return &live_table;
}

/* See internal.h. */
const uint8_t *ttrace_meta_blob_now(uint32_t *size)
{
	uint64_t w = __atomic_load_n(&blob_word, __ATOMIC_ACQUIRE);

	*size = (uint32_t)(w >> 1);
	return blobs[w & 1];
}

/* Serialises the live table into the blob not in use and publishes it;
 * names it in aux and in the root record. False if it does not fit. ctl
 * mutex held (or alone, at boot). */
static bool publish_meta(struct ttrace *t, bool boot)
{
	unsigned next = !(blob_word & 1);
	size_t n = ttrace_meta_serialise(&live_table, blobs[next], BLOB_MAX);

	if (!n || n > BLOB_MAX)
		return false;
	__atomic_store_n(&blob_word, (uint64_t)n << 1 | next, __ATOMIC_RELEASE);
	if (!boot) {
		ttrace_aux_blob(t, TTRACE_AUX_EVENT_META, 0, blobs[next], n);
		ttrace_root_update(t);
	}
	return true;
}

/* The live table as the generated one. Boot, alone, before any use. */
void fprobe_init(void)
{
	memcpy(live_events, ttrace_event_table, sizeof(live_events));
	if (!publish_meta(&ttrace_main, true))
		panic("fprobe: the event metadata does not fit %u bytes",
		      BLOB_MAX);
}

/* ---- the hit path -------------------------------------------------------- */

/* The physical address of va if its page is present (user: and a user
 * page) in the current page tables, else -1. Any context. */
static uint64_t mapped_pa(uintptr_t va, bool user)
{
	const uint64_t *table = KADDR(rcr3() & PTE_ADDR_MASK);

	for (int level = 3; level >= 0; level--) {
		uint64_t e = table[(va >> (PGSHIFT + 9 * level)) & 511];

		if (!(e & PTE_P) || (user && !(e & PTE_U)))
			return (uint64_t)-1;
		if (level == 0 || (level < 3 && (e & PTE_PS))) {
			uint64_t span = 1ull << (PGSHIFT + 9 * level);

			return (e & PTE_ADDR_MASK & ~(span - 1)) | (va & (span - 1));
		}
		table = KADDR(e & PTE_ADDR_MASK);
	}
	return (uint64_t)-1;
}

/* Copies the string at p (kernel or user half) into dst through the
 * direct map, each page checked first; returns its length, NUL excluded,
 * or -1 at an unmapped byte or one outside its half. */
static long copy_str(char *dst, uintptr_t p, bool user)
{
	uint64_t pa = 0;

	for (size_t i = 0; i < TTRACE_FPROBE_STR_MAX - 1; i++, p++, pa++) {
		if (user ? p >= ULIM : p < KERNBASE)
			return -1;
		if (i == 0 || !(p & (PGSIZE - 1)))
			pa = mapped_pa(p, user);
		if (pa == (uint64_t)-1)
			return -1;
		dst[i] = *(const char *)KADDR(pa);
		if (!dst[i])
			return (long)i;
	}
	dst[TTRACE_FPROBE_STR_MAX - 1] = 0;
	return TTRACE_FPROBE_STR_MAX - 1;
}

/* The string at p in aux as a marker record; returns its id. */
static uint64_t put_str(uintptr_t p, bool user)
{
	static const char bad[] = "(bad address)";
	struct ttrace *t = &ttrace_main;
	uint64_t id = __atomic_fetch_add(&t->marker_seq, 1, __ATOMIC_RELAXED);
	char buf[TTRACE_FPROBE_STR_MAX];
	long n = copy_str(buf, p, user);

	if (n < 0)
		ttrace_aux_blob(t, TTRACE_AUX_USER_MARKER, id, bad, sizeof(bad) - 1);
	else
		ttrace_aux_blob(t, TTRACE_AUX_USER_MARKER, id, buf, (size_t)n);
	return id;
}

/* A register's value as a record word of a's type. */
static uint64_t widen(const struct ttrace_fprobe_arg *a, uint64_t v)
{
	switch (a->type) {
	case TTRACE_ARG_U8:	return (uint8_t)v;
	case TTRACE_ARG_U16:	return (uint16_t)v;
	case TTRACE_ARG_U32:	return (uint32_t)v;
	case TTRACE_ARG_S8:	return (uint64_t)(int64_t)(int8_t)v;
	case TTRACE_ARG_S16:	return (uint64_t)(int64_t)(int16_t)v;
	case TTRACE_ARG_S32:	return (uint64_t)(int64_t)(int32_t)v;
	case TTRACE_ARG_BOOL:	return v != 0;
	case TTRACE_ARG_STR:	return put_str(v, a->str == TTRACE_FPROBE_USTR);
	default:		return v;
	}
}

/* Writes event id's record of n words w, as its tracepoint would. */
static void emit(uint32_t id, const uint64_t *w, uint32_t n)
{
	switch (n) {
	case 0: ttrace_emit_0(id); break;
	case 1: ttrace_emit_1(id, w[0]); break;
	case 2: ttrace_emit_2(id, w[0], w[1]); break;
	case 3: ttrace_emit_3(id, w[0], w[1], w[2]); break;
	case 4: ttrace_emit_4(id, w[0], w[1], w[2], w[3]); break;
	case 5: ttrace_emit_5(id, w[0], w[1], w[2], w[3], w[4]); break;
	default: ttrace_emit_ext(id, w, n); break;
	}
}

/* Records slot i's event from the saved argument registers regs (regs[5]
 * rdi .. regs[0] r9) or the return value rv, through its probes if it has
 * any. Any context. */
static void fire(unsigned i, const uint64_t *regs, uint64_t rv)
{
	const struct ttrace_fprobe_spec *s = &slots[i].spec;
	uint32_t id = FP_FIRST + i, n = s->nargs;
	uint64_t w[TTRACE_FPROBE_MAX_ARGS];

	if (!READ_ONCE(ttrace_armed[id]))	/* frozen by a stop probe */
		return;
	for (uint32_t a = 0; a < n; a++)
		w[a] = widen(&s->args[a], s->args[a].reg == TTRACE_FPROBE_RET ?
			     rv : regs[5 - s->args[a].reg]);
	if (READ_ONCE(ttrace_probes[id]))
		ttrace_probe_fire(id, w, n);
	else
		emit(id, w, n);
}

/* Called by a site fprobe_trampoline made live (ttrace_fgraph.S), with the
 * return address slot, the function and its saved argument registers.
 * Any context, on the function's stack. */
void fprobe_entry(uintptr_t *parent, uintptr_t func, const uint64_t *regs)
{
	uint32_t hot = READ_ONCE(fp_hot);
	unsigned kind = 0;
	size_t site = SIZE_MAX;

	for (; hot; hot &= hot - 1) {
		unsigned i = (unsigned)__builtin_ctz(hot);

		if (slots[i].func != func)
			continue;
		site = slots[i].site;
		if (slots[i].spec.ret)
			kind |= FGRAPH_HOOK_FPROBE;
		else
			fire(i, regs, 0);
	}
	if (site != SIZE_MAX && fgraph_graphs(site))
		kind |= FGRAPH_HOOK_GRAPH;
	if (kind)
		fgraph_hook(parent, func, kind);
}

/* See internal.h: the return of a call fprobe_entry() hooked. */
void fprobe_exit(uintptr_t func, uint64_t rv)
{
	for (uint32_t hot = READ_ONCE(fp_hot); hot; hot &= hot - 1) {
		unsigned i = (unsigned)__builtin_ctz(hot);

		if (slots[i].func == func && slots[i].spec.ret)
			fire(i, NULL, rv);
	}
}

/* ---- the sites ----------------------------------------------------------- */

/* See internal.h. */
uint32_t fprobe_hot(void)
{
	uint32_t hot = 0;

	for (unsigned i = 0; i < FP_N; i++)
		if (slots[i].state == FP_LIVE && ttrace_armed[FP_FIRST + i])
			hot |= 1u << i;
	return hot;
}

/* See internal.h. */
void fprobe_set_hot(uint32_t hot)
{
	WRITE_ONCE(fp_hot, hot);
}

/* See internal.h. */
bool fprobe_site_hot(uintptr_t site, uint32_t hot)
{
	for (; hot; hot &= hot - 1)
		if (slots[__builtin_ctz(hot)].func == site)
			return true;
	return false;
}

/* ---- ctl ----------------------------------------------------------------- */

static bool same_name(const char *arg, const char *name)
{
	return !strcmp(arg, name);
}

/* The index of func's fentry site in *site; NULL, or why there is none. */
static const char *find_site(const char *func, size_t *site, char *why,
			     size_t size)
{
	size_t n = (size_t)(__fentry_sites_end - __fentry_sites_start);
	struct seqbuf s;
	uintptr_t off;

	for (size_t i = 0; i < n; i++) {
		const char *name = ksym_lookup(__fentry_sites_start[i], &off);

		if (name && !off && !strcmp(name, func)) {
			*site = i;
			return NULL;
		}
	}
	seqbuf_init(&s, why, size);
	if (ksym_find(same_name, func))
		seqbuf_printf(&s, "fprobe: %s is not traceable (the tracer, the "
			      "text patcher or the trap path uses it: no fentry "
			      "site)", func);
	else
		seqbuf_printf(&s, "fprobe: no function '%s'", func);
	return why;
}

/* The slot of the probe called name in state, or -1. */
static int slot_named(const char *name, enum fp_state state)
{
	for (int i = 0; i < FP_N; i++)
		if (slots[i].state == state && !strcmp(slots[i].spec.name, name))
			return i;
	return -1;
}

/* Whether an event (a static one, a probe's, a free id's placeholder)
 * is called name. */
static bool event_named(const char *name)
{
	for (uint32_t id = 0; id < TTRACE_NUM_EVENTS; id++)
		if (!strcmp(live_events[id].name, name))
			return true;
	return false;
}

/* Makes slot i live as s (func's site), its event enabled. */
static const char *go_live(struct ttrace *t, int i,
			   const struct ttrace_fprobe_spec *s, size_t site)
{
	uint32_t id = FP_FIRST + (uint32_t)i;
	struct ttrace_event_meta keep = live_events[id];

	slots[i].spec = *s;
	slots[i].site = site;
	slots[i].func = __fentry_sites_start[site];
	ttrace_fprobe_meta(&slots[i].spec, &slot_meta[i], (uint16_t)id,
			   TTRACE_GROUP_FPROBE);
	live_events[id] = slot_meta[i].ev;
	if (!publish_meta(t, false)) {
		live_events[id] = keep;
		return "fprobe: the event metadata is full";
	}
	slots[i].state = FP_LIVE;
	t->enabled[id] = 1;
	ttrace_rearm_locked(t);
	return NULL;
}

/* fprobe add: see ttrace_fprobe.h. ctl mutex held. */
static const char *fp_add(struct ttrace *t, const struct ttrace_fprobe_spec *s)
{
	static char why[160];
	int i = slot_named(s->name, FP_DEAD);
	size_t site;
	const char *e;

	if (i >= 0 && ttrace_fprobe_same(&slots[i].spec, s))
		return go_live(t, i, s, slots[i].site);	/* its id back */
	if (i >= 0)
		return "fprobe: a deleted probe of that name may still have "
		       "records in the rings (ctl clear frees its id)";
	if (event_named(s->name))
		return "fprobe: an event of that name exists";
	if ((e = find_site(s->func, &site, why, sizeof(why))))
		return e;
	for (i = 0; i < FP_N && slots[i].state != FP_FREE; i++)
		;
	if (i == FP_N)
		return "fprobe: all 16 event ids are taken (a deleted probe's "
		       "comes free at the next ctl clear)";
	return go_live(t, i, s, site);
}

/* fprobe del NAME. ctl mutex held. */
static const char *fp_del(struct ttrace *t, const char *name)
{
	int i = slot_named(name, FP_LIVE);
	uint32_t id;

	if (i < 0)
		return "fprobe: no such function probe";
	id = FP_FIRST + (uint32_t)i;
	if (READ_ONCE(ttrace_probes[id]))
		return "fprobe: probes are attached to it (unprobe them first)";
	slots[i].state = FP_DEAD;
	t->enabled[id] = 0;
	ttrace_rearm_locked(t);	/* its site: the NOP, or the graph's */
	ttrace_grace_period(t);	/* no CPU is still in its hit path */
	return NULL;
}

/* See internal.h. */
const char *fprobe_control(struct ttrace *t, const struct ttrace_fprobe_spec *s)
{
	if (t->off_reason)
		return t->off_reason;
	return s->op == TTRACE_FPROBE_ADD ? fp_add(t, s) : fp_del(t, s->name);
}

/* See internal.h: the rings are empty, so deleted probes' ids come free
 * (their placeholders' metadata back). */
void fprobe_rings_cleared(struct ttrace *t)
{
	bool changed = false;

	for (unsigned i = 0; i < FP_N; i++) {
		if (slots[i].state != FP_DEAD)
			continue;
		memset(&slots[i], 0, sizeof(slots[i]));
		live_events[FP_FIRST + i] = ttrace_event_table[FP_FIRST + i];
		changed = true;
	}
	if (changed)
		publish_meta(t, false);	/* smaller than before: fits */
}

/* See internal.h. */
void fprobe_state_text(struct seqbuf *s)
{
	for (unsigned i = 0; i < FP_N; i++) {
		if (slots[i].state == FP_FREE)
			continue;
		ttrace_fprobe_text(&slots[i].spec, s);
		seqbuf_printf(s, "%s\n", slots[i].state == FP_DEAD ?
			      " (deleted)" : "");
	}
}
