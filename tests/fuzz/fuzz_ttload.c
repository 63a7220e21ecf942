/*
 * Fuzz target: a trace file as ttdecode reads it. ttload_buffer() frames
 * the file (kern/trace/lib/file.c: header, CRC-framed sections, END) and
 * checks every payload against the VERSION section (tools/load/ttload.c); on
 * success the aux snapshot and every CPU's records are checked as
 * `ttdecode verify` does, and events are formatted as `ttdecode text`
 * does, names resolved through the aux records. A bad file must give an
 * error naming an offset inside the file (or the end), never a crash.
 *
 * Each input is loaded twice: as it is, and resealed (reseal.c), its CRCs
 * and END section recomputed over the mutated bytes. A random change
 * almost always breaks a CRC, so without the second load the fuzzer would
 * test little but the CRC check; with it, the payload checks behind it
 * too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "fuzz.h"
#include "ttload.h"

/* Events formatted per CPU: each is formatted alone, so more of them
 * add time, not paths. */
#define FORMAT_MAX	256

/* Formats cpu c's first FORMAT_MAX events, as `ttdecode text` does. */
static void format_cpu(struct ttload *t, uint32_t c)
{
	static char line[8192];
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	int n = 0;

	ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted, &t->meta);
	while (n++ < FORMAT_MAX && ttrace_pair_next(&it, &ev))
		ttrace_format_timed_line(line, sizeof(line), t->version.tsc_hz,
					 t->version.tsc_boot, &t->meta, &ev,
					 ttload_resolve, t);
}

/* Loads and checks the file, as `ttdecode verify` and `text` do. */
static void load(const uint8_t *data, size_t size)
{
	struct ttrace_file_error err;
	struct ttload_ring_check rc;
	struct ttload_aux_check ac;
	struct ttload t;

	if (ttload_buffer(&t, data, size, &err) < 0) {
		if (err.offset != TTLOAD_NO_OFFSET && err.offset > size)
			abort();	/* an error must point into the file */
		return;
	}
	if (t.has_aux)
		ttload_check_aux(&t, &ac, &err);
	for (uint32_t c = 0; c < t.version.num_cpus; c++) {
		ttload_check_ring(&t, c, &rc, &err);
		format_cpu(&t, c);
	}
	ttload_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	load(data, size);
	if (size < TTRACE_FILE_HDR_SIZE || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	reseal(copy, size);
	if (memcmp(copy, data, size))
		load(copy, size);
	free(copy);
	return 0;
}
