/*
 * Host tests of the generated events (build/gen/ttrace_events.[ch] from
 * kern/trace/ttrace.events), the metadata blob (kern/trace/lib/meta.c) and the
 * formatter (kern/trace/lib/decode.c).
 *
 * The generated header is included with CONFIG_TTRACE defined; this file
 * plays the kernel, providing ttrace_armed[], ttrace_probes[] and
 * ttrace_emit_*() / ttrace_probe_fire() stubs that record their calls, so
 * enabled events are seen to emit, disabled ones not to, and probed ones
 * to call their probes instead.
 */
#define CONFIG_TTRACE 1

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <ttrace_events.h>
#include <ttrace_probe_spec.h>	/* TTRACE_STACK_DEPTH */
#include "ttrace_events.c"	/* the generated table, from build/gen */
#include "ttrace_meta_blob.c"	/* and its blob (tools/ttmetablob.c) */

/* ---- the kernel's side, recorded ---------------------------------------- */

uint8_t ttrace_armed[TTRACE_NUM_EVENTS];
struct ttrace_probe *ttrace_probes[TTRACE_NUM_EVENTS];
uint64_t ttrace_sp_syscall_errors_count;	/* the static probe's */

struct call {
	uint32_t id, nargs;
	bool probed;		/* through ttrace_probe_fire() */
	uint64_t a[TTRACE_MAX_ARGS];
};

static struct call calls[64];
static int ncalls;

static void record(uint32_t id, const uint64_t *a, uint32_t n)
{
	if (ncalls < 64) {
		calls[ncalls].id = id;
		calls[ncalls].nargs = n;
		calls[ncalls].probed = false;
		if (n)
			memcpy(calls[ncalls].a, a, n * sizeof(*a));
	}
	ncalls++;
}

void ttrace_probe_fire(uint32_t id, const uint64_t *args, uint32_t nargs)
{
	record(id, args, nargs);
	if (ncalls <= 64)
		calls[ncalls - 1].probed = true;
}

void ttrace_emit_0(uint32_t id)
{
	record(id, NULL, 0);
}

void ttrace_emit_1(uint32_t id, uint64_t a0)
{
	record(id, (uint64_t[]){ a0 }, 1);
}

void ttrace_emit_2(uint32_t id, uint64_t a0, uint64_t a1)
{
	record(id, (uint64_t[]){ a0, a1 }, 2);
}

void ttrace_emit_3(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2)
{
	record(id, (uint64_t[]){ a0, a1, a2 }, 3);
}

void ttrace_emit_4(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2,
		   uint64_t a3)
{
	record(id, (uint64_t[]){ a0, a1, a2, a3 }, 4);
}

void ttrace_emit_5(uint32_t id, uint64_t a0, uint64_t a1, uint64_t a2,
		   uint64_t a3, uint64_t a4)
{
	record(id, (uint64_t[]){ a0, a1, a2, a3, a4 }, 5);
}

void ttrace_emit_ext(uint32_t id, const uint64_t *args, uint32_t nargs)
{
	record(id, args, nargs);
}

/* A thread word (struct kthread's trace_word) of pid in state, prio 120,
 * traced. */
#define THREAD_WORD(pid, state)	(0x80ull << 56 | (uint64_t)(state) << 48 | \
				 120ull << 32 | (pid))

