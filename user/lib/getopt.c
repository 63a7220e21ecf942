/*
 * getopt: POSIX short-option parsing. Options are grouped ("-vc"), an
 * option's argument may be attached ("-n5") or the next word ("-n 5"), and
 * "--" or the first word not starting with '-' ends the options. The
 * position inside a group lives in optpos; it is 0 between words, so a
 * caller that resets optind to 1 after a complete scan starts clean.
 */
#include <unistd.h>
#include <stdio.h>
#include <string.h>

char *optarg;
int optind = 1, opterr = 1, optopt;

static int optpos;	/* next character within argv[optind]; 0: none yet */

enum opt_problem { OPT_UNKNOWN, OPT_NO_ARGUMENT };

/* Moves to the next word once the current group is used up. */
static void next_word_if_done(char *const argv[])
{
	if (argv[optind][optpos] == 0) {
		optind++;
		optpos = 0;
	}
}

/* Records and (unless silenced) reports problem with option c; returns
 * getopt's result for it. */
static int bad_option(char *const argv[], const char *opts, int c,
		      enum opt_problem problem)
{
	optopt = c;
	if (opts[0] == ':')
		return problem == OPT_NO_ARGUMENT ? ':' : '?';
	if (opterr)
		fprintf(stderr, "%s: %s -- '%c'\n", argv[0],
			problem == OPT_NO_ARGUMENT ?
			"option requires an argument" : "unknown option", c);
	return '?';
}

int getopt(int argc, char *const argv[], const char *opts)
{
	const char *spec;
	int c;

	optarg = NULL;
	if (optpos == 0) {
		if (optind >= argc || argv[optind][0] != '-' ||
		    argv[optind][1] == 0)
			return -1;
		if (strcmp(argv[optind], "--") == 0) {
			optind++;
			return -1;
		}
		optpos = 1;
	}
	c = (unsigned char)argv[optind][optpos++];
	spec = c == ':' ? NULL : strchr(opts, c);
	if (spec == NULL) {
		next_word_if_done(argv);
		return bad_option(argv, opts, c, OPT_UNKNOWN);
	}
	if (spec[1] != ':') {
		next_word_if_done(argv);
		return c;
	}
	if (argv[optind][optpos] != 0)
		optarg = &argv[optind][optpos];
	else if (optind + 1 < argc)
		optarg = argv[++optind];
	optind++;
	optpos = 0;
	if (optarg == NULL)
		return bad_option(argv, opts, c, OPT_NO_ARGUMENT);
	return c;
}
