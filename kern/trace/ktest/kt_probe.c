/*
 * In-kernel tests of the probe API (kern/trace/probe_site.c):
 *  - a probe sees every hit of its event with the right arguments, and its
 *    answer decides the record; an event whose group is off stays armed
 *    for its probe, and records nothing;
 *  - attach and detach in a loop while every other CPU fires the probed
 *    event as fast as it can: no crash, no page kept, and a callback never
 *    runs once its detach has returned.
 * The writers run routine kernel messages between tracepoints, as a CPU
 * returning to user mode would, so the grace period can complete.
 */
#include <ktest.h>
#include "../internal.h"
#include <ttrace.h>
#include <ttrace_probe.h>
#include <trace_ring.h>
#include <kmsg.h>
#include <pmem.h>
#include <smp.h>
#include <atomic.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>

#define ROUNDS		40	/* per writer CPU, up to 2 (see loop_cpu) */
#define RING_COPY	256

struct probe_state {
	uint64_t calls;
	uint64_t late;		/* calls after detach returned: must stay 0 */
	uint64_t bad_args;
	uint32_t detached;
};

/* Keeps the records of odd seqs only; checks the words it is given.
 * Slow on purpose (a few hundred pauses) and checks for its detach last,
 * so a detach that did not wait for it would be seen. */
