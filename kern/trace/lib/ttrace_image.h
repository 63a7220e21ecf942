/*
 * ttrace_image.h: a trace file written straight from the tracer's memory:
 * the rings, the aux buffer, the metadata and the TSC offsets, as they lie
 * in memory, with no device file in between. Two writers use it: the
 * kernel's panic flight recorder (kern/trace/dump.c), over its own
 * live structures once every other CPU has stopped, and the host's pull
 * (tools/ttpull.c), over copies of them taken out of a hung guest's
 * memory (kern/trace/lib/pull.c rebuilds the structures around them).
 * So the ring-reading rules (runs, seq checks, declared losses) exist
 * once, in trace_ring_read(), for both.
 *
 * Usage:
 *	struct ttrace_image img = { .version = v, .meta = blob,
 *				    .rings = rings, .aux = &aux, .tsc = tsc };
 *	ttrace_file_writer_init(&w, out, arg);
 *	if (ttrace_image_write(&w, &img, scratch, 1024) < 0) ...
 */
#ifndef TTRACE_IMAGE_H
#define TTRACE_IMAGE_H

#include <compiler.h>
#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_file.h>

struct ttrace_image {
	struct ttrace_version version;	/* complete: aux bounds, num_cpus... */
	const void *meta;		/* version.meta_size bytes */
	const struct trace_ring *rings;	/* version.num_cpus rings */
	const struct ttrace_aux *aux;	/* NULL: no AUX section */
	const struct ttrace_file_tsc *tsc; /* num_cpus pairs; NULL: no TSC */
};

void ttrace_image_write_ring(struct ttrace_file_writer *w,
			     const struct trace_ring *r, uint32_t cpu,
			     struct ttrace_entry *buf, size_t max);
int ttrace_image_write(struct ttrace_file_writer *w,
		       const struct ttrace_image *img, struct ttrace_entry *buf,
		       size_t max);

#endif /* TTRACE_IMAGE_H */
