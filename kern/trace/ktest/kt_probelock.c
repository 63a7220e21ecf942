/*
 * Probes that reach the tracer's own locks and hooks (docs/probes.md,
 * "What cannot be probed"), on ns_clean(out, path) called here:
 *  - the lock primitives the tracer takes on every read and in a hit are
 *    not traceable: `fprobe add` on them is refused;
 *  - a `str` probe that hits while this CPU holds aux's read lock (as a
 *    reader would, were it to call a probed function under it) does not
 *    wait for it: the record is written, its string dropped and counted
 *    in the CPU's str_dropped (before: every CPU deadlocked);
 *  - a probe callback that calls the probed function again, at its entry
 *    and at its return, is not re-entered: the nested calls are not
 *    recorded and each counts in fgraph_recursions (before: the stack
 *    overflowed, a double fault).
 * Only this test's thread's hits count; the probes are deleted after.
 */
#include <ktest.h>
#include "../internal.h"
#include "kt.h"
#include <ttrace.h>
#include <ttrace_probe.h>
#include <ns.h>
#include <proc.h>
#include <string.h>

#define NEST_MAX	3	/* nested calls a hit makes (they must not hit) */

static struct kthread *tester;
static uint64_t hits;
static unsigned depth;
static bool recurse;

/* Counts the tester's hits; with recurse, calls ns_clean() again from
 * inside the hit (NEST_MAX deep at most, so that a tracer that lets it
 * in fails the test rather than overflowing the stack). */
static bool hit(void *arg, const struct ttrace_probe_hit *h)
{
	static char out[64];

	(void)arg;
	(void)h;
	if (current_kthread() != tester)
		return true;
	hits++;
	if (recurse && depth < NEST_MAX) {
		depth++;
		ns_clean(out, "/kt/nested");
		depth--;
	}
	return true;
}

static bool test_ttrace_probelock_notrace(void)
{
	static const char *const locks[] = { "rlock", "runlock", "wlock_wait",
					     "rtrylock" };
	char cmd[64];

	for (size_t i = 0; i < ARRAY_SIZE(locks); i++) {
		const char *why;

		strlcpy(cmd, "fprobe add kt_lk ", sizeof(cmd));
		strlcat(cmd, locks[i], sizeof(cmd));
		strlcat(cmd, " l=arg0:str", sizeof(cmd));
		KT_ASSERT(ttrace_control(cmd, strlen(cmd), &why) &&
			  strstr(why, "not traceable"), "'%s': %s", cmd,
			  ttrace_event_id("kt_lk") >= 0 ? "accepted" : why);
	}
	return true;
}

KTEST_REG(ttrace_probelock_notrace, test_ttrace_probelock_notrace);

/* This CPU's ring's str_dropped now. */
static uint64_t str_dropped(void)
{
	struct trace_ring_stats st;

	trace_ring_stats(this_cpu()->ttrace_ring, &st);
	return st.str_dropped;
}

static bool test_ttrace_probelock_aux_busy(void)
{
	static char out[64];
	struct ttrace *t = &ttrace_main;
	uint64_t flags, before, after;
	long r;

	tester = current_kthread();
	hits = 0;
	if (!kt_ctl("fprobe add kt_pb ns_clean path=arg1:str"))
		return false;
	KT_ASSERT(ttrace_probe_attach(ttrace_event_id("kt_pb"), hit, NULL) == 0,
		  "attach");
	flags = arch_irq_save();
	before = str_dropped();
	rlock(&t->aux_lock);		/* as aux's readers hold it */
	r = ns_clean(out, "/kt/busy");
	runlock(&t->aux_lock);
	after = str_dropped();
	ns_clean(out, "/kt/free");	/* may drop too: another CPU's write */
	arch_irq_restore(flags);
	ttrace_probe_detach(ttrace_event_id("kt_pb"), hit, NULL);
	if (!kt_ctl("fprobe del kt_pb"))
		return false;
	KT_ASSERT(r > 0 && hits == 2, "ns_clean %ld, %lu hits (want 2)", r,
		  hits);
	KT_ASSERT(after == before + 1, "str_dropped %lu, under the read lock "
		  "%lu (want one more)", before, after);
	return true;
}

KTEST_REG(ttrace_probelock_aux_busy, test_ttrace_probelock_aux_busy);

/* ns_clean() once, its probe's callback calling it again: one hit. */
static bool call_recursing(const char *when)
{
	static char out[64];
	uint64_t before = __atomic_load_n(&fgraph_recursions, __ATOMIC_RELAXED);
	uint64_t refused;

	hits = depth = 0;
	recurse = true;
	ns_clean(out, "/kt/outer");
	recurse = false;
	refused = __atomic_load_n(&fgraph_recursions, __ATOMIC_RELAXED) - before;
	KT_ASSERT(hits == 1 && refused >= 1, "%s: %lu hits (want 1), %lu "
		  "recursions counted (want at least 1)", when, hits, refused);
	return true;
}

static bool test_ttrace_probelock_recursion(void)
{
	int id;
	bool ok;

	tester = current_kthread();
	if (!kt_ctl("fprobe add kt_pr ns_clean path=arg1:str"))
		return false;
	id = ttrace_event_id("kt_pr");
	KT_ASSERT(ttrace_probe_attach(id, hit, NULL) == 0, "attach");
	ok = call_recursing("at the entry");
	ttrace_probe_detach(id, hit, NULL);
	if (!ok || !kt_ctl("fprobe del kt_pr") ||
	    !kt_ctl("fprobe add kt_prr ns_clean%return r=ret:s64"))
		return false;
	id = ttrace_event_id("kt_prr");
	KT_ASSERT(ttrace_probe_attach(id, hit, NULL) == 0, "attach return");
	ok = call_recursing("at the return");
	ttrace_probe_detach(id, hit, NULL);
	return kt_ctl("fprobe del kt_prr") && ok;
}

KTEST_REG(ttrace_probelock_recursion, test_ttrace_probelock_recursion);
