/*
 * Host tests for kern/lib/string.c.
 *
 * string.c defines memcpy, strlen and friends, which would clash with glibc,
 * so this file includes it directly with every name remapped to a t_ prefix
 * and then compares t_foo against glibc's foo over exhaustive size,
 * alignment and overlap sweeps. Buffers are malloc'd at exactly the size an
 * operation may touch, so AddressSanitizer flags any byte read or written
 * outside it. glibc 2.36 has no strlcpy/strlcat; those are checked against
 * the BSD contract spelled out by hand.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "htest.h"

#define memcpy t_memcpy
#define memmove t_memmove
#define memset t_memset
#define memcmp t_memcmp
#define memchr t_memchr
#define strlen t_strlen
#define strnlen t_strnlen
#define strcmp t_strcmp
#define strncmp t_strncmp
#define strchr t_strchr
#define strrchr t_strrchr
#define strstr t_strstr
#define strcpy t_strcpy
#define strncpy t_strncpy
#define strlcpy t_strlcpy
#define strlcat t_strlcat
#define strtoul t_strtoul
#define strtoull t_strtoull
#define strtol t_strtol
#include "../../kern/include/string.h"
#include "../../kern/lib/string.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef memchr
#undef strlen
#undef strnlen
#undef strcmp
#undef strncmp
#undef strchr
#undef strrchr
#undef strstr
#undef strcpy
#undef strncpy
#undef strlcpy
#undef strlcat
#undef strtoul
#undef strtoull
#undef strtol

static uint64_t rng_state = 12345;

static void fill_random(unsigned char *p, size_t n)
{
	while (n--)
		*p++ = (unsigned char)ht_rand(&rng_state);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* Every size up to 300 between every pair of alignments mod 16. */
static int test_memcpy(void)
{
	for (size_t n = 0; n <= 300; n++)
	for (size_t so = 0; so < 16; so++)
	for (size_t d_o = 0; d_o < 16; d_o++) {
		unsigned char *src = malloc(so + n + 1);
		unsigned char *dst = malloc(d_o + n + 1);
		unsigned char *want = malloc(d_o + n + 1);

		fill_random(src, so + n + 1);
		fill_random(dst, d_o + n + 1);
		memcpy(want, dst, d_o + n + 1);
		memcpy(want + d_o, src + so, n);
		HT_CHECK(t_memcpy(dst + d_o, src + so, n) == dst + d_o);
		if (memcmp(dst, want, d_o + n + 1) != 0)
			HT_FAIL("n %zu src+%zu dst+%zu", n, so, d_o);
		free(src);
		free(dst);
		free(want);
	}
	return 0;
}

/* Overlap in both directions at every distance, plus disjoint moves. */
static int test_memmove(void)
{
	enum { SIZE = 160 };
	unsigned char *buf = malloc(SIZE), want[SIZE];

	for (size_t n = 0; n <= 120; n++)
	for (size_t so = 0; so + n <= SIZE && so < 40; so++)
	for (size_t d_o = 0; d_o + n <= SIZE && d_o < 40; d_o++) {
		fill_random(buf, SIZE);
		memcpy(want, buf, SIZE);
		memmove(want + d_o, want + so, n);
		HT_CHECK(t_memmove(buf + d_o, buf + so, n) == buf + d_o);
		if (memcmp(buf, want, SIZE) != 0)
			HT_FAIL("n %zu src+%zu dst+%zu", n, so, d_o);
	}
	free(buf);
	return 0;
}

static int test_memset(void)
{
	static const int values[] = { 0, 0xff, 0x5a, 0x1234, -1, -200 };

	for (size_t n = 0; n <= 300; n++)
	for (size_t off = 0; off < 16; off++)
	for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
		unsigned char *buf = malloc(off + n + 1), *want = malloc(off + n + 1);

		fill_random(buf, off + n + 1);
		memcpy(want, buf, off + n + 1);
		memset(want + off, values[v], n);
		HT_CHECK(t_memset(buf + off, values[v], n) == buf + off);
		if (memcmp(buf, want, off + n + 1) != 0)
			HT_FAIL("n %zu off %zu c %d", n, off, values[v]);
		free(buf);
		free(want);
	}
	return 0;
}

