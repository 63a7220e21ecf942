/*
 * meta_internal.h: what the three metadata files (meta.c,
 * meta_write.c, meta_parse.c) share and nobody else needs.
 */
#ifndef TTRACE_META_INTERNAL_H
#define TTRACE_META_INTERNAL_H

#include <compiler.h>

/* The two kinds of string in a blob. */
enum meta_str {
	META_NAME,	/* str8: an identifier of 1..TTRACE_META_MAX_NAME */
	META_FORMAT,	/* str16: at most TTRACE_META_MAX_FORMAT bytes */
};

static inline bool meta_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

#endif /* TTRACE_META_INTERNAL_H */
