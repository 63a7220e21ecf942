/*
 * Latency tracer tests (docs/latency.md). Each section under test is one
 * the test spins for a known number of TSC cycles, so what the tracer
 * reports is checked against the test's own TSC reads around the spin,
 * exact whatever the load; a loaded host (whose pauses the guest's TSC
 * counts) may only make some other section longer, and then the test
 * tries again, a bounded number of times.
 *
 *	lat_irqsoff_max		irqsoff: a spin with interrupts off, beside
 *				load on the other CPUs, is the maximum, its
 *				length within 5 %; its frozen trace is a
 *				whole trace file holding the spin's marks
 *				and the lat_max mark; a threshold below the
 *				spin records it as lat_over
 *	lat_irqsoff_user_return	irqsoff: syscall load on every CPU beside
 *				sleepers (each wakeup a switch on the load's
 *				way back to user mode, each sleep a section
 *				that switch carries): no syscall enters with
 *				a section open on its CPU, so none holds user
 *				time; and a section a hook closes while the
 *				tracer is being switched off counts nothing
 *	lat_wakeup_delay	wakeup: a thread made runnable while every
 *				CPU spins with interrupts off waits at
 *				least until the spins end, and says so
 *	lat_ctl_refused		bad latency commands change nothing
 *	snapset_probe		the snapshot probe's copy, a snapshot set like
 *				the tracers', read as snaptrace: whole, with
 *				what came before its trigger and not after
 */
#include <ktest.h>
#include <kmalloc.h>
#include <kmsg.h>
#include <pmem.h>
#include <printfmt.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_file.h>
#include <ttrace_probe.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

#include "../internal.h"
#include "kt.h"

#define MARK_MAGIC	0x1a7e5c7ull	/* test_seq seq of the spin's marks */
#define TRIES		3
#define FILE_ORDER	10		/* 4 MiB for a frozen trace file */

/* Carries out ctl command cmd; true if it was accepted. */
static bool ctl(const char *cmd)
{
	const char *why;

	return ttrace_control(cmd, strlen(cmd), &why) == 0;
}

/* Spins until the TSC reaches until. */
static void spin_until(uint64_t until)
{
	while (arch_read_tsc() < until)
		arch_pause();
}

/* ---- load on the other CPUs ---------------------------------------------- */

static uint32_t load_stop, load_running;
static struct spinlock load_lock = SPINLOCK_INIT("kt_lat_load");
static struct spinlock spin_lock_ = SPINLOCK_INIT("kt_lat_spin");	/* the
	test's own: a load task waiting for it would be a section too */

/* Short irqsave sections and yields until load_stop, running kernel
 * messages as a return to user mode does (a yield with nothing else
 * runnable never reaches the idle loop, and the tracer's grace periods
 * wait for every CPU to run one). */
static void load_task(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&load_running, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&load_stop, __ATOMIC_ACQUIRE)) {
		uint64_t flags = spin_lock_irqsave(&load_lock);

		spin_until(arch_read_tsc() + 2000);
		spin_unlock_irqrestore(&load_lock, flags);
		if (kmsg_pending())
			process_routine_kmsgs();
		yield();
	}
	__atomic_fetch_sub(&load_running, 1, __ATOMIC_RELEASE);
}

static void load_start(void)
{
	load_stop = 0;
	for (uint32_t c = 1; c < num_cpus; c++) {
		struct kthread *kt = kthread_create("kt_lat_load", load_task,
						    NULL);

		if (kt)
			sched_make_runnable(kt);
	}
}

static void load_end(void)
{
	__atomic_store_n(&load_stop, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&load_running, __ATOMIC_ACQUIRE))
		yield();
}

/* ---- irqsoff ------------------------------------------------------------- */

/* One section of at least cycles with interrupts off through the irqsave
 * lock path, marked by two test_seq records inside it; its bounds as the
 * test read them. */
static void irqsoff_spin(uint64_t cycles, uint64_t tag, uint64_t *t0,
			 uint64_t *t1)
{
	uint64_t flags = spin_lock_irqsave(&spin_lock_);

	*t0 = arch_read_tsc();
	ttrace_emit_5(TTRACE_EV_TEST_SEQ, MARK_MAGIC, tag, 0, 0, 0);
	spin_until(*t0 + cycles);
	ttrace_emit_5(TTRACE_EV_TEST_SEQ, MARK_MAGIC, tag, 1, 0, 0);
	*t1 = arch_read_tsc();
	spin_unlock_irqrestore(&spin_lock_, flags);
}

