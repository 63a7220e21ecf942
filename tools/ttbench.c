/*
 * ttbench: the tracer's fast paths measured on the host CPU, in user space,
 * with the very code the kernel inlines (kern/trace/lib/trace_ring.h and the
 * aux writer of kern/trace/lib/aux.c). `make bench` runs it beside the
 * in-guest benchmark because cycle counts inside a guest are only real
 * under hardware virtualisation, which some hosts (PVM, TCG) do not give.
 *
 * Each figure: 1000 batches of 1000 operations; per-operation cycles of
 * each batch (TSC, rdtscp-fenced) minus an empty loop's (which does
 * nothing else: no stores); min, median and max. The tracepoint stamps
 * with rdtsc, as the kernel's (arch_trace_clock()). "clock floor" is the
 * physical limit: rdtsc plus one 64-byte store into a ring of the same
 * size. The kernel's emitter reads its ring and context words GS-relative
 * where this reads globals, and its aux writer saves and restores the
 * interrupt flag around the write lock. Lines starting "ttbench-data" are
 * for scripts/bench.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

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

static inline uint64_t tsc(void)
{
	uint64_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
}

static inline uint64_t tscp(void)
{
	uint32_t lo, hi, aux_;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux_));
	return (uint64_t)hi << 32 | lo;
}

enum op { EMPTY, ENABLED, DISABLED, CONT, AUXSTR, FLOOR };

static struct ttrace_entry floor_ring[16384] __attribute__((aligned(64)));

static inline __attribute__((always_inline)) void run_op(enum op op, uint64_t i)
{
	static const char s32[] = "0123456789abcdef0123456789abcdef";
	uint64_t pos;
	int err;

	switch (op) {
	case EMPTY:
		__asm__ __volatile__("" : : "r"(i) : "memory");
		break;
	case ENABLED:
	case DISABLED:
		if (__builtin_expect(armed[op == DISABLED], 0))
			trace_ring_write(&ring, tsc(), typebase | 24, ctxword,
					 i, 0, 0, 0, 0);
		break;
	case CONT: {
		uint64_t words[13] = { i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

		trace_ring_write_ext(&ring, tsc(), typebase | 25, ctxword,
				     words, 13);
		break;
	}
	case FLOOR: {	/* the clock and one whole line, nothing else */
		struct ttrace_entry *e = &floor_ring[i & 16383];
		uint64_t t = tsc();

		e->timestamp = t;
		e->type = i;
		e->context = t;
		for (int k = 0; k < 5; k++)
			e->data[k] = i;
		__asm__ __volatile__("" ::: "memory");
		break;
	}
	case AUXSTR: {	/* the kernel's wlock: one CAS in, one atomic and
			 * out; its aux_blob(): the common path, else the
			 * general one */
		uint64_t *w;
		bool linear;

		while (!__atomic_compare_exchange_n(&aux_lock, &(uint32_t){ 0 },
						    0x80000000u, 0, __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED))
			;
		linear = ttrace_aux_reserve_linear(&aux, TTRACE_AUX_USER_MARKER,
						   0, 32, &w);
		err = linear ? 0 : ttrace_aux_reserve(&aux,
						      TTRACE_AUX_USER_MARKER,
						      0, 32, &pos);
		__atomic_fetch_and(&aux_lock, ~0x80000000u, __ATOMIC_RELEASE);
		if (linear) {
			ttrace_aux_fill_linear(w, tsc(), i, s32, 32);
			ttrace_aux_publish_word(w);
		} else if (!err) {
			ttrace_aux_fill(&aux, pos, tsc(), i, s32, 32);
			ttrace_aux_publish(&aux, pos);
		}
		break;
	}
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

static uint64_t less_empty(uint64_t v, uint64_t empty)
{
	return v > empty ? v - empty : 0;
}

static void report(const char *key, enum op op, uint64_t empty)
{
	measure(op);
	printf("ttbench-data %s %.2f %.2f %.2f\n", key,
	       less_empty(samples[0], empty) / 100.0,
	       less_empty(samples[BATCHES / 2], empty) / 100.0,
	       less_empty(samples[BATCHES - 1], empty) / 100.0);
}

/* ns per getppid over 200k calls, five times: the ftrace anchor's loop. */
static void getppid_loop(void)
{
	for (int r = 0; r < 5; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 200000; i++)
			syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%.2f ", ((b.tv_sec - a.tv_sec) * 1e9 +
				 (b.tv_nsec - a.tv_nsec)) / 200000);
	}
	printf("\n");
}

/* ttbench [--rdtsc | --getppid]: the figures, or one TSC reading, or the
 * getppid loop scripts/bench.py times with and without ftrace. */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--rdtsc")) {
		printf("%llu\n", (unsigned long long)tsc());
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--getppid")) {
		getppid_loop();
		return 0;
	}
	static struct ttrace_entry entries[16384] __attribute__((aligned(64)));
	static uint8_t auxmem[1 << 20];

	trace_ring_init(&ring, entries, sizeof(entries), TRACE_RING_OVERWRITE);
	ttrace_aux_init(&aux, auxmem, sizeof(auxmem));
	measure(EMPTY);
	uint64_t empty = samples[BATCHES / 2];
	printf("ttbench-data empty %.2f %.2f %.2f\n", samples[0] / 100.0,
	       samples[BATCHES / 2] / 100.0, samples[BATCHES - 1] / 100.0);
	report("clock_floor", FLOOR, empty);
	report("enabled", ENABLED, empty);
	report("disabled", DISABLED, empty);
	report("cont", CONT, empty);
	report("aux", AUXSTR, empty);
	return 0;
}
