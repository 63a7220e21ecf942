/*
 * parse_num: the one parser of unsigned numbers that kernel and tools
 * read from text (the command line, ctl writes), and the digit table that
 * strtoul and friends (string.c) share with it. Pure; safe on any input.
 *
 *	const char *end;
 *	uint64_t v;
 *	if (parse_u64(s, &end, &v) && *end == 0)
 *		use(v);
 *
 * The syntax is decimal digits, or "0x"/"0X" and hex digits: no blanks,
 * no sign, no octal (a leading 0 is decimal), so "010" is ten, as people
 * who type bufsize or a CPU number mean it. The C library's strtoul keeps
 * C's syntax; this is for commands.
 */
#ifndef PARSE_NUM_H
#define PARSE_NUM_H

#include <stdbool.h>
#include <stdint.h>

/* The value of c as a digit in bases up to 36, or 36 if it is none. */
unsigned parse_digit(char c);

/*
 * Parses the number at the start of s into *out and points *end (if not
 * NULL) just past it. Returns false, leaving *out and *end alone, if s does
 * not start with a number or it does not fit in 64 bits.
 */
bool parse_u64(const char *s, const char **end, uint64_t *out);

/* Parses the whole of s as a number: parse_u64 with nothing after it. */
bool parse_u64_whole(const char *s, uint64_t *out);

#endif /* PARSE_NUM_H */