/* Whether max m is the section [t0, t1] of this CPU, within 5 %. */
static bool is_the_section(const struct ttrace_lat_max *m, uint64_t t0,
			   uint64_t t1)
{
	uint64_t len = t1 - t0;

	return m->cpu == core_id() && m->start_tsc <= t0 && m->end_tsc >= t1 &&
	       m->cycles >= len && m->cycles <= len + len / 20;
}

/* What a frozen trace file holds of the section tagged tag. */
struct found {
	uint64_t tag, max_cycles;
	bool begin, end, lat_max;
	uint32_t records;
};

/* Looks at each event of a RECORDS payload. */
static void scan_records(struct found *f, const uint8_t *p, uint64_t len)
{
	const struct ttrace_file_run *run = (const void *)p;
	const struct ttrace_entry *e = (const void *)(p + sizeof(*run));
	uint64_t n = (len - sizeof(*run)) / sizeof(*e);

	for (uint64_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(e[i].type)) {
		uint32_t id = TTRACE_TYPE_ID(e[i].type);

		f->records++;
		if (id == TTRACE_EV_TEST_SEQ && e[i].data[0] == MARK_MAGIC &&
		    e[i].data[1] == f->tag) {
			f->begin |= e[i].data[2] == 0;
			f->end |= e[i].data[2] == 1;
		}
		if (id == TTRACE_EV_LAT_MAX && e[i].data[0] == TTRACE_LAT_IRQSOFF &&
		    e[i].data[1] == f->max_cycles)
			f->lat_max = true;
	}
}

/* Reads trace file tf whole and walks it (CRCs, END), scanning its
 * records into f; frees tf. NULL, or why it is not a whole trace file. */
static const char *walk_tracefile(struct ttrace_tracefile *tf,
				  struct found *f)
{
	uint8_t *buf = get_cont_pages(FILE_ORDER, 0);
	size_t size = (size_t)PGSIZE << FILE_ORDER, len = 0;
	struct ttrace_file_reader r;
	struct ttrace_file_error err;
	struct ttrace_file_sec sec;
	const char *why = NULL;
	long n;
	int k;

	if (!tf || !buf) {
		why = "out of memory";
		goto out;
	}
	while ((n = ttrace_tracefile_read(tf, buf + len, size - len, len)) > 0)
		len += (size_t)n;
	if (n < 0 || ttrace_file_open(&r, buf, len, &err)) {
		why = n < 0 ? "trace file read failed" : "not a trace file";
		goto out;
	}
	while ((k = ttrace_file_next(&r, &sec, &err)) > 0)
		if (sec.type == TTRACE_FILE_SEC_RECORDS)
			scan_records(f, sec.payload, sec.length);
	if (k < 0 || !r.done)
		why = "the trace file does not walk to its END";
out:
	ttrace_tracefile_free(tf);
	if (buf)
		free_cont_pages(buf, FILE_ORDER);
	return why;
}

/* The frozen trace file of irqsoff, walked into f. */
static const char *check_frozen(struct found *f)
{
	return walk_tracefile(ttrace_tracefile_snap(TTRACE_SNAP_LAT +
						    TTRACE_LAT_IRQSOFF), f);
}

/* The spin is the maximum, within 5 %, up to TRIES times (a loaded host
 * may stretch another section beyond it). */
static bool irqsoff_max_once(uint64_t cycles, uint64_t tag,
			     struct ttrace_lat_max *m, uint64_t *t0,
			     uint64_t *t1)
{
	KT_ASSERT(ctl("latency irqsoff reset"), "reset refused");
	irqsoff_spin(cycles, tag, t0, t1);
	*m = ttrace_lat_max_get(&ttrace_lat_irqsoff);
	return is_the_section(m, *t0, *t1);
}

