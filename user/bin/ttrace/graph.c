/*
 * graph.c: `ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]`, the
 * function-graph tracer (docs/function-graph.md) around one command. It
 * narrows the patched function sites to GLOB (the funcs file), clears the
 * trace and enables the func group while CMD runs, then disables it
 * (every site a NOP again; that disable is also what fail_exit writes if
 * anything fails meanwhile), sets the filter back to "*" and saves the
 * trace, so the save does not trace itself.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

/* Writes glob to the funcs file (the graph tracer's filter). */
static void funcs_write(const char *glob)
{
	int fd = open_or_die(DEV "/funcs", O_WRONLY);

	if (write(fd, glob, strlen(glob)) < 0)
		die_sys(glob);
	close(fd);
}

/* ttrace graph [-f GLOB] [-o FILE] -- CMD: records every call into the
 * functions GLOB selects while CMD runs (docs/function-graph.md), saves
 * the trace, and leaves every function site a NOP again. */
int cmd_graph(int argc, char **argv)
{
	const char *out = "/dev/host/out", *glob = "*";
	char path[128];
	int c, pid, status;

	while ((c = getopt(argc, argv, "f:o:")) != -1) {
		if (c == 'f')
			glob = optarg;
		else if (c == 'o')
			out = optarg;
		else
			die("usage: ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]");
	}
	if (optind >= argc)
		die("usage: ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]");
	funcs_write(glob);
	ctl_write("clear");
	strlcpy(restore, "disable func", sizeof(restore));
	ctl_write("enable func");
	pid = spawn_cmd(argv + optind, path, sizeof(path));
	if (pid >= 0 && waitpid(pid, &status) < 0)
		die_sys("wait");
	ctl_write(restore);	/* every function site a NOP again */
	restore[0] = 0;
	funcs_write("*");
	if (pid < 0)
		die_sys(path);
	save(out, "trace.ttr");
	printf("ttrace: %s exited with status %d; graph saved to %s\n",
	       argv[optind], status, out);
	return 0;
}
