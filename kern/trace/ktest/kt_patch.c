/*
 * The static-key and function-graph patching under load (docs/function-
 * graph.md): while user processes (`tracestress load`: getpid and marker
 * writes, i.e. syscall entry, the file layer and the #ttrace device) run
 * on every CPU, CPU 0 patches every tracepoint site and every function
 * site live (`enable *` with the filter `*`) and back to NOPs (`setmask 0`),
 * PATCH_ROUNDS times. Afterwards the text must agree with the armed bytes,
 * and with nothing armed every site is the NOP the compiler emitted: the
 * test prints the CRC-32 of the whole text then, which the host compares
 * with build/kernel.elf's .text (tests/boot_tests.py, check_text_crc), so
 * "byte-identical to the image" is checked against the image, not against
 * the kernel's own memory. Then the tracer's state is put back.
 *
 * Cost under TCG (2 busy host cores): a round patches ~50 tracepoint and
 * ~340 function sites each way, two or three batches of up to 256 sites
 * each, three IPI rounds a batch; with every function traced and the load
 * running it takes ~0.05 s at 1 CPU, ~0.9 s at 4 and ~3.7 s at 8. The test
 * runs in every ktests boot (1, 2, 4 and 8 CPUs), so PATCH_ROUNDS is 3:
 * about 15 s of the whole suite.
 */
#include <ktest.h>
#include <atomic.h>
#include "../internal.h"
#include "kt.h"
#include <ttrace.h>
#include <ttrace_file.h>
#include <printk.h>
#include <proc.h>
#include <sched.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <arch/arch.h>
#include <arch/tsc.h>

#define PATCH_ROUNDS	3

extern char __text_start[], __text_end[];

static const char *const all_on = "enable *";
static const char *const all_off = "setmask 0 0xffffffffffffffff";

/*
 * One `tracestress load` per CPU, parentless (reaped when they exit);
 * returns how many started, their pids in pids[]. The exit of pid 1 (init)
 * powers off, and a ktests boot has no init: if pid 1 is still free, a
 * sleeper takes it first and is left asleep (the ktests power off anyway).
 */
uint32_t kt_load_start(int *pids)
{
	static char *const load[] = { "tracestress", "load", NULL };
	static char *const sleeper[] = { "sleep", "1000000", NULL };
	uint32_t n = 0;
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	bool init_free = !proc_find_locked(1);

	spin_unlock_irqrestore(&proc_lock, flags);
	if (init_free && proc_spawn(NULL, "/bin/sleep", 2, sleeper, NULL) != 1)
		return 0;
	for (uint32_t c = 0; c < num_cpus; c++) {
		int pid = proc_spawn(NULL, "/bin/tracestress", 2, load, NULL);

		if (pid > 0)
			pids[n++] = pid;
	}
	return n;
}

/* Kills the load and waits until each has exited (the reaping of these
 * orphans is a kernel message to CPU 0, whose idle thread runs the ktests
 * and processes it only later). */
void kt_load_stop(const int *pids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		proc_kill(pids[i]);
	for (uint32_t i = 0; i < n; i++) {
		for (;;) {
			uint64_t flags = spin_lock_irqsave(&proc_lock);
			struct proc *p = proc_find_locked(pids[i]);
			bool gone = !p || p->state == PROC_ZOMBIE;

			spin_unlock_irqrestore(&proc_lock, flags);
			if (gone)
				break;
			yield();
		}
	}
}

/* See kt.h. */
bool kt_ctl(const char *cmd)
{
	const char *why;

	if (ttrace_control(cmd, strlen(cmd), &why) == 0)
		return true;
	ktest_fail("ctl '%s': %s", cmd, why);
	return false;
}

/* Whether every tracepoint site and every function site is live (want)
 * or a NOP (!want). */
