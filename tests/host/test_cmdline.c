/*
 * Host tests for kern/lib/cmdline.c.
 *
 * Every lookup goes through a helper that copies the line into a malloc'd
 * buffer of exactly its size, so AddressSanitizer catches any read past the
 * terminating NUL (unterminated quotes, trailing '=', and so on).
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <cmdline.h>
#include <parse_num.h>

static char *dup_exact(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	memcpy(d, s, n);
	return d;
}

static bool has(const char *line, const char *key)
{
	char *l = dup_exact(line);
	bool r = cmdline_has(l, key);

	free(l);
	return r;
}

/* Looks key up with a value buffer of len bytes; returns the value, or
 * "<absent>" on failure after checking that val was left "". */
static const char *get(const char *line, const char *key, size_t len)
{
	static char val[256];
	char *l = dup_exact(line);
	char *buf = malloc(len ? len : 1);
	bool ok;

	memset(buf, 'Z', len ? len : 1);
	ok = cmdline_get(l, key, buf, len);
	if (ok)
		snprintf(val, sizeof(val), "%s", buf);
	else if (len && buf[0] != 0)
		snprintf(val, sizeof(val), "<failed but val not cleared>");
	else if (!len && buf[0] != 'Z')
		snprintf(val, sizeof(val), "<wrote to zero-length val>");
	else
		snprintf(val, sizeof(val), "<absent>");
	free(buf);
	free(l);
	return val;
}

/* Like get() for numbers; returns false, and checks *out is untouched. */
static bool get_u64(const char *line, const char *key, uint64_t *out)
{
	char *l = dup_exact(line);
	uint64_t v = 0xdeadbeef;
	bool ok = cmdline_get_u64(l, key, &v);

	free(l);
	*out = v;
	return ok || v != 0xdeadbeef;
}

#define CHECK_GET(line, key, want)                                         \
	do {                                                               \
		const char *got_ = get(line, key, 64);                     \
		if (strcmp(got_, want) != 0)                               \
			HT_FAIL("line '%s' key '%s': got '%s' want '%s'",  \
				line, key, got_, want);                    \
	} while (0)

#define CHECK_U64(line, key, want)                                         \
	do {                                                               \
		uint64_t v_;                                               \
		if (!get_u64(line, key, &v_) || v_ != (want))              \
			HT_FAIL("line '%s': got %#llx want %#llx", line,   \
				(unsigned long long)v_,                    \
				(unsigned long long)(want));               \
	} while (0)

#define CHECK_NO_U64(line, key)                                            \
	do {                                                               \
		uint64_t v_;                                               \
		if (get_u64(line, key, &v_))                               \
			HT_FAIL("line '%s': accepted as %#llx", line,      \
				(unsigned long long)v_);                   \
	} while (0)

static const char example[] = "init=\"/bin/sh -c ls\" ktests "
			      "ttrace.bufsize=2048";

static int test_example_line(void)
{
	CHECK_GET(example, "init", "/bin/sh -c ls");
	CHECK_GET(example, "ktests", "");
	CHECK_GET(example, "ttrace.bufsize", "2048");
	CHECK_U64(example, "ttrace.bufsize", 2048);
	HT_CHECK(has(example, "ktests"));
	HT_CHECK(has(example, "init"));
	HT_CHECK(has(example, "ttrace.bufsize"));
	return 0;
}

/* Keys match whole keys only: no prefixes, no matches inside values. */
static int test_key_matching(void)
{
	HT_CHECK(!has(example, "ktest"));
	HT_CHECK(!has(example, "ktestsx"));
	HT_CHECK(!has(example, "ttrace"));
	HT_CHECK(!has(example, "bufsize"));
	HT_CHECK(!has(example, "-c"));
	HT_CHECK(!has(example, "ls\""));
	HT_CHECK(!has("a=ktests", "ktests"));
	HT_CHECK(!has("init=x", "init=x"));
	HT_CHECK(!has("abc", "ABC"));
	CHECK_GET(example, "nothere", "<absent>");
	CHECK_GET("a=1 ab=2 abc=3", "ab", "2");
	return 0;
}