/* Equal buffers, then one differing byte at every position, both ways. */
static int test_memcmp(void)
{
	for (size_t n = 0; n <= 70; n++)
	for (size_t off = 0; off < 9; off++) {
		unsigned char *a = malloc(n + 1), *b = malloc(off + n + 1);

		fill_random(a, n);
		memcpy(b + off, a, n);
		HT_CHECK(t_memcmp(a, b + off, n) == 0);
		for (size_t k = 0; k < n; k++) {
			unsigned char keep = b[off + k];

			b[off + k] ^= 0x80 | (1 + k % 0x7f);
			if (sign(t_memcmp(a, b + off, n)) !=
			    sign(memcmp(a, b + off, n)) ||
			    sign(t_memcmp(b + off, a, n)) !=
			    sign(memcmp(b + off, a, n)))
				HT_FAIL("n %zu off %zu diff at %zu", n, off, k);
			b[off + k] = keep;
		}
		free(a);
		free(b);
	}
	return 0;
}

static int test_memchr(void)
{
	unsigned char *buf = malloc(64);

	for (size_t i = 0; i < 64; i++)
		buf[i] = i + 0xa0;
	for (size_t i = 0; i < 64; i++) {
		HT_CHECK(t_memchr(buf, 0xa0 + i, 64) == buf + i);
		HT_CHECK(t_memchr(buf, 0xa0 + i + 0x100, 64) == buf + i);
		HT_CHECK(t_memchr(buf, 0xa0 + i, i) == NULL);
		HT_CHECK(t_memchr(buf, 0xa0 + i, i + 1) == buf + i);
	}
	HT_CHECK(t_memchr(buf, 0, 64) == NULL);
	HT_CHECK(t_memchr(NULL, 0, 0) == NULL);
	free(buf);
	return 0;
}

/* memchr_inv (the debug kernel's poison and redzone check): every length
 * up to 3 cache lines at every alignment, the odd byte at every place or
 * nowhere, in exact-size buffers (ASan: no read past the range). */
static int test_memchr_inv(void)
{
	for (size_t align = 0; align < 8; align++) {
		for (size_t n = 0; n <= 192; n++) {
			unsigned char *mem = malloc(align + n ? align + n : 1);
			unsigned char *buf = mem + align;

			memset(buf, 0x6b, n);
			HT_CHECK(memchr_inv(buf, 0x6b, n) == NULL);
			HT_CHECK(memchr_inv(buf, 0x6b + 0x100, n) == NULL);
			for (size_t k = 0; k < n; k++) {
				buf[k] = 0x6a;
				HT_CHECK(memchr_inv(buf, 0x6b, n) == buf + k);
				HT_CHECK(k == 0 || memchr_inv(buf, 0x6b, k) == NULL);
				buf[k] = 0x6b;
			}
			free(mem);
		}
	}
	return 0;
}

/* Strings of every length at every alignment, in exact-size buffers. */
static int test_strlen_strnlen(void)
{
	char *raw = malloc(10);

	for (size_t len = 0; len < 70; len++)
	for (size_t off = 0; off < 9; off++) {
		char *s = malloc(off + len + 1);

		memset(s, 'x', off + len);
		s[off + len] = 0;
		HT_CHECK(t_strlen(s + off) == len);
		HT_CHECK(t_strnlen(s + off, len + 5) == len);
		HT_CHECK(t_strnlen(s + off, len) == len);
		if (len)
			HT_CHECK(t_strnlen(s + off, len - 1) == len - 1);
		free(s);
	}
	/* maxlen bounds the read: no NUL anywhere in the buffer. */
	memset(raw, 'y', 10);
	HT_CHECK(t_strnlen(raw, 10) == 10);
	free(raw);
	return 0;
}

/*
 * strnlen reads aligned words and is exempt from AddressSanitizer, so the
 * bound is checked by the hardware: strings (and unterminated runs, with
 * maxlen reaching exactly their end) at every alignment that end on the
 * last byte before an unmapped page; any read past that word faults. And
 * every length, offset and maxlen against glibc.
 */
static int test_strnlen_page_end(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *end;

	HT_CHECK(map != MAP_FAILED && mprotect(map + pg, pg, PROT_NONE) == 0);
	end = map + pg;
	memset(map, 'z', pg);
	for (size_t len = 0; len < 40; len++) {
		end[-1] = 0;		/* a string of len bytes and its NUL */
		HT_CHECK(t_strnlen(end - 1 - len, len + 100) == len);
		HT_CHECK(t_strnlen(end - 1 - len, len) == len);
		end[-1] = 'z';		/* no NUL: maxlen stops at the page */
		HT_CHECK(t_strnlen(end - 1 - len, len + 1) == len + 1);
	}
	for (size_t off = 0; off < 8; off++)
	for (size_t len = 0; len < 30; len++)
	for (size_t max = 0; max < 40; max++) {
		char *s = map + 64 + off;

		memset(map, 'z', 128);
		s[len] = 0;
		HT_CHECK(t_strnlen(s, max) == strnlen(s, max));
	}
	HT_CHECK(t_strnlen(NULL, 0) == 0);
	munmap(map, 2 * pg);
	return 0;
}

