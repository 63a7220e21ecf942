/*
 * ttrace_internal.h: the tracer object, for the files that implement the
 * tracer (ttrace*.c) and the in-kernel tests that look inside it. The
 * #ttrace device uses only ttrace_dev.h (included here), the rest of the
 * kernel only ttrace.h.
 *
 * Locks, outermost first:
 *	ctl_lock + ctl_busy	the ctl mutex: one control operation at a
 *				time; waiters spin (some are routine kernel
 *				messages) and count as quiet for the grace
 *				period the holder may be waiting for
 *	rings_lock		rwlock: readers of ring memory (devices,
 *				stats, version) read-lock it; resize and mode
 *				changes write-lock it while writers are
 *				quiesced. Never taken by tracepoints.
 *	aux_lock		rwlock around aux reservation and bounds, with
 *				interrupts off (aux writers run anywhere)
 */
#ifndef TTRACE_INTERNAL_H
#define TTRACE_INTERNAL_H

#include <spinlock.h>
#include <ttrace.h>
#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <text_patch.h>
#include <ttrace_probe.h>

#include "ttrace_dev.h"

struct ttrace {
	struct trace_ring rings[CONFIG_MAX_NUM_CPUS];
	unsigned ring_order;		/* pages per ring: 2^order */
	const char *off_reason;		/* non-NULL: no rings, tracing off */
	struct rwlock rings_lock;
	struct ttrace_aux aux;
	void *aux_mem;
	unsigned aux_order;
	struct rwlock aux_lock;
	struct ttrace_ctl_state ctl;
	struct spinlock ctl_lock;	/* guards ctl_busy */
	bool ctl_busy;			/* the ctl mutex is held */
	bool frozen;			/* ttrace_freeze(): CPUs write to
					   frozen_rings until a rearm */
};

extern struct ttrace ttrace_main;

unsigned ttrace_order_for(size_t bytes);
bool ttrace_armed_consistent(void);
bool ttrace_ring_is_sink(const struct ttrace *t, uint32_t cpu);
void ttrace_freeze(void);
void ttrace_thaw(struct ttrace *t);
void ttrace_early_adopt(struct ttrace *t);

/* The aux buffer and the rings (ttrace.c). */
void ttrace_aux_blob(unsigned tag, uint64_t ident, const void *p, size_t n);
const struct ttrace_aux *ttrace_aux_unlocked(void);
int ttrace_aux_read(void *out, size_t size, struct ttrace_aux_view *view);
void ttrace_aux_usage(uint64_t *bytes, uint64_t *size, uint64_t *dropped);
void ttrace_fill_version_bounds(struct ttrace_version *v, uint64_t aux_first,
				uint64_t aux_last);
struct trace_ring *ttrace_ring_of(uint32_t core);
extern const char *const ttrace_boot_phase_names[BOOT_PHASE_COUNT];

/* Control: the ctl mutex (ttrace_control.c), a grace period over every
 * CPU and re-arming from the ctl state, both with the mutex held. */
void ttrace_ctl_mutex_enter(void);
void ttrace_ctl_mutex_exit(void);
void ttrace_grace_period(void);
void ttrace_quiet_turn(void);
void ttrace_rearm_locked(void);

/* The probe API for callers that hold the ctl mutex (ttrace_probe.c). */
int ttrace_probe_attach_locked(uint32_t id, ttrace_probe_fn fn, void *arg);
unsigned ttrace_probe_detach_arg_locked(void *arg);

/* The built-in probes (ttrace_probes.c): ctl commands with the ctl mutex
 * held, results as text, the snapshot's rings. */
const char *ttrace_probes_control(const char *text, size_t len);
void ttrace_probes_text(struct seqbuf *s);
uint32_t ttrace_snap_read(uint32_t cpu, struct trace_ring_cursor *cur,
			  uint64_t *end, struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run);

/* Counters (ttrace_counters.c): ctl `counters`, with the ctl mutex held,
 * and the current values as text. */
const char *ttrace_counters_set(uint32_t ms, bool all);

/* Ring access for readers (the device): each takes rings_lock for reading. */
uint32_t ttrace_ring_read(uint32_t cpu, struct trace_ring_cursor *cur,
			  uint64_t end, struct ttrace_entry *out, size_t max,
			  struct trace_ring_run *run);
uint64_t ttrace_ring_end(uint32_t cpu);
void ttrace_ring_oldest(uint32_t cpu, struct trace_ring_cursor *cur);
void ttrace_ring_get_stats(uint32_t cpu, struct trace_ring_stats *st);

/* The root record for pulls from outside (ttrace_root.c). */
void ttrace_root_begin(void);
void ttrace_root_end(void);
void ttrace_root_update(void);
__noreturn void ttrace_hang(void);
/* Static keys and function sites (ttrace_patch.c, ttrace_fgraph.c). */
void ttrace_patch_sync(enum text_patch_mode mode);
bool ttrace_patch_consistent(void);
void ttrace_patch_counts(uint64_t *sites, uint64_t *live);
void ttrace_patch_want(uintptr_t addr, uint8_t op, uintptr_t target,
		       enum text_patch_mode mode);
void ttrace_patch_flush(enum text_patch_mode mode);
void fgraph_sync(enum text_patch_mode mode);
bool fgraph_consistent(void);
void fgraph_counts(uint64_t *sites, uint64_t *live);
const char *fgraph_set_filter(const char *glob, size_t len);
void fgraph_state_text(struct seqbuf *s);

#endif /* TTRACE_INTERNAL_H */
