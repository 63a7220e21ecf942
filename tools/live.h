/*
 * live.h: the live drain's source (the host half of `make live`,
 * docs/pull.md): a running guest's trace read straight out of its RAM,
 * which QEMU shares with the host (a memory-backend-file with share=on),
 * while the guest runs and without it doing anything.
 *
 * It is a struct ttrace_image_ops for the one trace-file writer
 * (kern/trace/lib/image.c) in stream mode: each CPU's next run, read by
 * trace_ring_read() over the guest's own ring, exactly as the kernel's
 * stream reader reads it. The guest is found through its root record
 * (ttrace_root.h) and rebuilt by the pull (ttrace_pull_image()) over
 * pointers into the shared RAM instead of dumps, so the two hosts' views
 * of the guest are one code.
 *
 * What moves: ring heads and starts (read from the guest's descriptors
 * before every read), and, on a resize or a CPU brought up, the root
 * record's generation: the source then attaches again and goes on, the
 * cursors kept (a resized ring continues the old one's indices, so the
 * records it dropped are declared lost, "cleared"). A run copied while
 * the generation changed, or whose first slot the writer lapped during
 * the copy (the library's own check reads the head of its copy of the
 * descriptor, so this one re-reads the guest's), is thrown away and read
 * again: never a wrong record, never an undeclared gap.
 *
 * Usage:
 *	struct ttlive *l = calloc(1, sizeof(*l));
 *	l->ram = map; l->ram_size = n; l->root_pa = pa; l->root_size = sz;
 *	while (ttlive_attach(l) < 0) wait_or_fail(l->why);
 *	ttlive_gen_init(l, &g, &w, scratch, max);
 *	while ((k = ttrace_image_step(&g)) != TTRACE_IMAGE_DONE)
 *		if (k == TTRACE_IMAGE_WAIT) sleep_a_little();
 *	// to stop: ttlive_end(l, &g), then step to DONE
 */
#ifndef TTLIVE_H
#define TTLIVE_H

#include <ttrace_image.h>
#include <ttrace_pull.h>

/* How long a slot may stay in flight before it is declared lost. */
#define TTLIVE_PATIENCE_NS	200000000ULL

struct ttlive_cpu {
	struct trace_ring ring;		/* the guest's, entries in ram */
	uint64_t desc_pa;		/* where its descriptor is */
	uint64_t entries_va;		/* the guest's pointer to entries */
	struct trace_ring_cursor cur;
	struct trace_ring_patience wait;
	struct ttrace_file_range range;	/* the indices its runs covered */
	uint64_t end;			/* UINT64_MAX until ttlive_end() */
	bool started;
};

struct ttlive {
	/* the caller's */
	const uint8_t *ram;		/* guest physical address 0 */
	uint64_t ram_size;
	uint64_t root_pa;		/* the root record (nm: ttrace_root) */
	uint64_t root_size;
	uint64_t (*now_ns)(void);	/* a clock, for the patience */
	uint32_t want_cpus;		/* attach once this many are up */
	/* as of the first attach: the file's header */
	struct ttrace_version version;
	struct ttrace_file_tsc tsc[TTRACE_MAX_CPUS];
	uint8_t *meta;			/* a copy */
	/* state */
	bool attached;
	bool ending;
	uint64_t generation;		/* of the record attached */
	uint64_t root_pa_aux;		/* the aux descriptor; 0: none */
	uint64_t aux_va;		/* its buffer's guest pointer */
	struct ttrace_aux aux;		/* buf in ram */
	uint8_t *aux_copy;		/* the final snapshot */
	struct ttlive_cpu cpu[TTRACE_MAX_CPUS];
	/* tallies */
	uint64_t records;
	uint64_t lost[TTRACE_LOSS_NREASONS];
	uint64_t attaches;		/* the first, then one per change */
	char why[256];			/* the error, when one failed */
};

int ttlive_attach(struct ttlive *l);
void ttlive_gen_init(struct ttlive *l, struct ttrace_image_gen *g,
		     struct ttrace_file_writer *w, struct ttrace_entry *buf,
		     size_t max);
void ttlive_end(struct ttlive *l, struct ttrace_image_gen *g);
void ttlive_free(struct ttlive *l);

#endif /* TTLIVE_H */
