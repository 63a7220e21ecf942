/*
 * httrace.h: what the host tests that write a trace file from rings in
 * memory and load it back share (test_ttrace_pull.c,
 * test_ttrace_lastboot.c): a growing buffer the writer fills, and a count
 * of one CPU's formatted lines that contain a string, and the check that
 * every index of a CPU's ring is a record or a declared loss.
 *
 *	struct ht_membuf m = { 0 };
 *	ttrace_file_writer_init(&w, ht_mem_out, &m);
 *	... ttload_buffer(&t, m.p, m.len, &e) ...
 *	HT_CHECK(ht_count_lines(&t, 0, "user_marker: x") == 1);
 */
#ifndef HTTRACE_H
#define HTTRACE_H

#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttload.h"

struct ht_membuf {
	uint8_t *p;
	size_t len, cap;
};

/* A trace-file writer's output function: appends to the ht_membuf. */
static inline int ht_mem_out(void *arg, const void *buf, uint64_t len)
{
	struct ht_membuf *m = arg;

	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

/* Formats cpu c's events; returns how many lines contain want. */
static inline int ht_count_lines(const struct ttload *t, uint32_t c,
				 const char *want)
{
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	char line[512];
	int hits = 0;

	ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted);
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
