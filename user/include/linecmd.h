/*
 * linecmd: the command line shared by the line filters head and tail.
 *
 *	PROG [-n N | -N] [FILE...]	default N = 10
 *
 * linecmd_main() parses the options, then calls each(fd, name, n) on every
 * FILE (or on stdin when there is none), heading each "==> FILE <==" when
 * there are several, as the POSIX tools do. It returns the exit status:
 * 0, or 1 if an option was bad, a file could not be opened or each()
 * returned -1 (after reporting its error).
 */
#ifndef LINECMD_H
#define LINECMD_H

typedef int (*linecmd_fn)(int fd, const char *name, long nlines);

int linecmd_main(int argc, char **argv, const char *prog, linecmd_fn each);

#endif /* LINECMD_H */
