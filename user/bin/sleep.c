/*
 * sleep: pause for SECONDS, which may have a fraction ("0.25").
 *
 *	sleep SECONDS
 *
 * The argument is converted to nanoseconds digit by digit, without floating
 * point: user code is built with the kernel's flags in mind and needs none.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define NS_PER_SEC	1000000000ull

/* Converts s ("N", "N.F", ".F") to nanoseconds in *ns. Returns 0, or -1 if
 * s is not such a number or is too large. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = NS_PER_SEC;
	int digits = 0;

	for (; isdigit((unsigned char)*s); s++, digits++) {
		sec = sec * 10 + (uint64_t)(*s - '0');
		if (sec > UINT64_MAX / NS_PER_SEC - 1)
			return -1;
	}
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++, digits++)
			if (scale >= 10) {
				scale /= 10;
				frac += (uint64_t)(*s - '0') * scale;
			}
	if (*s != 0 || digits == 0)
		return -1;
	*ns = sec * NS_PER_SEC + frac;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t ns;

	if (argc != 2) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 1;
	}
	if (parse_seconds(argv[1], &ns) < 0) {
		errno = EINVAL;
		err(1, "%s", argv[1]);
	}
	if (nanosleep(ns) < 0)
		err(1, "%s", argv[1]);
	return 0;
}
