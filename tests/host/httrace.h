/*
 * httrace.h: what the host tests that load back a trace file they wrote
 * from rings in memory share (test_ttrace_pull.c, test_ttrace_lastboot.c;
 * the writer's buffer, ht_membuf, is htest.h's; test_ttrace_live.c uses
 * the first): the metadata of a trace of user markers, a count of one
 * CPU's formatted lines that contain a string, and the check that every
 * index of a CPU's ring is a record or a declared loss.
 *
 *	n = ttrace_meta_serialise(&ht_marker_table, meta, sizeof(meta));
 *	HT_CHECK(ht_count_lines(&t, 0, "user_marker: x") == 1);
 *	HT_CHECK(ht_all_accounted(&t, 0, &rc));
 */
#ifndef HTTRACE_H
#define HTTRACE_H

#include <string.h>

#include <ttrace_decode.h>

#include "ttload.h"

/* The metadata of a trace of user markers only (ttrace_meta_serialise()
 * it into the guest's META region). */
static const struct ttrace_arg_meta ht_marker_args[] = {
	{ "marker", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER, 0, 0 },
};
static const struct ttrace_event_meta ht_marker_events[] = {
	{ "user_marker", "%s", ht_marker_args, 0, 0, 1, 1 },
};
static const struct ttrace_group_meta ht_marker_groups[] = {
	{ "user", 0, 1 },
};
static const struct ttrace_meta_table ht_marker_table = {
	ht_marker_events, ht_marker_groups, 1, 1,
};

/* Formats cpu c's events; returns how many lines contain want. */
static inline int ht_count_lines(const struct ttload *t, uint32_t c,
				 const char *want)
{
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	char line[512];
	int hits = 0;

	ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted, &t->meta);
	while (ttrace_pair_next(&it, &ev)) {
		ttrace_format_line(line, sizeof(line), &t->meta, &ev,
				   ttrace_aux_resolve, (void *)&t->aux);
		hits += strstr(line, want) != NULL;
	}
	return hits;
}

/* Whether every index of cpu c's ring in t, from its first run on, is a
 * record or a declared loss (the ring's bounds in *rc). */
static inline bool ht_all_accounted(const struct ttload *t, uint32_t c,
				    struct ttload_ring_check *rc)
{
	struct ttrace_file_error e;
	uint64_t lost = 0;

	if (ttload_check_ring(t, c, rc, &e) != 0)
		return false;
	for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
		lost += t->cpus[c].lost[r];
	return t->cpus[c].slots + lost == rc->end_index - rc->first_index;
}

#endif /* HTTRACE_H */