static bool keep_odd(void *arg, const struct ttrace_probe_hit *h)
{
	struct probe_state *s = arg;

	for (int i = 0; i < 300; i++)
		arch_pause();
	if (atomic_read(&s->detached))
		__atomic_fetch_add(&s->late, 1, __ATOMIC_RELAXED);
	if (h->id != TTRACE_EV_TEST_SEQ || h->nargs != 5 ||
	    h->args[2] != h->args[0] * 2)
		__atomic_fetch_add(&s->bad_args, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	return h->args[0] & 1;
}

/* Fires test_seq n times on this CPU, interrupts off, into an empty ring;
 * returns how many records the ring then holds (copied to e). */
static size_t fire_alone(uint64_t n, struct ttrace_entry *e)
{
	uint64_t flags = arch_irq_save();
	size_t got;

	trace_ring_clear(ttrace_ring_of(&ttrace_main, core_id()));
	for (uint64_t i = 0; i < n; i++)
		ttrace_test_seq(i, 0, i * 2, 0, 0);
	got = trace_ring_collect(ttrace_ring_of(&ttrace_main, core_id()), 0, e, RING_COPY,
				 NULL);
	arch_irq_restore(flags);
	return got;
}

static bool test_probe_decides(void)
{
	static struct ttrace_entry e[RING_COPY];
	static struct probe_state s;
	uint64_t old = ttrace_set_mask(1ull << TTRACE_GROUP_TEST, ~0ull);
	size_t n;

	memset(&s, 0, sizeof(s));
	KT_ASSERT(!ttrace_probe_attach(TTRACE_EV_TEST_SEQ, keep_odd, &s),
		  "attach failed");
	KT_ASSERT(ttrace_probe_attach(TTRACE_EV_TEST_SEQ, keep_odd, &s) ==
		  -EEXIST, "attached twice");
	n = fire_alone(100, e);
	KT_ASSERT(s.calls == 100 && s.bad_args == 0, "%lu calls, %lu bad",
		  s.calls, s.bad_args);
	KT_ASSERT(n == 50, "%zu records kept, want the 50 odd ones", n);
	for (size_t i = 0; i < n; i++)
		KT_ASSERT(e[i].data[0] == 2 * i + 1, "record %zu is seq %lu", i,
			  e[i].data[0]);
	ttrace_set_mask(0, ~0ull);	/* group off: armed for the probe only */
	KT_ASSERT(ttrace_armed[TTRACE_EV_TEST_SEQ] && ttrace_armed_consistent(&ttrace_main),
		  "a probed event is not armed");
	n = fire_alone(10, e);
	KT_ASSERT(s.calls == 110 && n == 0, "group off: %lu calls, %zu records",
		  s.calls, n);
	KT_ASSERT(!ttrace_probe_detach(TTRACE_EV_TEST_SEQ, keep_odd, &s),
		  "detach failed");
	KT_ASSERT(ttrace_probe_detach(TTRACE_EV_TEST_SEQ, keep_odd, &s) ==
		  -ENOENT, "detached twice");
	KT_ASSERT(!ttrace_armed[TTRACE_EV_TEST_SEQ], "still armed");
	ttrace_set_mask(1ull << TTRACE_GROUP_TEST, ~0ull);
	n = fire_alone(10, e);
	KT_ASSERT(s.calls == 110 && n == 10, "after detach: %lu calls, %zu "
		  "records", s.calls, n);
	ttrace_set_mask(old, ~0ull);
	trace_ring_clear(ttrace_ring_of(&ttrace_main, core_id()));	/* no test_seq left */
	return true;
}
KTEST_REG(probe_decides, test_probe_decides);

static struct probe_state loop_state[2];
static uint32_t loop_stop, loop_controller;
static bool loop_failed;

/* Writers: fire the event until told to stop, quiet between events. */
static void loop_writer(void)
{
	for (uint64_t i = 0; !atomic_read(&loop_stop); i++) {
		ttrace_test_seq(i, 0, i * 2, 0, 0);
		if (kmsg_pending())
			process_routine_kmsgs();
	}
}

/* One round: attach, see it called, detach, see it never called again. */
static bool loop_round(struct probe_state *s)
{
	memset(s, 0, sizeof(*s));
	if (ttrace_probe_attach(TTRACE_EV_TEST_SEQ, keep_odd, s))
		return false;
	for (uint64_t spins = 0; !atomic_read(&s->calls); spins++)
		if (num_cpus == 1 || spins > 100000000)
			ttrace_test_seq(1, 0, 2, 0, 0);
	if (ttrace_probe_detach(TTRACE_EV_TEST_SEQ, keep_odd, s))
		return false;
	__atomic_store_n(&s->detached, 1, __ATOMIC_SEQ_CST);
	ttrace_test_seq(3, 0, 6, 0, 0);
	return true;
}

static void loop_cpu(void *arg)
{
	(void)arg;
	if (core_id() != loop_controller) {
		loop_writer();
		return;
	}
	/* A round races every writer, and each of its detaches waits for
	 * all of them: 2 * ROUNDS / writers rounds keep the writer-rounds
	 * of 3 CPUs (40 rounds up to 3 CPUs, 26 at 4, 11 at 8). */
	int rounds = num_cpus <= 2 ? ROUNDS : 2 * ROUNDS / (int)(num_cpus - 1);

	for (int r = 0; r < rounds && !loop_failed; r++)
		loop_failed = !loop_round(&loop_state[r & 1]);
	atomic_set(&loop_stop, 1);
}

static bool test_probe_attach_detach_loop(void)
{
	/* test group off: the event is armed only while the probe is
	 * attached, and nothing reaches the rings (ttrace_stress reads them) */
	uint64_t old = ttrace_set_mask(0, ~0ull);
	size_t before;

	loop_controller = core_id();
	loop_stop = 0;
	loop_failed = !loop_round(&loop_state[0]);	/* warm kmalloc up */
	before = pmem_nr_free_pages();
	smp_run_on_all(loop_cpu, NULL);
	ttrace_set_mask(old, ~0ull);
	KT_ASSERT(!loop_failed, "attach or detach failed");
	for (int i = 0; i < 2; i++) {
		KT_ASSERT(loop_state[i].late == 0, "a detached probe ran %lu "
			  "times", loop_state[i].late);
		KT_ASSERT(loop_state[i].bad_args == 0, "bad arguments");
	}
	KT_ASSERT(ttrace_probe_count(TTRACE_EV_TEST_SEQ) == 0, "left attached");
	KT_ASSERT(pmem_nr_free_pages() == before, "%zu pages kept",
		  before - pmem_nr_free_pages());
	return true;
}
KTEST_REG(probe_attach_detach_loop, test_probe_attach_detach_loop);
