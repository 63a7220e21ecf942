/*
 * ttrace: drive the kernel tracer through /dev/ttrace (docs/ttrace-device.md)
 * and get traces out as one file (docs/trace-file.md).
 *
 *	ttrace status			print /dev/ttrace/ctl and stats
 *	ttrace enable NAME...		groups or events (globs) on
 *	ttrace disable NAME...		... off
 *	ttrace clear			empty the rings (aux keeps its names)
 *	ttrace mark TEXT...		record a user_marker event with TEXT
 *	ttrace cat [-c CPU]		records as text, all CPUs merged by time
 *	ttrace save [-s] FILE		the whole trace into one file (-s:
 *					the snapshot a snapshot probe took)
 *	ttrace hist EVENT[:FIELD] [by FIELD] [if TEST...]
 *	ttrace hist latency START END [by FIELD] [if TEST...]
 *					start a count, a histogram of FIELD
 *					or of the latency START -> END, or
 *					show it as bars if it runs already
 *	ttrace counters			the counters' values (docs/probes.md)
 *	ttrace probe list|load FILE|unload NAME
 *					probes (docs/probes.md): load a
 *					module (an ELF object) or write a
 *					text FILE's lines to ctl; unload a
 *					module or a built-in probe
 *	ttrace record [-o FILE] -- CMD [ARG...]
 *	ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]
 *	ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]
 *
 * This file dispatches, and does itself what is one ctl write or one file
 * copied out; each family of subcommands has its file (ttrace_cmd.h lists
 * them). Errors from the kernel are printed with its own text (errstr),
 * and the exit status is then 1; a bad command line prints the usage and
 * exits 2.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: ttrace status\n"
		"       ttrace enable|disable NAME...\n"
		"       ttrace clear\n"
		"       ttrace mark TEXT...\n"
		"       ttrace cat [-c CPU]\n"
		"       ttrace save [-s] FILE\n"
		"       ttrace hist EVENT[:FIELD] [by FIELD] [if TEST...]\n"
		"       ttrace hist latency START END [by FIELD] [if TEST...]\n"
		"       ttrace probe list|load FILE|unload NAME\n"
		"       ttrace counters\n"
		"       ttrace record [-o FILE] -- CMD [ARG...]\n"
		"       ttrace graph [-f GLOB] [-o FILE] -- CMD [ARG...]\n"
		"       ttrace stream [-o FILE] [-t SECONDS] [-- CMD [ARG...]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	char buf[CTL_MAX + 1];
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "status") && argc == 2) {
		cat_file(DEV "/ctl");
		cat_file(DEV "/stats");
	} else if ((!strcmp(c, "enable") || !strcmp(c, "disable")) &&
		   argc > 2) {
		join(buf, sizeof(buf), c, argc - 2, argv + 2);
		ctl_write(buf);
	} else if (!strcmp(c, "clear") && argc == 2) {
		ctl_write("clear");
	} else if (!strcmp(c, "mark") && argc > 2) {
		int fd = open_or_die(DEV "/marker", O_WRONLY);

		join(buf, sizeof(buf), "", argc - 2, argv + 2);
		if (write(fd, buf, strlen(buf)) < 0)
			die_sys(DEV "/marker");
		close(fd);
	} else if (!strcmp(c, "cat")) {
		return cmd_cat(argc - 1, argv + 1);
	} else if (!strcmp(c, "save") && argc == 3) {
		save(argv[2], "trace");
	} else if (!strcmp(c, "save") && argc == 4 && !strcmp(argv[2], "-s")) {
		save(argv[3], "snaptrace");
	} else if (!strcmp(c, "counters") && argc == 2) {
		cat_file(DEV "/counters");
	} else if (!strcmp(c, "hist")) {
		return cmd_hist(argc - 2, argv + 2);
	} else if (!strcmp(c, "probe") && argc == 3 &&
		   !strcmp(argv[2], "list")) {
		cat_file(DEV "/probes");
	} else if (!strcmp(c, "probe") && argc == 4 &&
		   !strcmp(argv[2], "load")) {
		probe_load(argv[3]);
	} else if (!strcmp(c, "probe") && argc == 4 &&
		   !strcmp(argv[2], "unload")) {
		probe_unload(argv[3]);
	} else if (!strcmp(c, "record")) {
		return cmd_record(argc - 1, argv + 1);
	} else if (!strcmp(c, "graph")) {
		return cmd_graph(argc - 1, argv + 1);
	} else if (!strcmp(c, "stream")) {
		return cmd_stream(argc - 1, argv + 1);
	} else {
		return usage();
	}
	return 0;
}
