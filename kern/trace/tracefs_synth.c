/*
 * tracefs_synth.c: synthetic_events and the onmatch() hist triggers that
 * measure a latency between two events (Linux's histogram.rst, 2.2;
 * docs/tracefs.md), on the one latency probe: a START trigger
 * (`hist:keys=KEY:VAR=common_timestamp`) is remembered, and the END
 * trigger whose onmatch() names it (`...:LAT=common_timestamp-$VAR:
 * onmatch(GROUP.START).trace(NAME,$LAT,...)`) attaches
 * `probe s.NAME latency START END by KEY` through the ctl (kern/trace/
 * lib/synth_parse.c parses, probe_builtin.c measures). The synthetic
 * event's values go into that probe's log2 histogram per KEY, which
 * synthetic_events shows after the definitions.
 *
 * Locking: synth_lock guards the tables (process context; never held
 * across a ctl command, which takes the ctl mutex).
 */
#include <printfmt.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
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
	bool attached;			/* its probe s.NAME is */
} defs[SYNTH_MAX];
static struct {
	char event[TTRACE_SYNTH_NAME_MAX + 1];	/* "": free */
	char key[TTRACE_SYNTH_NAME_MAX + 1];
	char var[TTRACE_SYNTH_NAME_MAX + 1];
} starts[STARTS_MAX];

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
	spin_lock(&synth_lock);
	for (int i = 0; i < SYNTH_MAX; i++) {
		d[i] = defs[i].d;
		attached[i] = defs[i].attached;
		if (d[i].name[0])
			seqbuf_printf(s, "%s\t%s\n", d[i].name, d[i].fields);
	}
	spin_unlock(&synth_lock);
	for (int i = 0; i < SYNTH_MAX; i++) {
		char probe[TTRACE_SYNTH_NAME_MAX + 3];

		if (!d[i].name[0] || !attached[i])
			continue;
		fmt_snprintf(probe, sizeof(probe), "s.%s", d[i].name);
		seqbuf_printf(s, "\n# %s: latency histogram (ns)\n", d[i].name);
		ttrace_probe_text(probe, s);
	}
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
	spin_lock(&synth_lock);
	i = def_named(d.name);
	if (d.del && i < 0)
		err = -ENOENT;
	else if (d.del && defs[i].attached)
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
	if (!err)
		return 0;
	return tracefs_refuse(err, SYNTH_LOC, line, strlen(line),
			      (size_t)(strstr(line, d.name) - line),
			      err == -ENOENT ? "No such synthetic event" :
			      err == -EBUSY ? "Synthetic event in use (remove "
			      "the onmatch() trigger first)" :
			      err == -EEXIST ? "Synthetic event already exists" :
			      "Too many synthetic events (4 here)", why);
}

/* See internal.h: `>` deletes every definition not in use. */
int tracefs_synth_trunc(uint32_t inst, const char **why)
{
	bool busy = false;

	(void)inst;
	spin_lock(&synth_lock);
	for (int i = 0; i < SYNTH_MAX; i++) {
		busy |= defs[i].attached;
		if (!defs[i].attached)
			memset(&defs[i], 0, sizeof(defs[i]));
	}
	spin_unlock(&synth_lock);
	return busy ? tracefs_refuse(-EBUSY, SYNTH_LOC, "", 0, 0, "Synthetic "
				     "event in use (remove the onmatch() "
				     "trigger first)", why) : 0;
}

/* The probe's key field for a hist key: ours is pid for common_pid. */
static const char *key_field(const char *key)
{
	return strcmp(key, "common_pid") ? key : "pid";
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
		       const char **why)
{
	const char *ev = strchr(h->start, '.');

	ev = ev ? ev + 1 : h->start;
	for (int i = 0; i < STARTS_MAX; i++)
		if (!strcmp(starts[i].event, ev) &&
		    !strcmp(starts[i].var, h->start_var)) {
			if (strcmp(key_field(starts[i].key), key_field(h->key))) {
				*why = "Not supported here: END's key must be "
				       "START's field of the same name";
				return -EINVAL;
			}
			strcpy(start, ev);
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
	char start[TTRACE_SYNTH_NAME_MAX + 1], cmd[TTRACE_CTL_MAX_LEN + 1];
	int i, r;

	spin_lock(&synth_lock);
	i = def_named(h->synth);
	r = i < 0 ? -EINVAL : del ? 0 : match_start(h, start, why);
	if (i < 0)
		*why = "Couldn't find synthetic event";
	if (!r && !del && defs[i].attached) {
		*why = "This synthetic event has its onmatch() already";
		r = -EBUSY;
	}
	spin_unlock(&synth_lock);
	if (r)
		return r;
	if (del)
		fmt_snprintf(cmd, sizeof(cmd), "unprobe s.%s", h->synth);
	else
		fmt_snprintf(cmd, sizeof(cmd), "probe s.%s latency %s %s by %s",
			     h->synth, start, ev, key_field(h->key));
	if ((r = ttrace_control(cmd, strlen(cmd), why)))
		return r;
	spin_lock(&synth_lock);
	if (!strcmp(defs[i].d.name, h->synth))
		defs[i].attached = !del;
	spin_unlock(&synth_lock);
	return 0;
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
