/*
 * dropcap: run a command without some of this shell's rights, for good
 * (the capdrop syscall; the command's children inherit the loss).
 *
 *	dropcap trace CMD [ARG...]	CMD without the right to trace: no
 *					ctl write, no read of records
 *					(docs/ttrace-device.md)
 *
 * The command is found as the shell finds it: a name without a '/' is
 * looked for in /bin.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[256];
	int pid, status;

	if (argc < 3 || strcmp(argv[1], "trace")) {
		fprintf(stderr, "usage: dropcap trace CMD [ARG...]\n");
		return 2;
	}
	if (capdrop(CAP_TRACE) < 0)
		err(1, "capdrop");
	snprintf(path, sizeof(path), "%s%s", strchr(argv[2], '/') ? "" :
		 "/bin/", argv[2]);
	pid = spawn(path, &argv[2], (const int[3]){ 0, 1, 2 });
	if (pid < 0)
		err(127, "%s", path);
	if (waitpid(pid, &status) < 0)
		err(1, "wait");
	return status;
}
