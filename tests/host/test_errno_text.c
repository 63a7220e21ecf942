/*
 * Host tests for kern/lib/errno_text.c: every number abi/errno.h defines
 * has its own text, and anything else is "unknown error".
 */
#include <string.h>

#include "htest.h"
#include <errno_text.h>

/* Every value of abi/errno.h (Linux numbering). */
static const int defined[] = {
	1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21,
	22, 23, 24, 25, 27, 28, 29, 30, 32, 34, 36, 38, 39, 40,
};

static int test_known(void)
{
	for (size_t i = 0; i < sizeof(defined) / sizeof(defined[0]); i++) {
		const char *t = errno_text(defined[i]);

		if (strcmp(t, "unknown error") == 0)
			HT_FAIL("errno %d has no text", defined[i]);
		for (size_t k = 0; k < i; k++)
			if (strcmp(t, errno_text(defined[k])) == 0)
				HT_FAIL("errno %d and %d share '%s'",
					defined[i], defined[k], t);
	}
	HT_CHECK(strcmp(errno_text(2), "no such file or directory") == 0);
	return 0;
}

static int test_unknown(void)
{
	static const long bad[] = { 0, -2, 6, 15, 41, 1000, -1000000 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		HT_CHECK(strcmp(errno_text(bad[i]), "unknown error") == 0);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_known, "errno_text_known" },
	{ test_unknown, "errno_text_unknown" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
