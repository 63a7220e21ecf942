/*
 * tracefs_dyn.c: the tracefs files of issue 31 that define things or
 * report refusals (docs/tracefs.md): dynamic_events, which turns Linux's
 * fprobe definitions into the ctl's `fprobe add`/`fprobe del`
 * (kern/trace/lib/dynevent_parse.c translates, fprobe.c does it: one
 * implementation behind both doors), and error_log, ftrace's log of the
 * last refused writes to any file of the tree: every refusal calls
 * tracefs_err_log() with the command, where its bad token starts and why.
 *
 * A refused dynamic_events line changes nothing and fails with Linux's
 * errno: EINVAL for its syntax (the translator's), EEXIST for a name in
 * use, ENOENT for a function or an event that does not exist, found
 * after the ctl refused (its message kept otherwise), so the check that
 * decides is always fprobe.c's.
 *
 * Locking: errlog_lock guards the log (any process, any file's write);
 * the fprobe state is read under the ctl mutex.
 */
#include <errno_text.h>
#include <ksyms.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_ctl.h>
#include <ttrace_dynevent.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#include "internal.h"

#define DYN_LOC		"trace_fprobe"

static struct spinlock errlog_lock = SPINLOCK_INIT("tracefs error_log");
static struct ttrace_errlog errlog;
/* The last refusal's text (as ctl's ctl_err: valid until the next). */
static char refusal[TTRACE_ERRLOG_LOC + TTRACE_ERRLOG_WHY + 48];

/* See internal.h. */
void tracefs_err_log(const char *loc, const char *cmd, size_t len,
		     size_t pos, const char *why)
{
	uint64_t ns = tsc_to_ns(arch_read_tsc() - tsc_at_boot);

	spin_lock(&errlog_lock);
	ttrace_errlog_add(&errlog, ns, loc, cmd, len, pos, why);
	spin_unlock(&errlog_lock);
}

/* See internal.h. */
int tracefs_refuse(int err, const char *loc, const char *cmd, size_t len,
		   size_t pos, const char *why, const char **out)
{
	tracefs_err_log(loc, cmd, len, pos, why);
	spin_lock(&errlog_lock);
	fmt_snprintf(refusal, sizeof(refusal), "%s: %s (%s)", loc, why,
		     errno_text(-err));
	spin_unlock(&errlog_lock);
	*out = refusal;
	return err;
}

/* See internal.h. */
void tracefs_error_log_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	spin_lock(&errlog_lock);
	ttrace_errlog_text(&errlog, s);
	spin_unlock(&errlog_lock);
}

/* See internal.h: `echo > error_log` empties it, as Linux's does. */
int tracefs_error_log_trunc(uint32_t inst, const char **why)
{
	(void)inst;
	(void)why;
	spin_lock(&errlog_lock);
	ttrace_errlog_clear(&errlog);
	spin_unlock(&errlog_lock);
	return 0;
}

/* See internal.h: a write empties it too (`echo -n > error_log` writes
 * nothing; any text written is not a command). */
int tracefs_error_log_write(uint32_t inst, char *line, const char **why)
{
	(void)line;
	return tracefs_error_log_trunc(inst, why);
}

/* See internal.h. */
bool tracefs_refusal_logged(const char *why)
{
	return why == refusal;
}

/* The function probes' group's name ("fprobe"). */
static const char *fprobe_group(void)
{
	for (uint32_t g = 0; g < TTRACE_NUM_GROUPS; g++)
		if (ttrace_group_table[g].bit == TTRACE_GROUP_FPROBE)
			return ttrace_group_table[g].name;
	return "fprobe";
}

static void dyn_line(const struct ttrace_fprobe_spec *spec, void *arg)
{
	ttrace_dynevent_text(spec, fprobe_group(), arg);
}

/* See internal.h. */
void tracefs_dynevents_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	ttrace_ctl_mutex_enter(&ttrace_main);
	fprobe_each_live(dyn_line, s);
	ttrace_ctl_mutex_exit(&ttrace_main);
}

struct dyn_find {
	const char *name;
	bool found;
};

static void dyn_match(const struct ttrace_fprobe_spec *spec, void *arg)
{
	struct dyn_find *f = arg;

	f->found |= !strcmp(spec->name, f->name);
}

/* Whether a live probe is called name. */
static bool dyn_live(const char *name)
{
	struct dyn_find f = { name, false };

	ttrace_ctl_mutex_enter(&ttrace_main);
	fprobe_each_live(dyn_match, &f);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return f.found;
}

/* Whether any event (static, a probe's, a deleted probe's) is called
 * name: what made `fprobe add` refuse it. */
static bool event_exists(const char *name)
{
	const struct ttrace_meta_table *m = ttrace_meta_now();

	for (uint32_t id = 0; id < m->nevents; id++)
		if (m->events[id].name && !strcmp(m->events[id].name, name))
			return true;
	return false;
}

static bool same_name(const char *arg, const char *name)
{
	return !strcmp(arg, name);
}

/* Why the ctl refused info's command, in Linux's words where Linux has
 * them: e->why, e->pos and e->err from what exists now; ctl_why kept
 * otherwise. */
static void dyn_refusal(const struct ttrace_dynevent_info *info,
			const char *ctl_why, struct ttrace_dynevent_err *e)
{
	*e = (struct ttrace_dynevent_err){ ctl_why, 0, -EINVAL };
	if (info->del)
		*e = dyn_live(info->name) ? (struct ttrace_dynevent_err){
			ctl_why, info->name_pos, -EBUSY } :
			(struct ttrace_dynevent_err){ "No such event (no live "
			"function probe of that name)", info->name_pos, -ENOENT };
	else if (event_exists(info->name) && strstr(ctl_why, "exists"))
		*e = (struct ttrace_dynevent_err){ "Given group/event name is "
			"already used by another event", info->name_pos,
			-EEXIST };
	else if (!ksym_find(same_name, info->func))
		*e = (struct ttrace_dynevent_err){ "Invalid probed address or "
			"symbol", info->func_pos, -ENOENT };
	if (!strncmp(e->why, "fprobe: ", 8))
		e->why += 8;
}

/* See internal.h: one line of dynamic_events. */
int tracefs_dynevents_write(uint32_t inst, char *line, const char **why)
{
	char ctl[TTRACE_CTL_MAX_LEN + 1];
	struct ttrace_dynevent_info info;
	struct ttrace_dynevent_err e;
	size_t len = strlen(line);
	const char *ctl_why;

	(void)inst;
	if (ttrace_dynevent_parse(line, len, ctl, sizeof(ctl), &info, &e))
		goto refused;
	if (!ctl[0] || !ttrace_control(ctl, strlen(ctl), &ctl_why))
		return 0;
	dyn_refusal(&info, ctl_why, &e);
refused:
	return tracefs_refuse(e.err, DYN_LOC, line, len, e.pos, e.why, why);
}

/* See internal.h: `>` (not `>>`) deletes every probe first, as Linux's
 * dynamic_events does (EBUSY, and none deleted, while probes are
 * attached to one). */
int tracefs_dynevents_trunc(uint32_t inst, const char **why)
{
	static const char del_all[] = "fprobe del *";

	(void)inst;
	if (!ttrace_control(del_all, sizeof(del_all) - 1, why))
		return 0;
	return tracefs_refuse(-EBUSY, DYN_LOC, del_all, sizeof(del_all) - 1,
			      0, *why, why);
}
