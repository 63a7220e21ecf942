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
 * one with the probes' entries filled in), which the ctl parser and the
 * events file use, and each change of it is published as a snapshot
 * (metasnap.c) that the in-kernel decoder and every trace file (its
 * header, the meta file, the root record, the panic dump, an aux record)
 * use, so decoders name its fields.
 *
 * The probe arms its function's fentry site (fgraph.c, shared with the
 * function-graph tracer): a site with an armed probe calls
 * fprobe_trampoline, whose fprobe_entry() records the entry probes and
 * does the graph tracer's work when the graph wants the site too; a
 * return probe hooks the return through the graph tracer's shadow stack
 * (a frame tagged for fprobe_return()). fgraph_sync() asks fprobe_hot()
 * which probes are live and armed whenever the armed bytes change.
 *
 * Ids: a deleted probe's id keeps its metadata (its records may still be
 * in the rings) and comes free only at the next `clear`; adding the same
 * definition again takes it back. A free id is not given to a new probe
 * while a reader begun before the clear still reads (metasnap.c: it
 * reads records written after the clear, which its metadata would name
 * as the deleted probe's). A string argument (str, ustr) is copied
 * into aux as a marker record (at most TTRACE_FPROBE_STR_MAX bytes, each
 * page checked present in the page tables first: no fault), its record
 * word the marker's id. A str is read only from the kernel's RAM (never
 * device memory), a str at a user address or at an argument declared
 * __user (user_args.h: the process chose it) as a ustr (docs/probes.md,
 * "Strings").
 *
 * Locking: slots and the live table change under the ctl mutex;
 * the hit path reads fp_hot, fp_func[], fp_same[], fp_ret and the live
 * slots without a lock: a slot (and its words there) is filled before its
 * bit is set, fp_same[] words change only by slots that are not hot, and
 * a deleted slot keeps its contents for a grace period and until the
 * next clear. A return finds its probes in its shadow frame, and fires
 * those still FP_LIVE on its function (still_on()).
 */
#include <ttrace.h>
#include <fgraph.h>
#include <pmem.h>
#include <ksyms.h>
#include <printk.h>
#include <proc.h>
#include <seqbuf.h>
#include <string.h>
#include <ttrace_ctl.h>
#include <ttrace_fprobe.h>
#include <ttrace_probe.h>
#include <user_args.h>
#include <arch/mmu.h>
#include <arch/x86.h>

#include "internal.h"

#define FP_N		TTRACE_EV_FPROBE_COUNT
#define FP_FIRST	TTRACE_EV_FPROBE_FIRST

void fprobe_entry(uintptr_t *parent, uintptr_t func, const uint64_t *regs);

extern const uint64_t __fentry_sites_start[], __fentry_sites_end[];

enum fp_state { FP_FREE, FP_LIVE, FP_DEAD };

/* How one record word is made from a register, worked out at `fprobe
 * add` so the hit does no type lookup. */
enum fp_how { W_UNSIGNED, W_SIGNED, W_BOOL, W_KSTR, W_USTR };
#define AT_RET	6		/* at: the return value, not a register */

/* The record a probe's hit writes inline, when its event is armed with no
 * probe attached; 0: none, fire_wide() or fire_slow() does. */
enum fp_fast { FAST_ENTRY = 1, FAST_RETURN };	/* 0 to 2 integer words
						 * at the entry; an
						 * integer at the return */

struct fp_word {
	uint64_t mask;		/* the type's bits: cut to them ... */
	uint64_t sign;		/* ... then widen by this one (signed) */
	uint8_t at;		/* regs[at] (5 - argN), or AT_RET */
	uint8_t how;		/* enum fp_how */
};

struct fprobe {
	uintptr_t func;		/* the function: its fentry site */
	uint32_t id;
	uint8_t nargs;
	bool ret;		/* at the return */
	bool slow;		/* a string or bool, or 6 words: fire_slow() */
	uint8_t fast;		/* enum fp_fast */
	struct fp_word w[TTRACE_FPROBE_MAX_ARGS];
	size_t site;		/* the site's index */
	uint32_t state;		/* enum fp_state */
	struct ttrace_fprobe_spec spec;
};

static struct fprobe slots[FP_N];		/* slot i is event FP_FIRST + i */
static struct ttrace_fprobe_meta slot_meta[FP_N];
static struct ttrace_event_meta live_events[TTRACE_NUM_EVENTS];
static const struct ttrace_meta_table live_table = {
	live_events, ttrace_group_table, TTRACE_NUM_EVENTS, TTRACE_NUM_GROUPS,
};
static uint32_t fp_hot;		/* bit per slot live with its event armed */
static uintptr_t fp_func[FP_N];	/* slots[i].func, packed for the hit */
static uint32_t fp_same[FP_N];	/* the slots in use on slot i's function */
static uint32_t fp_ret;		/* bit per slot whose probe is at the return */

/* ---- the live metadata --------------------------------------------------- */

/* See internal.h. */
const struct ttrace_meta_table *ttrace_meta_now(void)
{
	return &live_table;
}

/* A bit per slot in use (not FP_FREE). ctl mutex held. */
static uint32_t slots_used(void)
{
	uint32_t used = 0;

	for (unsigned i = 0; i < FP_N; i++)
		if (slots[i].state != FP_FREE)
			used |= 1u << i;
	return used;
}

/* See internal.h. */
bool ttrace_meta_set_live(struct ttrace *t, const struct ttrace_event_meta *m)
{
	struct ttrace_event_meta keep = live_events[m->id];

	live_events[m->id] = *m;
	if (ttrace_meta_publish(t, &live_table, slots_used()))
		return true;
	live_events[m->id] = keep;
	return false;
}

/* The live table as the generated one, the current metadata the build's
 * (not serialised again at every boot). Boot, alone, before any use. */
void fprobe_init(void)
{
	ttrace_meta_init();
	memcpy(live_events, ttrace_event_table, sizeof(live_events));
}

/* ---- the hit path -------------------------------------------------------- */

/* Why copy_str() refused a string; each has its marker text (put_str()). */
enum str_refusal { STR_UNMAPPED = -1, STR_NOT_RAM = -2 };

/*
 * The physical address of byte p of a string read as a kernel (str) or a
 * user (ustr) one, checked for its page: a user string's page must be a
 * user page below ULIM in the current page tables (copyinstr's rules); a
 * kernel string's must be mapped above KERNBASE and be the kernel's RAM
 * (pmem_kernel_ram(): never device memory, where a read can have an
 * effect, such as the direct map's uncached hole below 4 GiB). A negative
 * enum str_refusal if it is not. Any context.
 */
static int64_t str_page(uintptr_t p, bool user)
{
	uint64_t pa;

	if (user ? p >= ULIM : p < KERNBASE)
		return STR_UNMAPPED;
	pa = mapped_pa(KADDR(rcr3() & PTE_ADDR_MASK), p, user);
	if (pa == (uint64_t)-1)
		return STR_UNMAPPED;
	return user || pmem_kernel_ram(pa) ? (int64_t)pa : STR_NOT_RAM;
}

/* Copies the string at p into dst through the direct map, each page
 * checked by str_page() as the string reaches it; a str at a lower-half
 * (user) address is read as a ustr. Returns its length, NUL excluded, or
 * an enum str_refusal. */
static long copy_str(char *dst, uintptr_t p, bool user)
{
	int64_t pa = 0;

	user |= p < ULIM;
	for (size_t i = 0; i < TTRACE_FPROBE_STR_MAX - 1; i++, p++, pa++) {
		if (i == 0 || !(p & (PGSIZE - 1)))
			pa = str_page(p, user);
		if (pa < 0)
			return (long)pa;
		dst[i] = *(const char *)KADDR(pa);
		if (!dst[i])
			return (long)i;
	}
	dst[TTRACE_FPROBE_STR_MAX - 1] = 0;
	return TTRACE_FPROBE_STR_MAX - 1;
}

/* Strings not read, by enum str_refusal (-1 - r); and their markers. */
static uint64_t str_refused[2];
static const char *const refusal_text[2] = { "(bad address)",
					     "(not kernel RAM)" };

/* The n bytes at s in t's aux as marker id, if its lock is free at once:
 * a hit never waits (this CPU may hold it for reading, under the hit);
 * else the string is dropped, counted in this CPU's ring (str_dropped in
 * stats and STATS), and the record's word names a marker aux lacks. */
static void put_marker(struct ttrace *t, uint64_t id, const char *s, size_t n)
{
	if (!ttrace_aux_blob_try(t, TTRACE_AUX_USER_MARKER, id, s, n))
		trace_ring_count_str_dropped(this_cpu()->ttrace_ring);
}

/* The string at p in aux as a marker record; returns its id, its text
 * left in buf (TTRACE_FPROBE_STR_MAX bytes) for the probes. A string
 * not read is counted, its marker (and text) saying why. */
static uint64_t put_str(uintptr_t p, bool user, char *buf)
{
	struct ttrace *t = &ttrace_main;
	uint64_t id = __atomic_fetch_add(&t->marker_seq, 1, __ATOMIC_RELAXED);
	long n = copy_str(buf, p, user);

	if (n < 0) {
		__atomic_fetch_add(&str_refused[-1 - n], 1, __ATOMIC_RELAXED);
		n = (long)strlcpy(buf, refusal_text[-1 - n],
				  TTRACE_FPROBE_STR_MAX);
	}
	put_marker(t, id, buf, (size_t)n);
	return id;
}

/* See internal.h. */
void fprobe_stats_text(struct seqbuf *s)
{
	seqbuf_printf(s, "fprobe str bad_address %lu not_ram %lu\n",
		      __atomic_load_n(&str_refused[0], __ATOMIC_RELAXED),
		      __atomic_load_n(&str_refused[1], __ATOMIC_RELAXED));
}

/* Word w of a record from v, where it is: an integer cut to its type
 * and widened by its sign, with no branch. */
static __always_inline uint64_t fast_word(const struct fp_word *w, uint64_t v)
{
	return ((v & w->mask) ^ w->sign) - w->sign;
}

/* Record word w from the saved registers regs or the return value rv;
 * a string's text goes to buf (TTRACE_FPROBE_STR_MAX bytes). */
static uint64_t word(const struct fp_word *w, const uint64_t *regs,
		     uint64_t rv, char *buf)
{
	uint64_t v = w->at == AT_RET ? rv : regs[w->at];

	switch (w->how) {
	case W_BOOL:	return v != 0;
	case W_KSTR:	return put_str(v, false, buf);
	case W_USTR:	return put_str(v, true, buf);
	default:	return fast_word(w, v);
	}
}

/* fire()'s general case: a string or a bool, 6 words, probes attached,
 * or the event disarmed (frozen by a stop probe: nothing). */
static __attribute__((noinline, cold)) void fire_slow(const struct fprobe *fp,
						      const uint64_t *regs,
						      uint64_t rv)
{
	uint64_t d[TTRACE_MAX_ARGS] = { 0 };	/* ttrace_emit_ext() reads up to it */
	/* the strings' text, for the probes' ~ tests */
	char text[TTRACE_FPROBE_MAX_ARGS][TTRACE_FPROBE_STR_MAX];
	const char *strs[TTRACE_FPROBE_MAX_ARGS] = { NULL };

	if (!READ_ONCE(ttrace_armed[fp->id]))
		return;
	for (uint32_t a = 0; a < fp->nargs; a++) {
		d[a] = word(&fp->w[a], regs, rv, text[a]);
		if (fp->w[a].how == W_KSTR || fp->w[a].how == W_USTR)
			strs[a] = text[a];
	}
	if (READ_ONCE(ttrace_probes[fp->id]))
		ttrace_probe_fire_strs(fp->id, d, strs, fp->nargs);
	else
		ttrace_emit_ext(fp->id, d, fp->nargs);
}

/* Whether event id is armed: `cmpb $0, ttrace_armed+id; je off`, one
 * instruction fewer than a load and a test (as ttrace_is_probed()). */
static __always_inline bool is_armed(uint32_t id)
{
	__asm__ goto("cmpb $0, %0\n\tje %l[off]"
		     : : "m"(ttrace_armed[id]) : "cc" : off);
	return true;
off: __attribute__((cold));
	return false;
}

/* Whether fp's hit takes fire_slow(). */
static __always_inline bool slow_hit(const struct fprobe *fp)
{
	uint32_t id = fp->id;

	return unlikely(fp->slow || !is_armed(id) ||
			ttrace_is_probed(id));
}

/* fire_entry()'s case of a probe not FAST_ENTRY, or of one with probes
 * attached or its event disarmed. */
static __attribute__((noinline)) void fire_wide(const struct fprobe *fp,
						const uint64_t *regs)
{
	uint64_t d3 = 0, d4 = 0;

	if (slow_hit(fp)) {
		fire_slow(fp, regs, 0);
		return;
	}
	switch (fp->nargs) {	/* straight-line: no loop, no array */
	case 5:
		d4 = fast_word(&fp->w[4], regs[fp->w[4].at]);
		/* fallthrough */
	case 4:
		d3 = fast_word(&fp->w[3], regs[fp->w[3].at]);
		/* fallthrough */
	default:
		break;
	}
	ttrace_emit_5(fp->id, fast_word(&fp->w[0], regs[fp->w[0].at]),
		      fast_word(&fp->w[1], regs[fp->w[1].at]),
		      fast_word(&fp->w[2], regs[fp->w[2].at]), d3, d4);
}

/* Records entry probe fp's event from the saved argument registers regs
 * (regs[5] rdi .. regs[0] r9), through its probes if it has any: the
 * record a static event of these words writes. A word past nargs has
 * mask 0 (go_live()): 0, as a record's unused words; so up to 2 words
 * take the record of 2 with no test of their number. Any context. */
static __attribute__((noinline)) void fire_entry(const struct fprobe *fp,
						 const uint64_t *regs)
{
	uint32_t id = fp->id;

	if (unlikely(fp->fast != FAST_ENTRY || !is_armed(id) ||
		     ttrace_is_probed(id))) {
		fire_wide(fp, regs);
		return;
	}
	ttrace_emit_2(fp->id, fast_word(&fp->w[0], regs[fp->w[0].at]),
		      fast_word(&fp->w[1], regs[fp->w[1].at]));
}

/* Records the entry probes emask (a bit per slot, live) from regs. */
static __attribute__((noinline, cold)) void fire_entries(uint32_t emask,
						   const uint64_t *regs)
{
	for (; emask; emask &= emask - 1)
		fire_entry(&slots[__builtin_ctz(emask)], regs);
}

/* fprobe_entry()'s case with the graph tracer or the stack tracer on:
 * the entry probes emask, then the hook, for the graph too when it wants
 * the site, and the stack tracer's check. */
static __attribute__((noinline, cold)) void entry_slow(
	uintptr_t *parent, uintptr_t func, const uint64_t *regs,
	uint32_t emask, uint32_t rmask)
{
	uint32_t any = emask | rmask;
	unsigned kind = rmask ? FGRAPH_HOOK_FPROBE : 0;

	fire_entries(emask, regs);
	if (any && fgraph_graphs(slots[__builtin_ctz(any)].site))
		kind |= FGRAPH_HOOK_GRAPH;
	fgraph_hook(parent, func, kind, rmask);
}

/* fprobe_entry() inside the recursion guard. */
static __always_inline void entry(uintptr_t *parent, uintptr_t func,
				  const uint64_t *regs)
{
	uint32_t mine = 0, emask, rmask, d;
	struct kthread *kt;

	for (uint32_t hot = READ_ONCE(fp_hot); hot; hot &= hot - 1) {
		unsigned i = (unsigned)__builtin_ctz(hot);

		if (fp_func[i] == func) {	/* those below i are not */
			mine = READ_ONCE(fp_same[i]) & hot;
			break;
		}
	}
	rmask = mine & READ_ONCE(fp_ret);
	emask = mine ^ rmask;	/* rmask is in mine */
	if (unlikely(READ_ONCE(fgraph_shared))) {
		entry_slow(parent, func, regs, emask, rmask);
		return;
	}
	if (rmask && (kt = fgraph_thread())) {
		d = kt->fgraph.depth;
		if (unlikely(d >= FGRAPH_DEPTH))
			fgraph_overflow();
		else
			fgraph_push(&kt->fgraph, d, parent,
				    fgraph_frame_word(func, rmask),
				    FGRAPH_TAG_FPROBE | FGRAPH_TAG_NOGRAPH);
	}
	if (unlikely(emask & (emask - 1)))
		fire_entries(emask, regs);
	else if (emask)		/* the one entry probe */
		fire_entry(&slots[__builtin_ctz(emask)], regs);
}

/* Called by a site fprobe_trampoline made live (ttrace_fgraph.S), with the
 * return address slot, the function and its saved argument registers:
 * for the function's return probes, pushes a shadow frame that names
 * them (fprobe_return()); records its entry probes. Nothing inside
 * another hook (ttrace_hook_enter(): a function the hit calls, probed).
 * Any context, on the function's stack. */
void fprobe_entry(uintptr_t *parent, uintptr_t func, const uint64_t *regs)
{
	if (!ttrace_hook_enter())
		return;
	entry(parent, func, regs);
	ttrace_hook_exit();
}

/* Whether return probe fp of a frame pushed for func is still on it: not
 * deleted since (FP_DEAD, or FP_FREE after a clear), nor its slot taken
 * by a probe of another function (go_live() makes a slot FP_LIVE last). A
 * probe whose event is disarmed records nothing (fire_return()). */
static __always_inline bool still_on(const struct fprobe *fp, uintptr_t func)
{
	return __atomic_load_n(&fp->state, __ATOMIC_ACQUIRE) == FP_LIVE &&
	       fp->func == func;
}

/* Records return probe fp's event, its word from the return value rv,
 * through its probes if it has any; nothing if fp is an entry probe (of
 * the same function, that took a deleted return probe's slot since the
 * call). */
static __always_inline void fire_return(const struct fprobe *fp, uint64_t rv)
{
	uint32_t id = fp->id;

	if (likely(fp->fast == FAST_RETURN && is_armed(id) &&
		   !ttrace_is_probed(id)))	/* one word: the value */
		ttrace_emit_1(id, fast_word(&fp->w[0], rv));
	else if (fp->ret)	/* not an entry probe that took the slot */
		fire_slow(fp, NULL, rv);
}

/* fprobe_return()'s case of several return probes, or the graph's exit
 * too. */
static __attribute__((noinline, cold)) void return_slow(uintptr_t func,
							uint32_t rmask,
							uint32_t depth,
							uintptr_t slot,
							uint64_t rv)
{
	if (!(slot & FGRAPH_TAG_NOGRAPH))
		ttrace_func_exit(func, depth, (int64_t)rv);
	for (; rmask; rmask &= rmask - 1) {
		const struct fprobe *fp = &slots[__builtin_ctz(rmask)];

		if (still_on(fp, func))
			fire_return(fp, rv);
	}
}

/* See internal.h: the return of a call fprobe_entry() hooked; its return
 * probes that are still_on(). */
void fprobe_return(uintptr_t word, uint32_t depth, uintptr_t slot,
		   uint64_t rv)
{
	uintptr_t func = fgraph_frame_func(word);
	uint32_t rmask = (uint32_t)(word >> 32);	/* not 0: a frame is
							 * tagged for some */
	const struct fprobe *fp;

	if (unlikely(!(slot & FGRAPH_TAG_NOGRAPH) || (rmask & (rmask - 1)))) {
		return_slow(func, rmask, depth, slot, rv);
		return;
	}
	fp = &slots[__builtin_ctz(rmask)];
	if (likely(still_on(fp, func)))
		fire_return(fp, rv);	/* the one return probe */
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

/* How argument a's record word is made. */
static struct fp_word word_of(const struct ttrace_fprobe_arg *a)
{
	static const uint8_t bits[] = {
		[TTRACE_ARG_U8] = 8, [TTRACE_ARG_U16] = 16,
		[TTRACE_ARG_U32] = 32, [TTRACE_ARG_S8] = 8,
		[TTRACE_ARG_S16] = 16, [TTRACE_ARG_S32] = 32,
	};
	unsigned b = a->type < ARRAY_SIZE(bits) && bits[a->type] ?
		     bits[a->type] : 64;
	struct fp_word w = {
		.mask = b == 64 ? ~0ull : (1ull << b) - 1,
		.at = a->reg == TTRACE_FPROBE_RET ? AT_RET : 5 - a->reg,
		.how = W_UNSIGNED,
	};

	if (a->type >= TTRACE_ARG_S8 && a->type <= TTRACE_ARG_S64) {
		w.how = W_SIGNED;
		w.sign = 1ull << (b - 1);
	}
	else if (a->type == TTRACE_ARG_BOOL)
		w.how = W_BOOL;
	else if (a->type == TTRACE_ARG_STR)
		w.how = a->str == TTRACE_FPROBE_USTR ? W_USTR : W_KSTR;
	return w;
}

/* Makes fp_same[] say which slots in use (not FP_FREE), and slot also,
 * share each one's function: a hit's slots are those of the first hot one
 * on its function that are hot. Each word changes only by slots that are
 * not hot. ctl mutex held. */
static void same_funcs(int also)
{
	for (int i = 0; i < FP_N; i++) {
		uint32_t m = 0;

		for (int j = 0; j < FP_N; j++)
			if ((slots[j].state != FP_FREE || j == also) &&
			    fp_func[j] == fp_func[i])
				m |= 1u << j;
		WRITE_ONCE(fp_same[i], m);
	}
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
	fp_func[i] = slots[i].func;
	same_funcs(i);
	slots[i].id = id;
	slots[i].ret = s->ret;
	if (s->ret)
		fp_ret |= 1u << i;
	else
		fp_ret &= ~(1u << i);
	slots[i].nargs = s->nargs;
	slots[i].slow = s->nargs == TTRACE_FPROBE_MAX_ARGS;
	memset(slots[i].w, 0, sizeof(slots[i].w));	/* fire_entry() */
	for (unsigned a = 0; a < s->nargs; a++) {
		slots[i].w[a] = word_of(&s->args[a]);
		slots[i].slow |= slots[i].w[a].how > W_SIGNED;
	}
	slots[i].fast = slots[i].slow ? 0 : s->ret ? FAST_RETURN :
			s->nargs <= 2 ? FAST_ENTRY : 0;
	ttrace_fprobe_meta(&slots[i].spec, &slot_meta[i], (uint16_t)id,
			   TTRACE_GROUP_FPROBE);
	live_events[id] = slot_meta[i].ev;
	if (!ttrace_meta_publish(t, &live_table, slots_used() | 1u << i)) {
		live_events[id] = keep;
		return "fprobe: the event metadata is full (or memory is "
		       "short)";
	}
	__atomic_store_n(&slots[i].state, FP_LIVE, __ATOMIC_RELEASE);
	t->enabled[id] = 1;
	ttrace_rearm_locked(t);
	return NULL;
}

/* The arguments of func marked __user (user_args.h), a bit each. */
static uint8_t user_args_of(const char *func)
{
	for (size_t i = 0; i < user_args_count; i++)
		if (!strcmp(user_args_table[i].func, func))
			return user_args_table[i].args;
	return 0;
}

/* Makes each str argument of s that its function takes from user space
 * (__user) a ustr: the address is the process's choice, and read as a
 * kernel string it would copy kernel memory into the trace. */
static void user_strs(struct ttrace_fprobe_spec *s)
{
	uint8_t user = user_args_of(s->func);

	for (unsigned a = 0; a < s->nargs; a++)
		if (s->args[a].type == TTRACE_ARG_STR &&
		    s->args[a].reg != TTRACE_FPROBE_RET &&
		    (user >> s->args[a].reg & 1))
			s->args[a].str = TTRACE_FPROBE_USTR;
}

/* fprobe add: see ttrace_fprobe.h; given's str arguments on __user
 * parameters are ustr. ctl mutex held. */
static const char *fp_add(struct ttrace *t,
			  const struct ttrace_fprobe_spec *given)
{
	static char why[160];
	struct ttrace_fprobe_spec spec = *given, *s = &spec;
	int i = slot_named(s->name, FP_DEAD);
	uint32_t held;
	size_t site;
	const char *e;

	user_strs(s);
	if (i >= 0 && ttrace_fprobe_same(&slots[i].spec, s))
		return go_live(t, i, s, slots[i].site);	/* its id back */
	if (i >= 0)
		return "fprobe: a deleted probe of that name may still have "
		       "records in the rings (ctl clear frees its id)";
	if (event_named(s->name))
		return "fprobe: an event of that name exists";
	if ((e = find_site(s->func, &site, why, sizeof(why))))
		return e;
	held = ttrace_meta_reader_fprobes();
	for (i = 0; i < FP_N && (slots[i].state != FP_FREE ||
				 (held & (1u << i))); i++)
		;
	if (i == FP_N)
		return "fprobe: all 16 event ids are taken (a deleted probe's "
		       "comes free at the next ctl clear, for a new probe once "
		       "the trace files open since before the clear close)";
	return go_live(t, i, s, site);
}

/* The live slots fprobe del NAME deletes (NAME "*": every one), as a bit
 * per slot in *del; NULL, or why none is (nothing changed). */
static const char *slots_to_del(const char *name, uint32_t *del)
{
	int i = slot_named(name, FP_LIVE);

	*del = 0;
	for (unsigned s = 0; s < FP_N; s++)
		if (slots[s].state == FP_LIVE &&
		    (s == (unsigned)i || !strcmp(name, "*")))
			*del |= 1u << s;
	if (!*del && strcmp(name, "*"))
		return "fprobe: no such function probe";
	for (uint32_t m = *del; m; m &= m - 1)
		if (READ_ONCE(ttrace_probes[FP_FIRST + __builtin_ctz(m)]))
			return "fprobe: probes are attached to it (unprobe them "
			       "first)";
	return NULL;
}

/* fprobe del NAME, or * (every probe, with one grace period). ctl mutex
 * held. */
static const char *fp_del(struct ttrace *t, const char *name)
{
	uint32_t del;
	const char *why = slots_to_del(name, &del);

	if (why || !del)
		return why;
	for (uint32_t m = del; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);

		slots[i].state = FP_DEAD;
		t->enabled[FP_FIRST + i] = 0;
	}
	ttrace_rearm_locked(t);	/* their sites: the NOP, or the graph's */
	ttrace_grace_period(t);	/* no CPU is still in their hit path */
	return NULL;
}

/* See internal.h. */
const char *fprobe_control(struct ttrace *t, const struct ttrace_fprobe_spec *s)
{
	if (t->off_reason)
		return t->off_reason;
	return s->op == TTRACE_FPROBE_ADD ? fp_add(t, s) : fp_del(t, s->name);
}

/* See internal.h. */
bool fprobe_deleted(uint32_t id)
{
	return id >= FP_FIRST && id < FP_FIRST + FP_N &&
	       slots[id - FP_FIRST].state == FP_DEAD;
}

/* See internal.h: the rings are empty, so deleted probes' ids come free
 * (their placeholders' metadata back). */
void fprobe_rings_cleared(struct ttrace *t)
{
	uint32_t freed = 0;

	for (unsigned i = 0; i < FP_N; i++)
		if (slots[i].state == FP_DEAD) {
			freed |= 1u << i;
			live_events[FP_FIRST + i] = ttrace_event_table[FP_FIRST + i];
		}
	if (!freed)
		return;
	if (!ttrace_meta_publish(t, &live_table, slots_used() & ~freed)) {
		for (unsigned i = 0; i < FP_N; i++)	/* memory short: they */
			if (freed & (1u << i))		/* stay deleted */
				live_events[FP_FIRST + i] = slot_meta[i].ev;
		return;
	}
	for (unsigned i = 0; i < FP_N; i++)
		if (freed & (1u << i))
			memset(&slots[i], 0, sizeof(slots[i]));
	same_funcs(-1);
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

/* See internal.h. */
void fprobe_each_live(void (*fn)(const struct ttrace_fprobe_spec *s,
				 void *arg), void *arg)
{
	for (unsigned i = 0; i < FP_N; i++)
		if (slots[i].state == FP_LIVE)
			fn(&slots[i].spec, arg);
}