/* lowering the threshold below a section records it as lat_over */
static bool irqsoff_threshold(uint64_t cycles)
{
	static struct ttrace_entry ev[256];
	uint64_t us = cycles / (tsc_freq_hz / 1000000), t0, t1;
	struct trace_ring *r;
	uint64_t over, head;
	char cmd[64];
	bool seen = false;
	size_t n;

	fmt_snprintf(cmd, sizeof(cmd), "latency irqsoff threshold %lu", us / 2);
	KT_ASSERT(ctl(cmd), "%s refused", cmd);
	over = ttrace_lat_irqsoff.over;
	r = this_cpu()->ttrace_ring;
	head = trace_ring_head(r);
	irqsoff_spin(cycles, 7, &t0, &t1);
	n = trace_ring_collect(r, head, ev, ARRAY_SIZE(ev), NULL);
	for (size_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(ev[i].type))
		seen |= TTRACE_TYPE_ID(ev[i].type) == TTRACE_EV_LAT_OVER &&
			ev[i].data[0] == TTRACE_LAT_IRQSOFF &&
			ev[i].data[2] <= t0 && ev[i].data[1] >= t1 - t0;
	KT_ASSERT(ctl("latency irqsoff threshold 0"), "threshold 0 refused");
	KT_ASSERT(ttrace_lat_irqsoff.over > over,
		  "over %lu, not more after a section above the threshold",
		  over);
	KT_ASSERT(seen, "no lat_over record of the section on cpu%u",
		  core_id());
	return true;
}

static bool test_lat_irqsoff_max(void)
{
	uint64_t cycles = tsc_freq_hz / 5, t0 = 0, t1 = 0, tag;
	struct ttrace_lat_max m = { 0 };
	struct found f = { 0 };
	const char *why = NULL;
	bool ok = false;

	KT_ASSERT(ctl("latency irqsoff on"), "latency irqsoff on refused");
	load_start();
	for (tag = 1; tag <= TRIES && !ok; tag++)
		ok = irqsoff_max_once(cycles, tag, &m, &t0, &t1);
	load_end();
	f = (struct found){ .tag = tag - 1, .max_cycles = m.cycles };
	if (ok)
		why = check_frozen(&f);
	if (ok && !why)
		ok = irqsoff_threshold(cycles / 4);
	ctl("latency irqsoff off");
	KT_ASSERT(is_the_section(&m, t0, t1),
		  "max %lu cycles cpu %u [%lu, %lu], the spin %lu cycles "
		  "cpu %u [%lu, %lu]", m.cycles, m.cpu, m.start_tsc, m.end_tsc,
		  t1 - t0, core_id(), t0, t1);
	KT_ASSERT(!why, "%s", why);
	KT_ASSERT(f.begin && f.end && f.lat_max,
		  "frozen trace (%u records): spin begin %d end %d lat_max %d",
		  f.records, f.begin, f.end, f.lat_max);
	return ok;
}
KTEST_REG(lat_irqsoff_max, test_lat_irqsoff_max);

/* ---- irqsoff at the return to user mode ---------------------------------- */

#define USER_SLEEPS	30	/* one-tick sleeps of each sleeper */

static uint64_t user_entries, user_open;
static uint32_t sleepers_running;

/* syscall_enter's probe: user mode runs with interrupts on, so no
 * section may be open on the CPU a syscall enters from it. */
static bool syscall_entered(void *arg, const struct ttrace_probe_hit *h)
{
	(void)arg, (void)h;
	__atomic_fetch_add(&user_entries, 1, __ATOMIC_RELAXED);
	if (ttrace_irqsoff_is_open())
		__atomic_fetch_add(&user_open, 1, __ATOMIC_RELAXED);
	return true;
}

/* 1 ms sleeps: each wakeup makes a thread runnable, which the load
 * yields to on its way back to user mode, and each sleep's irqsave opens
 * a section that the switch back to the load carries. */
static void user_sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < USER_SLEEPS; i++)
		ksleep_ns(1000000);
	__atomic_fetch_sub(&sleepers_running, 1, __ATOMIC_RELEASE);
}

/* The sections every CPU counted. */
static uint64_t irqsoff_sections(void)
{
	uint64_t n = 0;

	for (uint32_t c = 0; c < CONFIG_MAX_NUM_CPUS; c++)
		n += READ_ONCE(ttrace_lat_irqsoff.sections[c]);
	return n;
}

