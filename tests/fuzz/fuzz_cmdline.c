/*
 * Fuzz target: the kernel command line (kern/lib/cmdline.c). The input is
 * the line (a NUL is added; an embedded one ends it early, as in the
 * kernel). Every key the kernel looks up is read as a string, as a number
 * and as a flag, and the line's own first word is looked up as a key too.
 * A value must fit the buffer it was read into, NUL terminated.
 */
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>

#include "fuzz.h"

static const char *const keys[] = {
	"bench", "fault", "init", "ktests", "loglevel", "tsc.skew",
	"ttrace.bootprof", "ttrace.bufsize", "ttrace.dump_on_panic",
	"", "=", "a b",
};

/* Looks key up every way the kernel does. */
static void lookup(const char *line, const char *key)
{
	char small[8], big[256];
	uint64_t v;

	cmdline_has(line, key);
	if (cmdline_get(line, key, small, sizeof(small)) &&
	    strnlen(small, sizeof(small)) == sizeof(small))
		abort();
	if (cmdline_get(line, key, big, sizeof(big))) {
		if (strnlen(big, sizeof(big)) == sizeof(big))
			abort();
		cmdline_parse_u64(big, &v);
	}
	cmdline_get_u64(line, key, &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), key[64];
	size_t k = 0;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		lookup(line, keys[i]);
	while (k < sizeof(key) - 1 && line[k] && line[k] != '=' &&
	       line[k] != ' ')
		k++;
	memcpy(key, line, k);
	key[k] = 0;
	lookup(line, key);
	lookup(NULL, key);
	free(line);
	return 0;
}
