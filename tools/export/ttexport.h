/*
 * ttexport: what the exporters of `ttdecode` (uftrace, ctf) share: loading
 * the trace with the decoder's error message, a fresh output directory,
 * buffered output files, names as safe identifiers, and the walk over one
 * CPU's events and declared losses in time order (docs/exports.md).
 *
 * Exporters work one CPU at a time: every format they write keeps one file
 * per CPU, so nothing is merged across CPUs and the cost is linear in the
 * records. The walk clamps a loss's time between the events around it, so
 * every item it returns is at or after the one before.
 *
 * Usage:
 *	struct ttexport_walk w;
 *	ttexport_walk_init(&w, &t, cpu);
 *	while ((k = ttexport_walk_next(&w)) != TTEXPORT_END)
 *		k == TTEXPORT_EVENT ? event(w.ev) : loss(w.loss, w.ts);
 */
#ifndef TTEXPORT_H
#define TTEXPORT_H

#include <stdio.h>

#include <ttrace_decode.h>

#include "ttload.h"

#define TTEXPORT_FILE_BUF	(1 << 20)	/* stdio buffer per output */

enum ttexport_item { TTEXPORT_END, TTEXPORT_EVENT, TTEXPORT_LOSS };

struct ttexport_walk {
	const struct ttload_cpu *cpu;
	struct ttrace_pair_iter it;
	const struct ttrace_event_view *ev; /* TTEXPORT_EVENT: the event */
	struct ttrace_event_view view[2]; /* the event and the one after */
	const struct ttload_loss *loss;	/* TTEXPORT_LOSS: the loss */
	uint64_t ts;			/* the item's time (CPU 0's clock) */
	uint64_t nextloss;
	bool have;			/* the other view holds the next event */
};

void ttexport_walk_init(struct ttexport_walk *w, const struct ttload *t,
			uint32_t cpu);
enum ttexport_item ttexport_walk_next(struct ttexport_walk *w);

struct ttmodel;

/* An export: writes t (its model m, loaded from path) to out; returns 0
 * or -1 after saying why. */
typedef int (*ttexport_fn)(struct ttload *t, const struct ttmodel *m,
			   const char *path, const char *out);
int ttexport_main(char **argv, bool dir, ttexport_fn fn);
FILE *ttexport_create(const char *dir, const char *name);
int ttexport_close(FILE *f, const char *dir, const char *name);
int ttexport_event_id(const struct ttrace_meta_table *m, const char *name);
/* What ttexport_name() may put in a name. */
enum ttexport_charset {
	TTEXPORT_PRINTABLE,		/* printable ASCII, '?' for others */
	TTEXPORT_IDENT,			/* [A-Za-z0-9_], '_' for others */
};

size_t ttexport_name(char *buf, size_t size, const struct ttload *t,
		     unsigned tag, uint64_t ident, uint64_t ts,
		     enum ttexport_charset cs);
uint64_t ttexport_ns(const struct ttload *t, uint64_t ts);
bool ttexport_args_are(const struct ttrace_event_meta *e, const char *words);

/* Each thread's prio as its wakeup records say (sched_waking, _wakeup,
 * _wakeup_new: comm pid prio), for the records that have no prio of
 * their own (proc_exit's, proc_free's; an older kernel's sched_switch:
 * ttexport_switch_prio() takes a newer one's own prev_prio/next_prio). */
#define TTEXPORT_PRIO_DEFAULT	120	/* Linux's nice 0: no record says */
struct ttexport_prio {
	uint64_t pid, ts;
	uint32_t prio;
};
struct ttexport_prios {
	struct ttexport_prio *v;	/* by pid, then time */
	size_t n;
};
int ttexport_prios_init(struct ttexport_prios *p, const struct ttload *t);
uint32_t ttexport_prio(const struct ttexport_prios *p, uint64_t pid,
		       uint64_t ts);
uint32_t ttexport_switch_prio(const struct ttexport_prios *p,
			      const struct ttload *t,
			      const struct ttrace_event_view *ev,
			      unsigned which);
void ttexport_prios_free(struct ttexport_prios *p);

/* The commands, which register themselves with ttdecode and which the
 * tests run directly: argv[0] TRACE, argv[1] DIR. Return the exit status. */
int ttuftrace_main(int argc, char **argv);
int ttctf_main(int argc, char **argv);

#endif /* TTEXPORT_H */