/* While `latency irqsoff off` patches the sites back to NOPs batch by
 * batch, a close still live may end a section whose other end the
 * patcher had taken: a section that ends once the switch began counts
 * nothing. (Modelled: the hooks called after the switch.) */
static bool irqsoff_off_window(void)
{
	uint64_t before, flags;

	KT_ASSERT(ctl("latency irqsoff off"), "latency irqsoff off refused");
	before = irqsoff_sections();
	flags = arch_irq_save_raw();
	ttrace_irqsoff_open((uintptr_t)irqsoff_off_window);
	spin_until(arch_read_tsc() + 1000);
	ttrace_irqsoff_close((uintptr_t)irqsoff_off_window);
	arch_irq_restore_raw(flags);
	KT_ASSERT(irqsoff_sections() == before, "a section closed while the "
		  "tracer was being switched off counted");
	return true;
}

/* The load and the sleepers, run by a ktask: the ktests' thread is CPU
 * 0's idle thread, which the load would keep off its CPU. */
struct user_run {
	int pids[CONFIG_MAX_NUM_CPUS];
	uint32_t nload;
	uint32_t done;
};

static void user_run_task(void *arg)
{
	struct user_run *r = arg;
	uint32_t nsleep = 2 * num_cpus;

	sleepers_running = nsleep;
	for (uint32_t i = 0; i < nsleep; i++) {
		struct kthread *kt = kthread_create("kt_lat_sleeper",
						    user_sleeper, NULL);

		if (kt)
			sched_make_runnable(kt);
		else
			__atomic_fetch_sub(&sleepers_running, 1,
					   __ATOMIC_RELAXED);
	}
	r->nload = kt_load_start(r->pids);
	while (__atomic_load_n(&sleepers_running, __ATOMIC_ACQUIRE))
		yield();
	kt_load_stop(r->pids, r->nload);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static bool test_lat_irqsoff_user_return(void)
{
	static struct user_run r;
	struct kthread *kt;

	memset(&r, 0, sizeof(r));
	user_entries = user_open = 0;
	KT_ASSERT(ctl("latency irqsoff on"), "latency irqsoff on refused");
	KT_ASSERT(ttrace_probe_attach(TTRACE_EV_SYSCALL_ENTER, syscall_entered,
				      NULL) == 0, "probe attach refused");
	kt = kthread_create("kt_lat_user", user_run_task, &r);
	if (kt) {
		sched_make_runnable(kt);
		while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			yield();
	}
	ttrace_probe_detach(TTRACE_EV_SYSCALL_ENTER, syscall_entered, NULL);
	ctl("latency irqsoff off");
	KT_ASSERT(kt && r.nload == num_cpus && user_entries,
		  "ktask %s, %u of %u load processes, %lu syscalls",
		  kt ? "made" : "not made", r.nload, num_cpus, user_entries);
	KT_ASSERT(!user_open, "%lu of %lu syscalls entered from user mode "
		  "with an interrupts-off section open on their CPU",
		  user_open, user_entries);
	return irqsoff_off_window() && ctl("latency irqsoff reset");
}
KTEST_REG(lat_irqsoff_user_return, test_lat_irqsoff_user_return);

/* ---- wakeup -------------------------------------------------------------- */

static uint32_t spinners_in;
static uint64_t spin_deadline;	/* 0: not yet set */
static uint32_t woken_ran;

/* Holds a CPU with interrupts off until spin_deadline (set once every
 * spinner is in). */
static void spinner_task(void *arg)
{
	uint64_t flags = arch_irq_save();

	(void)arg;
	__atomic_fetch_add(&spinners_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&spin_deadline, __ATOMIC_ACQUIRE))
		arch_pause();
	spin_until(spin_deadline);
	arch_irq_restore(flags);
}

static void woken_task(void *arg)
{
	(void)arg;
	__atomic_store_n(&woken_ran, 1, __ATOMIC_RELEASE);
}

/* Every other CPU spinning with interrupts off; false if they did not
 * all get there within a second. */
