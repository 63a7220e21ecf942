/*
 * kill: end each process PID (there are no signals: the process dies as
 * if it had faulted, and its parent's wait reports a status >= 128).
 *
 *	kill PID...
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: kill PID...\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);

		if (*argv[i] == 0 || *end != 0 || pid <= 0) {
			errno = EINVAL;
			warn("%s", argv[i]);
			status = 1;
		} else if (kill((int)pid) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
