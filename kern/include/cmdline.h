/*
 * cmdline: lookups in the kernel command line.
 *
 * The line is a list of words separated by blanks (space, tab, newline).
 * A word is `key=value` or a bare `flag`. The key is the text before the
 * first '='; it cannot contain blanks or quotes. In a value, double quotes
 * group blanks into the word and are removed: `init="/bin/sh -c ls"` has
 * the value `/bin/sh -c ls`, and `a="b c"d` has `b cd`. An unterminated
 * quote runs to the end of the line. There is no escape character.
 *
 * Numbers for cmdline_get_u64() are decimal or 0x-hex with an optional
 * binary K, M or G suffix (`2048`, `0x800`, `4K`, `16m`); signs, junk,
 * overflow and values over 23 characters are rejected. Leading zeros do
 * not mean octal. cmdline_parse_u64() reads the same syntax, with no length
 * limit, from a string already taken out of the line, such as one part of
 * `tsc.skew=2:50M`.
 *
 * When a key appears more than once, the last occurrence wins. Nothing is
 * modified or allocated; the line is re-scanned on every call, which is
 * fine for the handful of lookups made at boot. A NULL line has no keys.
 *
 *	char init[64];
 *	uint64_t sz = 1024;
 *	if (!cmdline_get(line, "init", init, sizeof(init)))
 *		strcpy(init, "/bin/sh");
 *	cmdline_get_u64(line, "ttrace.bufsize", &sz);	// keeps 1024 if absent
 *	bool run_tests = cmdline_has(line, "ktests");
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool cmdline_has(const char *cmdline, const char *key);
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t len);
bool cmdline_get_u64(const char *cmdline, const char *key, uint64_t *out);
bool cmdline_parse_u64(const char *s, uint64_t *out);

#endif /* CMDLINE_H */