static bool spinners_start(void)
{
	uint64_t give_up = arch_read_tsc() + tsc_freq_hz;

	spinners_in = 0;
	spin_deadline = 0;
	for (uint32_t c = 1; c < num_cpus; c++) {
		struct kthread *kt = kthread_create("kt_lat_spin", spinner_task,
						    NULL);

		if (!kt)
			return false;
		sched_make_runnable(kt);
	}
	while (__atomic_load_n(&spinners_in, __ATOMIC_ACQUIRE) < num_cpus - 1)
		if (arch_read_tsc() > give_up)
			return false;
	return true;
}

/* Whether a lat_over of wakeup, begun in [w0, w1] and at least cycles
 * long, is in some CPU's ring after heads[]. */
static bool wakeup_over_seen(const uint64_t *heads, uint64_t w0,
			     uint64_t w1, uint64_t cycles)
{
	static struct ttrace_entry ev[1024];

	for (uint32_t c = 0; c < num_cpus; c++) {
		size_t n = trace_ring_collect(&ttrace_main.rings[c], heads[c],
					      ev, ARRAY_SIZE(ev), NULL);

		for (size_t i = 0; i < n; i += 1 + TTRACE_TYPE_NCONT(ev[i].type))
			if (TTRACE_TYPE_ID(ev[i].type) == TTRACE_EV_LAT_OVER &&
			    ev[i].data[0] == TTRACE_LAT_WAKEUP &&
			    ev[i].data[2] >= w0 && ev[i].data[2] <= w1 &&
			    ev[i].data[1] >= cycles)
				return true;
	}
	return false;
}

/*
 * A thread made runnable while every CPU spins with interrupts off (the
 * others in spinner tasks, this one itself) until a deadline cannot run
 * before it: the wakeup tracer's maximum is at least that wait, and a
 * threshold below it records this thread's wakeup (begun when the test
 * woke it) as lat_over.
 */
static bool test_lat_wakeup_delay(void)
{
	uint64_t hold = tsc_freq_hz / 10, heads[CONFIG_MAX_NUM_CPUS];
	uint64_t w0, w1, deadline, flags, hist = 0;
	struct kthread *kt;
	struct ttrace_lat_max m;
	char cmd[64];
	bool seen;

	fmt_snprintf(cmd, sizeof(cmd), "latency wakeup threshold %lu",
		     hold / (tsc_freq_hz / 1000000) / 2);
	KT_ASSERT(ctl("latency wakeup reset") && ctl(cmd) &&
		  ctl("latency wakeup on"), "latency wakeup commands refused");
	woken_ran = 0;
	kt = kthread_create("kt_lat_woken", woken_task, NULL);
	KT_ASSERT(kt && spinners_start(), "spinners did not start");
	for (uint32_t c = 0; c < num_cpus; c++)
		heads[c] = trace_ring_head(&ttrace_main.rings[c]);
	flags = arch_irq_save();
	w0 = arch_read_tsc();
	sched_make_runnable(kt);
	w1 = arch_read_tsc();
	deadline = w1 + hold;
	__atomic_store_n(&spin_deadline, deadline, __ATOMIC_RELEASE);
	spin_until(deadline);
	arch_irq_restore(flags);
	while (!__atomic_load_n(&woken_ran, __ATOMIC_ACQUIRE))
		yield();
	m = ttrace_lat_max_get(&ttrace_lat_wakeup);
	seen = wakeup_over_seen(heads, w0, w1, deadline - w1);
	for (uint32_t c = 0; c < num_cpus; c++)
		hist += ttrace_hist_total(ttrace_lat_wakeup.hist[c]);
	ctl("latency wakeup off");
	ctl("latency wakeup threshold 0");
	KT_ASSERT(m.cycles >= deadline - w1,
		  "wakeup max %lu cycles, the wait was at least %lu", m.cycles,
		  deadline - w1);
	KT_ASSERT(seen, "no lat_over of the woken thread (woken in [%lu, %lu], "
		  "waited >= %lu)", w0, w1, deadline - w1);
	KT_ASSERT(hist >= 1, "the wakeup histograms are empty");
	return true;
}
KTEST_REG(lat_wakeup_delay, test_lat_wakeup_delay);

/* ---- ctl ----------------------------------------------------------------- */

