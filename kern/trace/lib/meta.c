/*
 * meta.c: event metadata: format-string checking and the table's
 * small queries (a group by bit, the default mask, the blob checksum).
 * The blob form lives beside it: meta_write.c serialises a table,
 * meta_parse.c parses a blob back into one. The blob layout is in
 * ttrace_format.h.
 */
#include <string.h>

#include <ttrace_meta.h>
#include "meta_internal.h"

static bool conv_flag(char c)
{
	return c == '-' || c == '0' || c == '#' || c == ' ' || c == '+';
}

/* Appends c to cv->spec; false if it would not fit (cannot happen). */
static bool spec_put(struct ttrace_conv *cv, size_t *n, char c)
{
	if (*n + 1 >= sizeof(cv->spec))
		return false;
	cv->spec[(*n)++] = c;
	cv->spec[*n] = 0;
	return true;
}

static size_t parse_length(const char *p, uint8_t *len)
{
	if (p[0] == 'h' && p[1] == 'h')
		return *len = TTRACE_LEN_HH, 2;
	if (p[0] == 'l' && p[1] == 'l')
		return *len = TTRACE_LEN_LL, 2;
	if (p[0] == 'h')
		return *len = TTRACE_LEN_H, 1;
	if (p[0] == 'l')
		return *len = TTRACE_LEN_L, 1;
	if (p[0] == 'z')
		return *len = TTRACE_LEN_Z, 1;
	*len = TTRACE_LEN_NONE;
	return 0;
}

/* See ttrace_meta.h. */
size_t ttrace_meta_parse_conv(const char *fmt, struct ttrace_conv *cv)
{
	size_t i = 1, n = 0, digits;
	unsigned seen = 0;

	spec_put(cv, &n, '%');
	if (fmt[1] == '%') {
		cv->conv = '%';
		cv->length = TTRACE_LEN_NONE;
		return 2;
	}
	for (; conv_flag(fmt[i]); i++) {
		unsigned bit = 1u << (strchr("-0# +", fmt[i]) - "-0# +");

		if (seen & bit)
			return 0;
		seen |= bit;
		spec_put(cv, &n, fmt[i]);
	}
	for (digits = 0; meta_is_digit(fmt[i]) && digits < 3; digits++)
		spec_put(cv, &n, fmt[i++]);
	if (digits > 2)
		return 0;
	if (fmt[i] == '.') {
		spec_put(cv, &n, fmt[i++]);
		for (digits = 0; meta_is_digit(fmt[i]) && digits < 3; digits++)
			spec_put(cv, &n, fmt[i++]);
		if (digits > 2)
			return 0;
	}
	digits = parse_length(&fmt[i], &cv->length);
	while (digits--)
		spec_put(cv, &n, fmt[i++]);
	cv->conv = fmt[i];
	if (!cv->conv || !strchr("diuxXops", cv->conv))
		return 0;
	if ((cv->conv == 'p' || cv->conv == 's') && cv->length != TTRACE_LEN_NONE)
		return 0;
	if (cv->length == TTRACE_LEN_Z && (cv->conv == 'd' || cv->conv == 'i'))
		return 0;
	spec_put(cv, &n, fmt[i++]);
	return i;
}

/* See ttrace_meta.h. */
int ttrace_meta_check_format(const char *fmt,
			     const struct ttrace_arg_meta *args, unsigned nargs,
			     const char **why)
{
	unsigned argi = 0;
	size_t i = 0;

	while (fmt[i]) {
		struct ttrace_conv cv;
		size_t n;

		if (i >= TTRACE_META_MAX_FORMAT)
			return *why = "format too long", -1;
		if (fmt[i] < 0x20 || fmt[i] > 0x7e)
			return *why = "format has a non-printable character", -1;
		if (fmt[i] != '%') {
			i++;
			continue;
		}
		n = ttrace_meta_parse_conv(&fmt[i], &cv);
		if (!n)
			return *why = "format has a conversion not allowed", -1;
		i += n;
		if (cv.conv == '%')
			continue;
		if (argi >= nargs)
			return *why = "format has more conversions than arguments", -1;
		if (cv.conv == 's' && args[argi].type != TTRACE_ARG_STR)
			return *why = "%s used for an argument that is not str", -1;
		argi++;
	}
	if (argi != nargs)
		return *why = "format has fewer conversions than arguments", -1;
	return 0;
}

/* See ttrace_meta.h. */
const struct ttrace_group_meta *ttrace_meta_group(
	const struct ttrace_meta_table *t, unsigned bit)
{
	for (uint32_t i = 0; i < t->ngroups; i++)
		if (t->groups[i].bit == bit)
			return &t->groups[i];
	return NULL;
}

/* See ttrace_meta.h. */
uint64_t ttrace_arg_value(const struct ttrace_event_meta *e, unsigned i,
			  const uint64_t *w, uint32_t nwords)
{
	unsigned off, size;

	ttrace_arg_place(e, i, &off, &size);
	return ttrace_arg_bytes(w, nwords, off, size,
				ttrace_arg_signed(e->args[i].type));
}

/* See ttrace_meta.h. */
unsigned ttrace_event_words(const struct ttrace_event_meta *e)
{
	unsigned words = 0, off, size;

	for (unsigned i = 0; i < e->nargs; i++) {
		ttrace_arg_place(e, i, &off, &size);
		words = MAX(words, (off + size + 7) / 8);
	}
	return words;
}

/* See ttrace_meta.h. */
bool ttrace_meta_is_packed(const struct ttrace_event_meta *e)
{
	unsigned off, size;

	for (unsigned i = 0; i < e->nargs; i++) {
		ttrace_arg_place(e, i, &off, &size);
		if (off != 8 * i || size != 8)
			return true;
	}
	return false;
}

/* See ttrace_meta.h. */
uint64_t ttrace_meta_default_mask(const struct ttrace_meta_table *t)
{
	uint64_t mask = 0;

	for (uint32_t i = 0; i < t->ngroups; i++)
		if (t->groups[i].flags & TTRACE_EVF_DEFAULT_ON)
			mask |= 1ULL << (t->groups[i].bit & 63);
	return mask;
}

/* 32-bit FNV-1a over p[0..n), the blob's checksum. */
uint32_t ttrace_meta_fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}
