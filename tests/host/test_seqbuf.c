/*
 * Host tests for kern/lib/seqbuf.c: every append at each boundary of the
 * buffer (exact fit, one over, no room, a buffer of one byte and of none,
 * a text longer than the buffer), the cut mark, and that nothing is ever
 * written past the capacity: each buffer sits in a larger array filled
 * with a guard byte that must survive.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <printfmt.h>
#include <seqbuf.h>

#define GUARD	'#'
#define CAP	16

static char mem[CAP + 64];

/* A seqbuf of size bytes at the start of mem, the rest guard bytes. */
static void fresh(struct seqbuf *s, size_t size)
{
	memset(mem, GUARD, sizeof(mem));
	seqbuf_init(s, mem, size);
}

/* Whether every byte of mem from size on is still the guard. */
static bool guard_intact(size_t size)
{
	for (size_t i = size; i < sizeof(mem); i++)
		if (mem[i] != GUARD)
			return false;
	return true;
}

static int test_exact_fit(void)
{
	struct seqbuf s;

	fresh(&s, CAP);
	seqbuf_write(&s, "0123456789abcde", 15);	/* CAP - 1: fits */
	HT_CHECK(seqbuf_used(&s) == 15 && s.len == 15);
	HT_CHECK(!seqbuf_overflowed(&s) && seqbuf_room(&s) == 0);
	HT_CHECK(!strcmp(mem, "0123456789abcde"));
	seqbuf_mark_cut(&s);			/* not cut: unchanged */
	HT_CHECK(!strcmp(mem, "0123456789abcde"));
	HT_CHECK(guard_intact(CAP));
	return 0;
}

static int test_one_over(void)
{
	struct seqbuf s;

	fresh(&s, CAP);
	seqbuf_write(&s, "0123456789abcdef", 16);	/* CAP: one over */
	HT_CHECK(seqbuf_used(&s) == 15 && s.len == 16);
	HT_CHECK(seqbuf_overflowed(&s) && seqbuf_room(&s) == 0);
	HT_CHECK(!strcmp(mem, "0123456789abcde"));
	HT_CHECK(guard_intact(CAP));
	return 0;
}

/* Once full, every kind of append only counts. */
static int test_zero_room(void)
{
	struct seqbuf s;
	char *dst;

	fresh(&s, CAP);
	seqbuf_puts(&s, "0123456789abcde");
	seqbuf_putc(&s, 'x');
	seqbuf_puts(&s, "yz");
	seqbuf_printf(&s, "%d", 12345);
	seqbuf_printable(&s, "\001ab", 3);
	HT_CHECK(seqbuf_get_buf(&s, &dst) == 1 && dst == mem + 15);
	seqbuf_commit(&s, 4);
	HT_CHECK(s.len == 15 + 1 + 2 + 5 + 3 + 4);
	HT_CHECK(!strcmp(mem, "0123456789abcde") && guard_intact(CAP));
	return 0;
}

/*
 * seqbuf_printable, which copies a word at a time while the bytes are
 * printable: every length to 40, one byte at each position from either
 * edge of the printable range and beyond it, in buffers too small for
 * some of it, against the byte-by-byte rule; the source is an exact-size
 * allocation (AddressSanitizer: nothing read past it).
 */
static int test_printable_words(void)
{
	static const unsigned char odd[] = { 0x00, 0x1f, 0x20, 0x7e, 0x7f,
					     0x80, 0xff, '\t' };
	char out[64], want[64];

	for (size_t n = 0; n <= 40; n++)
	for (size_t at = 0; at <= n; at++)
	for (size_t o = 0; o < sizeof(odd); o++)
	for (size_t cap = n / 2; cap <= n + 1; cap += n / 2 + 1) {
		char *p = malloc(n ? n : 1);
		struct seqbuf s;
		size_t k = MIN(n, cap ? cap - 1 : 0);

		for (size_t i = 0; i < n; i++)
			p[i] = (char)('A' + i % 26);
		if (at < n)
			p[at] = (char)odd[o];
		for (size_t i = 0; i < k; i++)
			want[i] = p[i] >= 0x20 && p[i] <= 0x7e ? p[i] : '?';
		want[k] = 0;
		memset(out, 'Z', sizeof(out));
		seqbuf_init(&s, out, cap);
		seqbuf_printable(&s, p, n);
		free(p);
		if (s.len != n || (cap && memcmp(out, want, k + 1)) ||
		    out[cap] != 'Z')
			HT_FAIL("n %zu, byte %#x at %zu, room %zu: '%s', want "
				"'%s'", n, odd[o], at, cap, out, want);
	}
	return 0;
}

