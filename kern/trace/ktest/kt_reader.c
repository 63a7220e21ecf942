/*
 * In-kernel tests of the #ttrace readers (../reader.c) where only the
 * kernel can make the case: a reader whose start fails for want of
 * memory, read again and again.
 */
#include <ktest.h>
#include <kmalloc.h>
#include <pmem.h>
#include <abi/errno.h>
#include <arch/mmu.h>

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
