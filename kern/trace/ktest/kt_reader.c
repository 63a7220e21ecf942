/*
 * In-kernel tests of the #ttrace readers (../reader.c) where only the
 * kernel can make the case: a reader whose start fails for want of
 * memory, read again and again; the cpuN text's TSC offset rule; the
 * drain's SSE section.
 */
#include <ktest.h>
#include <kmalloc.h>
#include <pmem.h>
#include <printfmt.h>
#include <smp.h>
#include <string.h>
#include <ttrace.h>
#include <ttrace_decode.h>
#include <abi/errno.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/tsc.h>
#include <arch/x86.h>

#include "../internal.h"

/* Takes every free block of order 1 or more, as order-1 blocks chained
 * through their first word; returns the chain. */
static void *hog_order1(void)
{
	void *head = NULL, *p;

	while ((p = get_cont_pages(1, 0))) {
		*(void **)p = head;
		head = p;
	}
	return head;
}

static void free_chain(void *head)
{
	while (head) {
		void *p = head;

		head = *(void **)p;
		free_cont_pages(p, 1);
	}
}

/*
 * A cpuN reader whose start fails (memory for one of its two snapshots
 * and not the other: the order-1 block left is the text block's, or the
 * aux's) fails each read with -ENOMEM and holds nothing between reads:
 * every page comes back. It leaked a snapshot on every retry.
 */
static bool test_ttrace_reader_start_fail(void)
{
	struct ttrace_reader *r = ttrace_reader_new(TTRACE_READ_TEXT, 0);
	size_t before, after;
	void *hog, *one;
	char buf[64];
	long ret[4];

	KT_ASSERT(r, "no memory for a reader");
	/* the snapshots' small headers must not take a new kmalloc page
	 * below: make their size class hold two free blocks */
	void *a = kzmalloc(24), *b = kzmalloc(24);

	kfree(a);
	kfree(b);
	before = pmem_nr_free_pages();
	one = hog = hog_order1();
	KT_ASSERT(hog, "no order-1 block free");
	hog = *(void **)one;
	free_cont_pages(one, 1);	/* the one block of order >= 1 left */
	for (int i = 0; i < 4; i++)
		ret[i] = ttrace_reader_read(r, buf, sizeof(buf), 0);
	free_chain(hog);
	after = pmem_nr_free_pages();
	ttrace_reader_free(r);
	for (int i = 0; i < 4; i++)
		KT_ASSERT(ret[i] == -ENOMEM, "read %d of a reader without "
			  "memory returned %ld", i, ret[i]);
	KT_ASSERT(after == before, "free pages %zu before, %zu after 4 "
		  "failed starts", before, after);
	return true;
}
KTEST_REG(ttrace_reader_start_fail, test_ttrace_reader_start_fail);

/* The first record line of text (NUL terminated): the first line that is
 * not a loss line ("-- cpuN: ..."), or NULL. */
static const char *first_record_line(const char *text)
{
	while (text && !strncmp(text, "-- ", 3))
		if ((text = strchr(text, '\n')))
			text++;
	return text && *text ? text : NULL;
}

/*
 * The cpuN text puts records on CPU 0's clock by the TSC section's rule,
 * ttrace_ts_on_cpu0(), as ttdecode's text of a save does: with an offset
 * (odd: rounded down to even) beyond every timestamp, each record is at 0,
 * printed tsc_at_boot before boot. The reader subtracted plainly, and the
 * times wrapped to about 2^63 cycles after boot.
 */
static bool test_ttrace_reader_tsc_rule(void)
{
	static char text[4096];
	uint64_t ns = ttrace_ticks_to_ns(tsc_at_boot, tsc_freq_hz);
	uint64_t old = ttrace_set_mask(1ull << TTRACE_GROUP_TEST, ~0ull);
	struct ttrace_reader *r;
	const char *line;
	char want[40];
	int64_t saved;
	uint32_t cpu;
	long n;

	arch_irq_disable();
	cpu = core_id();
	ttrace_test_seq(1, 2, 3, 4, 5);	/* cpu's ring holds a record */
	arch_irq_enable();
	ttrace_set_mask(old, ~0ull);
	r = ttrace_reader_new(TTRACE_READ_TEXT, cpu);
	KT_ASSERT(r, "no memory for a reader");
	saved = tsc_offset[cpu];
	tsc_offset[cpu] = INT64_MAX;
	n = ttrace_reader_read(r, text, sizeof(text) - 1, 0);
	tsc_offset[cpu] = saved;
	ttrace_reader_free(r);
	KT_ASSERT(n > 0, "cpu%u text: read returned %ld", cpu, n);
	text[n] = 0;
	fmt_snprintf(want, sizeof(want), "-%lu.%03lu us ", ns / 1000,
		     ns % 1000);
	line = first_record_line(text);
	KT_ASSERT(line && !strncmp(line, want, strlen(want)),
		  "cpu%u text with offset INT64_MAX: first record '%.32s', "
		  "want it at '%s'", cpu, line ? line : "(none)", want);
	return true;
}
KTEST_REG(ttrace_reader_tsc_rule, test_ttrace_reader_tsc_rule);

/*
 * The drain's SSE section (arch/x86_64/src/simd.c, drain.c's quiet_step):
 * one at a time on a CPU, and once it ends SSE is off again and the XMM
 * registers no longer hold what the section left in them.
 */
static bool test_ttrace_simd_section(void)
{
	uint64_t flags = arch_irq_save(), xmm[2] = { 1, 1 };
	bool open = arch_simd_begin(), nested = false, off, again;

	if (open) {
		nested = arch_simd_begin();
		__asm__ __volatile__("pcmpeqd %%xmm7, %%xmm7" ::: "memory");
		arch_simd_end();
	}
	off = !(rcr4() & CR4_OSFXSR);
	again = arch_simd_begin();
	if (again) {
		__asm__ __volatile__("movdqu %%xmm7, %0" : "=m"(xmm));
		arch_simd_end();
	}
	arch_irq_restore(flags);
	KT_ASSERT(open && again, "no SSE section opened");
	KT_ASSERT(!nested, "a section opened inside another");
	KT_ASSERT(off, "CR4.OSFXSR still set after the section");
	KT_ASSERT(!xmm[0] && !xmm[1], "xmm7 kept %#lx %#lx after the section",
		  xmm[0], xmm[1]);
	return true;
}
KTEST_REG(ttrace_simd_section, test_ttrace_simd_section);
