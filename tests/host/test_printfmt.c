/*
 * Host tests for kern/lib/printfmt.c.
 *
 * Most checks print the same format and arguments with glibc's snprintf and
 * with fmt_snprintf and demand identical bytes and return values. CMP() does
 * that for literal formats (so both calls are type-checked by -Wformat); the
 * sweep tests build every combination of flags, width, precision, length
 * and conversion at run time and go through va_list, which -Wformat allows.
 * Where we differ from glibc on purpose (see printfmt.h) the expected text
 * is spelled out instead.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <compiler.h>
#include <printfmt.h>

static char gbuf[2048], mbuf[2048];
static int glen, mlen;

/* Formats with both implementations; returns true if they agree. */
static bool vboth(const char *fmt, va_list ap)
{
	va_list aq;

	va_copy(aq, ap);
	memset(gbuf, 'G', sizeof(gbuf));
	memset(mbuf, 'M', sizeof(mbuf));
	glen = vsnprintf(gbuf, sizeof(gbuf), fmt, ap);
	mlen = fmt_vsnprintf(mbuf, sizeof(mbuf), fmt, aq);
	va_end(aq);
	return glen == mlen && glen >= 0 && glen < (int)sizeof(gbuf) &&
	       memcmp(gbuf, mbuf, glen + 1) == 0;
}

static bool __attribute__((format(printf, 1, 2))) both(const char *fmt, ...)
{
	va_list ap;
	bool same;

	va_start(ap, fmt);
	same = vboth(fmt, ap);
	va_end(ap);
	return same;
}

/* both() for formats built at run time, which -Wformat cannot check. */
static bool both_built(const char *fmt, ...)
{
	va_list ap;
	bool same;

	va_start(ap, fmt);
	same = vboth(fmt, ap);
	va_end(ap);
	return same;
}