static int test_quotes(void)
{
	CHECK_GET("a=\"b c\"d", "a", "b cd");
	CHECK_GET("a=x\"y z\" b=2", "a", "xy z");
	CHECK_GET("a=x\"y z\" b=2", "b", "2");
	CHECK_GET("a=\"\" b", "a", "");
	CHECK_GET("a=\"x=y  z\"", "a", "x=y  z");
	CHECK_GET("a=\"p\"\"q\"", "a", "pq");
	CHECK_GET("a=\"\tt\"", "a", "\tt");
	return 0;
}

/* An open quote swallows the rest of the line, and nothing beyond it. */
static int test_unterminated_quote(void)
{
	CHECK_GET("a=\"foo bar b=2", "a", "foo bar b=2");
	CHECK_GET("a=\"foo bar b=2", "b", "<absent>");
	CHECK_GET("x=1 a=\"", "a", "");
	CHECK_GET("x=1 a=\"", "x", "1");
	CHECK_GET("\"", "a", "<absent>");
	CHECK_GET("a=1 \"b=2 a=3", "a", "1");
	CHECK_NO_U64("n=\"12", "m");
	CHECK_U64("n=\"12", "n", 12);
	return 0;
}

static int test_flags_and_blanks(void)
{
	CHECK_GET("  quiet\t\tdebug\nverbose  ", "quiet", "");
	CHECK_GET("  quiet\t\tdebug\nverbose  ", "debug", "");
	CHECK_GET("  quiet\t\tdebug\nverbose  ", "verbose", "");
	CHECK_GET("a= b", "a", "");
	CHECK_GET("a== b", "a", "=");
	CHECK_GET("a=b=c", "a", "b=c");
	HT_CHECK(has("a=", "a"));
	HT_CHECK(!has("a=", "b"));
	return 0;
}

static int test_last_occurrence_wins(void)
{
	CHECK_GET("a=1 b a=2", "a", "2");
	CHECK_GET("a=1 a=2 a", "a", "");
	CHECK_GET("a a=3", "a", "3");
	CHECK_GET("a=\"x y\" a=\"z\"", "a", "z");
	CHECK_U64("n=5 n=0x10", "n", 16);
	CHECK_NO_U64("n=5 n=junk", "n");
	return 0;
}

/* A value that does not fit is an error, never silently cut. */
static int test_truncation(void)
{
	const char *line = "k=hello q=\"a b\"";

	HT_CHECK(strcmp(get(line, "k", 6), "hello") == 0);
	HT_CHECK(strcmp(get(line, "k", 5), "<absent>") == 0);
	HT_CHECK(strcmp(get(line, "k", 1), "<absent>") == 0);
	HT_CHECK(strcmp(get(line, "k", 0), "<absent>") == 0);
	/* Quotes do not count against the buffer. */
	HT_CHECK(strcmp(get(line, "q", 4), "a b") == 0);
	HT_CHECK(strcmp(get(line, "q", 3), "<absent>") == 0);
	HT_CHECK(strcmp(get("f", "f", 1), "") == 0);
	return 0;
}

static int test_degenerate_lines(void)
{
	char val[8] = "xxx";

	HT_CHECK(!cmdline_has(NULL, "a"));
	HT_CHECK(!cmdline_get(NULL, "a", val, sizeof(val)) && !val[0]);
	HT_CHECK(!has("", "a"));
	HT_CHECK(!has("   ", "a"));
	HT_CHECK(!has("=foo", ""));
	HT_CHECK(!has("a", ""));
	HT_CHECK(!has("=", "="));
	HT_CHECK(!has("\"\"\"\"", "a"));
	CHECK_GET("=x a=1", "a", "1");
	return 0;
}

static int test_u64_syntax(void)
{
	CHECK_U64("n=0", "n", 0);
	CHECK_U64("n=010", "n", 10);
	CHECK_U64("n=0x1F", "n", 31);
	CHECK_U64("n=0XaB", "n", 0xab);
	CHECK_U64("n=4K", "n", 4096);
	CHECK_U64("n=4k", "n", 4096);
	CHECK_U64("n=16M", "n", 16ull << 20);
	CHECK_U64("n=0x10m", "n", 16ull << 20);
	CHECK_U64("n=3G", "n", 3ull << 30);
	CHECK_U64("n=\"42\"", "n", 42);
	CHECK_U64("n=18446744073709551615", "n", UINT64_MAX);
	CHECK_U64("n=0xffffffffffffffff", "n", UINT64_MAX);
	CHECK_U64("n=17179869183G", "n", 17179869183ull << 30);
	return 0;
}

