/*
 * What a function probe's str argument may read (kern/trace/fprobe.c,
 * docs/probes.md "Strings"): a probe on copyinstr(dst, usrc, max) with
 * both pointers as str, called from this ktask with max 0 (copyinstr
 * then reads nothing itself) and chosen pointers; each hit's strings are
 * looked up in aux by their marker ids:
 *  - usrc is __user: the probe reads it as a ustr, so a kernel address
 *    there (what open(KERNEL_ADDRESS) passes) gives "(bad address)",
 *    never the kernel's bytes, and the probe's listing says ustr;
 *  - dst, a str, is copied from kernel RAM (a string of this file);
 *  - from device memory (the LAPIC in the direct map's uncached hole,
 *    the VGA window below 1 MiB) it is refused, "(not kernel RAM)", each
 *    refusal counted in the stats file;
 *  - at an address nothing maps, or a user address (this ktask has no
 *    user pages), "(bad address)".
 */
#include <ktest.h>
#include "../internal.h"
#include "kt.h"
#include <pmem.h>
#include <proc.h>
#include <seqbuf.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_probe.h>
#include <arch/mmu.h>

static const char kernel_string[] = "kt strsafe: kernel RAM";

struct words {
	struct kthread *tester;	/* hits of other threads are not counted */
	uint64_t hits;
	uint64_t ids[2];	/* the marker ids of dst and usrc */
	void *aux_copy;		/* aux_size bytes, 2^aux_order pages */
	size_t aux_size;
	unsigned aux_order;
};

static bool catch_ids(void *arg, const struct ttrace_probe_hit *h)
{
	struct words *w = arg;

	if (current_kthread() != w->tester || h->nargs != 2)
		return true;
	w->hits++;
	w->ids[0] = h->args[0];
	w->ids[1] = h->args[1];
	return true;
}

/* The stats file's count of strings refused as not the kernel's RAM. */
static uint64_t not_ram_count(void)
{
	static char text[2048];
	struct seqbuf s;
	const char *at;
	uint64_t n = 0;

	seqbuf_init(&s, text, sizeof(text));
	ttrace_stats_text(&s);
	at = strstr(text, " not_ram ");
	for (at = at ? at + 9 : ""; *at >= '0' && *at <= '9'; at++)
		n = n * 10 + (uint64_t)(*at - '0');
	return n;
}

/* Whether marker id's string in aux (copied into w's) is want. */
static bool marker_is(struct words *w, uint64_t id, const char *want,
		      const char *what)
{
	struct ttrace_aux_view view;
	struct ttrace_aux_rec rec;

	KT_ASSERT(!ttrace_aux_read(&ttrace_main, w->aux_copy, w->aux_size,
				   &view) &&
		  ttrace_aux_lookup(&view, TTRACE_AUX_USER_MARKER, id, ~0ull,
				    &rec), "%s: marker %lu not in aux", what, id);
	KT_ASSERT(rec.len == strlen(want) && !memcmp(rec.payload, want, rec.len),
		  "%s: '%.*s', want '%s'", what, (int)rec.len,
		  (const char *)rec.payload, want);
	return true;
}

/* One call with dst and usrc; their strings must be want_d and want_u. */
static bool read_as(struct words *w, uintptr_t dst,
		    uintptr_t usrc, const char *want_d, const char *want_u)
{
	uint64_t hits = w->hits;

	copyinstr((char *)dst, (const char *)usrc, 0);
	KT_ASSERT(w->hits == hits + 1, "dst %#lx: no hit", dst);
	return marker_is(w, w->ids[0], want_d, "dst") &&
	       marker_is(w, w->ids[1], want_u, "usrc");
}

static bool strsafe_cases(struct words *w)
{
	static const char bad[] = "(bad address)", not_ram[] = "(not kernel RAM)";
	uintptr_t kstr = (uintptr_t)kernel_string;
	uint64_t refused = not_ram_count();

	if (!read_as(w, kstr, kstr, kernel_string, bad) ||
	    !read_as(w, (uintptr_t)KADDR(0xfee00020), kstr, not_ram,
		     bad) ||
	    !read_as(w, (uintptr_t)KADDR(0xb8000), 0x400000,
		     not_ram, bad) ||
	    !read_as(w, KMEM_WINDOW_END + PGSIZE, kstr, bad, bad) ||
	    !read_as(w, 0x400000, 0x400000, bad, bad))
		return false;
	KT_ASSERT(not_ram_count() == refused + 2, "stats: not_ram %lu, want %lu",
		  not_ram_count(), refused + 2);
	return true;
}

static bool test_ttrace_strsafe(void)
{
	static struct words w;
	static char list[1024];
	uint64_t used, dropped;
	struct seqbuf s;
	bool ok;
	int id;

	ttrace_aux_usage(&ttrace_main, &used, &w.aux_size, &dropped);
	w.aux_order = ttrace_order_for(w.aux_size);
	w.aux_copy = get_cont_pages(w.aux_order, 0);
	w.tester = current_kthread();
	KT_ASSERT(w.aux_copy, "no memory for the aux copy");
	if (!kt_ctl("fprobe add kt_ss copyinstr d=arg0:str u=arg1:str")) {
		free_cont_pages(w.aux_copy, w.aux_order);
		return false;
	}
	seqbuf_init(&s, list, sizeof(list));
	fprobe_state_text(&s);
	id = ttrace_event_id("kt_ss");
	ok = ttrace_probe_attach(id, catch_ids, &w) == 0;
	ok = ok && strsafe_cases(&w);
	ttrace_probe_detach(id, catch_ids, &w);
	free_cont_pages(w.aux_copy, w.aux_order);
	if (!kt_ctl("fprobe del kt_ss") || !ok)
		return false;
	KT_ASSERT(strstr(list, "fprobe add kt_ss copyinstr d=arg0:str "
			 "u=arg1:ustr"), "the probe's listing: %s", list);
	return true;
}

KTEST_REG(ttrace_strsafe, test_ttrace_strsafe);
