/*
 * sh_parse: the shell's command-line parser, pure C with no system calls so
 * the host tests exercise it (tests/host/test_sh_parse.c).
 *
 * A line is a list of pipelines joined by ';', '&&' or '||'; a pipeline is
 * commands joined by '|'; a command is words plus redirections '<' file,
 * '>' file, '>>' file (the last of each kind wins). Words split at blanks
 * and operators; '...' quotes everything, "..." everything but \" \\ \$
 * and $?; a backslash outside quotes takes the next character literally;
 * $? outside single quotes becomes the status passed in, $$ the pid set
 * by sh_parse_set_pid(); '#' at the start
 * of a word comments out the rest of the line.
 *
 * $? must see the status of the pipeline before it on the same line
 * ("false; echo $?" prints 1), so the parser hands out one pipeline at a
 * time and the shell runs it before parsing the next:
 *
 *	if ((err = sh_check_line(src, &p)) != NULL)
 *		...report err, run nothing...
 *	enum sh_conn conn = SH_SEQ;
 *	for (;;) {
 *		sh_parse_pipeline(&src, status, &p);
 *		if (p.ncmds > 0 && sh_should_run(conn, status))
 *			status = run(&p);
 *		if (p.next == SH_END)
 *			break;
 *		conn = p.next;
 *	}
 */
#ifndef SH_PARSE_H
#define SH_PARSE_H

#include <stddef.h>

#define SH_MAXARGS	32	/* words per command */
#define SH_MAXCMDS	8	/* commands per pipeline */
#define SH_TEXT_MAX	2048	/* bytes of expanded words per pipeline */

/* What joins a pipeline to the one after it. */
enum sh_conn {
	SH_END,		/* nothing: the line is done */
	SH_SEQ,		/* ';': run the next one regardless */
	SH_AND,		/* '&&': run the next one if this one succeeded */
	SH_OR,		/* '||': run the next one if this one failed */
};

enum sh_out_mode { SH_OUT_TRUNC, SH_OUT_APPEND };

struct sh_cmd {
	int argc;
	char *argv[SH_MAXARGS + 1];	/* NULL-terminated */
	char *in;			/* '<' file, or NULL */
	char *out;			/* '>' or '>>' file, or NULL */
	enum sh_out_mode out_mode;
};

struct sh_pipeline {
	int ncmds;			/* 0 only for an empty line */
	struct sh_cmd cmds[SH_MAXCMDS];
	enum sh_conn next;
	size_t textlen;
	char text[SH_TEXT_MAX];		/* the words the cmds point into */
};

/*
 * Parses the pipeline at *srcp into p, expanding $? to status, and moves
 * *srcp past it and the connector after it (stored in p->next). Returns
 * NULL on success or a message describing the syntax error. A blank or
 * comment-only line gives ncmds == 0 and next == SH_END.
 */
const char *sh_parse_pipeline(const char **srcp, int status,
			      struct sh_pipeline *p);

/* Parses the whole line src using scratch as work space; returns NULL if
 * every pipeline in it is well-formed, else the first error message. */
const char *sh_check_line(const char *src, struct sh_pipeline *scratch);

/* Returns 1 if a pipeline joined to its predecessor by conn runs when that
 * predecessor left status (0: success), 0 if it is skipped. */
int sh_should_run(enum sh_conn conn, int status);
/* Sets what $$ expands to (the shell's pid; 0 until set). */
void sh_parse_set_pid(int pid);

#endif /* SH_PARSE_H */