static const char *const str_pairs[][2] = {
	{ "", "" }, { "a", "" }, { "", "a" }, { "abc", "abc" },
	{ "abc", "abd" }, { "abd", "abc" }, { "ab", "abc" }, { "abc", "ab" },
	{ "\x80", "\x7f" }, { "a\xff", "a\x01" }, { "A", "a" },
	{ "hello world", "hello there" },
};

static int test_strcmp_strncmp(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(str_pairs); i++) {
		const char *a = str_pairs[i][0], *b = str_pairs[i][1];

		if (sign(t_strcmp(a, b)) != sign(strcmp(a, b)))
			HT_FAIL("strcmp '%s' '%s'", a, b);
		for (size_t n = 0; n < 14; n++)
			if (sign(t_strncmp(a, b, n)) != sign(strncmp(a, b, n)))
				HT_FAIL("strncmp '%s' '%s' %zu", a, b, n);
	}
	return 0;
}

static int test_strchr_strrchr(void)
{
	static const char s[] = "abcabc\xe9x";
	static const int cs[] = { 'a', 'c', 'x', 'z', 0, 'b' + 256, 0xe9,
				  (char)0xe9 };

	for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
		if (t_strchr(s, cs[i]) != strchr(s, cs[i]))
			HT_FAIL("strchr %#x", cs[i]);
		if (t_strrchr(s, cs[i]) != strrchr(s, cs[i]))
			HT_FAIL("strrchr %#x", cs[i]);
	}
	HT_CHECK(t_strchr("", 0) != NULL && t_strrchr("", 'a') == NULL);
	return 0;
}

static int test_strstr(void)
{
	static const char *const hay[] = { "", "a", "abc", "aaab",
					   "hello world", "abababc" };
	static const char *const needle[] = { "", "a", "b", "ab", "abc",
					      "aab", "world", "worlds",
					      "ababc", "x" };

	for (size_t h = 0; h < ARRAY_SIZE(hay); h++)
		for (size_t n = 0; n < ARRAY_SIZE(needle); n++)
			if (t_strstr(hay[h], needle[n]) !=
			    strstr(hay[h], needle[n]))
				HT_FAIL("strstr '%s' '%s'", hay[h], needle[n]);
	return 0;
}

/* Whole destination buffers are compared, so padding and overruns count. */
static int test_strcpy_strncpy(void)
{
	static const char *const srcs[] = { "", "a", "hello", "exactly8" };
	char got[16], want[16];

	for (size_t i = 0; i < ARRAY_SIZE(srcs); i++) {
		memset(got, '#', sizeof(got));
		memset(want, '#', sizeof(want));
		HT_CHECK(t_strcpy(got, srcs[i]) == got);
		strcpy(want, srcs[i]);
		HT_CHECK(memcmp(got, want, sizeof(got)) == 0);
		for (size_t n = 0; n < 12; n++) {
			memset(got, '#', sizeof(got));
			memset(want, '#', sizeof(want));
			HT_CHECK(t_strncpy(got, srcs[i], n) == got);
			strncpy(want, srcs[i], n);
			if (memcmp(got, want, sizeof(got)) != 0)
				HT_FAIL("strncpy '%s' %zu", srcs[i], n);
		}
	}
	return 0;
}

static int test_strlcpy(void)
{
	char buf[8];

	memset(buf, '#', sizeof(buf));
	HT_CHECK(t_strlcpy(buf, "hello", 0) == 5 && buf[0] == '#');
	HT_CHECK(t_strlcpy(buf, "hello", 1) == 5 && buf[0] == 0);
	HT_CHECK(t_strlcpy(buf, "hello", 3) == 5 && !strcmp(buf, "he"));
	HT_CHECK(t_strlcpy(buf, "hello", 6) == 5 && !strcmp(buf, "hello"));
	HT_CHECK(buf[6] == '#');
	HT_CHECK(t_strlcpy(buf, "", 8) == 0 && buf[0] == 0);
	return 0;
}

