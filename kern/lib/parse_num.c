/* parse_num: unsigned numbers from command text (see parse_num.h). */
#include <parse_num.h>

unsigned parse_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 36;
}

bool parse_u64(const char *s, const char **end, uint64_t *out)
{
	unsigned base = 10;
	const char *p = s, *digits;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (digits = p; parse_digit(*p) < base; p++) {
		unsigned d = parse_digit(*p);

		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (p == digits)
		return false;
	*out = v;
	if (end)
		*end = p;
	return true;
}

bool parse_u64_whole(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (!parse_u64(s, &end, &v) || *end)
		return false;
	*out = v;
	return true;
}
