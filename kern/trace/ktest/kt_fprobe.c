/*
 * Function probes (kern/trace/fprobe.c, docs/probes.md "Function probes")
 * on ns_clean(out, path), called here with known arguments:
 *  - an entry probe with both arguments and a return probe see the values
 *    passed and returned (a probe callback attached to each event by name
 *    catches its hit's words: the event is named like a static one);
 *  - they keep working while the function-graph tracer is switched on
 *    (the site stays fprobe's, doing the graph's work too: func_entry is
 *    counted) and off again;
 *  - a built-in `filter` probe and a `count` by a probe's field work on
 *    the event;
 *  - hostile definitions are refused with their reason and change nothing
 *    (the function's text, the probes' listing);
 *  - deleting them restores the function's first 16 bytes byte for byte,
 *    with the graph tracer on and off.
 * Only this test's thread's hits are counted (a process may open files
 * meanwhile). The tracer's state (mask, filter, probes) is put back.
 */
#include <ktest.h>
#include "../internal.h"
#include "kt.h"
#include <ttrace.h>
#include <ttrace_probe.h>
#include <ksyms.h>
#include <ns.h>
#include <proc.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>

#define TEXT_BYTES	16

struct catch {
	uint64_t hits;
	uint64_t args[2];
	uint32_t nargs;
};

static struct catch at_entry, at_return, at_func;
static struct kthread *tester;	/* hits of other threads are not counted */
static long last_ret;		/* ns_clean's, at the last call */

static bool catch_hit(void *arg, const struct ttrace_probe_hit *h)
{
	struct catch *c = arg;

	if (current_kthread() != tester)	/* a process's open, say */
		return true;
	c->hits++;
	c->nargs = h->nargs;
	for (uint32_t i = 0; i < h->nargs && i < 2; i++)
		c->args[i] = h->args[i];
	return true;
}

/* The message a refused command gives, or NULL if it was carried out. */
static const char *refused(const char *cmd)
{
	const char *why;

	return ttrace_control(cmd, strlen(cmd), &why) ? why : NULL;
}

static void probes_text(char *buf, size_t size)
{
	struct seqbuf s;

	seqbuf_init(&s, buf, size);
	ttrace_probes_text(&s, NULL);
}

/* Calls ns_clean with known arguments; checks both probes saw them. */
static bool call_and_check(uint64_t entries, const char *when)
{
	static char out[64];
	long r = ns_clean(out, "/kt/../fprobe/./x");

	last_ret = r;
	KT_ASSERT(r > 0 && !strcmp(out, "/fprobe/x"), "%s: ns_clean %ld '%s'",
		  when, r, out);
	KT_ASSERT(at_entry.hits == entries && at_entry.nargs == 2 &&
		  at_entry.args[0] == (uintptr_t)out,
		  "%s: entry hits %lu (want %lu) nargs %u out %#lx (want %p)",
		  when, at_entry.hits, entries, at_entry.nargs,
		  at_entry.args[0], out);
	KT_ASSERT(at_return.hits == entries && at_return.nargs == 1 &&
		  at_return.args[0] == (uint64_t)r, "%s: return hits %lu ret %ld "
		  "(want %ld)", when, at_return.hits, (long)at_return.args[0], r);
	return true;
}

static bool refusals(const uint8_t *live)
{
	static const char *const bad[][2] = {
		{ "fprobe add kt_x ttrace_probe_fire", "not traceable" },
		{ "fprobe add kt_x trap", "not traceable" },
		{ "fprobe add kt_x no_such_function_here", "no function" },
		{ "fprobe add kt_fp ns_walk arg0:str", "exists" },
		{ "fprobe add syscall_enter ns_walk", "exists" },
		{ "fprobe add kt_x ns_walk arg7:u8", "bad source" },
		{ "fprobe add kt_x ns_walk arg0:f32", "bad type" },
		{ "fprobe del kt_nosuch", "no such function probe" },
	};
	char before[512], after[512];

	probes_text(before, sizeof(before));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = refused(bad[i][0]);

		KT_ASSERT(why && strstr(why, bad[i][1]), "'%s': %s", bad[i][0],
			  why ? why : "accepted");
	}
	probes_text(after, sizeof(after));
	KT_ASSERT(!strcmp(before, after), "a refused command changed probes");
	KT_ASSERT(!memcmp((void *)ns_clean, live, TEXT_BYTES),
		  "a refused command changed the text");
	KT_ASSERT(ttrace_event_id("kt_x") < 0, "kt_x exists");
	return true;
}