static bool all_sites(bool want)
{
	uint64_t sites, live, fsites, flive;

	ttrace_patch_counts(&sites, &live);
	fgraph_counts(&fsites, &flive);
	KT_ASSERT(live == (want ? sites : 0) && flive == (want ? fsites : 0),
		  "%lu of %lu tracepoint sites and %lu of %lu function sites "
		  "live, expected %s", live, sites, flive, fsites,
		  want ? "all" : "none");
	return true;
}

struct patch_loop {
	int pids[CONFIG_MAX_NUM_CPUS];
	uint32_t nload;
	bool ok;
	uint32_t done;
};

/*
 * The ktask: patches every site live and back, PATCH_ROUNDS times, with the
 * load running, yielding between rounds so that on one CPU the load runs
 * too; then ends the load. A ktask, not the ktest itself: the ktests run
 * in CPU 0's idle thread, which gets the CPU back only when no thread is
 * runnable, i.e. once the load is gone.
 */
static void patch_rounds(void *arg)
{
	struct patch_loop *pl = arg;

	pl->ok = true;
	for (int i = 0; i < PATCH_ROUNDS && pl->ok; i++) {
		pl->ok = kt_ctl(all_on) && all_sites(true) && kt_ctl(all_off) &&
			 all_sites(false);
		yield();
	}
	kt_load_stop(pl->pids, pl->nload);
	atomic_set(&pl->done, 1);
}

/* Puts the enable flags and the mask back as they were. */
static bool restore(const uint8_t *enabled, uint64_t mask)
{
	char cmd[TTRACE_CTL_MAX_LEN];

	if (!kt_ctl("disable *"))
		return false;
	for (uint32_t e = 0; e < ttrace_meta_builtin.nevents; e++) {
		if (!enabled[e])
			continue;
		strlcpy(cmd, "enable ", sizeof(cmd));
		strlcat(cmd, ttrace_meta_builtin.events[e].name, sizeof(cmd));
		if (!kt_ctl(cmd))
			return false;
	}
	ttrace_set_mask(mask, ~0ull);
	return true;
}

static bool test_ttrace_patch_loop(void)
{
	static uint8_t enabled[TTRACE_NUM_EVENTS];
	static struct patch_loop pl;
	uint64_t mask = ttrace_main.ctl.mask, sites, fsites, live;
	struct kthread *kt;
	uint64_t start;
	uint32_t crc;
	const char *why;

	memset(&pl, 0, sizeof(pl));
	memcpy(enabled, ttrace_main.ctl.enabled, sizeof(enabled));
	KT_ASSERT(ttrace_funcs_control("*", 1, &why) == 0, "funcs *: %s", why);
	start = arch_read_tsc();
	pl.nload = kt_load_start(pl.pids);
	kt = kthread_create("patch_loop", patch_rounds, &pl);
	if (!kt || pl.nload != num_cpus) {
		kt_load_stop(pl.pids, pl.nload);
		KT_ASSERT(false, "%u of %u load processes started, ktask %s",
			  pl.nload, num_cpus, kt ? "made" : "not made");
	}
	sched_make_runnable(kt);
	while (!atomic_read(&pl.done))
		yield();
	if (!pl.ok)
		return false;	/* the ktask said why */
	crc = ttrace_crc32(0, __text_start, (uint64_t)(__text_end - __text_start));
	ttrace_patch_counts(&sites, &live);
	fgraph_counts(&fsites, &live);
	printk("ttrace_patch_loop: %d rounds of %lu tracepoint and %lu function "
	       "sites in %lu ms; text crc32c 0x%08x over 0x%lx bytes at 0x%lx\n",
	       PATCH_ROUNDS, sites, fsites,
	       tsc_to_ns(arch_read_tsc() - start) / 1000000, crc,
	       (uint64_t)(__text_end - __text_start), (uint64_t)__text_start);
	KT_ASSERT(restore(enabled, mask), "state not restored");
	KT_ASSERT(ttrace_armed_consistent(&ttrace_main), "text disagrees with the armed "
		  "bytes after the state was restored");
	return true;
}
KTEST_REG(ttrace_patch_loop, test_ttrace_patch_loop);
