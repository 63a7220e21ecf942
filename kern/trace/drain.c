/*
 * drain.c: the in-kernel drain (ctl `drain on|off`, `ttrace stream`;
 * docs/ttrace-device.md). One kernel thread, "ttdrain", streams the
 * trace file straight from the rings into the host channel through the
 * one writer (the device's stream file, tracefile.c, stepped into a
 * writer whose output is the channel's window): no pipe, no user buffer,
 * no system call per piece. Losses are the stream file's: a run the
 * rings overwrote before the drain reached it is a LOSS section in place.
 *
 * Why a thread and not work on each CPU: the file is one sequence of
 * bytes in one window, so its pieces are made one at a time whoever makes
 * them; a thread keeps that order without a lock across CPUs, sleeps a
 * tick when the rings have nothing new (the stream's WAIT), can wait for
 * a slot in flight and allocate the aux snapshot at the end, none of which
 * an interrupt may do. The kernel is not preemptible, so it yields after
 * DRAIN_BUDGET pieces to let the CPU's other threads run.
 *
 * Nothing is traced about the drain itself:
 *	- the scheduler writes no record of its thread (struct kthread's
 *	  untraced: no kthread_run, kthread_block, kthread_wake); its time
 *	  on a CPU shows as that CPU's idle time, in sched_switch records
 *	  and in the context of the records made meanwhile (so the
 *	  switches still chain: a switch between the idle thread and it is
 *	  none); only its creation, by the first `drain on`, is recorded,
 *	  as that command's doing;
 *	- each piece is made with interrupts off and this CPU's writes sent
 *	  to a small quiet ring of its own, so what the piece causes (the
 *	  rings' read lock contended, function entries of the locks it
 *	  takes) is not written: it is counted in this CPU's ring as
 *	  filtered, as a probe's suppressed events are. Interrupts, and so
 *	  everyone else's records, come between pieces, to the real ring.
 * The quiet ring is set only if this CPU writes its own ring (not a
 * freeze's, ttrace_freeze()) and put back only if it is still there.
 */
#include <devhost.h>
#include <proc.h>
#include <sched.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <ttrace_image.h>
#include <abi/errno.h>
#include <arch/arch.h>

#include "internal.h"

#define DRAIN_BUDGET	16	/* pieces between yields: ~16,000 records */
#define DRAIN_SLEEP_NS	10000000u	/* 10 ms: sleep when the rings have
					   nothing new */

enum drain_state { DRAIN_OFF, DRAIN_ON, DRAIN_ENDING };

static const char *const drain_state_names[] = {
	[DRAIN_OFF] = "off", [DRAIN_ON] = "on", [DRAIN_ENDING] = "ending",
};

static struct {
	struct spinlock lock;		/* state, error and the totals */
	enum drain_state state;
	const char *error;		/* why the last drain stopped early */
	bool full;			/* the thread's: the window filled up */
	uint64_t bytes;			/* the last file's size and CRC-32 */
	uint32_t crc;
	uint64_t pieces, sleeps;	/* the thread's, since boot */
	struct kthread *kt;		/* made by the first drain on, kept */
	/* the thread's, while state is not OFF */
	struct ttrace *t;
	struct ttrace_tracefile *f;
	struct ttrace_file_writer w;
	struct trace_ring quiet[CONFIG_MAX_NUM_CPUS];
	struct ttrace_entry quiet_entries[CONFIG_MAX_NUM_CPUS][2];
} drain = { .lock = SPINLOCK_INIT("ttrace_drain") };

/* The writer's output: the host channel's window. */
static int drain_out(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	if (devhost_append(buf, len))
		return 0;
	drain.full = true;
	return -1;
}

/* Where the writer's next bytes land in the window: the generator reads
 * runs straight there (one copy, ring to window). */
static void *drain_place(void *arg, uint64_t len)
{
	(void)arg;
	return devhost_place(len);
}

/* One piece of the file, made quietly (above), its records copied with
 * SSE (an SSE section: interrupts are off). The drain thread. */