static int test_u64_rejects(void)
{
	CHECK_NO_U64("n", "n");
	CHECK_NO_U64("n=", "n");
	CHECK_NO_U64("m=1", "n");
	CHECK_NO_U64("n=-1", "n");
	CHECK_NO_U64("n=+1", "n");
	CHECK_NO_U64("n=12abc", "n");
	CHECK_NO_U64("n=0x", "n");
	CHECK_NO_U64("n=0xg", "n");
	CHECK_NO_U64("n=K", "n");
	CHECK_NO_U64("n=4KB", "n");
	CHECK_NO_U64("n=4T", "n");
	CHECK_NO_U64("n=\"4 K\"", "n");
	CHECK_NO_U64("n=18446744073709551616", "n");
	CHECK_NO_U64("n=0x10000000000000000", "n");
	CHECK_NO_U64("n=17179869184G", "n");
	CHECK_NO_U64("n=0xfffffffffffffffK", "n");
	CHECK_NO_U64("n=000000000000000000000001", "n");
	return 0;
}

/* The number syntax on its own, as for one part of a compound value. */
static int test_parse_u64(void)
{
	uint64_t v = 7;

	HT_CHECK(cmdline_parse_u64("12", &v) && v == 12);
	HT_CHECK(cmdline_parse_u64("0x10", &v) && v == 16);
	HT_CHECK(cmdline_parse_u64("50M", &v) && v == 50ull << 20);
	/* No 23-character limit: that belongs to the line lookup's buffer. */
	HT_CHECK(cmdline_parse_u64("000000000000000000000001", &v) && v == 1);
	v = 7;
	HT_CHECK(!cmdline_parse_u64("", &v) && v == 7);
	HT_CHECK(!cmdline_parse_u64("-1", &v) && v == 7);
	HT_CHECK(!cmdline_parse_u64("1 ", &v) && v == 7);
	HT_CHECK(!cmdline_parse_u64("2:5", &v) && v == 7);
	HT_CHECK(!cmdline_parse_u64("18446744073709551616", &v) && v == 7);
	return 0;
}

/* parse_u64, the one number parser under cmdline and ctl: decimal or 0x
 * hex, no sign, no octal, exact overflow edge, end just past the digits. */
static int test_parse_num(void)
{
	const char *end = NULL;
	uint64_t v = 7;

	HT_CHECK(parse_u64("010", &end, &v) && v == 10 && *end == 0);
	HT_CHECK(parse_u64("0x1fZ", &end, &v) && v == 0x1f && *end == 'Z');
	HT_CHECK(parse_u64("18446744073709551615", NULL, &v) &&
		 v == UINT64_MAX);
	v = 7;
	HT_CHECK(!parse_u64("18446744073709551616", &end, &v) && v == 7);
	HT_CHECK(!parse_u64("0xffffffffffffffff0", &end, &v) && v == 7);
	HT_CHECK(!parse_u64("0x", &end, &v) && !parse_u64("", &end, &v));
	HT_CHECK(!parse_u64("-1", &end, &v) && !parse_u64(" 1", &end, &v));
	HT_CHECK(parse_digit('z') == 35 && parse_digit('Z') == 35 &&
		 parse_digit('/') == 36 && parse_digit(':') == 36);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_parse_num, "parse_num" },
	{ test_example_line, "cmdline_example_line" },
	{ test_key_matching, "cmdline_key_matching" },
	{ test_quotes, "cmdline_quotes" },
	{ test_unterminated_quote, "cmdline_unterminated_quote" },
	{ test_flags_and_blanks, "cmdline_flags_and_blanks" },
	{ test_last_occurrence_wins, "cmdline_last_occurrence_wins" },
	{ test_truncation, "cmdline_truncation" },
	{ test_degenerate_lines, "cmdline_degenerate_lines" },
	{ test_u64_syntax, "cmdline_u64_syntax" },
	{ test_u64_rejects, "cmdline_u64_rejects" },
	{ test_parse_u64, "cmdline_parse_u64" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
