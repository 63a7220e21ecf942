/*
 * ttrace control and reporting: what the #ttrace device's ctl, stats and
 * marker files do, as calls on the tracer core. Parsing is kern/lib's
 * (ttrace_ctl.c); this file carries commands out and writes the state as
 * text.
 *
 * Who may change state: the kernel has no users or permissions yet, so
 * every process may write ctl (docs/ttrace-device.md says so). Writers are
 * serialised by ctl_lock; tracepoints never take it.
 */
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <trace_ring.h>
#include <printfmt.h>
#include <pmem.h>
#include <buddy.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>

static struct spinlock ctl_lock = SPINLOCK_INIT("ttrace_ctl");
static struct ttrace_ctl_cmd ctl_cmd;		/* ctl_lock */
static char ctl_err[sizeof(ctl_cmd.err)];	/* ctl_lock */
static uint64_t marker_seq;

static const char *mode_name(uint32_t mode)
{
	return mode == TTRACE_MODE_SATURATE ? "saturate" : "overwrite";
}

/* Empties every ring and restarts its counters. Records being written
 * meanwhile may survive; that is all a concurrent clear can promise. */
static void clear_rings(void)
{
	for (uint32_t c = 0; c < num_cpus; c++)
		trace_ring_clear(ttrace_ring_of(c));
}

static void set_mode(uint32_t mode)
{
	for (uint32_t c = 0; c < num_cpus; c++)
		trace_ring_set_mode(ttrace_ring_of(c), mode);
}

/* Carries out a parsed command; returns NULL or an error message. */
static const char *apply(const struct ttrace_ctl_cmd *cmd)
{
	switch (cmd->op) {
	case TTRACE_CTL_CLEAR:
		clear_rings();
		return NULL;
	case TTRACE_CTL_MODE:
		set_mode(cmd->mode);
		return NULL;
	case TTRACE_CTL_BUFSIZE:
		if (__atomic_load_n(&ttrace_ctl.mask, __ATOMIC_RELAXED))
			return "bufsize: turn tracing off first (setmask 0 "
			       "0xffffffffffffffff)";
		return ttrace_resize_rings(cmd->value) ? NULL :
		       "bufsize: out of memory (old rings kept)";
	default:
		ttrace_ctl_apply(&ttrace_ctl, cmd);
		return NULL;
	}
}

/* Parses and carries out one ctl command (len bytes of text). Returns 0,
 * or -EINVAL with *why set to a message (with the usage) valid until the
 * next call; nothing changes on error. Process context. */
int ttrace_control(const char *text, size_t len, const char **why)
{
	uint64_t flags = spin_lock_irqsave(&ctl_lock);
	const char *err = ttrace_ctl_parse(&ctl_cmd, text, len,
					   &ttrace_meta_builtin);

	if (!err)
		err = apply(&ctl_cmd);
	if (err)
		strlcpy(ctl_err, err, sizeof(ctl_err));
	spin_unlock_irqrestore(&ctl_lock, flags);
	*why = ctl_err;
	return err ? -EINVAL : 0;
}

/* The state as text: mask, mode, ring size, and the groups that are on. */
size_t ttrace_state_text(char *buf, size_t size)
{
	struct trace_ring *r = ttrace_ring_of(0);
	uint64_t mask = __atomic_load_n(&ttrace_ctl.mask, __ATOMIC_RELAXED);
	size_t n = (size_t)fmt_snprintf(buf, size,
		"mask 0x%lx\nmode %s\nbufsize %lu\ngroups", mask,
		mode_name(r->mode), (r->mask + 1) * sizeof(struct ttrace_entry) / 1024);

	for (uint32_t g = 0; g < ttrace_meta_builtin.ngroups && n < size; g++) {
		const struct ttrace_group_meta *gm = &ttrace_meta_builtin.groups[g];

		if (mask >> gm->bit & 1)
			n += (size_t)fmt_snprintf(buf + n, size - n, " %s", gm->name);
	}
	if (n < size)
		n += (size_t)fmt_snprintf(buf + n, size - n, "\n");
	return MIN(n, size);
}

/* Timestamp of the oldest (newest when !oldest) valid record, or 0. */
static uint64_t edge_ts(struct trace_ring *r, bool oldest)
{
	struct trace_ring_cursor cur = { 0 };
	struct ttrace_entry e;

	if (!oldest)
		cur.from = trace_ring_head(r) ? trace_ring_head(r) - 1 : 0;
	return trace_ring_copy_valid(r, &e, 1, &cur) ? e.timestamp : 0;
}

/* Per-CPU counters, aux usage and the mask as text. */
size_t ttrace_stats_text(char *buf, size_t size)
{
	uint64_t bytes, aux_size, dropped;
	size_t n = 0;

	ttrace_aux_usage(&bytes, &aux_size, &dropped);
	for (uint32_t c = 0; c < num_cpus && n < size; c++) {
		struct trace_ring *r = ttrace_ring_of(c);
		struct trace_ring_stats st;

		trace_ring_stats(r, &st);
		n += (size_t)fmt_snprintf(buf + n, size - n,
			"cpu%u written %lu overwritten %lu dropped %lu entries %lu "
			"oldest %lu newest %lu\n", c, st.written, st.overwritten,
			st.dropped, st.nentries, edge_ts(r, true), edge_ts(r, false));
	}
	if (n < size)
		n += (size_t)fmt_snprintf(buf + n, size - n,
			"aux bytes %lu size %lu dropped %lu\nmask 0x%lx\n",
			bytes, aux_size, dropped,
			__atomic_load_n(&ttrace_ctl.mask, __ATOMIC_RELAXED));
	return MIN(n, size);
}

/* Records a user annotation: the text in aux (tag marker), and a
 * user_marker event naming it on this CPU, in the writer's context. */
void ttrace_mark(const char *text, size_t len)
{
	uint64_t id = __atomic_fetch_add(&marker_seq, 1, __ATOMIC_RELAXED);

	if (len && text[len - 1] == '\n')
		len--;
	ttrace_aux_blob(TTRACE_AUX_USER_MARKER, id, text,
			MIN(len, (size_t)TTRACE_AUX_MAX_STRLEN));
	ttrace_user_marker(id);
}
