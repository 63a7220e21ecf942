/*
 * In-kernel tests of the drain's pieces (../drain.c) where only the kernel
 * can make the case: what a piece records on its CPU is counted as
 * filtered events, not slots; and a piece that meets a slot in flight
 * after the stream was bounded returns (the thread waits with interrupts
 * on) rather than spinning for its patience with interrupts off.
 */
#include <ktest.h>
#include <smp.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <ttrace_image.h>
#include <arch/arch.h>

#include "../internal.h"

#define STEPS_MAX	1000000	/* a bound on any loop of steps below */

/* Two events, one of three slots (test_wide: two continuations) and one
 * of one; ttrace_drain_quietly()'s fn. */
static int record_two(void *arg)
{
	(void)arg;
	ttrace_test_wide(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
	ttrace_test_seq(1, 2, 3, 4, 5);
	return 0;
}

/*
 * The records a piece makes on its CPU are counted once each in the
 * CPU's filtered, and none reaches its ring. The quiet ring counted its
 * slots: 4 for these two events.
 */
static bool test_ttrace_drain_quiet_events(void)
{
	uint64_t old = ttrace_set_mask(1ull << TTRACE_GROUP_TEST, ~0ull);
	uint64_t flags = arch_irq_save();
	struct trace_ring *own = &ttrace_main.rings[core_id()];
	uint64_t filtered = READ_ONCE(own->filtered), head = own->head;

	ttrace_drain_quietly(record_two, NULL);
	filtered = READ_ONCE(own->filtered) - filtered;
	head = own->head - head;
	arch_irq_restore(flags);
	ttrace_set_mask(old, ~0ull);
	KT_ASSERT(head == 0, "%lu slots of the quiet records reached the ring",
		  head);
	KT_ASSERT(filtered == 2, "2 events recorded quietly (4 slots) counted "
		  "as %lu filtered", filtered);
	return true;
}
KTEST_REG(ttrace_drain_quiet_events, test_ttrace_drain_quiet_events);

static int discard(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return 0;
}

struct step_arg {
	struct ttrace_tracefile *f;
	struct ttrace_file_writer *w;
	bool end;
};

static int step(void *arg)
{
	struct step_arg *a = arg;

	return ttrace_tracefile_step(a->f, a->w, a->end, false);
}

/*
 * A drain's stream, then a slot in flight on this CPU, then the end
 * (drain off): the piece that reaches the slot returns
 * TTRACE_IMAGE_WAIT at once, and the file ends once its patience ran out,
 * the slot declared lost. A bounded stream kept the stream's 200 ms
 * patience and spun through it with interrupts off, in that one piece.
 */
static bool test_ttrace_drain_busy_slot(void)
{
	struct ttrace_tracefile *f = ttrace_tracefile_new(TTRACE_READ_STREAM);
	struct ttrace_file_writer w;
	struct step_arg a = { f, &w, false };
	uint64_t flags, idx;
	struct trace_ring *r;
	int k = TTRACE_IMAGE_MORE, waits = 0, n;

	KT_ASSERT(f, "no memory for a stream");
	ttrace_file_writer_init(&w, discard, NULL);
	ttrace_drain_quietly(step, &a);		/* the stream begins */
	flags = arch_irq_save();
	r = &ttrace_main.rings[core_id()];
	idx = trace_ring_reserve(r, 1);
	trace_ring_invalidate(trace_ring_slot(r, idx));	/* in flight */
	a.end = true;
	for (n = 0, k = TTRACE_IMAGE_MORE; n < STEPS_MAX && k != TTRACE_IMAGE_DONE;
	     n++) {
		k = ttrace_drain_quietly(step, &a);
		if (k == TTRACE_IMAGE_WAIT && !waits++)
			arch_irq_restore(flags);	/* the thread waits */
	}
	if (!waits)
		arch_irq_restore(flags);
	/* the slot written after all, as its writer would */
	trace_ring_fill(r, idx, arch_trace_clock(), this_cpu()->ttrace_type_base,
			TTRACE_EV_TEST_SEQ, this_cpu()->ttrace_ctx, 0, 0, 0, 0, 0);
	ttrace_tracefile_free(f);
	KT_ASSERT(k == TTRACE_IMAGE_DONE, "the stream did not end (%d)", k);
	KT_ASSERT(w.error == 0, "the writer failed (%d)", w.error);
	KT_ASSERT(waits > 0, "no piece returned for the slot in flight: one "
		  "spun through its patience with interrupts off");
	return true;
}
KTEST_REG(ttrace_drain_busy_slot, test_ttrace_drain_busy_slot);
