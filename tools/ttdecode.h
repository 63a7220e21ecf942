/*
 * ttdecode.h: what the files of ttdecode's commands share: the command
 * table every command registers itself in, and the loading and error
 * reporting every command does the same way.
 *
 * A command is one file: it defines its struct ttdecode_command and
 * registers it with TTDECODE_COMMAND(); ttdecode.c's dispatch and usage
 * walk the registered commands in link order (mk/tools.mk lists them).
 * An export is one file of tools/export/:
 *
 *	static int run(int argc, char **argv) { ... return 0; }
 *	static const struct ttdecode_command cmd_foo = {
 *		"foo", 2, run, "foo TRACE OUT" };
 *	TTDECODE_COMMAND(cmd_foo);
 */
#ifndef TTDECODE_H
#define TTDECODE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ttfilter.h"
#include "ttload.h"

#define ull(x)	((unsigned long long)(x))

/* `ttdecode NAME OPERANDS...`: run gets the operands (argv[0] is the
 * first, options included; argc >= nargs) and returns the exit status. */
struct ttdecode_command {
	const char *name;
	int nargs;			/* operands required */
	int (*run)(int argc, char **argv);
	const char *usage;		/* "NAME OPERANDS", for the usage */
};

/*
 * Registers the struct ttdecode_command c: a pointer to it in the section
 * ttdecode_commands, which the linker brackets with __start_ and __stop_
 * symbols (a pointer, not the struct, so that no alignment the compiler
 * picks for a struct can leave a gap in the array).
 */
#define TTDECODE_COMMAND(c)						\
	static const struct ttdecode_command *const c##_reg		\
	__attribute__((section("ttdecode_commands"), used)) = &(c)

/* Output through one buffer: appends are memcpy, not stdio calls. 64 KiB,
 * flushed and reused: a few page faults and cache-warm, where 1 MiB cost
 * 256 page faults, a fifth of `ttdecode text` on a 10k-record trace. */
#define TTOUT_SIZE	(1 << 16)

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

#endif /* TTDECODE_H */
