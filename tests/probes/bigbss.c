/*
 * A correct probe module with a large .bss, for the loader's tests
 * (tests/ttrace_tests.py, ttrace_module_space): built twice, as
 * /lib/probes/test/bss4m.o (BSS_MIB 4) and bss12m.o (BSS_MIB 12).
 * probe_init checks that each page of its .bss reads zero, as C promises,
 * and writes a mark into each; probe_report says how many marks are still
 * there, so a page of it that someone else also owns shows.
 *
 *	$ echo module load /lib/probes/test/bss4m.o > /dev/ttrace/ctl
 *	$ ttrace probe list
 *	module bss4m at 0xffffffffc0000000
 *	  bss 4 MiB pages 1024 marked 1024
 */
#include <compiler.h>
#include <printfmt.h>

#define WORDS_PER_PAGE	512
#define PAGES		(BSS_MIB * 256)

static uint64_t big[PAGES * WORDS_PER_PAGE];

int probe_init(void);
size_t probe_report(char *buf, size_t size);

/* The mark of page p: its own address, so a stale copy does not pass. */
static uint64_t mark(unsigned p)
{
	return (uint64_t)(uintptr_t)&big[p * WORDS_PER_PAGE] ^ 0x6d61726bull;
}

int probe_init(void)
{
	for (unsigned p = 0; p < PAGES; p++) {
		uint64_t *w = &big[p * WORDS_PER_PAGE];

		if (w[0] || w[WORDS_PER_PAGE - 1])
			return -5;	/* EIO: the .bss was not zero */
		w[0] = mark(p);
		w[WORDS_PER_PAGE - 1] = ~mark(p);
	}
	return 0;
}

size_t probe_report(char *buf, size_t size)
{
	unsigned marked = 0;

	for (unsigned p = 0; p < PAGES; p++)
		marked += big[p * WORDS_PER_PAGE] == mark(p) &&
			  big[(p + 1) * WORDS_PER_PAGE - 1] == ~mark(p);
	return (size_t)fmt_snprintf(buf, size, "  bss %d MiB pages %d marked "
				    "%u\n", BSS_MIB, PAGES, marked);
}