/* No buffer at all, and a buffer that holds only the NUL. */
static int test_no_capacity(void)
{
	struct seqbuf s;
	char *dst;

	fresh(&s, 0);
	seqbuf_puts(&s, "abc");
	seqbuf_printf(&s, "%s", "def");
	seqbuf_mark_cut(&s);
	HT_CHECK(s.len == 6 && seqbuf_used(&s) == 0 && seqbuf_room(&s) == 0);
	HT_CHECK(seqbuf_overflowed(&s) && seqbuf_get_buf(&s, &dst) == 0);
	HT_CHECK(guard_intact(0));
	fresh(&s, 1);
	seqbuf_putc(&s, 'a');
	seqbuf_mark_cut(&s);
	HT_CHECK(mem[0] == 0 && seqbuf_used(&s) == 0 && s.len == 1);
	HT_CHECK(guard_intact(1));
	return 0;
}

/* A text longer than the whole buffer, by each append. */
static int test_longer_than_buffer(void)
{
	static const char text[] = "the quick brown fox jumps over the lazy dog";
	struct seqbuf s;
	char *dst;
	size_t room;

	fresh(&s, CAP);
	seqbuf_write(&s, text, sizeof(text) - 1);
	HT_CHECK(s.len == sizeof(text) - 1 && !strncmp(mem, text, CAP - 1));
	HT_CHECK(mem[CAP - 1] == 0 && guard_intact(CAP));
	fresh(&s, CAP);
	seqbuf_printf(&s, "%s %s", text, text);
	HT_CHECK(s.len == 2 * (sizeof(text) - 1) + 1);
	HT_CHECK(!strncmp(mem, text, CAP - 1) && guard_intact(CAP));
	fresh(&s, CAP);
	seqbuf_printable(&s, "a\tb\x7f" "0123456789abcdefghij", 24);
	HT_CHECK(s.len == 24 && !strcmp(mem, "a?b?0123456789a"));
	HT_CHECK(guard_intact(CAP));
	fresh(&s, CAP);		/* a (buf, size) writer, snprintf's rules */
	seqbuf_puts(&s, "ab");
	room = seqbuf_get_buf(&s, &dst);
	HT_CHECK(dst == mem + 2 && room == CAP - 2);
	seqbuf_commit(&s, (size_t)fmt_snprintf(dst, room, "%s", text));
	HT_CHECK(s.len == 2 + sizeof(text) - 1 && seqbuf_used(&s) == CAP - 1);
	HT_CHECK(guard_intact(CAP));
	return 0;
}

/* Appends after a piece that did not fit are never written, even short
 * ones: the held text stays a prefix of the whole. */
static int test_prefix_kept(void)
{
	struct seqbuf s;

	fresh(&s, CAP);
	seqbuf_puts(&s, "0123456789");
	seqbuf_puts(&s, "abcdefgh");	/* 5 of 8 fit */
	seqbuf_putc(&s, '!');
	HT_CHECK(!strcmp(mem, "0123456789abcde") && s.len == 19);
	HT_CHECK(guard_intact(CAP));
	return 0;
}

/* The cut mark ends a cut text, on a text and on a line at each size
 * near the mark's own. */