static int quiet_step(bool end)
{
	uint64_t flags = arch_irq_save();
	bool simd = arch_simd_begin();
	uint32_t cpu = core_id();
	struct trace_ring *own = &drain.t->rings[cpu], *q = &drain.quiet[cpu];
	struct trace_ring **ring = &this_cpu()->ttrace_ring;
	struct trace_ring *expect = own;
	bool quiet = __atomic_compare_exchange_n(ring, &expect, q, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED);
	uint64_t head = q->head;
	int r = ttrace_tracefile_step(drain.f, &drain.w, end, simd);

	if (quiet) {
		expect = q;
		__atomic_compare_exchange_n(ring, &expect, own, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		for (uint64_t n = q->head - head; n; n--)
			trace_ring_count_filtered(own);
	}
	if (simd)
		arch_simd_end();
	arch_irq_restore(flags);
	return r;
}

/* The file complete (or its writer failed): its totals kept, the
 * channel given back, whoever waits in drain off woken. */
static void drain_finish(void)
{
	ttrace_tracefile_free(drain.f);
	drain.f = NULL;
	devhost_release();
	spin_lock(&drain.lock);
	drain.error = !drain.w.error ? NULL : drain.full ?
		"drain: the host channel is full; the stream stopped" :
		"drain: out of memory for the aux snapshot; the stream stopped";
	drain.bytes = drain.w.offset;
	drain.crc = drain.w.file_crc;
	drain.state = DRAIN_OFF;
	spin_unlock(&drain.lock);
	kwakeup(&drain);
}

/* Waits until there is a file to drain; returns whether it is ending. */
static bool drain_wait_work(void)
{
	bool ending;

	spin_lock(&drain.lock);
	while (drain.state == DRAIN_OFF)
		ksleep(&drain.kt, &drain.lock);
	ending = drain.state == DRAIN_ENDING;
	spin_unlock(&drain.lock);
	return ending;
}

/* The drain thread: pieces while there are any, a tick's sleep when the
 * rings have nothing new, the rest of the file once drain off says so. */
static void drain_main(void *arg)
{
	(void)arg;
	for (;;) {
		bool ending = drain_wait_work();
		int r = TTRACE_IMAGE_MORE;

		for (int i = 0; i < DRAIN_BUDGET && r == TTRACE_IMAGE_MORE; i++) {
			r = quiet_step(ending);
			WRITE_ONCE(drain.pieces, drain.pieces + 1);
		}
		if (r == TTRACE_IMAGE_DONE) {
			drain_finish();
		} else if (r == TTRACE_IMAGE_WAIT) {
			WRITE_ONCE(drain.sleeps, drain.sleeps + 1);
			ksleep_ns(DRAIN_SLEEP_NS);
		} else {
			yield();
		}
	}
}

/* The thread, made once and kept. ctl mutex held. */
static const char *drain_thread(void)
{
	if (drain.kt)
		return NULL;
	drain.kt = kthread_create("ttdrain", drain_main, NULL);
	if (!drain.kt)
		return "drain: out of memory for the drain thread";
	drain.kt->untraced = true;
	sched_make_runnable(drain.kt);
	return NULL;
}

/*
 * Starts draining t's trace file, from the rings' clear points, into the
 * host channel, which it owns until the file ends. Returns NULL or why
 * nothing changed. ctl mutex held, process context.
 */
const char *ttrace_drain_on(struct ttrace *t)
{
	const char *err;
	int claim;

	if (READ_ONCE(drain.state) != DRAIN_OFF)
		return "drain: on already";
	if ((err = drain_thread()))
		return err;
	claim = devhost_claim();
	if (claim)
		return claim == -ENODEV ? "drain: no host channel" :
		       "drain: the host channel is in use";
	drain.f = ttrace_tracefile_new(TTRACE_READ_STREAM);
	if (!drain.f) {
		devhost_release();
		return "drain: out of memory";
	}
	drain.t = t;
	drain.full = false;
	ttrace_file_writer_init(&drain.w, drain_out, NULL);
	drain.w.place = drain_place;
	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++)
		trace_ring_init(&drain.quiet[c], drain.quiet_entries[c],
				sizeof(drain.quiet_entries[c]),
				TRACE_RING_OVERWRITE);
	spin_lock(&drain.lock);
	drain.error = NULL;
	drain.state = DRAIN_ON;
	spin_unlock(&drain.lock);
	kwakeup(&drain.kt);
	return NULL;
}

/*
 * Ends the drain's file: the records up to every head now, then the
 * trailer (RANGE, AUX, TSC, STATS, END); returns once it is written, NULL
 * or why not (the drain was off, or its channel filled up). ctl mutex
 * held on entry and return, let go while it waits. Process context.
 */
const char *ttrace_drain_off(struct ttrace *t)
{
	const char *err;

	spin_lock(&drain.lock);
	if (drain.state != DRAIN_ON) {
		err = drain.state == DRAIN_ENDING ? "drain: ending already" :
		      drain.error ? drain.error : "drain: off already";
		drain.error = NULL;
		spin_unlock(&drain.lock);
		return err;
	}
	drain.state = DRAIN_ENDING;
	spin_unlock(&drain.lock);
	ttrace_ctl_mutex_exit(t);
	spin_lock(&drain.lock);
	while (drain.state != DRAIN_OFF)
		ksleep(&drain, &drain.lock);
	err = drain.error;
	drain.error = NULL;
	spin_unlock(&drain.lock);
	ttrace_ctl_mutex_enter(t);
	return err;
}

/* "drain STATE bytes N crc32c X pieces P sleeps S": the state, the size
 * and CRC-32 of the last complete file (0 before the first), and the
 * pieces the thread made and the times it slept for want of records,
 * since boot. */
void ttrace_drain_text(struct seqbuf *s)
{
	spin_lock(&drain.lock);
	seqbuf_printf(s, "drain %s bytes %lu crc32c %#010x pieces %lu sleeps "
		      "%lu\n", drain_state_names[drain.state], drain.bytes,
		      drain.crc, READ_ONCE(drain.pieces),
		      READ_ONCE(drain.sleeps));
	spin_unlock(&drain.lock);
}
