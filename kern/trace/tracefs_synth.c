/*
 * tracefs_synth.c: synthetic_events and the onmatch() hist triggers that
 * measure a latency between two events (Linux's histogram.rst, 2.2;
 * docs/tracefs.md), on the one latency probe: a START trigger
 * (`hist:keys=KEY:VAR=common_timestamp`) is remembered, and the END
 * trigger whose onmatch() names it (`hist:keys=ENDKEY:LAT=common_timestamp-
 * $VAR:onmatch(GROUP.START).trace(NAME,$LAT,FIELD...)`) attaches
 * `probe s.NAME latency START END by KEY match ENDKEY emit NAME FIELD...`
 * through the ctl (kern/trace/lib/synth_parse.c parses, probe_builtin.c
 * measures). The latency goes into that probe's log2 histogram per KEY,
 * which synthetic_events shows after the definitions, and each pair is
 * recorded as the synthetic event NAME when events/synthetic/NAME/enable
 * is on: a definition takes one of the ids ttrace.events reserves
 * (`reserve synthetic synthetic 4`), its metadata published as an
 * fprobe's is (ttrace_meta_set_live()), so its format file, ttdecode and
 * trace.dat name its fields. A deleted definition's metadata stays (its
 * records may still be in the rings) until its slot is defined again.
 * A definition is in use while its probe s.NAME exists or a probe (a
 * filter, a trigger) is attached to its event: both are asked of the
 * probes themselves, so what the ctl did (`unprobe`) shows here.
 *
 * Locking: synth_lock guards the tables (process context; never held
 * across a ctl command, which takes the ctl mutex; taken inside the ctl
 * mutex by a definition, which publishes its metadata, and by whoever
 * asks whether one is in use).
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_ctl.h>
#include <ttrace_dynevent.h>
#include <abi/errno.h>

#include "internal.h"

#define SYNTH_MAX	4	/* synthetic events defined at once */
#define STARTS_MAX	8	/* START triggers remembered at once */
#define SYNTH_LOC	"synthetic_events"
#define HIST_LOC	"hist"

static struct spinlock synth_lock = SPINLOCK_INIT("tracefs synthetic");
static struct {
	struct ttrace_synth_def d;	/* d.name[0] == 0: free */
} defs[SYNTH_MAX];
/* Slot i's event metadata (id TTRACE_EV_SYNTHETIC_FIRST + i), as last
 * published; ctl mutex. */
static struct {
	struct ttrace_event_meta ev;
	struct ttrace_arg_meta args[TTRACE_SYNTH_NFIELDS];
	struct ttrace_synth_def d;	/* the names the metadata points to */
	char format[TTRACE_META_MAX_FORMAT + 1];
} metas[SYNTH_MAX];
static struct {
	char event[TTRACE_SYNTH_NAME_MAX + 1];	/* "": free */
	char key[TTRACE_SYNTH_NAME_MAX + 1];
	char var[TTRACE_SYNTH_NAME_MAX + 1];
} starts[STARTS_MAX];

/* Whether name's probe s.NAME exists. ctl mutex held. */
static bool matched(const char *name)
{
	char probe[TTRACE_SYNTH_NAME_MAX + 3];

	fmt_snprintf(probe, sizeof(probe), "s.%s", name);
	return ttrace_probe_exists_locked(probe);
}

/* Whether def i is in use: its onmatch() probe, or a probe on its event.
 * ctl mutex and synth_lock held. */
static bool in_use(int i)
{
	return matched(defs[i].d.name) ||
	       READ_ONCE(ttrace_probes[TTRACE_EV_SYNTHETIC_FIRST + i]);
}

/* The def called name, or -1. synth_lock held. */
static int def_named(const char *name)
{
	for (int i = 0; i < SYNTH_MAX; i++)
		if (!strcmp(defs[i].d.name, name))
			return i;
	return -1;
}

/* See internal.h. */
void tracefs_synth_text(struct seqbuf *s, uint32_t inst)
{
	struct ttrace_synth_def d[SYNTH_MAX];
	bool attached[SYNTH_MAX];

	(void)inst;
	ttrace_ctl_mutex_enter(&ttrace_main);
	spin_lock(&synth_lock);
	for (int i = 0; i < SYNTH_MAX; i++) {
		d[i] = defs[i].d;
		attached[i] = d[i].name[0] && matched(d[i].name);
		if (d[i].name[0])
			seqbuf_printf(s, "%s\t%s\n", d[i].name, d[i].fields);
	}
	spin_unlock(&synth_lock);
	ttrace_ctl_mutex_exit(&ttrace_main);
	for (int i = 0; i < SYNTH_MAX; i++) {
		char probe[TTRACE_SYNTH_NAME_MAX + 3];

		if (!d[i].name[0] || !attached[i])
			continue;
		fmt_snprintf(probe, sizeof(probe), "s.%s", d[i].name);
		seqbuf_printf(s, "\n# %s: latency histogram (ns)\n", d[i].name);
		ttrace_probe_text(probe, s);
	}
}