/* A filter and a count keyed by a probe's field, on the probe's event. */
static bool builtin_probes(void)
{
	char text[1024], key[48];
	const char *f;

	if (!kt_ctl("probe kt_fc count kt_fpr by ret if pid==-1") ||
	    !kt_ctl("probe kt_ff filter kt_fp out==0x1"))	/* drops every record */
		return false;
	if (!call_and_check(4, "with built-in probes"))
		return false;
	probes_text(text, sizeof(text));
	if (!kt_ctl("unprobe kt_fc") || !kt_ctl("unprobe kt_ff"))
		return false;
	fmt_snprintf(key, sizeof(key), "key %ld count 1\n", last_ret);
	KT_ASSERT(strstr(text, "probe kt_fc count kt_fpr by ret if pid==-1\n"
			 "  hits 1 ") &&
		  strstr(text, key), "count: %s", text);
	f = strstr(text, "probe kt_ff filter kt_fp ");
	KT_ASSERT(f && strstr(f, "\n  hits 0\n"), "filter: %s", text);
	return true;
}

static bool test_ttrace_fprobe(void)
{
	uint8_t orig[TEXT_BYTES], live[TEXT_BYTES];
	const char *why;
	int id, rid;

	tester = current_kthread();
	memcpy(orig, (void *)ns_clean, TEXT_BYTES);
	if (!kt_ctl("fprobe add kt_fp ns_clean out=arg0:ptr path=arg1:str") ||
	    !kt_ctl("fprobe add kt_fpr ns_clean%return"))
		return false;
	id = ttrace_event_id("kt_fp");
	rid = ttrace_event_id("kt_fpr");
	KT_ASSERT(id >= TTRACE_EV_FPROBE_FIRST && rid >= TTRACE_EV_FPROBE_FIRST,
		  "ids %d %d", id, rid);
	KT_ASSERT(*(uint8_t *)ns_clean == 0xe8, "site not live: %#x",
		  *(uint8_t *)ns_clean);
	KT_ASSERT(ttrace_probe_attach(id, catch_hit, &at_entry) == 0 &&
		  ttrace_probe_attach(rid, catch_hit, &at_return) == 0, "attach");
	memcpy(live, (void *)ns_clean, TEXT_BYTES);
	if (!call_and_check(1, "alone"))
		return false;
	if (!refusals(live))
		return false;
	/* the graph on ns_clean alone (a probe on func_entry arms it too) */
	KT_ASSERT(ttrace_funcs_control("ns_clean", 8, &why) == 0, "%s", why);
	if (!kt_ctl("enable func"))
		return false;
	KT_ASSERT(ttrace_probe_attach(TTRACE_EV_FUNC_ENTRY, catch_hit,
				      &at_func) == 0, "attach func_entry");
	KT_ASSERT(!memcmp((void *)ns_clean, live, TEXT_BYTES),
		  "graph on took the site from the probe");
	if (!call_and_check(2, "graph on"))
		return false;
	ttrace_probe_detach(TTRACE_EV_FUNC_ENTRY, catch_hit, &at_func);
	KT_ASSERT(at_func.hits >= 1, "graph on: no func_entry of ns_clean");
	if (!kt_ctl("disable func"))
		return false;
	KT_ASSERT(!memcmp((void *)ns_clean, live, TEXT_BYTES),
		  "graph off took the site from the probe");
	if (!call_and_check(3, "graph off again"))
		return false;
	if (!builtin_probes())
		return false;
	ttrace_probe_detach(id, catch_hit, &at_entry);
	ttrace_probe_detach(rid, catch_hit, &at_return);
	if (!kt_ctl("enable func") || !kt_ctl("fprobe del kt_fp") ||
	    !kt_ctl("fprobe del kt_fpr"))
		return false;
	KT_ASSERT(*(uint8_t *)ns_clean == 0xe8, "graph on: not its site");
	if (!kt_ctl("disable func"))
		return false;
	KT_ASSERT(!memcmp((void *)ns_clean, orig, TEXT_BYTES),
		  "the text is not restored");
	KT_ASSERT(ttrace_funcs_control("*", 1, &why) == 0, "%s", why);
	KT_ASSERT(ttrace_patch_consistent(), "sites disagree with the state");
	return true;
}

KTEST_REG(ttrace_fprobe, test_ttrace_fprobe);

/* v cut to bits and widened by its sign (sign) or not: a probe word. */
static uint64_t cut(uint64_t v, unsigned bits, bool sign)
{
	uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;

	v &= m;
	return sign && bits < 64 && (v >> (bits - 1) & 1) ? v | ~m : v;
}

/* The record of event id among n in ev, or NULL. */
static const struct ttrace_entry *record_of(const struct ttrace_entry *ev,
					    size_t n, int id)
{
	for (size_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(ev[i].type))
		if ((int)TTRACE_TYPE_ID(ev[i].type) == id)
			return &ev[i];
	return NULL;
}

/*
 * The records the hit path writes itself (no probe attached to the
 * events: the words cut and widened inline): two entry probes on one
 * function, of 2 and of 5 words, and a return probe, each word of every
 * integer type's width with and without its sign, from pointers whose low
 * bytes are 0x90 (negative as s8) and 0x10; one call with interrupts off,
 * its records read back from this CPU's ring.
 */
