/*
 * ttunwrap.c: `ttdecode unwrap LOG OUT`, the trace a panic dumped to the
 * serial console recovered into a trace file. The dump is the file's
 * bytes as hex "TTD <hex>" lines between a TTRACE-DUMP-BEGIN line and a
 * TTRACE-DUMP-END line; other lines in between (another CPU's console
 * output) are skipped. Lines may be of any length (getline) and the hex
 * of either case; a TTD line that is not whole hex digit pairs fails the
 * command with its line number, so nothing is ever truncated silently.
 */
#include <stdlib.h>
#include <string.h>

#include <parse_num.h>

#include "ttdecode.h"

/* The value of hex digit c, or -1 (parse_digit, the one digit table). */
static int hexval(char c)
{
	unsigned d = parse_digit(c);

	return d < 16 ? (int)d : -1;
}

/* Decodes the hex digits of one TTD line (up to its line end) into out.
 * Returns 0, or -1 if a character is not a hex digit or one is unpaired. */
static int unwrap_line(const char *hex, size_t len, FILE *out)
{
	while (len && (hex[len - 1] == '\n' || hex[len - 1] == '\r'))
		len--;
	if (len % 2)
		return -1;
	for (size_t i = 0; i < len; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		putc(hi << 4 | lo, out);
	}
	return 0;
}

enum { BEFORE, INSIDE, AFTER, BAD };

/* Copies the dump of in into out. Returns the final state; *lineno is
 * the number of the last line read. */
static int unwrap_stream(FILE *in, FILE *out, long *lineno)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int state = BEFORE;

	while (state == BEFORE || state == INSIDE) {
		if ((n = getline(&line, &cap, in)) < 0)
			break;
		++*lineno;
		if (state == BEFORE && strstr(line, "TTRACE-DUMP-BEGIN"))
			state = INSIDE;
		else if (state == INSIDE && strstr(line, "TTRACE-DUMP-END"))
			state = AFTER;
		else if (state == INSIDE && !strncmp(line, "TTD ", 4) &&
			 unwrap_line(line + 4, (size_t)n - 4, out) < 0)
			state = BAD;
	}
	free(line);
	return state;
}

static int ttdecode_unwrap(int argc, char **argv)
{
	const char *log = argv[0], *outpath = argv[1];
	FILE *in = fopen(log, "r"), *out = NULL;
	long lineno = 0;
	int state;

	if (argc != 2)
		return ttdecode_usage_error("unwrap", "two operands");
	if (!in || !(out = fopen(outpath, "wb"))) {
		perror(in ? outpath : log);
		if (in)
			fclose(in);
		return 1;
	}
	state = unwrap_stream(in, out, &lineno);
	fclose(in);
	if (fclose(out) || state != AFTER) {
		fprintf(stderr, "ttdecode: %s: line %ld: %s\n", log, lineno,
			state == BAD ? "not whole hex digit pairs after TTD" :
			state == BEFORE ? "no TTRACE-DUMP-BEGIN" :
			state == INSIDE ? "no TTRACE-DUMP-END" : "write failed");
		return 1;
	}
	return 0;
}

static const struct ttdecode_command cmd_unwrap = {
	"unwrap", 2, ttdecode_unwrap, "unwrap CONSOLE-LOG OUT" };
TTDECODE_COMMAND(cmd_unwrap);