static const char *const refused[] = {
	"latency", "latency irqsoff", "latency nosuch on",
	"latency irqsoff bogus", "latency irqsoff threshold",
	"latency irqsoff threshold 10000001", "latency irqsoff threshold x",
	"latency irqsoff on extra", "latency wakeup reset 5",
};

/* Bad latency commands are refused and change nothing. */
static bool test_lat_ctl_refused(void)
{
	bool on = ttrace_lat_irqsoff.on, won = ttrace_lat_wakeup.on;

	KT_ASSERT(ctl("latency irqsoff threshold 123"), "threshold refused");
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		KT_ASSERT(!ctl(refused[i]), "'%s' accepted", refused[i]);
		KT_ASSERT(ttrace_lat_irqsoff.threshold_us == 123 &&
			  ttrace_lat_irqsoff.on == on &&
			  ttrace_lat_wakeup.on == won,
			  "'%s' changed the state", refused[i]);
	}
	KT_ASSERT(ctl("latency irqsoff threshold 0"), "threshold 0 refused");
	return true;
}
KTEST_REG(lat_ctl_refused, test_lat_ctl_refused);

/* ---- the snapshot probe's set -------------------------------------------- */

static bool test_snapset_probe(void)
{
	struct found f = { .tag = 0x5eed };
	uint64_t flags, kb = ttrace_ring_bytes() / 1024;
	char restore[32];
	const char *why;
	bool ok;

	/* small rings: the whole copy, read into FILE_ORDER pages */
	fmt_snprintf(restore, sizeof(restore), "bufsize %lu", kb);
	KT_ASSERT(ctl("bufsize 64") &&
		  ctl("probe ktsnap snapshot test_seq if a==2"),
		  "bufsize 64 or the snapshot probe refused");
	flags = arch_irq_save();	/* all three on this CPU's ring */
	ttrace_emit_5(TTRACE_EV_TEST_SEQ, MARK_MAGIC, f.tag, 0, 0, 0);
	ttrace_test_seq(MARK_MAGIC, f.tag, 2, 0, 0);	/* the trigger */
	ttrace_emit_5(TTRACE_EV_TEST_SEQ, MARK_MAGIC, f.tag, 1, 0, 0);
	arch_irq_restore(flags);
	why = walk_tracefile(ttrace_tracefile_new(TTRACE_READ_SNAP), &f);
	ok = ctl("unprobe ktsnap") && ctl(restore);
	KT_ASSERT(!why, "snaptrace: %s", why);
	KT_ASSERT(f.begin && !f.end, "snaptrace (%u records): the record "
		  "before the trigger %d, after it %d (want 1, 0)", f.records,
		  f.begin, f.end);
	KT_ASSERT(ok, "unprobe or %s refused", restore);
	return true;
}
KTEST_REG(snapset_probe, test_snapset_probe);

/* ---- the rings replaced under the tracer ---------------------------------- */

/*
 * bufsize and mode replace or change the rings while the other CPUs end
 * sections, each a new maximum (reset, then a floor of 0): the hooks
 * must neither write into nor copy from rings being replaced (they try
 * rings_lock's read side and count busy), and the frozen trace after is
 * a whole trace file. A smoke test: the race's window is narrow and the
 * freed rings stay mapped, so it passed (twice) with the guard taken out
 * too; the guard stands on the reasoning in latency.c.
 */
static bool test_lat_irqsoff_resize(void)
{
	static const char *const cmds[] = {
		"bufsize 64", "latency irqsoff reset", "mode saturate",
		"latency irqsoff reset", "bufsize 256", "mode overwrite",
		"latency irqsoff reset", "bufsize 1024",
	};
	struct found f = { 0 };
	const char *why;
	bool ok = true;

	KT_ASSERT(ctl("latency irqsoff on"), "latency irqsoff on refused");
	load_start();
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
			ok &= ctl(cmds[i]);
	load_end();
	ctl("latency irqsoff off");
	KT_ASSERT(ok, "a bufsize, mode or reset command was refused");
	why = check_frozen(&f);
	KT_ASSERT(!why, "%s", why);
	return true;
}
KTEST_REG(lat_irqsoff_resize, test_lat_irqsoff_resize);