static int test_cut_mark(void)
{
	static const char mark[] = SEQBUF_CUT;
	size_t m = sizeof(mark) - 1;
	struct seqbuf s;

	HT_CHECK(!strcmp(mark, "[...]\n"));
	fresh(&s, CAP);
	seqbuf_puts(&s, "line one\nline two is long\n");
	seqbuf_mark_cut(&s);
	HT_CHECK(!strcmp(mem, "line one\n[...]\n"));
	HT_CHECK(guard_intact(CAP));
	for (size_t size = 1; size <= m + 2; size++) {
		fresh(&s, size);
		seqbuf_puts(&s, "0123456789");
		seqbuf_mark_cut(&s);
		if (size - 1 >= m)
			HT_CHECK(!strcmp(mem + size - 1 - m, mark) &&
				 !strncmp(mem, "0123456789", size - 1 - m));
		else
			HT_CHECK(!strncmp(mem, mark, size - 1) &&
				 mem[size - 1] == 0);
		HT_CHECK(guard_intact(size));
	}
	/* a line that fits to its newline is whole; one byte more is cut */
	fresh(&s, 8);
	seqbuf_puts(&s, "abcdef");
	seqbuf_putc(&s, '\n');
	seqbuf_mark_cut(&s);
	HT_CHECK(!strcmp(mem, "abcdef\n"));
	fresh(&s, 8);
	seqbuf_puts(&s, "abcdefg");
	seqbuf_putc(&s, '\n');
	seqbuf_mark_cut(&s);
	HT_CHECK(!strcmp(mem, "a[...]\n") && guard_intact(8));
	return 0;
}

/* Random appends of every kind against a model of the whole text. */
static int test_random(void)
{
	uint64_t seed = 0x5eb0f;
	char whole[4096];
	size_t wlen;
	struct seqbuf s;

	for (int round = 0; round < 2000; round++) {
		size_t size = ht_rand(&seed) % (CAP + 1);

		fresh(&s, size);
		wlen = 0;
		for (int k = 0; k < 8; k++) {
			char piece[32];
			size_t n = ht_rand(&seed) % 12;

			for (size_t i = 0; i < n; i++)
				piece[i] = (char)('a' + ht_rand(&seed) % 26);
			piece[n] = 0;
			if (k % 2)
				seqbuf_write(&s, piece, n);
			else
				seqbuf_printf(&s, "%s", piece);
			memcpy(whole + wlen, piece, n);
			wlen += n;
		}
		if (s.len != wlen || !guard_intact(size))
			HT_FAIL("round %d: len %zu want %zu", round, s.len, wlen);
		if (size && (strlen(mem) != MIN(wlen, size - 1) ||
			     strncmp(mem, whole, MIN(wlen, size - 1))))
			HT_FAIL("round %d: held %s", round, mem);
	}
	return 0;
}

/* A count that saturated (a printf longer than INT_MAX says -1) stays
 * overflowed and never makes a later append write. */
static int test_saturated(void)
{
	struct seqbuf s;

	fresh(&s, CAP);
	seqbuf_puts(&s, "ab");
	seqbuf_commit(&s, SIZE_MAX);
	HT_CHECK(s.len == SIZE_MAX && seqbuf_overflowed(&s));
	seqbuf_putc(&s, 'x');
	seqbuf_puts(&s, "yz");
	seqbuf_printf(&s, "%d", 7);
	HT_CHECK(s.len == SIZE_MAX && seqbuf_used(&s) == CAP - 1);
	HT_CHECK(guard_intact(CAP));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_exact_fit, "seqbuf_exact_fit" },
	{ test_one_over, "seqbuf_one_over" },
	{ test_zero_room, "seqbuf_zero_room" },
	{ test_no_capacity, "seqbuf_no_capacity" },
	{ test_printable_words, "seqbuf_printable_words" },
	{ test_longer_than_buffer, "seqbuf_longer_than_buffer" },
	{ test_prefix_kept, "seqbuf_prefix_kept" },
	{ test_cut_mark, "seqbuf_cut_mark" },
	{ test_saturated, "seqbuf_saturated" },
	{ test_random, "seqbuf_random" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
