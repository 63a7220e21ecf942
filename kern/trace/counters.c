/*
 * Counters (seed 001's event_u64): named values the kernel samples and
 * records as `counter` events carrying the value and the value before, so
 * a trace shows how free memory, the run queue, the process table, aux use
 * and each ring's fill moved, as counter tracks beside the events.
 *
 *	free_pages	pages the allocator has free
 *	runq_len	threads waiting on the run queues (all CPUs')
 *	procs		processes in the table, zombies included
 *	aux_bytes	bytes of live aux records
 *	syscall_errors	syscalls that returned an error while syscall_exit
 *			was armed (a static probe counts them)
 *	ring_fill.cpuN	records CPU N's ring holds
 *
 * ctl `counters MS [all]` starts a kernel thread, "counters", that samples
 * them every MS ms and records those that changed since it last recorded
 * them (or, with "all", every one); `counters 0` stops it sampling (it then
 * looks at the period once a second). Sampling from a thread, not the
 * timer interrupt, lets it read values behind locks an interrupted CPU may
 * hold. Each counter's name is in aux (tag counter, ident = its id),
 * written again by every `counters` command, so the names outlive an aux
 * ring that wrapped. /dev/ttrace/counters shows the current values.
 */
#include <ttrace.h>
#include <trace_ring.h>
#include <pmem.h>
#include <printfmt.h>
#include <proc.h>
#include <sched.h>
#include <seqbuf.h>
#include <smp.h>

#include "internal.h"

enum { CTR_FREE_PAGES, CTR_RUNQ, CTR_PROCS, CTR_AUX_BYTES,
       CTR_SYSCALL_ERRORS, CTR_RING_FILL };

static const char *const ctr_names[CTR_RING_FILL] = {
	[CTR_FREE_PAGES] = "free_pages", [CTR_RUNQ] = "runq_len",
	[CTR_PROCS] = "procs", [CTR_AUX_BYTES] = "aux_bytes",
	[CTR_SYSCALL_ERRORS] = "syscall_errors",
};

/* Counted by the static probe on syscall_exit (ttrace_static_probes.h). */
uint64_t ttrace_sp_syscall_errors_count;

static uint32_t period_ms, record_all;	/* set under the ctl mutex */
static struct kthread *sampler;		/* ctl mutex */
static uint64_t last[CTR_RING_FILL + CONFIG_MAX_NUM_CPUS];	/* sampler */
static bool recorded[CTR_RING_FILL + CONFIG_MAX_NUM_CPUS];	/* sampler */

static uint32_t ncounters(void)
{
	return CTR_RING_FILL + num_cpus;
}

/* Counter i's name into buf. */
static void ctr_name(uint32_t i, char *buf, size_t size)
{
	if (i < CTR_RING_FILL)
		fmt_snprintf(buf, size, "%s", ctr_names[i]);
	else
		fmt_snprintf(buf, size, "ring_fill.cpu%u", i - CTR_RING_FILL);
}

/* Counter i's value now. Process context (takes the locks its source
 * takes). */
static uint64_t ctr_read(struct ttrace *t, uint32_t i)
{
	struct trace_ring_stats st;
	uint64_t bytes, size, dropped;

	switch (i) {
	case CTR_FREE_PAGES:
		return pmem_nr_free_pages();
	case CTR_RUNQ:
		return sched_runq_len();
	case CTR_PROCS:
		return proc_count();
	case CTR_AUX_BYTES:
		ttrace_aux_usage(t, &bytes, &size, &dropped);
		return bytes;
	case CTR_SYSCALL_ERRORS:
		return __atomic_load_n(&ttrace_sp_syscall_errors_count,
				       __ATOMIC_RELAXED);
	}
	ttrace_ring_get_stats(t, i - CTR_RING_FILL, &st);
	return st.live;
}

/* Records the counters that changed since they were last recorded (all of
 * them with record_all); the first record of each has prev == value. */
static void sample(struct ttrace *t)
{
	for (uint32_t i = 0; i < ncounters(); i++) {
		uint64_t v = ctr_read(t, i);

		if (recorded[i] && v == last[i] && !READ_ONCE(record_all))
			continue;
		ttrace_counter(i, v, recorded[i] ? last[i] : v);
		last[i] = v;
		recorded[i] = true;
	}
}

/* The sampling thread of t (arg). */
static void sampler_main(void *arg)
{
	for (;;) {
		uint32_t ms = READ_ONCE(period_ms);

		if (ms)
			sample(arg);
		ksleep_ns((ms ? ms : 1000) * 1000000ull);
	}
}

/*
 * Samples the counters every ms ms (0: stop), recording the changed ones
 * or, with all, every one; names them in aux. Returns NULL or why not (no
 * memory for the thread). ctl mutex held, process context.
 */
const char *ttrace_counters_set(struct ttrace *t, uint32_t ms, bool all)
{
	char name[32];

	for (uint32_t i = 0; i < ncounters(); i++) {
		ctr_name(i, name, sizeof(name));
		ttrace_aux_blob(t, TTRACE_AUX_COUNTER_NAME, i, name,
				strnlen(name, sizeof(name)));
	}
	WRITE_ONCE(record_all, all);
	WRITE_ONCE(period_ms, ms);
	if (ms && !sampler) {
		sampler = kthread_create("counters", sampler_main, t);
		if (!sampler) {
			WRITE_ONCE(period_ms, 0);
			return "counters: out of memory for the sampling thread";
		}
		sched_make_runnable(sampler);
	}
	return NULL;
}

/* The counters' current values as "NAME VALUE" lines, then the sampling
 * period ("period MS [all]", 0: off), appended to s. Process context. */
void ttrace_counters_text(struct seqbuf *s)
{
	char name[32];

	for (uint32_t i = 0; i < ncounters(); i++) {
		ctr_name(i, name, sizeof(name));
		seqbuf_printf(s, "%s %lu\n", name, ctr_read(&ttrace_main, i));
	}
	seqbuf_printf(s, "period %u%s\n", READ_ONCE(period_ms),
		      READ_ONCE(record_all) ? " all" : "");
}
