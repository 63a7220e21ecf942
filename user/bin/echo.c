/*
 * echo: print the arguments separated by spaces, then a newline.
 *
 *	echo [-n] [ARG...]	-n: no newline
 */
#include <stdio.h>
#include <string.h>

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
	return fflush(stdout) < 0;
}
