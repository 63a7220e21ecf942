/*
 * Kernel command line lookups (the syntax is described in cmdline.h).
 *
 * One scanner, find_last(), walks the line word by word and remembers the
 * value of the last word whose key matches, as a raw span that still holds
 * its quotes. Copying the value out strips them. Every loop stops at the
 * line's NUL, so unterminated quotes or a trailing '=' cannot run past it.
 *
 * Numbers (cmdline_get_u64) are decimal, or hex after 0x/0X, optionally
 * followed by one binary suffix K, M or G (either case): `2048`, `0x800`,
 * `4K`, `16m`. A sign, an empty value, junk after the digits, a value that
 * does not fit in 64 bits, or one longer than 23 characters all make the
 * lookup fail. Leading zeros do not mean octal.
 */
#include <cmdline.h>
#include <compiler.h>
#include <parse_num.h>

/* A value inside the line: [start, end), quotes not yet removed. */
struct cmdline_span {
	const char *start;
	const char *end;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Returns the end of the word at s: the first blank outside quotes, or NUL. */
static const char *word_end(const char *s)
{
	bool quoted = false;

	for (; *s && (quoted || !is_blank(*s)); s++)
		if (*s == '"')
			quoted = !quoted;
	return s;
}

/* Returns the end of the key in the word [s, end): its '=' or end. */
static const char *key_end(const char *s, const char *end)
{
	while (s < end && *s != '=')
		s++;
	return s;
}

/* True when [s, end) spells exactly the NUL-terminated key. */
static bool key_matches(const char *s, const char *end, const char *key)
{
	while (s < end && *key && *s == *key) {
		s++;
		key++;
	}
	return s == end && *key == 0;
}

/*
 * Finds the last word of cmdline whose key is key. Returns false if there is
 * none; otherwise sets *val to its raw value (empty for a bare flag).
 */
static bool find_last(const char *cmdline, const char *key,
		      struct cmdline_span *val)
{
	bool found = false;
	const char *s = cmdline;

	if (!cmdline || !*key)
		return false;
	while (*s) {
		const char *wend, *kend;

		while (is_blank(*s))
			s++;
		wend = word_end(s);
		kend = key_end(s, wend);
		if (s != wend && key_matches(s, kend, key)) {
			found = true;
			val->start = kend < wend ? kend + 1 : wend;
			val->end = wend;
		}
		s = wend;
	}
	return found;
}

/* Returns true if key appears in cmdline, as a bare flag or with a value. */
bool cmdline_has(const char *cmdline, const char *key)
{
	struct cmdline_span val;

	return find_last(cmdline, key, &val);
}

/*
 * Copies the value of the last occurrence of key into val (len bytes),
 * without its quotes and NUL-terminated; a bare flag gives "". Returns false
 * if key is absent or the value plus its NUL does not fit in len, and then
 * sets val to "" when len > 0: a truncated value is never handed out.
 */
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t len)
{
	struct cmdline_span span;
	size_t n = 0;

	if (len == 0)
		return false;
	val[0] = 0;
	if (!find_last(cmdline, key, &span))
		return false;
	for (const char *s = span.start; s < span.end; s++) {
		if (*s == '"')
			continue;
		if (n + 1 >= len) {
			val[0] = 0;
			return false;
		}
		val[n++] = *s;
	}
	val[n] = 0;
	return true;
}

/* Returns the shift for a K/M/G suffix, 0 for none, -1 for junk. */
static int suffix_shift(const char *s)
{
	if (!*s)
		return 0;
	if (s[1])
		return -1;
	switch (*s) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	default: return -1;
	}
}

/*
 * Parses the whole of s as a number in the syntax described at the top of
 * this file into *out. Returns false, leaving *out alone, if s is not one.
 */
bool cmdline_parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int shift;

	if (!parse_u64(s, &end, &v))
		return false;
	shift = suffix_shift(end);
	if (shift < 0 || v > (UINT64_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

/*
 * Parses the value of the last occurrence of key as a number (syntax at the
 * top of this file) into *out. Returns false, leaving *out alone, if key is
 * absent, is a bare flag, or its value is not a valid number.
 */
bool cmdline_get_u64(const char *cmdline, const char *key, uint64_t *out)
{
	/* Holds any valid number: 20 decimal digits plus a suffix. */
	char buf[24];

	if (!cmdline_get(cmdline, key, buf, sizeof(buf)))
		return false;
	return cmdline_parse_u64(buf, out);
}
