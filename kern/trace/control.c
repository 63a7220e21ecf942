/*
 * ttrace control and reporting: what the #ttrace device's ctl, stats and
 * marker files do, as calls on the tracer core. Parsing is kern/lib's
 * (ttrace_ctl.c: one table of every ctl command, probes and modules
 * included); this file carries parsed commands out and writes the state
 * as text.
 *
 * Who may change state: the kernel has no users or permissions yet, so
 * every process may write ctl (docs/ttrace-device.md says so). Writers are
 * serialised by ctl_lock; tracepoints never take it.
 */
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include "module.h"
#include <trace_ring.h>
#include <atomic.h>
#include <kmsg.h>
#include <pmem.h>
#include <proc.h>
#include <seqbuf.h>
#include <buddy.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>

#include "internal.h"


static const char *mode_name(uint32_t mode)
{
	return mode == TTRACE_MODE_SATURATE ? "saturate" : "overwrite";
}

/* Takes the ctl mutex, spinning (interrupts on) while another holder has
 * it: holders may be routine kernel messages, which cannot sleep. Any
 * context but interrupt handlers; no spinlock held. */
static void ctl_enter(struct ttrace *t)
{
	for (;;) {
		spin_lock(&t->ctl_lock);
		if (!t->ctl_busy)
			break;
		spin_unlock(&t->ctl_lock);
		ttrace_quiet_turn(t);
		arch_pause();
	}
	t->ctl_busy = true;
	spin_unlock(&t->ctl_lock);
}

static void ctl_exit(struct ttrace *t)
{
	spin_lock(&t->ctl_lock);
	t->ctl_busy = false;
	spin_unlock(&t->ctl_lock);
}

/* A grace period's kernel message: this CPU, in no tracepoint, has seen
 * every store made before the grace period it reads began (the message
 * of an earlier period that runs late counts for the current one). */
