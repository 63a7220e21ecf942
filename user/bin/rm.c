/*
 * rm: remove each FILE or empty directory.
 *
 *	rm FILE...
 */
#include <err.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: rm FILE...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (remove(argv[i]) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
