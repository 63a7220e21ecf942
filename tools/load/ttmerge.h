/*
 * ttmerge: the events and declared losses of every CPU of a loaded trace
 * (tools/load/ttload.h) in one time order, for the decoders and exporters that
 * read a trace as one stream (text, json, stats).
 *
 * Each CPU's sorted view is already in time order, so the merge is a
 * binary min-heap of the CPUs keyed by (timestamp of their next item,
 * cpu): O(log CPUs) per item, whatever the number of CPUs. A CPU's
 * declared losses come before its first event at or after their placed
 * time (ttload_loss.ts); losses after a CPU's last event come after every
 * event, CPU by CPU. Continuations are joined by ttrace_pair_next().
 *
 * A reader of a few record kinds merges only those (ttmerge_init_only):
 * a stream steps over the other events by their type word alone, never
 * decoding them, so they cost a few instructions each and no heap step.
 *
 * With progress on (ttmerge_progress), the merge writes "ttdecode: N%" to
 * standard error as it goes; callers turn it on for big files when
 * standard error is a terminal (ttmerge_progress_wanted).
 *
 * Usage:
 *	struct ttmerge m;
 *	struct ttmerge_item it;
 *	if (ttmerge_init(&m, &t) < 0)
 *		oom();
 *	while (ttmerge_next(&m, &it))
 *		it.loss ? show_loss(it.cpu, it.loss) : show(it.ev);
 *	ttmerge_free(&m);
 */
#ifndef TTMERGE_H
#define TTMERGE_H

#include <stdbool.h>

#include <ttrace_decode.h>

#include "ttload.h"

/* A set of event ids (TTRACE_TYPE_ID), one bit each. */
#define TTMERGE_ID_WORDS	((TTRACE_TYPE_ID(~0ULL) + 1) / 64)

struct ttmerge_ids {
	uint64_t bits[TTMERGE_ID_WORDS];
};

/* Adds id to set (an id of no event, UINT32_MAX or beyond: nothing). */
static inline void ttmerge_ids_add(struct ttmerge_ids *set, uint32_t id)
{
	if (id < 64 * TTMERGE_ID_WORDS)
		set->bits[id / 64] |= 1ULL << (id % 64);
}

/* One item of the merge: an event, or (loss != NULL) a declared loss. */
struct ttmerge_item {
	uint32_t cpu;
	const struct ttload_loss *loss;
	const struct ttrace_event_view *ev;	/* valid until the next call */
	const struct ttrace_entry *entry;	/* ev's first entry, in the
						   cpu's sorted view */
};

struct ttmerge_stream {
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	bool have;			/* ev holds the next event */
	uint64_t nextloss;		/* index into losses */
	const struct ttload_loss *losses; /* the cpu's (ttload_cpu) */
	uint64_t nlosses;
};

/* A cpu in the heap, with the timestamp of its next item. */
struct ttmerge_slot {
	uint64_t key;
	uint32_t cpu;
};

struct ttmerge {
	const struct ttload *t;
	const struct ttmerge_ids *only;	/* the events merged (NULL: all) */
	struct ttmerge_stream *s;	/* one per cpu */
	struct ttmerge_slot *heap;	/* cpus with items left, by key */
	uint32_t nheap;
	uint32_t top_pending;		/* the top's item was returned: advance
					   it before the next one (enum in
					   ttmerge.c) */
	uint64_t done;			/* events returned */
	uint64_t next_report;		/* progress: done at the next report */
	int percent;			/* progress: last shown, -1 off */
};

int ttmerge_init(struct ttmerge *m, const struct ttload *t);
int ttmerge_init_only(struct ttmerge *m, const struct ttload *t,
		      const struct ttmerge_ids *only);
bool ttmerge_next(struct ttmerge *m, struct ttmerge_item *item);
void ttmerge_free(struct ttmerge *m);
bool ttmerge_progress_wanted(const struct ttload *t);
void ttmerge_progress(struct ttmerge *m, bool on);

#endif /* TTMERGE_H */