#define CMP(...)                                                           \
	do {                                                               \
		if (!both(__VA_ARGS__))                                    \
			HT_FAIL("line %d: %.80s: glibc '%.100s' (%d), "    \
				"ours '%.100s' (%d)", __LINE__,            \
				#__VA_ARGS__, gbuf, glen, mbuf, mlen);     \
	} while (0)

/* Expects fmt_snprintf to produce exactly want. */
#define OURS(want, ...)                                                    \
	do {                                                               \
		int n_ = fmt_snprintf(mbuf, sizeof(mbuf), __VA_ARGS__);    \
		if (n_ != (int)strlen(want) || strcmp(mbuf, want) != 0)    \
			HT_FAIL("line %d: got '%.100s' (%d) want '%s'",    \
				__LINE__, mbuf, n_, want);                 \
	} while (0)

/* CMP() for the combinations -Wformat frowns on but C (or, for %p,
 * glibc) defines. */
#define CMPX(...)                                                          \
	do {                                                               \
		if (!both_built(__VA_ARGS__))                              \
			HT_FAIL("line %d: %.80s: glibc '%.100s' (%d), "    \
				"ours '%.100s' (%d)", __LINE__,            \
				#__VA_ARGS__, gbuf, glen, mbuf, mlen);     \
	} while (0)

/* Formats with ours only, without a format attribute, so that -Wformat
 * lets through formats it would rightly reject. */
static int ours_unchecked(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	memset(mbuf, 'M', sizeof(mbuf));
	n = fmt_vsnprintf(mbuf, sizeof(mbuf), fmt, ap);
	va_end(ap);
	return n;
}

#define UNCHECKED(want_ret, want, ...)                                     \
	do {                                                               \
		int n_ = ours_unchecked(__VA_ARGS__);                      \
		if (n_ != (want_ret) || strcmp(mbuf, want) != 0)           \
			HT_FAIL("line %d: got '%.100s' (%d) want '%s' (%d)",\
				__LINE__, mbuf, n_, want, want_ret);       \
	} while (0)

static int test_plain_text(void)
{
	CMP("%s", "");
	CMP("hello, world\n");
	CMP("100%% sure %%%% %c%%", 'x');
	CMP("%d%s%c%u|%x", 1, "two", '3', 4u, 5u);
	return 0;
}

static int test_integers_table(void)
{
	CMP("%d %i %d %d", 0, -1, INT32_MAX, INT32_MIN);
	CMP("%u %u %x %X %o", 0u, UINT32_MAX, 0xdeadbeefu, 0xabcdefu, 0777u);
	CMP("%hhd %hhd %hhu %hhx", 300, -129, 511, 0x1ff);
	CMP("%hd %hd %hu %ho", 70000, -32769, 131071, 65535);
	CMP("%ld %lu %lx", (long)INT64_MIN, (unsigned long)UINT64_MAX,
	    (unsigned long)0x123456789abcdefUL);
	CMP("%lld %llu %llo", (long long)INT64_MIN, (unsigned long long)-1,
	    (unsigned long long)-1);
	CMP("%zu %zd %zx", (size_t)-1, (ssize_t)-5, (size_t)4096);
	CMP("%td %tu %tx", (ptrdiff_t)-77, (size_t)77, (size_t)77);
	CMP("%jd %ju %jX", INTMAX_MIN, UINTMAX_MAX, UINTMAX_MAX);
	CMPX("[%5d] [%-5d] [%05d] [%+d] [% d] [%+ d]", 42, 42, 42, 42, 42, 42);
	CMPX("[%05d] [%-05d] [%+05d] [% 05d] [%05d]", -42, -42, 42, 42, 0);
	CMP("[%.3d] [%.0d] [%.0d] [%5.0d] [%+.0d] [% .0d]", 7, 0, 1, 0, 0, 0);
	CMPX("[%08.3d] [%-8.3d] [%8.3x] [%.10d]", -7, -7, 0xfu, INT32_MIN);
	CMP("[%#x] [%#X] [%#o] [%#x] [%#o] [%#.0o] [%#.0x]", 255u, 255u, 8u,
	    0u, 0u, 0u, 0u);
	CMP("[%#08x] [%#-8x] [%#.4x] [%#10.4X] [%#.3o] [%#5o]", 255u, 255u,
	    1u, 1u, 8u, 8u);
	CMP("[%1d] [%2d] [%300d]", 12345, -12345, 1);
	return 0;
}

static int test_star_width_precision(void)
{
	CMP("[%*d] [%-*d] [%*d]", 6, 42, 6, 42, -6, 42);
	CMP("[%.*d] [%.*d] [%*.*d]", 4, 42, -1, 42, 8, 5, -42);
	CMP("[%.*s] [%.*s] [%.*s] [%*s]", 3, "abcdef", 0, "abc", -2, "xyz",
	    -5, "ab");
	CMP("[%0*d] [%0*d]", 5, -3, -5, -3);
	return 0;
}

static int test_strings_chars_pointers(void)
{
	int x;

	CMP("[%s] [%10s] [%-10s] [%.2s] [%10.2s] [%-10.2s]", "abc", "abc",
	    "abc", "abc", "abc", "abc");
	CMP("[%c] [%3c] [%-3c] [%c]", 'a', 'b', 'c', 200);
	CMP("[%c]", 0);
	CMP("[%p] [%20p] [%-20p] [%p]", (void *)&x, (void *)&x, (void *)&x,
	    (void *)(uintptr_t)UINTPTR_MAX);
	CMPX("[%020p] [%.20p] [%p]", (void *)0x1234, (void *)0x1234,
	    (void *)0x1);
	return 0;
}

/* The deliberate differences from glibc, checked against fixed text. */
static int test_own_behaviour(void)
{
	const char *nul = NULL;
	void *null = NULL;

	OURS("0x0 [     0x0]", "%p [%8p]", null, null);
	UNCHECKED(12, "(null) [(nu]", "%s [%.3s]", nul, nul);
	return 0;
}

/* Text that is not a valid conversion goes out as it is. */
static int test_unknown_conversions(void)
{
	int x = 5;

	UNCHECKED(2, "%y", "%y");
	UNCHECKED(5, "a%5kb", "a%5kb");
	UNCHECKED(5, "%lq 7", "%lq %d", 7);
	UNCHECKED(2, "%n", "%n", &x);
	UNCHECKED(2, "%f", "%f", 1.5);
	UNCHECKED(1, "%", "%");
	UNCHECKED(3, "x%-", "x%-");
	UNCHECKED(3, "%hh", "%hh");
	UNCHECKED(4, "%5.3", "%5.3");
	UNCHECKED(1, "%", "%5%");
	HT_CHECK(x == 5);
	return 0;
}

/* Widths and precisions past INT_MAX are refused, not wrapped. */
static int test_overflowing_field(void)
{
	UNCHECKED(-1, "ab", "ab%2147483648d", 1);
	UNCHECKED(-1, "", "%.99999999999s", "x");
	UNCHECKED(-1, "", "%*d", -2147483647 - 1, 1);
	UNCHECKED(1, "1", "%.2147483647s", "1");
	return 0;
}

/* C99 snprintf: the result is the full length; at most n-1 chars plus a
 * NUL are written, and nothing past n. */
static int test_truncation(void)
{
	char buf[32];

	for (size_t n = 0; n < 16; n++) {
		size_t keep = n ? (n - 1 < 11 ? n - 1 : 11) : 0;

		memset(buf, '#', sizeof(buf));
		HT_CHECK(fmt_snprintf(buf, n, "hello %s", "world") == 11);
		if (n)
			HT_CHECK(memcmp(buf, "hello world", keep) == 0 &&
				 buf[keep] == 0);
		for (size_t i = n; i < sizeof(buf); i++)
			HT_CHECK(buf[i] == '#');
	}
	HT_CHECK(fmt_snprintf(NULL, 0, "%d", 123456) == 6);
	HT_CHECK(fmt_snprintf(buf, 4, "%300d", 1) == 300);
	HT_CHECK(strcmp(buf, "   ") == 0);
	return 0;
}

/* A precision stops reading a string that is not NUL-terminated. */
static int test_precision_bounds_read(void)
{
	char *s = malloc(3);

	memcpy(s, "abc", 3);
	OURS("[abc]", "[%.3s]", s);
	OURS("[ab]", "[%.*s]", 2, s);
	free(s);
	return 0;
}

struct sink {
	char text[64];
	size_t n;
};

static void sink_putch(int c, void *arg)
{
	struct sink *s = arg;

	if (s->n < sizeof(s->text))
		s->text[s->n] = (char)c;
	s->n++;
}

static int __attribute__((format(printf, 2, 3)))
sink_printf(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vprintf(sink_putch, s, fmt, ap);
	va_end(ap);
	return n;
}

/* fmt_vprintf passes every character, NULs included, to putch. */
static int test_vprintf_callback(void)
{
	struct sink s = { .n = 0 };

	HT_CHECK(sink_printf(&s, "a%cb%5s", 0, "xy") == 8);
	HT_CHECK(s.n == 8 && memcmp(s.text, "a\0b   xy", 8) == 0);
	return 0;
}

static const char *const sweep_widths[] = { "", "1", "6", "25" };
static const char *const sweep_precs[] = { "", ".", ".0", ".1", ".4", ".22" };
static const char *const sweep_lengths[] = { "", "hh", "h", "l", "ll", "z",
					     "t", "j" };
static const int64_t sweep_values[] = {
	0, 1, -1, 42, -42, 127, -128, 255, 65535, -32768, INT32_MAX,
	INT32_MIN, UINT32_MAX, 1000000000000, INT64_MAX, INT64_MIN,
};

/* Passes v as exactly the type the length modifier and conversion need. */
static bool sweep_call(const char *fmt, size_t len, bool is_signed, int64_t v)
{
	switch (len) {
	case 0: case 1: case 2:
		return is_signed ? both_built(fmt, (int)v)
				 : both_built(fmt, (unsigned)v);
	case 3:
		return is_signed ? both_built(fmt, (long)v)
				 : both_built(fmt, (unsigned long)v);
	case 4:
		return is_signed ? both_built(fmt, (long long)v)
				 : both_built(fmt, (unsigned long long)v);
	case 5:
		return is_signed ? both_built(fmt, (ssize_t)v)
				 : both_built(fmt, (size_t)v);
	case 6:
		return is_signed ? both_built(fmt, (ptrdiff_t)v)
				 : both_built(fmt, (size_t)v);
	default:
		return is_signed ? both_built(fmt, (intmax_t)v)
				 : both_built(fmt, (uintmax_t)v);
	}
}

/* "%" + the flags in mask (bits over "-0+ #") + width + precision. */
static int spec_prefix(char *buf, unsigned mask, const char *width,
		       const char *prec)
{
	char flags[6];
	int n = 0;

	for (int i = 0; i < 5; i++)
		if (mask & (1u << i))
			flags[n++] = "-0+ #"[i];
	flags[n] = 0;
	return sprintf(buf, "[%%%s%s%s", flags, width, prec);
}

/* Every flag/width/precision/length combination for one conversion. */
static int sweep_conversion(char conv)
{
	bool is_signed = conv == 'd' || conv == 'i';
	char fmt[32];

	for (unsigned mask = 0; mask < 32; mask++) {
		/* '#' is undefined for %d %i %u, so only o x X get it. */
		if ((mask & 16) && (is_signed || conv == 'u'))
			continue;
		for (size_t w = 0; w < ARRAY_SIZE(sweep_widths); w++)
		for (size_t p = 0; p < ARRAY_SIZE(sweep_precs); p++)
		for (size_t l = 0; l < ARRAY_SIZE(sweep_lengths); l++) {
			int n = spec_prefix(fmt, mask, sweep_widths[w],
					    sweep_precs[p]);

			sprintf(fmt + n, "%s%c]", sweep_lengths[l], conv);
			for (size_t v = 0; v < ARRAY_SIZE(sweep_values); v++)
				if (!sweep_call(fmt, l, is_signed,
						sweep_values[v]))
					HT_FAIL("'%s' of %lld: glibc '%.60s' "
						"ours '%.60s'", fmt,
						(long long)sweep_values[v],
						gbuf, mbuf);
		}
	}
	return 0;
}

static int test_integer_sweep(void)
{
	const char convs[] = "diuoxX";

	for (size_t i = 0; convs[i]; i++)
		if (sweep_conversion(convs[i]))
			return 1;
	return 0;
}

/* Strings, characters and pointers under '-', widths and precisions. */
static int test_string_char_pointer_sweep(void)
{
	static const char *const strs[] = { "", "a", "abc", "hello world!" };
	static const int chars[] = { 'a', ' ', 200 };
	static int obj;
	const void *ptrs[] = { &obj, (void *)1, (void *)UINTPTR_MAX };
	char fmt[32];

	for (unsigned mask = 0; mask < 2; mask++)
	for (size_t w = 0; w < ARRAY_SIZE(sweep_widths); w++)
	for (size_t p = 0; p < ARRAY_SIZE(sweep_precs); p++) {
		int n = spec_prefix(fmt, mask, sweep_widths[w], sweep_precs[p]);

		strcpy(fmt + n, "s]");
		for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
			if (!both_built(fmt, strs[i]))
				HT_FAIL("'%s' of '%s'", fmt, strs[i]);
		if (p)
			continue;	/* a precision is undefined for c and p */
		strcpy(fmt + n, "c]");
		for (size_t i = 0; i < ARRAY_SIZE(chars); i++)
			if (!both_built(fmt, chars[i]))
				HT_FAIL("'%s' of %d", fmt, chars[i]);
		strcpy(fmt + n, "p]");
		for (size_t i = 0; i < ARRAY_SIZE(ptrs); i++)
			if (!both_built(fmt, ptrs[i]))
				HT_FAIL("'%s': glibc '%.60s' ours '%.60s'",
					fmt, gbuf, mbuf);
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_plain_text, "printfmt_plain_text" },
	{ test_integers_table, "printfmt_integers_table" },
	{ test_star_width_precision, "printfmt_star_width_precision" },
	{ test_strings_chars_pointers, "printfmt_strings_chars_pointers" },
	{ test_own_behaviour, "printfmt_own_behaviour" },
	{ test_unknown_conversions, "printfmt_unknown_conversions" },
	{ test_overflowing_field, "printfmt_overflowing_field" },
	{ test_truncation, "printfmt_truncation" },
	{ test_precision_bounds_read, "printfmt_precision_bounds_read" },
	{ test_vprintf_callback, "printfmt_vprintf_callback" },
	{ test_integer_sweep, "printfmt_integer_sweep" },
	{ test_string_char_pointer_sweep, "printfmt_string_char_pointer_sweep" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
