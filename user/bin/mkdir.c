/*
 * mkdir: create each DIR; the parent must exist.
 *
 *	mkdir DIR...
 */
#include <err.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: mkdir DIR...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (mkdir(argv[i]) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
