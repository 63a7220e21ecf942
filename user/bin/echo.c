/*
 * echo: print the arguments separated by spaces, then a newline.
 *
 *	echo [-n] [ARG...]	-n: no newline
 *
 * A failed write is reported with the kernel's error text (errstr).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int newline = 1, i = 1;

	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = 0;
		i = 2;
	}
	for (; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	if (newline)
		putchar('\n');
	if (fflush(stdout) < 0) {
		/* the kernel's text says more than errno: e.g. a ctl file's
		 * usage */
		char why[512];

		errstr(why, sizeof(why));
		fprintf(stderr, "echo: %s\n", why);
		return 1;
	}
	return 0;
}