static bool test_ttrace_fprobe_words(void)
{
	static char buf[512] __attribute__((aligned(256)));
	static struct ttrace_entry ev[64];
	char *out = buf + 0x90, *path = buf + 0x110;
	struct trace_ring *ring;
	const struct ttrace_entry *e2, *e5, *er;
	uint64_t a, b, flags, head;
	long r;
	size_t n;
	int id2, id5, idr;

	strcpy(path, "/kt/../w");
	if (!kt_ctl("fprobe add kt_w2 ns_clean a=arg0:s8 b=arg1:s8") ||
	    !kt_ctl("fprobe add kt_w5 ns_clean a=arg0:u8 b=arg1:s16 "
		    "c=arg0:s32 d=arg1:u32 e=arg0:u16") ||
	    !kt_ctl("fprobe add kt_wr ns_clean%return r=ret:s16"))
		return false;
	id2 = ttrace_event_id("kt_w2");
	id5 = ttrace_event_id("kt_w5");
	idr = ttrace_event_id("kt_wr");
	flags = arch_irq_save();
	ring = this_cpu()->ttrace_ring;
	head = trace_ring_head(ring);
	r = ns_clean(out, path);
	n = trace_ring_collect(ring, head, ev, ARRAY_SIZE(ev), NULL);
	arch_irq_restore(flags);
	if (!kt_ctl("fprobe del kt_w2") || !kt_ctl("fprobe del kt_w5") ||
	    !kt_ctl("fprobe del kt_wr"))
		return false;
	a = (uintptr_t)out;
	b = (uintptr_t)path;
	e2 = record_of(ev, n, id2);
	e5 = record_of(ev, n, id5);
	er = record_of(ev, n, idr);
	KT_ASSERT(r == 2 && e2 && e5 && er, "ns_clean %ld; %zu records, "
		  "kt_w2 %d kt_w5 %d kt_wr %d", r, n, !!e2, !!e5, !!er);
	/* an event of N words writes N (trace_ring_fill_n()): the slot's
	 * others are not the record's */
	KT_ASSERT(e2->data[0] == cut(a, 8, true) && e2->data[1] == cut(b, 8, true),
		  "kt_w2 %#lx %#lx (out %#lx path %#lx)", e2->data[0],
		  e2->data[1], a, b);
	KT_ASSERT(e5->data[0] == cut(a, 8, false) &&
		  e5->data[1] == cut(b, 16, true) &&
		  e5->data[2] == cut(a, 32, true) &&
		  e5->data[3] == cut(b, 32, false) &&
		  e5->data[4] == cut(a, 16, false),
		  "kt_w5 %#lx %#lx %#lx %#lx %#lx (out %#lx path %#lx)",
		  e5->data[0], e5->data[1], e5->data[2], e5->data[3],
		  e5->data[4], a, b);
	KT_ASSERT(er->data[0] == 2, "kt_wr %#lx", er->data[0]);
	return true;
}

KTEST_REG(ttrace_fprobe_words, test_ttrace_fprobe_words);

/* ksym_lookup() (a leaf with a site) at the bottom of n frames of 1 KiB
 * of this file's (no sites: the stack tracer sees none of them). */
static __attribute__((noinline)) uintptr_t deep_call(unsigned n)
{
	volatile char pad[1024];
	uintptr_t off;

	pad[0] = (char)n;
	if (n)
		return deep_call(n - 1) + (uintptr_t)pad[0];	/* no tail call */
	return (uintptr_t)ksym_lookup((uintptr_t)deep_call, &off);
}

/*
 * The stack tracer sees a function whose site an entry probe alone has
 * (fprobe's trampoline, not the stack tracer's): ksym_lookup() called 8
 * KiB deeper than the test's own stack, interrupts off, is this CPU's
 * deepest stack, its frame first.
 */
static bool test_ttrace_fprobe_stack(void)
{
	static char text[4096];
	char want[32], *at;
	struct seqbuf s;
	uint64_t flags;
	unsigned long bytes = 0;
	uint32_t cpu;

	if (!kt_ctl("fprobe add kt_st ksym_lookup") ||
	    !kt_ctl("stacktracer on") || !kt_ctl("stacktracer reset"))
		return false;
	flags = arch_irq_save();
	cpu = this_cpu()->coreid;
	deep_call(8);
	arch_irq_restore(flags);
	seqbuf_init(&s, text, sizeof(text));
	ttrace_stack_max_text(&s);
	if (!kt_ctl("stacktracer off") || !kt_ctl("fprobe del kt_st"))
		return false;
	fmt_snprintf(want, sizeof(want), "cpu%u ", cpu);
	at = strstr(text, want);
	if (at)
		bytes = strtoul(at + strlen(want), NULL, 10);
	KT_ASSERT(at && bytes > 8 * 1024 &&
		  !strncmp(strchr(at, '\n'), "\n  #0 ksym_lookup+", 18),
		  "no deepest stack at ksym_lookup on cpu%u: %s", cpu, text);
	return true;
}

KTEST_REG(ttrace_fprobe_stack, test_ttrace_fprobe_stack);