/* Publishes definition d as slot i's event: `NAME: F0=%llu F1=%d ...`
 * (ftrace's print of a synthetic event). False when memory is short.
 * ctl mutex held. */
static bool meta_publish(int i, const struct ttrace_synth_def *d)
{
	struct seqbuf f;

	metas[i].d = *d;
	seqbuf_init(&f, metas[i].format, sizeof(metas[i].format));
	for (uint32_t k = 0; k < d->nfields; k++) {
		uint8_t type = d->field[k].type;

		metas[i].args[k] = (struct ttrace_arg_meta){
			metas[i].d.field[k].name, type, 0, 0, 0 };
		seqbuf_printf(&f, "%s%s=%s", k ? " " : "", d->field[k].name,
			      ttrace_arg_signed(type) ? "%lld" : "%llu");
	}
	metas[i].ev = (struct ttrace_event_meta){
		.name = metas[i].d.name, .format = metas[i].format,
		.args = metas[i].args,
		.id = (uint16_t)(TTRACE_EV_SYNTHETIC_FIRST + i),
		.group = TTRACE_GROUP_SYNTHETIC, .nargs = (uint8_t)d->nfields,
	};
	return ttrace_meta_set_live(&ttrace_main, &metas[i].ev);
}

/* See internal.h. */
int tracefs_synth_write(uint32_t inst, char *line, const char **why)
{
	struct ttrace_synth_def d;
	struct ttrace_dynevent_err e;
	int i, err = 0;

	(void)inst;
	if (ttrace_synth_def_parse(line, &d, &e))
		return tracefs_refuse(e.err, SYNTH_LOC, line, strlen(line),
				      e.pos, e.why, why);
	ttrace_ctl_mutex_enter(&ttrace_main);
	spin_lock(&synth_lock);
	i = def_named(d.name);
	if (d.del && i < 0)
		err = -ENOENT;
	else if (d.del && in_use(i))
		err = -EBUSY;
	else if (d.del)
		memset(&defs[i], 0, sizeof(defs[i]));
	else if (i >= 0)
		err = -EEXIST;
	else if ((i = def_named("")) < 0)
		err = -ENOSPC;
	else
		defs[i].d = d;
	spin_unlock(&synth_lock);
	if (!err && !d.del && !meta_publish(i, &d)) {
		spin_lock(&synth_lock);
		memset(&defs[i], 0, sizeof(defs[i]));
		spin_unlock(&synth_lock);
		err = -ENOMEM;
	}
	ttrace_ctl_mutex_exit(&ttrace_main);
	if (!err)
		return 0;
	return tracefs_refuse(err, SYNTH_LOC, line, strlen(line),
			      (size_t)(strstr(line, d.name) - line),
			      err == -ENOENT ? "No such synthetic event" :
			      err == -EBUSY ? "Synthetic event in use (remove "
			      "the onmatch() trigger, its filter and triggers "
			      "first)" :
			      err == -EEXIST ? "Synthetic event already exists" :
			      err == -ENOMEM ? "Out of memory" :
			      "Too many synthetic events (4 here)", why);
}

/* See internal.h: `>` deletes every definition not in use. */
int tracefs_synth_trunc(uint32_t inst, const char **why)
{
	bool busy = false;

	(void)inst;
	ttrace_ctl_mutex_enter(&ttrace_main);
	spin_lock(&synth_lock);
	for (int i = 0; i < SYNTH_MAX; i++) {
		bool used = defs[i].d.name[0] && in_use(i);

		busy |= used;
		if (!used)
			memset(&defs[i], 0, sizeof(defs[i]));
	}
	spin_unlock(&synth_lock);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return busy ? tracefs_refuse(-EBUSY, SYNTH_LOC, "", 0, 0, "Synthetic "
				     "event in use (remove the onmatch() "
				     "trigger, its filter and triggers first)",
				     why) : 0;
}

