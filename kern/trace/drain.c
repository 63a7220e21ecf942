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
 *	  filtered events, as a probe's suppressed events are (the quiet
 *	  ring saturates, so its slots are whole events, counted by their
 *	  first entries). Interrupts, and so everyone else's records, come
 *	  between pieces, to the real ring.
 * The quiet ring is set only if this CPU writes its own ring (not a
 * freeze's, ttrace_freeze()) and put back only if it is still there.
 *
 * Who ends it: `drain off`, or the last close of the ctl file whose
 * `drain on` started it (a ^C'd `ttrace stream`), which does not wait:
 * the thread writes the file's tail and gives the channel back on its
 * own. A wait (drain off; drain on while a file is still ending) ends
 * early when its process is killed; the drain goes on without it. A
 * piece never waits with interrupts off: a slot in flight ends the piece
 * (the stream's wait, ttrace_tracefile_step()), the thread sleeps a
 * tick and tries again. A panic closes the file where it stands
 * (ttrace_drain_panic_close()) before its dump follows it.
 */
#include <devhost.h>
#include <proc.h>
#include <sched.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <ttrace.h>
#include <kmsg.h>
#include <ttrace_file.h>
#include <ttrace_image.h>
#include <abi/errno.h>
#include <arch/arch.h>

#include "internal.h"

#define DRAIN_BUDGET	16	/* pieces between yields: ~16,000 records */
#define DRAIN_SLEEP_NS	10000000u	/* 10 ms: sleep when the rings have
					   nothing new */
#define QUIET_SLOTS	64	/* a piece's own records: several times what
				   one makes with every function traced */
#define NO_PIECE	UINT32_MAX

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
	const void *owner;		/* while ON: the ctl file that began it
					   (NULL: none, a kernel caller) */
	uint32_t piece_cpu;		/* the CPU making a piece, or NO_PIECE */
	/* the thread's, while state is not OFF */
	struct ttrace *t;
	struct ttrace_tracefile *f;
	struct ttrace_file_writer w;
	/* each CPU's, while it makes a piece (ttrace_drain_quietly()) */
	struct trace_ring quiet[CONFIG_MAX_NUM_CPUS];
	struct ttrace_entry quiet_entries[CONFIG_MAX_NUM_CPUS][QUIET_SLOTS];
} drain = { .lock = SPINLOCK_INIT("ttrace_drain"), .piece_cpu = NO_PIECE };

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

/* The events of the records a quiet ring took: its first entries (it
 * saturates, so each slot is whole), and the slots it refused once full,
 * one each: those cannot be told apart (an overcount, seen in no test). */
static uint64_t quiet_events(const struct trace_ring *q)
{
	uint64_t n = q->dropped;

	for (uint64_t i = q->start; i < q->head; i++)
		n += !ttrace_ts_is_cont(q->entries[i & q->mask].timestamp);
	return n;
}

int ttrace_drain_quietly(int (*fn)(void *arg), void *arg)
{
	uint64_t flags = arch_irq_save();
	uint32_t cpu = core_id();
	struct trace_ring *own = &ttrace_main.rings[cpu], *q = &drain.quiet[cpu];
	struct trace_ring **ring = &this_cpu()->ttrace_ring;
	struct trace_ring *expect = own;
	bool quiet;
	int r;

	trace_ring_init(q, drain.quiet_entries[cpu],
			sizeof(drain.quiet_entries[cpu]), TRACE_RING_SATURATE);
	quiet = __atomic_compare_exchange_n(ring, &expect, q, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	r = fn(arg);
	if (quiet) {
		expect = q;
		__atomic_compare_exchange_n(ring, &expect, own, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		for (uint64_t n = quiet_events(q); n; n--)
			trace_ring_count_filtered(own);
	}
	arch_irq_restore(flags);
	return r;
}

/* One piece of the file (arg: whether it ends), its records copied with
 * SSE (an SSE section: interrupts are off). ttrace_drain_quietly()'s. */
static int step_piece(void *arg)
{
	bool simd = arch_simd_begin();
	int r;

	WRITE_ONCE(drain.piece_cpu, core_id());
	r = ttrace_tracefile_step(drain.f, &drain.w, *(bool *)arg, simd);
	WRITE_ONCE(drain.piece_cpu, NO_PIECE);
	if (simd)
		arch_simd_end();
	return r;
}

/* One piece of the file, made quietly (above). The drain thread. */
static int quiet_step(bool end)
{
	return ttrace_drain_quietly(step_piece, &end);
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
	drain.owner = NULL;
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
			/* a grace period waits for this CPU's routine kernel
			 * messages: a drain that never catches up (a probe on
			 * what it calls makes records as fast as it drains
			 * them) must not hold every ctl write until the host
			 * channel is full */
			process_routine_kmsgs();
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
	kthread_untrace(drain.kt);
	ttrace_untraced_on();
	sched_make_runnable(drain.kt);
	return NULL;
}

/* Waits until the drain is off (its thread wrote the file's tail). ctl
 * mutex held on entry and return, let go while it waits (its holder must
 * not sleep). Returns 0, or -EINTR: the process was killed, the drain
 * goes on without it. Process context. */
static int drain_wait_off(struct ttrace *t)
{
	int r = 0;

	ttrace_ctl_mutex_exit(t);
	spin_lock(&drain.lock);
	while (drain.state != DRAIN_OFF && !r)
		r = ksleep(&drain, &drain.lock);
	spin_unlock(&drain.lock);
	ttrace_ctl_mutex_enter(t);
	return r;
}

/*
 * Starts draining t's trace file, from the rings' clear points, into the
 * host channel, which it owns until the file ends: at drain off, or at
 * file's last close (ttrace_drain_close(); NULL: no file). A file still
 * ending is waited for first. Returns NULL or why nothing changed. ctl
 * mutex held (let go while it waits), process context.
 */
const char *ttrace_drain_on(struct ttrace *t, const void *file)
{
	const char *err;
	int claim;

	if (READ_ONCE(drain.state) == DRAIN_ENDING && drain_wait_off(t))
		return "drain: interrupted while the last file ended";
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
	spin_lock(&drain.lock);
	drain.error = NULL;
	drain.owner = file;
	drain.state = DRAIN_ON;
	spin_unlock(&drain.lock);
	kwakeup(&drain.kt);
	return NULL;
}

/* Turns the drain's state from ON to ENDING: its thread reads every CPU
 * up to its head now, then writes the trailer. drain.lock held. */
static void drain_end_locked(void)
{
	drain.state = DRAIN_ENDING;
	drain.owner = NULL;
}

/*
 * Ends the drain's file: the records up to every head now, then the
 * trailer (RANGE, AUX, TSC, STATS, END); returns once it is written, NULL
 * or why not (the drain was off, its channel filled up, or the process
 * was killed while it waited: the thread then ends the file on its own).
 * ctl mutex held on entry and return, let go while it waits. Process
 * context.
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
	drain_end_locked();
	spin_unlock(&drain.lock);
	if (drain_wait_off(t))
		return "drain: interrupted; the drain ends its file on its own";
	spin_lock(&drain.lock);
	err = drain.error;
	drain.error = NULL;
	spin_unlock(&drain.lock);
	return err;
}

void ttrace_drain_close(const void *file)
{
	spin_lock(&drain.lock);
	if (drain.state == DRAIN_ON && drain.owner == file)
		drain_end_locked();
	spin_unlock(&drain.lock);
}

/*
 * Panic context (the other CPUs stopped, no lock may be taken): a file
 * the drain began and has not ended is closed where it stands, written
 * with out: an open section (a piece cut short by this panic on the
 * drain's own CPU, or a META or AUX payload between two pieces) filled
 * with zeros to its length, then END. ttdecode split then finds it and
 * the dump after it; verify says what a filled section lacks. A piece
 * being made on a CPU that did not stop is left alone.
 */
void ttrace_drain_panic_close(int (*out)(void *arg, const void *buf,
					 uint64_t len))
{
	static const uint8_t zeros[64];
	uint32_t cpu = READ_ONCE(drain.piece_cpu);
	struct ttrace_file_writer *w = &drain.w;

	if (READ_ONCE(drain.state) == DRAIN_OFF || w->state != 1 ||
	    (cpu != NO_PIECE && cpu != core_id()))
		return;
	w->out = out;
	w->place = NULL;
	while (w->sec_type && w->sec_left && !w->error)
		ttrace_file_section_data(w, zeros, MIN(w->sec_left,
						       sizeof(zeros)));
	if (w->sec_type)
		ttrace_file_section_end(w);
	ttrace_file_write_end(w);
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
