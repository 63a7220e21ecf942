/*
 * ttrace: drive the kernel tracer through /dev/ttrace (docs/ttrace-device.md)
 * and get traces out as one file (docs/trace-file.md).
 *
 * The subcommands are one table (subcmds below): each one's name, its
 * operands, how many it takes and what runs it. The usage text is built
 * from the table. This file does itself what is one ctl write or one file
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

#define ANY	(-1)	/* no bound on the operands */

/* ttrace status: print /dev/ttrace/ctl and stats. */
static int do_status(int argc, char **argv)
{
	(void)argc, (void)argv;
	cat_file(DEV "/ctl");
	cat_file(DEV "/stats");
	return 0;
}

/* ttrace enable|disable NAME...: groups or events (globs) on or off. */
static int do_names(int argc, char **argv)
{
	char buf[TTRACE_CTL_MAX_LEN + 1];

	join(buf, sizeof(buf), argv[0], argc - 1, argv + 1);
	ctl_write(buf);
	return 0;
}

/* ttrace clear: empty the rings (aux keeps its names). */
static int do_clear(int argc, char **argv)
{
	(void)argc, (void)argv;
	ctl_write("clear");
	return 0;
}

/* ttrace mark TEXT...: record a user_marker event with TEXT. */
static int do_mark(int argc, char **argv)
{
	char buf[TTRACE_CTL_MAX_LEN + 1];
	int fd = open_or_die(DEV "/marker", O_WRONLY);

	join(buf, sizeof(buf), "", argc - 1, argv + 1);
	if (write(fd, buf, strlen(buf)) < 0)
		die_sys(DEV "/marker");
	close(fd);
	return 0;
}

/* ttrace save [-s | -l NAME] FILE: the whole trace into one file (-s:
 * the snapshot a snapshot probe took; -l: the trace frozen at latency
 * tracer NAME's maximum, docs/latency.md). */
static int do_save(int argc, char **argv)
{
	char file[48];

	if (argc == 2)
		save(argv[1], "trace.ttr");
	else if (argc == 3 && !strcmp(argv[1], "-s"))
		save(argv[2], "snaptrace");
	else if (argc == 4 && !strcmp(argv[1], "-l") &&
		 strlen(argv[2]) < sizeof(file) - sizeof("_trace")) {
		snprintf(file, sizeof(file), "%s_trace", argv[2]);
		save(argv[3], file);
	} else
		return 2;
	return 0;
}

/* ttrace counters: the counters' values (docs/probes.md). */
static int do_counters(int argc, char **argv)
{
	(void)argc, (void)argv;
	cat_file(DEV "/counters");
	return 0;
}

/* ttrace hist ...: start a count, a histogram of FIELD or of the latency
 * START -> END, or show it as bars if it runs already. */
static int do_hist(int argc, char **argv)
{
	return cmd_hist(argc - 1, argv + 1);
}

/* ttrace probe list|load FILE|unload NAME: probes (docs/probes.md): load
 * a module (an ELF object) or write a text FILE's lines to ctl; unload a
 * module or a built-in probe. */
static int do_probe(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list"))
		cat_file(DEV "/probes");
	else if (argc == 3 && !strcmp(argv[1], "load"))
		probe_load(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "unload"))
		probe_unload(argv[2]);
	else
		return 2;
	return 0;
}

/* One row a subcommand; fn gets argv[0] its name and returns the exit
 * status, 2 for operands it does not take. */
static const struct subcmd {
	const char *name;
	const char *usage;	/* its operands */
	int min, max;		/* how many operands */
	int (*fn)(int argc, char **argv);
} subcmds[] = {
	{ "status", "", 0, 0, do_status },
	{ "enable", "NAME...", 1, ANY, do_names },
	{ "disable", "NAME...", 1, ANY, do_names },
	{ "clear", "", 0, 0, do_clear },
	{ "mark", "TEXT...", 1, ANY, do_mark },
	{ "cat", "[-c CPU]", 0, ANY, cmd_cat },
	{ "save", "[-s | -l NAME] FILE", 1, 3, do_save },
	{ "hist", "EVENT[:FIELD] [by FIELD] [if TEST...]", 0, ANY, do_hist },
	/* hist's second form, for the usage: the row above runs both */
	{ "hist", "latency START END [by FIELD] [if TEST...]", 0, ANY, do_hist },
	{ "probe", "list|load FILE|unload NAME", 1, 2, do_probe },
	{ "counters", "", 0, 0, do_counters },
	{ "record", "[-o FILE] -- CMD [ARG...]", 0, ANY, cmd_record },
	{ "profile", "[-F HZ] [--off-cpu] [--sched] [-o FILE] -- CMD [ARG...]",
	  0, ANY, cmd_profile },
	{ "graph", "[-f GLOB] [-o FILE] -- CMD [ARG...]", 0, ANY, cmd_graph },
	{ "stream", "[-o FILE] [-t SECONDS] [-- CMD [ARG...]]", 0, ANY,
	  cmd_stream },
	{ "latency", "timerlat [SECONDS [PERIOD_US]]", 1, 4, cmd_latency },
	/* latency's second form, for the usage: the row above runs both */
	{ "latency", "osnoise [SECONDS [RUNTIME_US [THRESHOLD_NS]]]", 1, 4,
	  cmd_latency },
};

static int usage(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		fprintf(stderr, "%s ttrace %s%s%s\n", i ? "      " : "usage:",
			subcmds[i].name, subcmds[i].usage[0] ? " " : "",
			subcmds[i].usage);
	return 2;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++) {
		const struct subcmd *s = &subcmds[i];
		int n = argc - 2;

		if (strcmp(c, s->name))
			continue;
		if (n < s->min || (s->max != ANY && n > s->max))
			break;
		n = s->fn(argc - 1, argv + 1);
		return n == 2 ? usage() : n;
	}
	return usage();
}