static int test_strlcat(void)
{
	char buf[8];

	strcpy(buf, "ab");
	HT_CHECK(t_strlcat(buf, "cd", sizeof(buf)) == 4 && !strcmp(buf, "abcd"));
	HT_CHECK(t_strlcat(buf, "efghij", sizeof(buf)) == 10);
	HT_CHECK(!strcmp(buf, "abcdefg"));
	HT_CHECK(t_strlcat(buf, "x", sizeof(buf)) == 8);
	strcpy(buf, "abc");
	/* No NUL within size: dst is left alone, result is size + len. */
	HT_CHECK(t_strlcat(buf, "xyz", 2) == 5 && !strcmp(buf, "abc"));
	HT_CHECK(t_strlcat(buf, "xyz", 0) == 3 && !strcmp(buf, "abc"));
	HT_CHECK(t_strlcat(buf, "", 4) == 3 && !strcmp(buf, "abc"));
	HT_CHECK(t_strlcat(buf, "d", 5) == 4 && !strcmp(buf, "abcd"));
	return 0;
}

static const char *const num_inputs[] = {
	"0", "42", "-42", "+42", " \t\n\v\f\r42xyz", "0x1f", "0X1F", "0x",
	"0xg", "-0x10", "010", "08", "0b101", "z", "Zz", "", "   ", "-", "+",
	"- 1", "1 2", "123abc", "1e5", "777", "ffff", "0x0x1",
	"18446744073709551615", "18446744073709551616",
	"-18446744073709551615", "-18446744073709551616",
	"9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809",
	"99999999999999999999999999", "0xffffffffffffffff",
	"0x1ffffffffffffffff", "-0x8000000000000000", "-0x8000000000000001",
	"zzzzzzzzzzzzz", "1111111111111111111111111111111111111111111111111111111"
	"1111111111111111111111111111111111111111",
};
static const int num_bases[] = { 0, 2, 8, 10, 16, 36 };

/* Checks all three parsers on one input against glibc: value and end. */
static int check_number(const char *s, int base)
{
	char *te, *ge;

	if (t_strtoul(s, &te, base) != strtoul(s, &ge, base) || te != ge)
		HT_FAIL("strtoul '%s' base %d", s, base);
	if (t_strtoull(s, &te, base) != strtoull(s, &ge, base) || te != ge)
		HT_FAIL("strtoull '%s' base %d", s, base);
	if (t_strtol(s, &te, base) != strtol(s, &ge, base) || te != ge)
		HT_FAIL("strtol '%s' base %d: %ld vs %ld", s, base,
			t_strtol(s, NULL, base), strtol(s, NULL, base));
	return 0;
}

static int test_strto_numbers(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(num_inputs); i++)
		for (size_t b = 0; b < ARRAY_SIZE(num_bases); b++)
			if (check_number(num_inputs[i], num_bases[b]))
				return 1;
	return 0;
}

/* An invalid base parses nothing (glibc leaves *end unset, so no compare). */
static int test_strto_bad_base(void)
{
	const char *s = "123";
	char *end = NULL;

	HT_CHECK(t_strtoul(s, &end, 1) == 0 && end == s);
	HT_CHECK(t_strtol(s, &end, 37) == 0 && end == s);
	HT_CHECK(t_strtoull(s, &end, -1) == 0 && end == s);
	HT_CHECK(t_strtoul("35", NULL, 36) == 3 * 36 + 5);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_memcpy, "string_memcpy" },
	{ test_memmove, "string_memmove" },
	{ test_memset, "string_memset" },
	{ test_memcmp, "string_memcmp" },
	{ test_memchr, "string_memchr" },
	{ test_memchr_inv, "string_memchr_inv" },
	{ test_strlen_strnlen, "string_strlen_strnlen" },
	{ test_strnlen_page_end, "string_strnlen_page_end" },
	{ test_strcmp_strncmp, "string_strcmp_strncmp" },
	{ test_strchr_strrchr, "string_strchr_strrchr" },
	{ test_strstr, "string_strstr" },
	{ test_strcpy_strncpy, "string_strcpy_strncpy" },
	{ test_strlcpy, "string_strlcpy" },
	{ test_strlcat, "string_strlcat" },
	{ test_strto_numbers, "string_strto_numbers" },
	{ test_strto_bad_base, "string_strto_bad_base" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
