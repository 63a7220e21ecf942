/*
 * The kernel's tracepoint bodies, inlined at every enabled-check site (see
 * ttrace_emit.h): read the trace clock (rdtsc) first, then write one entry
 * into this CPU's ring with the context this CPU is in, the ring and the
 * context each one GS-relative load. No lock, no call; interrupts may nest
 * anywhere (trace_ring.h explains why that is safe). The kernel is not
 * preemptible, so "this CPU" cannot change under the writer. Counted
 * exactly by make bench: 28 guest instructions with the armed check.
 */
#ifndef TTRACE_EMIT_INLINE_H
#define TTRACE_EMIT_INLINE_H

#include <trace_ring.h>
#include <smp.h>
#include <stddef.h>
#include <arch/arch.h>

extern uint8_t ttrace_armed[];

/* Writes event id, stamped ts (read first), into r with the context this
 * CPU is in: the body of every tracepoint, with r this CPU's ring; and how
 * a test writes a private tracer's ring (ttrace_new()). */
static __always_inline void ttrace_record_to_n(struct trace_ring *r,
					       uint64_t ts, uint32_t id,
					       unsigned nwords,
					       uint64_t d0, uint64_t d1,
					       uint64_t d2, uint64_t d3,
					       uint64_t d4)
{
	uint64_t base = arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_type_base));
	uint64_t ctx = arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_ctx));

	trace_ring_write_id_n(r, ts, base, id, ctx, nwords, d0, d1, d2, d3,
			      d4);
}

/* ttrace_record_to_n() of all 5 words. */
static __always_inline void ttrace_record_to(struct trace_ring *r,
					     uint64_t ts, uint32_t id,
					     uint64_t d0, uint64_t d1,
					     uint64_t d2, uint64_t d3,
					     uint64_t d4)
{
	ttrace_record_to_n(r, ts, id, TTRACE_ENTRY_ARGS, d0, d1, d2, d3, d4);
}

/* The same for an event of more than 5 words, with continuations. */
static __always_inline void ttrace_record_ext_to(struct trace_ring *r,
						 uint64_t ts, uint32_t id,
						 const uint64_t *args,
						 uint32_t nargs)
{
	uint64_t base = arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_type_base));
	uint64_t ctx = arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_ctx));

	trace_ring_write_ext_inline(r, ts, base | id, ctx, args, nargs);
}

/* Writes event id stamped ts into this CPU's ring: a record that takes
 * another's time (a latency probe's emit, probe_builtin.c). */
static __always_inline void ttrace_record_at(uint64_t ts, uint32_t id,
					     uint64_t d0, uint64_t d1,
					     uint64_t d2, uint64_t d3,
					     uint64_t d4)
{
	struct trace_ring *r = (struct trace_ring *)arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_ring));

	ttrace_record_to(r, ts, id, d0, d1, d2, d3, d4);
}

static __always_inline void ttrace_record(uint32_t id, uint64_t d0,
					  uint64_t d1, uint64_t d2,
					  uint64_t d3, uint64_t d4)
{
	ttrace_record_at(arch_trace_clock(), id, d0, d1, d2, d3, d4);
}

/* The emitters: an event of N words writes those N (its entry's other
 * words are no part of it, trace_ring_fill_n()). */
static __always_inline void ttrace_record_n(uint32_t id, unsigned nwords,
					    uint64_t d0, uint64_t d1,
					    uint64_t d2, uint64_t d3,
					    uint64_t d4)
{
	uint64_t ts = arch_trace_clock();

	ttrace_record_to_n((struct trace_ring *)arch_pcpu_read_u64(
				   offsetof(struct per_cpu_info, ttrace_ring)),
			   ts, id, nwords, d0, d1, d2, d3, d4);
}

static __always_inline void ttrace_emit_0(uint32_t id)
{
	ttrace_record_n(id, 0, 0, 0, 0, 0, 0);
}

static __always_inline void ttrace_emit_1(uint32_t id, uint64_t a0)
{
	ttrace_record_n(id, 1, a0, 0, 0, 0, 0);
}

static __always_inline void ttrace_emit_2(uint32_t id, uint64_t a0,
					  uint64_t a1)
{
	ttrace_record_n(id, 2, a0, a1, 0, 0, 0);
}

static __always_inline void ttrace_emit_3(uint32_t id, uint64_t a0,
					  uint64_t a1, uint64_t a2)
{
	ttrace_record_n(id, 3, a0, a1, a2, 0, 0);
}

static __always_inline void ttrace_emit_4(uint32_t id, uint64_t a0,
					  uint64_t a1, uint64_t a2, uint64_t a3)
{
	ttrace_record_n(id, 4, a0, a1, a2, a3, 0);
}

static __always_inline void ttrace_emit_5(uint32_t id, uint64_t a0,
					  uint64_t a1, uint64_t a2, uint64_t a3,
					  uint64_t a4)
{
	ttrace_record_n(id, 5, a0, a1, a2, a3, a4);
}

/* Events with 6 to TTRACE_MAX_ARGS words, with continuations: inline too,
 * args the site's local array and nargs a constant, so the words go
 * straight into the slots (trace_ring_fill_ext()). */
static __always_inline void ttrace_emit_ext(uint32_t id, const uint64_t *args,
					    uint32_t nargs)
{
	uint64_t ts = arch_trace_clock();
	struct trace_ring *r = (struct trace_ring *)arch_pcpu_read_u64(
		offsetof(struct per_cpu_info, ttrace_ring));

	ttrace_record_ext_to(r, ts, id, args, nargs);
}

#endif /* TTRACE_EMIT_INLINE_H */
