/*
 * ttfolded.c: `ttdecode folded TRACE [--off-cpu|--wall] [--pid N]`, the
 * profile (ttprof.h) as Brendan Gregg's folded stacks, the input of every
 * flame-graph tool: one line per (process, stack),
 *	comm;root;...;leaf VALUE
 * frames root first, separated by ';', VALUE the samples (on-CPU) or the
 * nanoseconds (--off-cpu, --wall) of that stack in that process. Lines
 * come by (pid, stack): the same input gives the same bytes.
 */
#include <stdlib.h>

#include "ttdecode.h"
#include "ttprof.h"

/* Writes frame f's name with the separators folded text gives meaning
 * to (';', and '\n') as ':' and ' '. */
static void put_frame(const struct ttprof_frame *f, FILE *out)
{
	for (uint32_t i = 0; i < f->len; i++) {
		char c = f->name[i];

		putc(c == ';' ? ':' : c == '\n' ? ' ' : c, out);
	}
}

/* Writes p's samples that o wants to out as folded stacks. Returns 0, or
 * -1 when out of memory. */
int ttprof_write_folded(const struct ttprof *p, const struct ttprof_opts *o,
			FILE *out)
{
	uint64_t n;
	struct ttprof_row *r = ttprof_rows(p, o, &n);
	char buf[32];

	if (!r)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		const struct ttprof_stack *s = &p->stacks[r[i].stack];
		const uint32_t *fr = &p->stack_frames[s->first];

		fputs(ttprof_comm(p, r[i].pid, buf, sizeof(buf)), out);
		for (uint32_t k = s->n; k-- > 0;) {
			putc(';', out);
			put_frame(&p->frames[fr[k]], out);
		}
		fprintf(out, " %llu\n", ull(r[i].value));
	}
	free(r);
	return 0;
}

#define FOLDED_USAGE "folded TRACE" TTPROF_OPTIONS

static int ttdecode_folded(int argc, char **argv)
{
	return ttprof_command(argc, argv, 0, FOLDED_USAGE, ttprof_write_folded);
}

static const struct ttdecode_command cmd_folded = {
	"folded", 1, ttdecode_folded, FOLDED_USAGE };
TTDECODE_COMMAND(cmd_folded);
