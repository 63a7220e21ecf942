/*
 * The text patcher's #BP fixup against back-to-back batches on one site
 * (arch/x86_64/src/text_poke.c). The ktest's CPU flips a site of its own
 * between the 5-byte NOP and `jmp .+5` (both do nothing) RACE_FLIPS times,
 * one batch after the other, while every other CPU runs the site in a loop.
 *
 * Bug (found under `TTRACE_MASK=all make test`, boot_smp8): a CPU that met
 * an int3 of one batch read "no batch in flight" after that batch ended,
 * then read the int3 the next batch had already written there, and
 * declared the trap not the patcher's: "unhandled breakpoint" panic.
 * Under QEMU's multi-threaded TCG a vCPU can run a stale translation of
 * an int3 after the batch's last sync, which opens that window.
 */
#include <ktest.h>
#include <atomic.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <text_patch.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#define RACE_FLIPS	100

extern char kt_race_site[];

/* The site: a 5-byte NOP at the global label kt_race_site. */
static __attribute__((noinline)) void race_site(void)
{
	asm volatile(".globl kt_race_site\n"
		     "kt_race_site: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00");
}

struct race {
	uint32_t flipper;	/* the CPU that flips: the ktest's */
	uint32_t done;
	uint64_t runs[CONFIG_MAX_NUM_CPUS];
};

/* The flipper flips the site, ending on the NOP; the others run it until
 * then. Kernel-message context, interrupts on (the patcher's syncs need
 * them). */
static void race_cpu(void *arg)
{
	struct race *r = arg;
	uint64_t n = 0;

	if (core_id() != r->flipper) {
		while (!atomic_read(&r->done)) {
			race_site();
			n++;
		}
		r->runs[core_id()] = n;
		return;
	}
	for (int i = 1; i <= RACE_FLIPS; i++) {
		struct text_patch p;
		uintptr_t site = (uintptr_t)kt_race_site;

		text_patch_encode(&p, site, i & 1 ? TEXT_OP_JMP : 0,
				  site + TEXT_PATCH_LEN);
		text_patch_apply(&p, 1, TEXT_PATCH_LIVE);
	}
	atomic_set(&r->done, 1);
}

static bool test_text_patch_race(void)
{
	static struct race r;
	uint64_t start = arch_read_tsc(), runs = 0;

	if (num_cpus < 2)
		return true;	/* nothing runs the site while it changes */
	r.flipper = core_id();
	atomic_set(&r.done, 0);
	memset(r.runs, 0, sizeof(r.runs));
	smp_run_on_all(race_cpu, &r);
	for (uint32_t c = 0; c < num_cpus; c++)
		runs += r.runs[c];
	printk("text_patch_race: %d flips, the site run %lu times by %u CPUs, "
	       "%lu ms\n", RACE_FLIPS, runs, num_cpus - 1,
	       tsc_to_ns(arch_read_tsc() - start) / 1000000);
	KT_ASSERT(text_patch_is_nop((uintptr_t)kt_race_site),
		  "the site is not the NOP after the last flip");
	return true;
}
KTEST_REG(text_patch_race, test_text_patch_race);
