/*
 * ttbench: the tracer's fast paths measured on the host CPU, in user space,
 * with the very code the kernel inlines (kern/include/trace_ring.h and the
 * aux writer of kern/lib/ttrace_aux.c). `make bench` runs it beside the
 * in-guest benchmark because cycle counts inside a guest are only real
 * under hardware virtualisation, which some hosts (PVM, TCG) do not give.
 *
 * Each figure: 1000 batches of 1000 operations; per-operation cycles of
 * each batch (TSC, rdtscp-fenced) minus an empty loop's; min and median.
 * The kernel's emitter adds two %gs-relative loads (the CPU's ring and
 * context words) to what is measured here, and its aux writer saves and
 * restores the interrupt flag around the write lock.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace_ring.h>
#include <ttrace_aux.h>

#define BATCH	1000
#define BATCHES	1000

static uint64_t samples[BATCHES];
static volatile uint8_t armed[2] = { 1, 0 };	/* enabled, disabled */
static uint64_t ctxword = 42, typebase = 7;
static struct trace_ring ring;
static struct ttrace_aux aux;
static uint32_t aux_lock;

static inline uint64_t tscp(void)
{
	uint32_t lo, hi, aux_;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux_));
	return (uint64_t)hi << 32 | lo;
}

enum op { EMPTY, ENABLED, DISABLED, CONT, AUXSTR };

static inline __attribute__((always_inline)) void run_op(enum op op, uint64_t i)
{
	static const char s32[] = "0123456789abcdef0123456789abcdef";
	uint64_t words[13] = { i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	uint64_t pos;
	int err;

	switch (op) {
	case EMPTY:
		__asm__ __volatile__("" ::: "memory");
		break;
	case ENABLED:
	case DISABLED:
		if (__builtin_expect(armed[op == DISABLED], 0))
			trace_ring_write(&ring, tscp(), typebase | 24, ctxword,
					 i, 0, 0, 0, 0);
		break;
	case CONT:
		trace_ring_write_ext(&ring, tscp(), typebase | 25, ctxword,
				     words, 13);
		break;
	case AUXSTR:	/* the kernel's wlock: one CAS in, one atomic and out */
		while (!__atomic_compare_exchange_n(&aux_lock, &(uint32_t){ 0 },
						    0x80000000u, 0, __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED))
			;
		err = ttrace_aux_reserve(&aux, TTRACE_AUX_USER_MARKER, 0, 32, &pos);
		__atomic_fetch_and(&aux_lock, ~0x80000000u, __ATOMIC_RELEASE);
		if (!err) {
			ttrace_aux_fill(&aux, pos, tscp(), i, s32, 32);
			ttrace_aux_publish(&aux, pos);
		}
		break;
	}
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Samples op; returns per-op cycles x100 in samples[], sorted. */
static void measure(enum op op)
{
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = tscp();

		for (uint64_t i = 0; i < BATCH; i++)
			run_op(op, i);
		samples[b] = (tscp() - t0) * 100 / BATCH;
	}
	qsort(samples, BATCHES, sizeof(samples[0]), cmp);
}

static void report(const char *what, enum op op, uint64_t empty,
		   const char *target)
{
	measure(op);
	uint64_t min = samples[0] > empty ? samples[0] - empty : 0;
	uint64_t med = samples[BATCHES / 2] > empty ? samples[BATCHES / 2] - empty : 0;

	printf("host-bench: %-34s min %4llu.%02llu median %4llu.%02llu cycles  "
	       "(target %s)\n", what, (unsigned long long)min / 100,
	       (unsigned long long)min % 100, (unsigned long long)med / 100,
	       (unsigned long long)med % 100, target);
}

int main(void)
{
	static struct ttrace_entry entries[16384] __attribute__((aligned(64)));
	static uint8_t auxmem[1 << 20];

	trace_ring_init(&ring, entries, sizeof(entries), TRACE_RING_OVERWRITE);
	ttrace_aux_init(&aux, auxmem, sizeof(auxmem));
	printf("host-bench: the tracer's fast paths on this host CPU, user "
	       "space, %d x %d operations each (TSC cycles)\n", BATCHES, BATCH);
	measure(EMPTY);
	uint64_t empty = samples[0];
	report("enabled tracepoint, hot ring", ENABLED, empty, "<= 50");
	report("disabled tracepoint", DISABLED, empty, "<= 1");
	report("event with a continuation record", CONT, empty, "<= 90");
	report("32-byte aux string, uncontended", AUXSTR, empty, "<= 250");
	return 0;
}
