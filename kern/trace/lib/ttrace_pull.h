/*
 * ttrace_pull.h: rebuilding the tracer's structures from dumps of a
 * guest's memory, so ttrace_image_write() can write them as a trace file
 * (the host half of `make pull`, docs/pull.md). The host dumps every region
 * the root record names (ttrace_root.h) into its own buffers; this code
 * checks the dumps against each other and the record, points copies of the
 * ring and aux descriptors at the dumped bytes, and fills the version
 * header. Pure: no I/O, no allocation; every size and pointer in the dumps
 * is checked before it is used, so a wrong or torn dump gets a message,
 * never an out-of-bounds read.
 *
 * Usage:
 *	struct ttrace_pull p = { .rings = rings, .cpus = cpus, .tsc = tsc,
 *				 .max_cpus = n };
 *	if (ttrace_pull_image(root, dumps, &p) < 0) fail(p.why);
 *	ttrace_image_write(&w, &p.img, scratch, 1024);
 */
#ifndef TTRACE_PULL_H
#define TTRACE_PULL_H

#include <ttrace_image.h>
#include <ttrace_root.h>

/* One region's bytes as the host dumped them (region i of the root). */
struct ttrace_pull_dump {
	const void *data;		/* as aligned as its region's paddr */
	uint64_t size;
};

/* Where CPU c's two regions are in the root's table (-1: absent). */
struct ttrace_pull_cpu {
	int64_t ring;
	int64_t buf;
};

struct ttrace_pull {
	/* the caller's arrays, max_cpus each */
	struct trace_ring *rings;
	struct ttrace_pull_cpu *cpus;
	struct ttrace_file_tsc *tsc;
	uint32_t max_cpus;
	/* results */
	struct ttrace_aux aux;
	struct ttrace_image img;
	char why[200];			/* the error, when it failed */
};

int ttrace_pull_image(const struct ttrace_root *root,
		      const struct ttrace_pull_dump *dumps,
		      struct ttrace_pull *p);

#endif /* TTRACE_PULL_H */