/* A START trigger on ev: remembered (del: forgotten). synth_lock held. */
static int start_trigger(const char *ev, const struct ttrace_synth_hist *h,
			 bool del)
{
	int free = -1;

	for (int i = 0; i < STARTS_MAX; i++) {
		if (!strcmp(starts[i].event, ev) && !strcmp(starts[i].var, h->var)) {
			if (del)
				memset(&starts[i], 0, sizeof(starts[i]));
			else
				strcpy(starts[i].key, h->key);
			return 0;
		}
		if (!starts[i].event[0] && free < 0)
			free = i;
	}
	if (del)
		return -ENOENT;
	if (free < 0)
		return -ENOSPC;
	strcpy(starts[free].event, ev);
	strcpy(starts[free].key, h->key);
	strcpy(starts[free].var, h->var);
	return 0;
}

/* The START event and key of END trigger h: 0, or why not (*why).
 * synth_lock held. */
static int match_start(const struct ttrace_synth_hist *h, char *start,
		       char *key, const char **why)
{
	const char *ev = strchr(h->start, '.');

	ev = ev ? ev + 1 : h->start;
	for (int i = 0; i < STARTS_MAX; i++)
		if (!strcmp(starts[i].event, ev) &&
		    !strcmp(starts[i].var, h->start_var)) {
			strcpy(start, ev);
			strcpy(key, starts[i].key);
			return 0;
		}
	*why = "Couldn't find the variable on onmatch()'s event (its "
	       "hist:keys=KEY:VAR=common_timestamp trigger first)";
	return -EINVAL;
}

/* An END trigger on ev: the latency probe attached (del: removed). */
static int match_trigger(const char *ev, const struct ttrace_synth_hist *h,
			 bool del, const char **why)
{
	char start[TTRACE_SYNTH_NAME_MAX + 1], key[TTRACE_SYNTH_NAME_MAX + 1];
	char cmd[TTRACE_CTL_MAX_LEN + 1];
	struct seqbuf c;
	bool busy;
	int i, r;

	ttrace_ctl_mutex_enter(&ttrace_main);
	busy = matched(h->synth);
	ttrace_ctl_mutex_exit(&ttrace_main);
	spin_lock(&synth_lock);
	i = def_named(h->synth);
	r = i < 0 ? -EINVAL : del ? 0 : match_start(h, start, key, why);
	if (i < 0)
		*why = "Couldn't find synthetic event";
	if (!r && !del && h->nparams + 1 != defs[i].d.nfields) {
		*why = "Param count mismatch (the latency, then one field of "
		       "the event per synthetic field)";
		r = -EINVAL;
	}
	if (!r && !del && busy) {
		*why = "This synthetic event has its onmatch() already";
		r = -EBUSY;
	}
	spin_unlock(&synth_lock);
	if (r)
		return r;
	seqbuf_init(&c, cmd, sizeof(cmd));
	if (del)
		seqbuf_printf(&c, "unprobe s.%s", h->synth);
	else
		seqbuf_printf(&c, "probe s.%s latency %s %s by %s match %s emit "
			      "%s", h->synth, start, ev, key, h->key, h->synth);
	for (uint32_t p = 0; !del && p < h->nparams; p++)
		seqbuf_printf(&c, " %s", h->params[p]);
	if (seqbuf_overflowed(&c)) {
		*why = "Command too long";
		r = -EINVAL;
	}
	else
		r = ttrace_control(cmd, seqbuf_used(&c), why);
	return r;
}

/* See internal.h. */
int tracefs_synth_trigger(const char *ev, const char *trig, bool del,
			  const char **why)
{
	struct ttrace_synth_hist h;
	struct ttrace_dynevent_err e;
	int r;

	if (ttrace_synth_hist_parse(trig, &h, &e))
		return tracefs_refuse(e.err, HIST_LOC, trig, strlen(trig),
				      e.pos, e.why, why);
	if (h.kind == TTRACE_SYNTH_NONE)
		return 1;
	if (h.kind == TTRACE_SYNTH_START) {
		spin_lock(&synth_lock);
		r = start_trigger(ev, &h, del);
		spin_unlock(&synth_lock);
		*why = r == -ENOENT ? "No such trigger" : "Too many variables "
		       "(8 here)";
	} else {
		r = match_trigger(ev, &h, del, why);
	}
	return r ? tracefs_refuse(r, HIST_LOC, trig, strlen(trig), 0, *why,
				  why) : 0;
}
