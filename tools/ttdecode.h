/*
 * ttdecode.h: what the files of ttdecode's command families share: the
 * command entry points the table in ttdecode.c calls (argv[0] is the
 * command's first operand, options included), and the loading and error
 * reporting every command does the same way.
 */
#ifndef TTDECODE_H
#define TTDECODE_H

#include <stdio.h>

#include "ttload.h"

#define ull(x)	((unsigned long long)(x))

int ttdecode_report(const char *path, const struct ttrace_file_error *err);
int ttdecode_load(struct ttload *t, const char *path);
int ttdecode_usage_error(const char *cmd, const char *why);
int ttdecode_finish_output(FILE *f, const char *what);

int ttdecode_text(int argc, char **argv);	/* tttext.c */
int ttdecode_unwrap(int argc, char **argv);	/* ttunwrap.c */
int ttdecode_json(int argc, char **argv);	/* ttjson.c */
int ttdecode_stats(int argc, char **argv);	/* ttstats.c */
int ttdecode_scale(int argc, char **argv);	/* ttscale.c */

#endif /* TTDECODE_H */
