/*
 * Fuzz target: the shell's parser (user/sh_parse.c), as the shell uses
 * it: the line checked whole, then parsed one pipeline at a time with the
 * status changing between them. Every parsed word, redirection and count
 * must lie within the pipeline's limits and its text buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sh_parse.h"

/* user/sh.c reads lines into SH_LINE_MAX (1024) bytes */
#define SH_MAX_LINE	1023

/* Aborts unless s is a NUL-terminated string inside p's text. */
static void in_text(const struct sh_pipeline *p, const char *s)
{
	if (s < p->text || s >= p->text + p->textlen ||
	    !memchr(s, 0, (size_t)(p->text + p->textlen - s)))
		abort();
}

static void check(const struct sh_pipeline *p)
{
	if (p->ncmds < 0 || p->ncmds > SH_MAXCMDS || p->textlen > SH_TEXT_MAX)
		abort();
	for (int i = 0; i < p->ncmds; i++) {
		const struct sh_cmd *c = &p->cmds[i];

		if (c->argc < 0 || c->argc > SH_MAXARGS || c->argv[c->argc])
			abort();
		for (int a = 0; a < c->argc; a++)
			in_text(p, c->argv[a]);
		if (c->in)
			in_text(p, c->in);
		if (c->out)
			in_text(p, c->out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sh_pipeline p;
	static char line[SH_MAX_LINE + 1];
	const char *src = line;
	int status = 0;

	if (size > SH_MAX_LINE)
		size = SH_MAX_LINE;
	memcpy(line, data, size);
	line[size] = 0;
	if (sh_check_line(line, &p))
		return 0;
	for (int n = 0; n <= SH_MAX_LINE; n++) {
		if (sh_parse_pipeline(&src, status, &p))
			abort();	/* sh_check_line passed it */
		check(&p);
		status = (status * 7 + p.ncmds) % 300;
		if (p.next == SH_END)
			return 0;
	}
	abort();			/* the parser stopped moving */
}
