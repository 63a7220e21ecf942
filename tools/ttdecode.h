/*
 * ttdecode.h: what the files of ttdecode's command families share: the
 * command entry points the table in ttdecode.c calls (argv[0] is the
 * command's first operand, options included), and the loading and error
 * reporting every command does the same way.
 */
#ifndef TTDECODE_H
#define TTDECODE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ttfilter.h"
#include "ttload.h"

#define ull(x)	((unsigned long long)(x))

/* Output through one big buffer: appends are memcpy, not stdio calls. */
#define TTOUT_SIZE	(1 << 20)

struct ttout {
	FILE *f;
	char *buf;			/* TTOUT_SIZE bytes */
	size_t len;
	bool failed;			/* a write failed */
};

void ttout_flush(struct ttout *o);

/* Appends the n bytes at s (n <= TTOUT_SIZE). */
static inline void ttout_write(struct ttout *o, const char *s, size_t n)
{
	if (o->len + n > TTOUT_SIZE)
		ttout_flush(o);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void ttout_putc(struct ttout *o, char c)
{
	if (o->len == TTOUT_SIZE)
		ttout_flush(o);
	o->buf[o->len++] = c;
}

int ttdecode_usage_error(const char *cmd, const char *why);
int ttdecode_open(const char *cmd, int *argc, char **argv,
		  enum ttfilter_opts opts, int nops, const char *what,
		  struct ttfilter *f, struct ttload *t);
void ttdecode_close(struct ttfilter *f, struct ttload *t);
int ttdecode_finish_output(FILE *f, const char *what);

int ttdecode_text(int argc, char **argv);	/* tttext.c */
int ttdecode_unwrap(int argc, char **argv);	/* ttunwrap.c */
int ttdecode_json(int argc, char **argv);	/* ttjson.c */
int ttdecode_stats(int argc, char **argv);	/* ttstats.c */
int ttdecode_scale(int argc, char **argv);	/* ttscale.c */
int ttdecode_split(int argc, char **argv);	/* ttsplit.c */

#endif /* TTDECODE_H */