/* Calls every emitter once, in id order. */
static void fire_all(void)
{
	static int x;

	ttrace_boot_phase(3, 0x1234);
	ttrace_boot_phase_at(12, 0x5678, 2);
	ttrace_irq_enter(32, 32);
	ttrace_irq_exit(32, 32);
	ttrace_exception(14, 2, &x);
	ttrace_timer_tick(99);
	ttrace_ipi_send(1, 0xf0);
	ttrace_ipi_recv(0xf0);
	ttrace_sched_switch(THREAD_WORD(1, 3), THREAD_WORD(2, 0));
	ttrace_sched_waking(THREAD_WORD(2, 2), 1);
	ttrace_sched_wakeup(THREAD_WORD(2, 2), 1);
	ttrace_sched_wakeup_new(THREAD_WORD(5, 0), 0);
	ttrace_sched_blocked_reason(2, &x, (void *)fire_all);
	ttrace_cpu_idle(UINT32_MAX, 1);
	ttrace_kthread_create(4);
	ttrace_kthread_run(4);
	ttrace_kthread_block(4);
	ttrace_kthread_wake(4);
	ttrace_kmsg_run((void *)fire_all);
	ttrace_spin_contended(&x, 100);
	ttrace_rwlock_contended(&x, 200, true);
	ttrace_page_alloc(2, 0x1000);
	ttrace_page_free(0x1000, 2);
	ttrace_syscall_enter(3, 4, 5, 6);
	ttrace_syscall_exit(3, -14);
	ttrace_proc_create(7, 7, 1);
	ttrace_proc_exec(7, TTRACE_EXEC_IDENT(7), 7);
	ttrace_proc_exit(7, -1, 7);
	ttrace_proc_free(7, 7);
	ttrace_task_newtask(THREAD_WORD(7, 0), 1ull << 32 | 1);
	ttrace_task_rename(7, 1, 7);
	ttrace_user_marker(8);
	ttrace_page_fault(&x, 6, (void *)fire_all);
	ttrace_counter(3, 9, 7);
	ttrace_test_seq(1, 2, 3, 4, 5);
	ttrace_test_wide(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
	ttrace_func_entry(0x1000, 1);
	ttrace_func_exit(0x1000, 1, -2);
	ttrace_timerlat_sample(1, 2500);
	ttrace_osnoise_gap(0, 1200);
	ttrace_lat_max(0, 100, 5, (void *)fire_all, (void *)fire_all);
	ttrace_lat_over(1, 100, 5, (void *)fire_all, (void *)fire_all);
	ttrace_stack(2, 0x1000, 0x2000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		     0);
	ttrace_profile_sample(7, 7, 1, 1000, 2, 0x1000, 0x2000, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0, 0);
	ttrace_profile_switch(7, 7, 0, 1, 2, 0x1000, 0x2000, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0);
	ttrace_profile_wakeup(7, 7, 0, 8, 2, 0x1000, 0x2000, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0);
	ttrace_profile_offcpu(7, 7, 5000);
	ttrace_ustack(1, &x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		      NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

/* Whether id is one of the ids reserved for function probes or
 * synthetic events (no emitter). */
static bool reserved(uint32_t id)
{
	return (id >= TTRACE_EV_FPROBE_FIRST &&
		id < TTRACE_EV_FPROBE_FIRST + TTRACE_EV_FPROBE_COUNT) ||
	       (id >= TTRACE_EV_SYNTHETIC_FIRST &&
		id < TTRACE_EV_SYNTHETIC_FIRST + TTRACE_EV_SYNTHETIC_COUNT);
}

/* The static events' count: the ids that have an emitter. */
#define NUM_STATIC	(TTRACE_NUM_EVENTS - TTRACE_EV_FPROBE_COUNT - \
			 TTRACE_EV_SYNTHETIC_COUNT)

/* The count ids from first, reserved as NAME0.. in group: placeholders
 * without arguments, off, until the kernel fills them in. */
static int check_reserved(uint32_t first, uint32_t count, const char *name,
			  uint8_t group)
{
	for (uint32_t i = 0; i < count; i++) {
		const struct ttrace_event_meta *e = &ttrace_event_table[first + i];
		char want[16];

		snprintf(want, sizeof(want), "%s%u", name, i);
		HT_CHECK(!strcmp(e->name, want) && !e->nargs && !e->flags &&
			 e->group == group && !e->format[0]);
	}
	return 0;
}

static int test_table(void)
{
	const char *why;

	HT_CHECK(NUM_STATIC == 48 && TTRACE_NUM_GROUPS == 20);
	HT_CHECK(TTRACE_EV_FPROBE_COUNT == 16 && TTRACE_EV_SYNTHETIC_COUNT == 4);
	HT_CHECK(!check_reserved(TTRACE_EV_FPROBE_FIRST, TTRACE_EV_FPROBE_COUNT,
				 "fprobe", TTRACE_GROUP_FPROBE));
	HT_CHECK(!check_reserved(TTRACE_EV_SYNTHETIC_FIRST,
				 TTRACE_EV_SYNTHETIC_COUNT, "synthetic",
				 TTRACE_GROUP_SYNTHETIC));
	HT_CHECK(ttrace_meta_builtin.nevents == TTRACE_NUM_EVENTS);
	for (uint32_t i = 0; i < TTRACE_NUM_EVENTS; i++) {
		const struct ttrace_event_meta *e = &ttrace_event_table[i];

		HT_CHECK(e->id == i && ttrace_meta_group(&ttrace_meta_builtin,
							 e->group));
		if (ttrace_meta_check_format(e->format, e->args, e->nargs, &why))
			HT_FAIL("%s: %s", e->name, why);
	}
	HT_CHECK(!strcmp(ttrace_event_table[TTRACE_EV_IRQ_ENTER].name,
			 "irq_enter"));
	HT_CHECK(ttrace_event_table[TTRACE_EV_IRQ_ENTER].group == TTRACE_GROUP_IRQ);
	HT_CHECK(ttrace_event_table[TTRACE_EV_TEST_WIDE].nargs == 13);
	/* the generator's tag names map to ttrace_format.h's numbers */
	HT_CHECK(ttrace_event_table[TTRACE_EV_SYSCALL_ENTER].args[0].aux_tag ==
		 TTRACE_AUX_SYSCALL_NAME);
	HT_CHECK(ttrace_event_table[TTRACE_EV_SCHED_SWITCH].args[1].aux_tag ==
		 TTRACE_AUX_PROC_NAME);
	HT_CHECK(ttrace_event_table[TTRACE_EV_KTHREAD_RUN].args[0].aux_tag ==
		 TTRACE_AUX_KTHREAD_NAME);
	HT_CHECK(ttrace_event_table[TTRACE_EV_BOOT_PHASE].args[0].aux_tag ==
		 TTRACE_AUX_BOOT_PHASE);
	HT_CHECK(ttrace_event_table[TTRACE_EV_BOOT_PHASE_AT].args[0].aux_tag ==
		 TTRACE_AUX_BOOT_PHASE);
	HT_CHECK(ttrace_event_table[TTRACE_EV_USER_MARKER].args[0].aux_tag ==
		 TTRACE_AUX_USER_MARKER);
	HT_CHECK(ttrace_event_table[TTRACE_EV_USER_MARKER].args[0].type ==
		 TTRACE_ARG_STR);
	HT_CHECK(ttrace_event_table[TTRACE_EV_STACK].nargs ==
		 1 + TTRACE_STACK_DEPTH);
	HT_CHECK(ttrace_event_table[TTRACE_EV_STACK].args[16].aux_tag ==
		 TTRACE_AUX_KSYM_NAME);
	HT_CHECK(ttrace_event_table[TTRACE_EV_PROC_EXIT].args[1].type ==
		 TTRACE_ARG_S32);
	HT_CHECK(TTRACE_GROUP_MASK_DEFAULT ==
		 ttrace_meta_default_mask(&ttrace_meta_builtin));
	HT_CHECK(!(TTRACE_GROUP_MASK_DEFAULT & (1u << TTRACE_GROUP_TIMER)));
	HT_CHECK(!(TTRACE_GROUP_MASK_DEFAULT & (1u << TTRACE_GROUP_MM)));
	HT_CHECK(!(TTRACE_GROUP_MASK_DEFAULT & (1u << TTRACE_GROUP_LATENCY)));
	return 0;
}

static int test_emitters(void)
{
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	ncalls = 0;
	fire_all();
	HT_CHECK(ncalls == 0);
	memset(ttrace_armed, 1, sizeof(ttrace_armed));
	fire_all();
	HT_CHECK(ncalls == NUM_STATIC);
	for (uint32_t i = 0, c = 0; i < TTRACE_NUM_EVENTS; i++) {
		if (reserved(i))
			continue;
		HT_CHECK(calls[c].id == i);
		HT_CHECK(calls[c++].nargs ==
			 ttrace_event_words(&ttrace_event_table[i]));
	}
	HT_CHECK(calls[TTRACE_EV_PROC_EXIT].a[1] == UINT64_MAX);	/* -1 */
	/* packed: the thread word whole, its parts found by the metadata */
	HT_CHECK(calls[TTRACE_EV_SCHED_SWITCH].nargs == 2 &&
		 calls[TTRACE_EV_SCHED_SWITCH].a[0] == THREAD_WORD(1, 3));
	HT_CHECK(ttrace_arg_value(&ttrace_event_table[TTRACE_EV_SCHED_SWITCH],
				  5, calls[TTRACE_EV_SCHED_SWITCH].a, 2) == 120);
	HT_CHECK(calls[TTRACE_EV_SYSCALL_EXIT].a[1] == (uint64_t)-14);
	HT_CHECK(calls[TTRACE_EV_BOOT_PHASE_AT].a[1] == 0x5678);
	HT_CHECK(calls[TTRACE_EV_FUNC_EXIT].a[2] == (uint64_t)-2);
	HT_CHECK(calls[TTRACE_EV_PROC_EXEC].a[1] == (1ull << 32 | 7));
	HT_CHECK(calls[TTRACE_EV_CPU_IDLE].a[0] == UINT32_MAX);
	HT_CHECK(calls[TTRACE_EV_RWLOCK_CONTENDED].a[2] == 1);
	HT_CHECK(calls[TTRACE_EV_KMSG_RUN].a[0] == (uintptr_t)fire_all);
	for (int i = 0; i < 13; i++)
		HT_CHECK(calls[TTRACE_EV_TEST_WIDE].a[i] == (uint64_t)i);
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	ttrace_armed[TTRACE_EV_PAGE_FREE] = 1;
	ncalls = 0;
	fire_all();
	HT_CHECK(ncalls == 1 && calls[0].id == TTRACE_EV_PAGE_FREE);
	HT_CHECK(calls[0].a[0] == 0x1000 && calls[0].a[1] == 2);
	return 0;
}

/* An armed event with a probe calls ttrace_probe_fire() with the same
 * words, and only then; a disarmed one with a probe calls nothing. */
static int test_probed_emitters(void)
{
	static struct ttrace_probe *const some = (void *)1;

	memset(ttrace_armed, 1, sizeof(ttrace_armed));
	for (int i = 0; i < TTRACE_NUM_EVENTS; i++)
		ttrace_probes[i] = some;
	ncalls = 0;
	fire_all();
	HT_CHECK(ncalls == NUM_STATIC);
	for (uint32_t i = 0, c = 0; i < TTRACE_NUM_EVENTS; i++) {
		if (reserved(i))
			continue;
		HT_CHECK(calls[c].probed && calls[c].id == i);
		HT_CHECK(calls[c++].nargs ==
			 ttrace_event_words(&ttrace_event_table[i]));
	}
	HT_CHECK(calls[TTRACE_EV_SYSCALL_EXIT].a[1] == (uint64_t)-14);
	for (int i = 0; i < 13; i++)
		HT_CHECK(calls[TTRACE_EV_TEST_WIDE].a[i] == (uint64_t)i);
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	ncalls = 0;
	fire_all();
	HT_CHECK(ncalls == 0);
	memset(ttrace_probes, 0, sizeof(ttrace_probes));
	return 0;
}

/* syscall_exit's static probe runs inline when the event is armed, and
 * only then: it counts the failed syscalls and keeps every record. */
static int test_static_probe(void)
{
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	ttrace_sp_syscall_errors_count = 0;
	ncalls = 0;
	ttrace_syscall_exit(3, -2);
	HT_CHECK(ttrace_sp_syscall_errors_count == 0 && ncalls == 0);
	ttrace_armed[TTRACE_EV_SYSCALL_EXIT] = 1;
	ttrace_syscall_exit(3, -2);
	ttrace_syscall_exit(3, 5);
	HT_CHECK(ttrace_sp_syscall_errors_count == 1 && ncalls == 2);
	memset(ttrace_armed, 0, sizeof(ttrace_armed));
	return 0;
}

/* The ctl layer arms the kernel's array; emitters follow it. */
static int test_ctl_arms(void)
{
	static uint8_t enabled[TTRACE_NUM_EVENTS];
	struct ttrace_ctl_state st;
	struct ttrace_ctl_cmd cmd;

	ttrace_ctl_init(&st, &ttrace_meta_builtin, enabled, ttrace_armed);
	HT_CHECK(ttrace_armed[TTRACE_EV_IRQ_ENTER]);
	HT_CHECK(!ttrace_armed[TTRACE_EV_TIMER_TICK]);
	ncalls = 0;
	ttrace_timer_tick(1);
	HT_CHECK(ncalls == 0);
	HT_CHECK(!ttrace_ctl_parse(&cmd, "enable timer", 12, &ttrace_meta_builtin));
	ttrace_ctl_apply(&st, &cmd);
	ttrace_timer_tick(1);
	HT_CHECK(ncalls == 1 && calls[0].id == TTRACE_EV_TIMER_TICK);
	return 0;
}

/* ---- the metadata blob -------------------------------------------------- */

static _Alignas(16) uint8_t arena[1 << 16];
static uint8_t blob[1 << 14];

/* Distinct bytes everywhere: two arguments read alike from them only if
 * they are placed alike. */
static const uint64_t place_probe[26] = {
	0x0807060504030201ull, 0x100f0e0d0c0b0a09ull, 0x1817161514131211ull,
	0x201f1e1d1c1b1a19ull, 0x2827262524232221ull, 0x302f2e2d2c2b2a29ull,
	0x3837363534333231ull, 0x403f3e3d3c3b3a39ull, 0x4847464544434241ull,
	0x504f4e4d4c4b4a49ull, 0x5857565554535251ull, 0x605f5e5d5c5b5a59ull,
	0x6867666564636261ull, 0x706f6e6d6c6b6a69ull, 0x7877767574737271ull,
	0x807f7e7d7c7b7a79ull, 0x8887868584838281ull, 0x908f8e8d8c8b8a89ull,
	0x9897969594939291ull, 0xa09f9e9d9c9b9a99ull, 0xa8a7a6a5a4a3a2a1ull,
	0xb0afaeadacabaaa9ull, 0xb8b7b6b5b4b3b2b1ull, 0xc0bfbebdbcbbbab9ull,
	0xc8c7c6c5c4c3c2c1ull, 0xd0cfcecdcccbcac9ull,
};

static bool same_table(const struct ttrace_meta_table *a,
		       const struct ttrace_meta_table *b)
{
	if (a->nevents != b->nevents || a->ngroups != b->ngroups)
		return false;
	for (uint32_t g = 0; g < a->ngroups; g++)
		if (strcmp(a->groups[g].name, b->groups[g].name) ||
		    a->groups[g].bit != b->groups[g].bit ||
		    a->groups[g].flags != b->groups[g].flags)
			return false;
	for (uint32_t i = 0; i < a->nevents; i++) {
		const struct ttrace_event_meta *x = &a->events[i], *y = &b->events[i];

		if (strcmp(x->name, y->name) || strcmp(x->format, y->format) ||
		    x->id != y->id || x->group != y->group ||
		    x->flags != y->flags || x->nargs != y->nargs)
			return false;
		for (unsigned k = 0; k < x->nargs; k++)
			if (strcmp(x->args[k].name, y->args[k].name) ||
			    x->args[k].type != y->args[k].type ||
			    x->args[k].aux_tag != y->args[k].aux_tag ||
			    ttrace_arg_value(x, k, place_probe, 26) !=
			    ttrace_arg_value(y, k, place_probe, 26))
				return false;
	}
	return true;
}

static int test_blob_roundtrip(void)
{
	struct ttrace_meta_table t;
	const char *why = NULL;
	size_t n;

	n = ttrace_meta_serialise(&ttrace_meta_builtin, blob, sizeof(blob));
	HT_CHECK(n == ttrace_meta_blob_size);
	HT_CHECK(memcmp(blob, ttrace_meta_blob, n) == 0);	/* blob up to date */
	HT_CHECK(ttrace_meta_serialise(&ttrace_meta_builtin, blob, 10) == n);
	HT_CHECK(ttrace_meta_arena_size(ttrace_meta_blob, n) > 0);
	HT_CHECK(ttrace_meta_arena_size(ttrace_meta_blob, n) <= sizeof(arena));
	if (ttrace_meta_parse(ttrace_meta_blob, n, arena, sizeof(arena), &t, &why))
		HT_FAIL("parse: %s", why);
	HT_CHECK(same_table(&t, &ttrace_meta_builtin));
	HT_CHECK(ttrace_meta_serialise(&t, blob, sizeof(blob)) == n);
	HT_CHECK(memcmp(blob, ttrace_meta_blob, n) == 0);
	HT_CHECK(ttrace_meta_parse(ttrace_meta_blob, n, arena, 64, &t, &why) < 0);
	return 0;
}

static void fix_checksum(uint8_t *b, size_t n)
{
	uint32_t h = ttrace_meta_fnv1a(b, n - 4);

	for (int i = 0; i < 4; i++)
		b[n - 4 + i] = (uint8_t)(h >> (8 * i));
}

/*
 * Parses b[0..n) from an exact-size heap copy. What is accepted must be
 * exactly what the serialiser writes for the table it became, and must
 * format without trouble.
 */
static int parse_hostile(const uint8_t *b, size_t n, bool *ok)
{
	static uint8_t again[1 << 14];
	uint8_t *copy = malloc(n ? n : 1);
	struct ttrace_meta_table t;
	struct ttrace_event_view ev = { .nwords = 12 };
	const char *why;
	char line[128];
	int err = 0;

	memcpy(copy, b, n);
	*ok = ttrace_meta_parse(copy, n, arena, sizeof(arena), &t, &why) == 0;
	if (*ok && (ttrace_meta_serialise(&t, again, sizeof(again)) != n ||
		    memcmp(again, b, n)))
		err = -1;
	for (uint32_t i = 0; *ok && i < t.nevents; i++) {
		ev.id = i;
		ttrace_format_line(line, sizeof(line), &t, &ev, NULL, NULL);
	}
	free(copy);
	return err;
}

static int test_blob_corrupt(void)
{
	size_t n = ttrace_meta_blob_size;
	uint64_t accepted = 0, tries = 0;
	bool ok;

	for (size_t i = 0; i < n; i++) {	/* every byte: checksum catches */
		memcpy(blob, ttrace_meta_blob, n);
		blob[i] ^= 0x20;
		HT_CHECK(parse_hostile(blob, n, &ok) == 0 && !ok);
	}
	for (size_t len = 0; len < n; len += 7) {	/* truncated */
		memcpy(blob, ttrace_meta_blob, n);
		if (len >= 20)
			fix_checksum(blob, len);
		HT_CHECK(parse_hostile(blob, len, &ok) == 0 && !ok);
	}
	for (size_t i = 0; i < n - 4; i++) {	/* damage under a good sum */
		for (int bit = 0; bit < 8; bit++) {
			memcpy(blob, ttrace_meta_blob, n);
			blob[i] ^= (uint8_t)(1u << bit);
			fix_checksum(blob, n);
			HT_CHECK(parse_hostile(blob, n, &ok) == 0);
			accepted += ok;
			tries++;
		}
	}
	printf("# blob: %llu of %llu checksummed single-bit damages parse "
	       "(validated, and re-serialise to the same bytes)\n",
	       (unsigned long long)accepted, (unsigned long long)tries);
	HT_CHECK(accepted < tries);
	return 0;
}

/* Serialises a table with one defect; the parser must say why it fails. */
static int reject(const struct ttrace_event_meta *ev, uint32_t nev,
		  const char *want)
{
	static const struct ttrace_group_meta g[] = { { "irq", 1, 1 } };
	struct ttrace_meta_table in = { ev, g, nev, 1 }, out;
	const char *why = "";
	size_t n = ttrace_meta_serialise(&in, blob, sizeof(blob));

	if (n == 0 || n > sizeof(blob))
		return strcmp(want, "serialise") == 0 ? 0 : -1;
	if (!ttrace_meta_parse(blob, n, arena, sizeof(arena), &out, &why))
		return -1;
	return strstr(why, want) ? 0 : -1;
}

static int test_blob_semantics(void)
{
	static const struct ttrace_arg_meta u[] = { { "a", TTRACE_ARG_U32, 0, 0, 0 },
						    { "b", TTRACE_ARG_U32, 0, 0, 0 } };
	static const struct ttrace_arg_meta s0[] = { { "a", TTRACE_ARG_STR, 0, 0, 0 } };
	static const struct ttrace_arg_meta t0[] = { { "a", 0, 0, 0, 0 } };
	static const struct ttrace_arg_meta dup[] = { { "a", 3, 0, 0, 0 }, { "a", 3, 0, 0, 0 } };
	static const struct ttrace_arg_meta bad[] = { { "a-b", 3, 0, 0, 0 } };
	struct ttrace_event_meta e[2] = {
		{ "x", "%u", u, 0, 1, 1, 1 }, { "y", "%u", u, 1, 1, 1, 1 },
	};

	HT_CHECK(reject(e, 2, "nothing") < 0);		/* control: accepted */
	e[0].format = "%n";
	HT_CHECK(reject(e, 2, "not allowed") == 0);
	e[0].format = "%s";
	HT_CHECK(reject(e, 2, "not str") == 0);
	e[0].format = "%u %u";
	HT_CHECK(reject(e, 2, "more conversions") == 0);
	e[0].format = "";
	HT_CHECK(reject(e, 2, "fewer conversions") == 0);
	e[0].format = "%u\t";
	HT_CHECK(reject(e, 2, "non-printable") == 0);
	e[0].format = "%123u";
	HT_CHECK(reject(e, 2, "not allowed") == 0);
	e[0].format = "%u";
	e[1].name = "x";
	HT_CHECK(reject(e, 2, "duplicate event") == 0);
	e[1].name = "y";
	e[1].id = 5;
	HT_CHECK(reject(e, 2, "id is not its index") == 0);
	e[1].id = 1;
	e[1].group = 2;
	HT_CHECK(reject(e, 2, "undeclared group") == 0);
	e[1].group = 1;
	e[1].args = s0;
	HT_CHECK(reject(e, 2, "type or tag") == 0);
	e[1].args = t0;
	HT_CHECK(reject(e, 2, "type or tag") == 0);
	e[1].args = dup;
	e[1].nargs = 2;
	e[1].format = "%u%u";
	HT_CHECK(reject(e, 2, "duplicate argument") == 0);
	e[1].args = bad;
	e[1].nargs = 1;
	e[1].format = "%u";
	HT_CHECK(reject(e, 2, "malformed") == 0);
	e[1].args = u;
	e[1].flags = 0x80;
	HT_CHECK(reject(e, 2, "flags") == 0);
	e[1].flags = 1;
	e[1].nargs = TTRACE_MAX_ARGS + 1;
	HT_CHECK(reject(e, 2, "serialise") == 0);
	return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Random blobs with a good header and checksum: parse never misbehaves. */
static int test_blob_fuzz(void)
{
	struct timespec t0, t1;
	uint64_t iters = 0;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		size_t n = 20 + ht_rand(&rng) % 600;

		if (ht_rand(&rng) & 1) {
			for (size_t i = 0; i < n; i++)
				blob[i] = (uint8_t)(ht_rand(&rng) % 4 ? ht_rand(&rng) % 32 : ht_rand(&rng));
		} else {
			n = MIN(n, (size_t)ttrace_meta_blob_size);
			memcpy(blob, ttrace_meta_blob, n);
			for (int k = 0; k < 4; k++)
				blob[ht_rand(&rng) % n] = (uint8_t)ht_rand(&rng);
		}
		memcpy(blob, "TTEM\x01\x00\x10\x00", 8);
		for (int i = 0; i < 4; i++)
			blob[8 + i] = (uint8_t)(n >> (8 * i));
		fix_checksum(blob, n);
		HT_CHECK(parse_hostile(blob, n, &ok) == 0);
		iters++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L +
		 (t1.tv_nsec - t0.tv_nsec) < 1000000000L);
	HT_CHECK(iters > 1000);
	return 0;
}

static int test_format_check(void)
{
	static const struct ttrace_arg_meta u[] = { { "a", TTRACE_ARG_U64, 0, 0, 0 } };
	static const struct ttrace_arg_meta s[] = { { "a", TTRACE_ARG_STR, 2, 0, 0 } };
	static const char *const good[] = {
		"%u", "%d", "x=%#llx", "%-08lld", "%+i", "% d", "%5.3u", "%hhx",
		"%hu", "%zu", "%lX", "%o", "%p", "%%%u%%", "%.2x", "%-#0 +x",
	};
	static const char *const bad[] = {
		"%n", "%s", "%f", "%c", "%*d", "%--d", "%123d", "%.123d", "%lp",
		"%zd", "%L", "%", "%ls", "%u %u", "", "%llld", "%jd", "%q",
	};
	const char *why;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (ttrace_meta_check_format(good[i], u, 1, &why))
			HT_FAIL("rejected '%s': %s", good[i], why);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (!ttrace_meta_check_format(bad[i], u, 1, &why))
			HT_FAIL("accepted '%s'", bad[i]);
	HT_CHECK(ttrace_meta_check_format("%-10s", s, 1, &why) == 0);
	HT_CHECK(ttrace_meta_check_format("%lu", s, 1, &why) == 0);
	HT_CHECK(ttrace_meta_check_format("%ls", s, 1, &why) < 0);
	return 0;
}

/* ---- formatter, end to end ---------------------------------------------- */

static _Alignas(64) struct ttrace_entry ring_mem[64];
static struct ttrace_entry copy[64];
static _Alignas(8) uint8_t aux_mem[4096], aux_snap[4096];

static void name(struct ttrace_aux *aux, unsigned tag, uint64_t ident,
		 const char *s)
{
	uint64_t pos;

	if (ttrace_aux_reserve(aux, tag, 0, strlen(s), &pos) == 0) {
		ttrace_aux_fill(aux, pos, 1, ident, s, strlen(s));
		ttrace_aux_publish(aux, pos);
	}
}

static const char *const expect_lines[] = {
	"1000 cpu1 sys:sh[7]:read syscall_enter: read(0x3, 0x1000, 0x10)",
	"1002 cpu1 sys:sh[7]:read syscall_exit: read = -14",
	"1004 cpu0 kt:idle?thread proc_exit: pid=sh status=-1 pid_nr=7",
	"1006 cpu0 irq:14/d2 exception: vector=14 error=0x2 rip=0xffff800000100000"
	" [..h]",
	"1008 cpu0 trap:[9]:14 sched_switch: prev=#9 next=sh prev_state=running "
	"prev_pid=9 next_pid=7 prev_prio=120 next_prio=121 [dN.]",
	"1010 cpu0 boot:early boot_phase: early arg=0x10",
	"1012 cpu3 idle test_wide: seq=0 sum=0x1 w2=2 w3=3 w4=4 w5=5 w6=6 w7=7 "
	"w8=8 w9=9 w10=10 w11=11 w12=12",
	"1014 cpu3 idle test_wide: seq=0 sum=0x1 w2=2 w3=3 w4=4 w5=5 w6=6 w7=7 "
	"w8=8 w9=9 w10=10 w11=11 w12=? (incomplete)",
	"1016 cpu0 ctx9:0x5 event#200: 0x1 0x2 0x3 0x4 0x5",
	"1018 cpu0 kt:idle?thread proc_create: pid=7 name=sh parent=1",
};

static void write_events(struct trace_ring *r)
{
	uint64_t wide[13];

	for (int i = 0; i < 13; i++)
		wide[i] = (uint64_t)i;
	trace_ring_write(r, 1000, TTRACE_TYPE(TTRACE_EV_SYSCALL_ENTER, TTRACE_CTX_SYSC,
					      0, 0, 1),
			 TTRACE_CTX_PIDWORD(7, 3), 3, 3, 0x1000, 16, 0);
	trace_ring_write(r, 1002, TTRACE_TYPE(TTRACE_EV_SYSCALL_EXIT, TTRACE_CTX_SYSC,
					      0, 0, 1),
			 TTRACE_CTX_PIDWORD(7, 3), 3, (uint64_t)-14, 0, 0, 0);
	trace_ring_write(r, 1004, TTRACE_TYPE(TTRACE_EV_PROC_EXIT, TTRACE_CTX_KTASK,
					      0, 0, 0), 2, 7, UINT64_MAX, 7, 0, 0);
	trace_ring_write(r, 1006, TTRACE_TYPE(TTRACE_EV_EXCEPTION, TTRACE_CTX_IRQ,
					      0, 2, 0), 14, 14, 2,
			 0xffff800000100000ULL, 0, 0);
	trace_ring_write(r, 1008, TTRACE_TYPE(TTRACE_EV_SCHED_SWITCH, TTRACE_CTX_TRAP,
					      0, 0, 0) | TTRACE_TYPE_IRQS_OFF |
			 TTRACE_TYPE_NEED_RESCHED, TTRACE_CTX_PIDWORD(9, 14),
			 THREAD_WORD(9, 1), THREAD_WORD(7, 2) + (1ull << 32),
			 0xdead, 0xdead, 0xdead);	/* no part of it */
	trace_ring_write(r, 1010, TTRACE_TYPE(TTRACE_EV_BOOT_PHASE, TTRACE_CTX_BOOT,
					      0, 0, 0), 1, 1, 16, 0, 0, 0);
	trace_ring_write_ext(r, 1012, TTRACE_TYPE(TTRACE_EV_TEST_WIDE,
						  TTRACE_CTX_IDLE, 0, 0, 3),
			     0, wide, 13);
	trace_ring_write_ext(r, 1014, TTRACE_TYPE(TTRACE_EV_TEST_WIDE,
						  TTRACE_CTX_IDLE, 0, 0, 3),
			     0, wide, 13);
	trace_ring_write(r, 1016, TTRACE_TYPE(200, 9, 0, 0, 0), 5, 1, 2, 3, 4, 5);
	trace_ring_write(r, 1018, TTRACE_TYPE(TTRACE_EV_PROC_CREATE,
					      TTRACE_CTX_KTASK, 0, 0, 0),
			 2, 7, 7, 1, 0, 0);
}

static int test_format_lines(void)
{
	struct trace_ring r;
	struct ttrace_aux aux;
	struct ttrace_aux_view v;
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	char line[256];
	size_t n, k = 0;

	HT_CHECK(trace_ring_init(&r, ring_mem, sizeof(ring_mem),
				 TRACE_RING_OVERWRITE) == 0);
	HT_CHECK(ttrace_aux_init(&aux, aux_mem, sizeof(aux_mem)) == 0);
	name(&aux, TTRACE_AUX_SYSCALL_NAME, 3, "read");
	name(&aux, TTRACE_AUX_PROC_NAME, 7, "sh");
	name(&aux, TTRACE_AUX_KTHREAD_NAME, 2, "idle\x01thread");
	name(&aux, TTRACE_AUX_BOOT_PHASE, 1, "early");
	name(&aux, TTRACE_AUX_STATE_NAME, 1, "running");	/* KT_RUNNING */
	HT_CHECK(ttrace_aux_snapshot(&aux, NULL, aux_snap, sizeof(aux_snap), &v) == 0);
	write_events(&r);
	n = trace_ring_collect(&r, 0, copy, 64, NULL);
	HT_CHECK(n == 14);
	copy[11].timestamp = TTRACE_TS_INVALID;	/* lose the 2nd wide's last cont */
	ttrace_pair_init(&it, copy, n, &ttrace_meta_builtin);
	while (ttrace_pair_next(&it, &ev)) {
		int len = ttrace_format_line(line, sizeof(line), &ttrace_meta_builtin,
					     &ev, ttrace_aux_resolve, &v);

		HT_CHECK(k < ARRAY_SIZE(expect_lines));
		if (strcmp(line, expect_lines[k]))
			HT_FAIL("line %zu:\n got  '%s'\n want '%s'", k, line,
				expect_lines[k]);
		HT_CHECK(len == (int)strlen(line));
		k++;
	}
	HT_CHECK(k == ARRAY_SIZE(expect_lines) && it.incomplete == 1);
	return 0;
}

static int test_format_edges(void)
{
	static const struct ttrace_arg_meta u[] = { { "a", TTRACE_ARG_U32, 0, 0, 0 } };
	struct ttrace_event_meta evil = { "evil", "%n%n", u, 0, 0, 0, 1 };
	struct ttrace_event_view ev = { .id = TTRACE_EV_IRQ_ENTER, .nwords = 5,
					.args = { 32, 7 } };
	char small[10], line[128];
	int n;

	n = ttrace_format_line(small, sizeof(small), &ttrace_meta_builtin, &ev,
			       NULL, NULL);
	HT_CHECK(n == (int)strlen("0 cpu0 boot irq_enter: vector=32 name=#7"));
	HT_CHECK(strlen(small) == 9 && !memcmp(small, "0 cpu0 bo", 9));
	HT_CHECK(ttrace_format_line(small, 0, &ttrace_meta_builtin, &ev, NULL,
				    NULL) == n);
	HT_CHECK(ttrace_format_args(line, sizeof(line), &evil, &ev, NULL, NULL) > 0);
	HT_CHECK(!strcmp(line, "0x20 0x7 0 0 0"));
	ev.nwords = 0;		/* every word lost */
	ttrace_format_args(line, sizeof(line), &ttrace_event_table[TTRACE_EV_IPI_SEND],
			   &ev, NULL, NULL);
	HT_CHECK(!strcmp(line, "dest=? vector=?"));
	return 0;
}

/* The function-graph events are indented two spaces per level of depth,
 * capped, so text output shows the call graph; other events are not. */
static int test_format_func_indent(void)
{
	struct ttrace_event_view ev = { .id = TTRACE_EV_FUNC_ENTRY, .nwords = 2,
					.args = { 4660, 2 } };
	char line[256];

	ttrace_format_line(line, sizeof(line), &ttrace_meta_builtin, &ev, NULL,
			   NULL);
	HT_CHECK(!strcmp(line, "0 cpu0 boot func_entry:     #4660 depth=2"));
	ev.id = TTRACE_EV_FUNC_EXIT;
	ev.args[1] = 0;
	ttrace_format_line(line, sizeof(line), &ttrace_meta_builtin, &ev, NULL,
			   NULL);
	HT_CHECK(!strcmp(line, "0 cpu0 boot func_exit: #4660 depth=0 retval=?"));
	ev.args[1] = ~0ull;	/* corrupt: at most 32 levels */
	HT_CHECK(ttrace_format_line(line, sizeof(line), &ttrace_meta_builtin,
				    &ev, NULL, NULL) ==
		 (int)strlen("0 cpu0 boot func_exit: #4660 depth=4294967295 "
			     "retval=?") +
		 64);
	ev.nwords = 1;		/* the depth word lost: no indent */
	ttrace_format_line(line, sizeof(line), &ttrace_meta_builtin, &ev, NULL,
			   NULL);
	HT_CHECK(!strcmp(line, "0 cpu0 boot func_exit: #4660 depth=? retval=?"));
	return 0;
}

static int test_version_check(void)
{
	struct ttrace_version good = {
		.magic = TTRACE_MAGIC, .header_version = TTRACE_HEADER_VERSION,
		.aux_version = TTRACE_AUX_VERSION,
		.percpu_version = TTRACE_PERCPU_VERSION,
		.header_size = sizeof(struct ttrace_version), .num_cpus = 4,
		.entry_size = 64, .entries_per_cpu = 16384, .tsc_hz = 2500000000u,
		.aux_size = 1 << 20, .aux_mask = (1 << 20) - 1,
		.aux_first = 5000000, .aux_last = 5000000 + (1 << 20),
		.event_count = TTRACE_NUM_EVENTS,
	}, v;
	const uint8_t *bytes = (const uint8_t *)&good;
	const char *why;

	HT_CHECK(!memcmp(bytes, "TTRACE\0\1", 8));	/* little-endian writer */
	HT_CHECK(ttrace_version_check(&good, &why) == 0);
#define BAD(field, value)						\
	do {								\
		v = good;						\
		v.field = value;					\
		if (!ttrace_version_check(&v, &why))			\
			HT_FAIL("accepted " #field " = " #value);	\
	} while (0)
	BAD(magic, TTRACE_MAGIC_SWAPPED);
	BAD(magic, 0);
	BAD(header_version, 2);
	BAD(percpu_version, 0);
	BAD(header_size, 64);
	BAD(entry_size, 128);
	BAD(num_cpus, 0);
	BAD(entries_per_cpu, 1000);
	BAD(entries_per_cpu, 1);
	BAD(aux_size, 1000);
	BAD(aux_mask, 0xffff);
	BAD(aux_last, 4999999);
	BAD(aux_last, 5000000 + (1 << 20) + 8);
	BAD(event_count, 5000);
	BAD(ring_mode, 2);
#undef BAD
	return 0;
}

static const struct ht_test tests[] = {
	{ test_table, "events_table" },
	{ test_emitters, "events_emitters" },
	{ test_probed_emitters, "events_probed_emitters" },
	{ test_ctl_arms, "events_ctl_arms" },
	{ test_static_probe, "events_static_probe" },
	{ test_blob_roundtrip, "meta_blob_roundtrip" },
	{ test_blob_corrupt, "meta_blob_corrupt" },
	{ test_blob_semantics, "meta_blob_semantics" },
	{ test_blob_fuzz, "meta_blob_fuzz" },
	{ test_format_check, "meta_format_check" },
	{ test_format_lines, "format_lines" },
	{ test_format_edges, "format_edges" },
	{ test_format_func_indent, "format_func_indent" },
	{ test_version_check, "version_check" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