static void grace_fn(void *arg)
{
	struct ttrace *t = arg;

	__atomic_store_n(&t->grace_seen[core_id()],
			 __atomic_load_n(&t->grace_gen, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/*
 * Returns once every CPU is out of any tracepoint it was in when called:
 * every other CPU has run this period's routine kernel message (they run
 * only between tasks, in the idle loop and on the way back to user mode,
 * never on top of an interrupted path, and the kernel is not preemptible),
 * or has taken a turn waiting for the ctl mutex. The calling CPU is in
 * no tracepoint. ctl mutex held, no spinlock, interrupts on.
 */
void ttrace_grace_period(struct ttrace *t)
{
	uint64_t gen = t->grace_gen + 1, spins[CONFIG_MAX_NUM_CPUS];

	__atomic_store_n(&t->grace_gen, gen, __ATOMIC_RELEASE);
	mb();				/* the disarm before any of this */
	for (uint32_t c = 0; c < num_cpus; c++) {
		spins[c] = atomic_read(&t->ctl_spins[c]);
		if (c != core_id())
			while (send_kernel_message(c, grace_fn, t) < 0)
				arch_pause();	/* -ENOMEM: memory comes back */
	}
	for (uint32_t c = 0; c < num_cpus; c++)
		while (c != core_id() && atomic_read(&t->grace_seen[c]) < gen &&
		       atomic_read(&t->ctl_spins[c]) == spins[c])
			arch_pause();
}

/*
 * Before anything may be armed: syscalls start keeping their context
 * (ttrace_ctx_live and its sites, ttrace.h), and a grace period later
 * every syscall that began without it has returned or blocked (a blocked
 * one gets its context back from ttrace_ctx_switch() when it runs again).
 * The caller's own syscall, if any, gets its context here. ctl mutex
 * held, interrupts on.
 */
static void live_on(struct ttrace *t)
{
	struct kthread *kt = current_kthread();
	uint64_t flags;

	if (READ_ONCE(ttrace_ctx_live))
		return;
	WRITE_ONCE(ttrace_ctx_live, 1);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	ttrace_grace_period(t);
	flags = arch_irq_save();
	if (kt && kt->proc)
		ttrace_ctx_switch(this_cpu(), kt);
	arch_irq_restore(flags);
}

/* After the ctl state changed and the events' sites followed it: syscalls
 * stop keeping their context when nothing is on. ctl mutex held. */
static void live_update(struct ttrace *t)
{
	if (READ_ONCE(ttrace_ctx_live) &&
	    (t->off_reason || !ttrace_ctl_any_on(&t->ctl))) {
		WRITE_ONCE(ttrace_ctx_live, 0);
		ttrace_patch_sync(TEXT_PATCH_LIVE);
	}
}

/* Arms the events the ctl state says. ctl mutex held, interrupts on. */
static void rearm(struct ttrace *t)
{
	if (t->off_reason)
		return;
	live_on(t);
	ttrace_thaw(t);
	ttrace_ctl_rearm(&t->ctl);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	live_update(t);
}

/* Disarms every event and waits until no CPU is writing a ring. ctl
 * mutex held. */
static void ttrace_suspend(struct ttrace *t)
{
	memset(ttrace_armed, 0, TTRACE_NUM_EVENTS);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	ttrace_grace_period(t);
	wlock(&t->rings_lock);
}

/* Undoes ttrace_suspend(): the events armed as the ctl state says. */
static void ttrace_resume(struct ttrace *t)
{
	wunlock(&t->rings_lock);
	rearm(t);
}

/* Empties every ring and restarts its counters. Any time: records being
 * written meanwhile may survive. ctl mutex held. */
static void clear_rings(struct ttrace *t)
{
	rlock(&t->rings_lock);
	for (uint32_t c = 0; c < num_cpus; c++)
		trace_ring_clear(&t->rings[c]);
	runlock(&t->rings_lock);
	fprobe_rings_cleared(t);
}

static void set_mode(struct ttrace *t, uint32_t mode)
{
	ttrace_suspend(t);
	for (uint32_t c = 0; c < num_cpus; c++)
		trace_ring_set_mode(&t->rings[c], mode);
	ttrace_resume(t);
}

/*
 * Replaces every online CPU's ring by one of kb KiB (a power of two).
 * Logical indices continue from the old heads, so readers see the old
 * records as cleared. Returns NULL, or why nothing changed. ctl mutex
 * held; kb is in the range the parser checked (ttrace_ctl.h).
 */
static const char *resize_rings(struct ttrace *t, uint64_t kb)
{
	unsigned order = ttrace_order_for(kb * 1024), old = t->ring_order;
	void *mem[CONFIG_MAX_NUM_CPUS], *prev[CONFIG_MAX_NUM_CPUS];

	_Static_assert((uint64_t)TTRACE_CTL_MAX_KB * 1024 ==
		       (uint64_t)PGSIZE << BUDDY_MAX_ORDER &&
		       TTRACE_CTL_MIN_KB * 1024 == PGSIZE,
		       "the ctl parser's bufsize range is the page allocator's");
	for (uint32_t c = 0; c < num_cpus; c++)
		if (!(mem[c] = get_cont_pages(order, 0))) {
			while (c--)
				free_cont_pages(mem[c], order);
			return "bufsize: out of memory (old rings kept)";
		}
	ttrace_suspend(t);
	ttrace_root_begin();
	for (uint32_t c = 0; c < num_cpus; c++) {
		struct trace_ring *r = &t->rings[c];
		uint64_t head = r->head;

		prev[c] = ttrace_ring_is_sink(t, c) ? NULL : r->entries;
		trace_ring_init(r, mem[c], (size_t)PGSIZE << order,
				(enum trace_ring_mode)r->mode);
		trace_ring_restart(r, head);
	}
	ttrace_early_adopt(t);	/* CPU 0 on the early ring since boot */
	ttrace_root_end(t);
	t->ring_order = order;
	t->off_reason = NULL;
	ttrace_resume(t);
	for (uint32_t c = 0; c < num_cpus; c++)
		if (prev[c])
			ttrace_mem_free(prev[c], old);
	return NULL;
}

/* The ctl mutex and re-arming, for the other parts of the tracer that
 * change what is armed (ttrace_probe.c): the same rules as the static
 * functions they wrap. */
void ttrace_ctl_mutex_enter(struct ttrace *t)
{
	ctl_enter(t);
}

void ttrace_ctl_mutex_exit(struct ttrace *t)
{
	ctl_exit(t);
}

/* Counts a turn of this CPU's wait for a mutex of the tracer's (the ctl
 * mutex, the module mutex) as quiet for the grace period: the CPU is in
 * no tracepoint, and does not run kernel messages until it gets the
 * mutex, whose holder may be waiting for a grace period. */
void ttrace_quiet_turn(struct ttrace *t)
{
	__atomic_fetch_add(&t->ctl_spins[core_id()], 1, __ATOMIC_RELEASE);
}

void ttrace_rearm_locked(struct ttrace *t)
{
	rearm(t);
}

/* Sets the group mask bits under bits to value and re-arms, under the ctl
 * mutex; returns the old mask. For in-kernel users (tests, benchmark). */
uint64_t ttrace_set_mask(uint64_t value, uint64_t bits)
{
	struct ttrace *t = &ttrace_main;
	uint64_t old;

	ctl_enter(t);
	old = ttrace_mask_setmask(&t->ctl.mask, value, bits);
	rearm(t);
	ctl_exit(t);
	return old;
}

/* Whether every armed byte is what the mask and the enable flags say
 * (tracing not off), and every site's text what the armed bytes say. Takes the ctl mutex. For tests. */
bool ttrace_armed_consistent(struct ttrace *t)
{
	bool ok = true;

	ctl_enter(t);
	for (uint32_t i = 0; i < t->ctl.meta->nevents; i++)
		ok &= ttrace_armed[i] == ttrace_ctl_wants(&t->ctl, t->ctl.mask, i);
	ok &= ttrace_patch_consistent();
	ctl_exit(t);
	return ok;
}

/* Reads the next run of t's cpu's ring as how says (ttrace_copy_run())
 * under the rings' read lock. Process context. */
uint32_t ttrace_ring_read(struct ttrace *t, uint32_t cpu,
			  struct trace_ring_cursor *cur, uint64_t end,
			  struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run, enum ttrace_copy how)
{
	uint32_t kind;

	rlock(&t->rings_lock);
	kind = ttrace_copy_run(&t->rings[cpu], cur, end, out, max, run, how);
	runlock(&t->rings_lock);
	return kind;
}

/* cpu's head now: the end of a snapshot taken now. */
uint64_t ttrace_ring_end(struct ttrace *t, uint32_t cpu)
{
	return trace_ring_head(&t->rings[cpu]);
}

/* Puts cur at cpu's oldest live record. */
void ttrace_ring_oldest(struct ttrace *t, uint32_t cpu,
			struct trace_ring_cursor *cur)
{
	rlock(&t->rings_lock);
	trace_ring_cursor_oldest(&t->rings[cpu], cur);
	runlock(&t->rings_lock);
}

/* Puts cur at cpu's clear point: its first read declares what the ring
 * overwrote before it (trace_ring_cursor_start()). */
void ttrace_ring_since_clear(struct ttrace *t, uint32_t cpu,
			     struct trace_ring_cursor *cur)
{
	rlock(&t->rings_lock);
	trace_ring_cursor_start(&t->rings[cpu], cur);
	runlock(&t->rings_lock);
}

void ttrace_ring_get_stats(struct ttrace *t, uint32_t cpu,
			   struct trace_ring_stats *st)
{
	rlock(&t->rings_lock);
	trace_ring_stats(&t->rings[cpu], st);
	runlock(&t->rings_lock);
}

/* Bytes of one CPU's ring now. */
uint64_t ttrace_ring_bytes(void)
{
	return (ttrace_main.rings[0].mask + 1) * sizeof(struct ttrace_entry);
}

/*
 * module load PATH, module unload NAME (t->ctl_cmd): carried out without
 * the ctl mutex, which a module's init and fini take to attach and detach
 * probes; the mutex is left and taken again. Returns NULL or why nothing
 * changed. ctl mutex held.
 */
static const char *module_cmd(struct ttrace *t)
{
	char word[sizeof(t->ctl_cmd.word)];
	bool unload = t->ctl_cmd.mode;
	const char *err;

	memcpy(word, t->ctl_cmd.word, sizeof(word));
	ctl_exit(t);
	err = module_control(unload, word);
	ctl_enter(t);
	return err;
}

/* Carries out a parsed command that came from file (NULL: a kernel
 * caller); returns NULL or an error message. ctl mutex held. */
static const char *apply(struct ttrace *t, const struct ttrace_ctl_cmd *cmd,
			 const void *file)
{
	switch (cmd->op) {
	case TTRACE_CTL_CLEAR:
		clear_rings(t);
		return NULL;
	case TTRACE_CTL_MODE:
		set_mode(t, cmd->mode);
		return NULL;
	case TTRACE_CTL_BUFSIZE:
		return resize_rings(t, cmd->value);
	case TTRACE_CTL_HANG:
		ttrace_hang();
	case TTRACE_CTL_CRASH:
		return ttrace_lastboot_crash(t, cmd->mode);
	case TTRACE_CTL_COUNTERS:
		return ttrace_counters_set(t, (uint32_t)cmd->value, cmd->mode);
	case TTRACE_CTL_PROBE:
	case TTRACE_CTL_UNPROBE:
		return ttrace_probes_control(cmd);
	case TTRACE_CTL_MODULE:
		return module_cmd(t);
	case TTRACE_CTL_FPROBE:
		return fprobe_control(t, &cmd->fprobe);
	case TTRACE_CTL_LATENCY:
		return cmd->lat >= TTRACE_LAT_TIMERLAT ?
		       ttrace_timerlat_control(cmd) : ttrace_lat_control(cmd);
	case TTRACE_CTL_STACKTRACER:
		return ttrace_stack_tracer_control(t, cmd->mode);
	case TTRACE_CTL_DRAIN:
		return cmd->mode ? ttrace_drain_on(t, file) :
		       ttrace_drain_off(t);
	case TTRACE_CTL_PROFILE:
		return ttrace_profile_control(t, cmd, file);
	default:
		if (t->off_reason)
			return t->off_reason;
		live_on(t);	/* the command may arm something */
		ttrace_ctl_apply(&t->ctl, cmd);
		if (__atomic_load_n(&t->ctl.mask, __ATOMIC_RELAXED))
			ttrace_thaw(t);	/* tracing on again after a stop */
		ttrace_patch_sync(TEXT_PATCH_LIVE);
		live_update(t);
		return NULL;
	}
}

/* Parses and carries out one ctl command (len bytes of text), any of the
 * table's, written to file (an open ctl file; NULL: a kernel caller's).
 * Returns 0, or -EINVAL with *why set to a message (with the usage) valid
 * until the next call; nothing changes on error. Process context. */
int ttrace_control_file(const void *file, const char *text, size_t len,
			const char **why)
{
	struct ttrace *t = &ttrace_main;
	const char *err;

	ctl_enter(t);
	err = ttrace_ctl_parse(&t->ctl_cmd, text, len, ttrace_meta_now());
	if (!err)
		err = apply(t, &t->ctl_cmd, file);
	if (err)
		strlcpy(t->ctl_err, err, sizeof(t->ctl_err));
	ctl_exit(t);
	*why = t->ctl_err;
	return err ? -EINVAL : 0;
}

int ttrace_control(const char *text, size_t len, const char **why)
{
	return ttrace_control_file(NULL, text, len, why);
}

/* Sets the function-graph filter (the funcs file): one glob; the function
 * sites follow at once if the func events are armed. Returns 0, or -EINVAL
 * with *why set as ttrace_control(). Process context. */
int ttrace_funcs_control(const char *text, size_t len, const char **why)
{
	struct ttrace *t = &ttrace_main;
	const char *err;

	ctl_enter(t);
	err = fgraph_set_filter(text, len);
	if (!err)
		ttrace_patch_sync(TEXT_PATCH_LIVE);
	else
		strlcpy(t->ctl_err, err, sizeof(t->ctl_err));
	ctl_exit(t);
	*why = t->ctl_err;
	return err ? -EINVAL : 0;
}

/* The funcs file: the filter, function sites selected and live, and the
 * tracepoint sites live. Process context. */
void ttrace_funcs_text(struct seqbuf *s)
{
	struct ttrace *t = &ttrace_main;
	uint64_t sites, live;

	ctl_enter(t);
	fgraph_state_text(s);
	fprobe_state_text(s);
	ttrace_patch_counts(&sites, &live);
	seqbuf_printf(s, "tracepoint_sites %lu\ntracepoints_live %lu\n", sites,
		      live);
	ctl_exit(t);
}

/* The events file: the group mask, each group and each event. */
void ttrace_events_text(struct seqbuf *s)
{
	ttrace_ctl_list(&ttrace_main.ctl, s);
}

/* The state as text: mask, mode, ring size, the groups that are on, and
 * the drain's state. */
void ttrace_state_text(struct seqbuf *s)
{
	struct ttrace *t = &ttrace_main;
	uint64_t mask = __atomic_load_n(&t->ctl.mask, __ATOMIC_RELAXED);

	seqbuf_printf(s, "mask 0x%lx\nmode %s\nbufsize %lu\n%s%s%sgroups", mask,
		mode_name(READ_ONCE(t->rings[0].mode)), ttrace_ring_bytes() / 1024,
		t->off_reason ? "off " : "", t->off_reason ? t->off_reason : "",
		t->off_reason ? "\n" : "");
	for (uint32_t g = 0; g < ttrace_meta_builtin.ngroups; g++) {
		const struct ttrace_group_meta *gm = &ttrace_meta_builtin.groups[g];

		if (mask >> gm->bit & 1)
			seqbuf_printf(s, " %s", gm->name);
	}
	seqbuf_putc(s, '\n');
	ttrace_drain_text(s);
}

/* Timestamp of the first record at or after cur and before end (or 0).
 * The bound is what makes it end: on a ring written faster than it is
 * read (the reader's own CPU's, whose rlock and runlock the function-graph
 * tracer records), the oldest slot is overwritten before each copy of it
 * and an unbounded reader chases it for ever. */
static uint64_t first_ts(struct ttrace *t, uint32_t cpu,
			 struct trace_ring_cursor *cur, uint64_t end)
{
	struct ttrace_entry e[1 + TTRACE_MAX_CONT];
	struct trace_ring_run run;
	uint32_t k;

	while ((k = ttrace_ring_read(t, cpu, cur, end, e, ARRAY_SIZE(e),
				     &run, TTRACE_COPY_PLAIN)) == TRACE_RUN_LOST)
		;
	return k == TRACE_RUN_RECORDS ? e[0].timestamp : 0;
}

/* Timestamps of cpu's oldest and newest intact records (0 if none), below
 * its head when called. */
void ttrace_ring_edge_ts(struct ttrace *t, uint32_t cpu, uint64_t *oldest,
			 uint64_t *newest)
{
	struct trace_ring_cursor cur;
	uint64_t head = ttrace_ring_end(t, cpu);

	ttrace_ring_oldest(t, cpu, &cur);
	*oldest = first_ts(t, cpu, &cur, head);
	cur.next = head > 1 + TTRACE_MAX_CONT ? head - 1 - TTRACE_MAX_CONT : 0;
	cur.after_loss = 1;
	*newest = 0;
	for (int i = 0; i <= TTRACE_MAX_CONT; i++) {
		uint64_t ts = first_ts(t, cpu, &cur, head);

		if (!ts)
			break;
		*newest = ts;
	}
}

/* Per-CPU counters and aux usage as text (the mask is the ctl file's). */
void ttrace_stats_text(struct seqbuf *s)
{
	struct ttrace *t = &ttrace_main;
	uint64_t bytes, aux_size, dropped, oldest, newest;

	ttrace_aux_usage(t, &bytes, &aux_size, &dropped);
	for (uint32_t c = 0; c < num_cpus && !seqbuf_overflowed(s); c++) {
		struct trace_ring_stats st;

		ttrace_ring_get_stats(t, c, &st);
		ttrace_ring_edge_ts(t, c, &oldest, &newest);
		seqbuf_printf(s, "cpu%u written %lu overwritten %lu dropped %lu "
			"filtered %lu strdropped %lu entries %lu oldest %lu "
			"newest %lu\n", c, st.written, st.overwritten,
			st.dropped, st.filtered, st.str_dropped, st.nentries,
			oldest, newest);
	}
	seqbuf_printf(s, "aux bytes %lu size %lu dropped %lu\n", bytes,
		      aux_size, dropped);
	fprobe_stats_text(s);
	ttrace_profile_stats_text(s);
}

/* Records a user annotation: the text in aux (tag marker), and a
 * user_marker event naming it on this CPU, in the writer's context; its
 * probes get the text, for their ~ tests. */
void ttrace_mark(const char *text, size_t len)
{
	struct ttrace *t = &ttrace_main;
	uint64_t id = __atomic_fetch_add(&t->marker_seq, 1, __ATOMIC_RELAXED);
	char z[TTRACE_AUX_MAX_STRLEN + 1];
	const char *strs[1] = { z };

	if (len && text[len - 1] == '\n')
		len--;
	len = MIN(len, (size_t)TTRACE_AUX_MAX_STRLEN);
	ttrace_aux_blob(t, TTRACE_AUX_USER_MARKER, id, text, len);
	if (ttrace_site_state(TTRACE_EV_USER_MARKER) != TTRACE_SITE_PROBE) {
		ttrace_user_marker(id);
		return;
	}
	memcpy(z, text, len);
	z[len] = 0;
	ttrace_probe_fire_strs(TTRACE_EV_USER_MARKER, &id, strs, 1);
}
