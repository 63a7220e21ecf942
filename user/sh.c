/*
 * sh: the ttrace shell.
 *
 *	sh			read commands from stdin, prompting "$ "
 *	sh FILE			run the lines of FILE
 *	sh -c 'COMMAND'		run one command line
 *
 * The syntax (quotes, $?, < > >>, |, ;, &&, ||, # comments) is parsed by
 * sh_parse.c; this file runs what it parsed. A command NAME is the program
 * /bin/NAME unless NAME contains a '/'. Each command of a pipeline is
 * started with spawn(), its stdin/stdout/stderr given by the fdmap: the
 * redirection files and pipe ends are opened first and the shell closes
 * its copies once the child holds them, so a reader sees end of file when
 * its writers exit. The shell then waits for the commands in order, making
 * each the console's foreground process (setfg) while it waits, so ^C kills
 * the command being waited for and not the shell.
 *
 * $? is the last pipeline's status: the exit status of its last command,
 * 127 if that command could not be started, 1 if a redirection failed, 2
 * for a syntax error; a command the kernel killed has status >= 128.
 *
 * The built-ins cd, exit and help run in the shell itself, so they cannot
 * be part of a multi-command pipeline. Line editing belongs to the
 * console's line discipline: a read of the console returns one line.
 */
#include <abi/insn_mark.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sh_parse.h"

#define SH_LINE_MAX	1024
#define SH_PATH_MAX	256

enum prompt_mode { PROMPT_NONE, PROMPT_SHOW };

/* A started command: its pid, or -1 and the status it failed with. */
struct job {
	int pid;
	int status;
};

struct builtin {
	const char *name;
	const char *usage;
	int (*run)(const struct sh_cmd *cmd, int out);
};

static int last_status;
static struct sh_pipeline pipeline;	/* large: kept off the stack */

static int builtin_cd(const struct sh_cmd *cmd, int out);
static int builtin_exit(const struct sh_cmd *cmd, int out);
static int builtin_help(const struct sh_cmd *cmd, int out);

static const struct builtin builtins[] = {
	{ "cd", "cd [DIR]        change directory (default /)", builtin_cd },
	{ "exit", "exit [STATUS]   leave the shell (default $?)", builtin_exit },
	{ "help", "help            this text", builtin_help },
};

/* Returns the built-in called name, or NULL. */
static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* Returns the shell's exit status for status, squeezed into 0..255. */
static int exit_code(int status)
{
	return status < 0 || status > 255 ? 255 : status;
}

static int builtin_cd(const struct sh_cmd *cmd, int out)
{
	const char *dir = cmd->argc > 1 ? cmd->argv[1] : "/";

	(void)out;
	if (chdir(dir) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int builtin_exit(const struct sh_cmd *cmd, int out)
{
	char *end;
	long status = last_status;

	(void)out;
	if (cmd->argc > 1) {
		status = strtol(cmd->argv[1], &end, 10);
		if (*cmd->argv[1] == 0 || *end != 0) {
			fprintf(stderr, "sh: exit: bad status '%s'\n",
				cmd->argv[1]);
			return 2;
		}
	}
	exit(exit_code((int)status));
}

/* Prints the names in /bin to out on one line. */
static void list_programs(int out)
{
	struct dirent ents[8];
	int fd = open("/bin", O_RDONLY), n;

	if (fd < 0)
		return;
	fprintf(out, "programs in /bin:");
	while ((n = readdir(fd, ents, 8)) > 0)
		for (int i = 0; i < n; i++)
			if (ents[i].name[0] != '.')
				fprintf(out, " %s", ents[i].name);
	fprintf(out, "\n");
	close(fd);
}

static int builtin_help(const struct sh_cmd *cmd, int out)
{
	(void)cmd;
	fprintf(out, "built-ins:\n");
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		fprintf(out, "  %s\n", builtins[i].usage);
	fprintf(out, "syntax: 'single' \"double $?\" \\c  <in >out >>out"
		"  a | b  a ; b  a && b  a || b  # comment\n");
	list_programs(out);
	return 0;
}

/* Opens cmd's redirections, storing the fds in fdmap[0]/fdmap[1] and in
 * opened[] (-1: none) so the caller can close them. Returns 0, or -1
 * after reporting a file that could not be opened. */
static int open_redirections(const struct sh_cmd *cmd, int fdmap[3],
			     int opened[2])
{
	int flags = O_WRONLY | O_CREAT |
		(cmd->out_mode == SH_OUT_APPEND ? O_APPEND : O_TRUNC);

	opened[0] = opened[1] = -1;
	if (cmd->in && (opened[0] = fdmap[0] = open(cmd->in, O_RDONLY)) < 0) {
		fprintf(stderr, "sh: %s: %s\n", cmd->in, strerror(errno));
		return -1;
	}
	if (cmd->out && (opened[1] = fdmap[1] = open(cmd->out, flags)) < 0) {
		fprintf(stderr, "sh: %s: %s\n", cmd->out, strerror(errno));
		return -1;
	}
	return 0;
}

static void close_opened(const int opened[2])
{
	for (int i = 0; i < 2; i++)
		if (opened[i] >= 0)
			close(opened[i]);
}

/* Runs a built-in on its own, honouring its redirections. Returns its
 * status. */
static int run_builtin(const struct builtin *b, const struct sh_cmd *cmd)
{
	int fdmap[3] = { 0, 1, 2 }, opened[2], status = 1;

	if (open_redirections(cmd, fdmap, opened) == 0)
		status = b->run(cmd, fdmap[1]);
	fflush(stdout);
	close_opened(opened);
	return status;
}

/* Spawns cmd with stdin in and stdout out (before its redirections) and
 * fills *job. The caller keeps ownership of in and out. */
static void start_cmd(const struct sh_cmd *cmd, int in, int out,
		      struct job *job)
{
	int fdmap[3] = { in, out, 2 }, opened[2];
	const char *name = cmd->argv[0];
	char path[SH_PATH_MAX];

	job->pid = -1;
	job->status = 1;
	if (open_redirections(cmd, fdmap, opened) < 0) {
		close_opened(opened);
		return;
	}
	if (find_builtin(name)) {
		fprintf(stderr, "sh: %s: built-in cannot be in a pipeline\n",
			name);
	} else if (snprintf(path, sizeof(path), "%s%s",
			    strchr(name, '/') ? "" : "/bin/", name) >=
		   (int)sizeof(path)) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(ENAMETOOLONG));
		job->status = 127;
	} else if ((job->pid = spawn(path, cmd->argv, fdmap)) < 0) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
		job->status = 127;
	}
	close_opened(opened);
}

/* Waits for each started job in turn as the console's foreground process.
 * Returns the status of the last job. */
static int wait_jobs(struct job *jobs, int n)
{
	for (int i = 0; i < n; i++) {
		if (jobs[i].pid < 0)
			continue;
		setfg(jobs[i].pid);
		if (waitpid(jobs[i].pid, &jobs[i].status) < 0)
			jobs[i].status = 255;
	}
	setfg(0);
	return jobs[n - 1].status;
}

/* Runs pipeline p and returns its status. */
static int run_pipeline(const struct sh_pipeline *p)
{
	const struct builtin *b = find_builtin(p->cmds[0].argv[0]);
	struct job jobs[SH_MAXCMDS];
	int in = -1, i;		/* read end of the pipe from the previous cmd */

	if (p->ncmds == 1 && b)
		return run_builtin(b, &p->cmds[0]);
	fflush(stdout);
	for (i = 0; i < p->ncmds; i++) {
		int fds[2] = { -1, -1 };

		if (i < p->ncmds - 1 && pipe(fds) < 0) {
			fprintf(stderr, "sh: pipe: %s\n", strerror(errno));
			break;
		}
		start_cmd(&p->cmds[i], in >= 0 ? in : 0,
			  fds[1] >= 0 ? fds[1] : 1, &jobs[i]);
		if (in >= 0)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
	}
	for (int k = i; k < p->ncmds; k++)
		jobs[k] = (struct job){ .pid = -1, .status = 1 };
	if (in >= 0)
		close(in);
	return wait_jobs(jobs, p->ncmds);
}

/* Parses and runs one command line, updating last_status. */
static void run_line(const char *src)
{
	const char *err = sh_check_line(src, &pipeline);
	enum sh_conn conn = SH_SEQ;

	if (err) {
		fprintf(stderr, "sh: %s\n", err);
		last_status = 2;
		return;
	}
	for (;;) {
		sh_parse_pipeline(&src, last_status, &pipeline);
		if (pipeline.ncmds > 0 && sh_should_run(conn, last_status))
			last_status = run_pipeline(&pipeline);
		if (pipeline.next == SH_END)
			break;
		conn = pipeline.next;
	}
}

/* Reads and drops the rest of the current line, using buf (n bytes). */
static void skip_line(struct linereader *lr, char *buf, size_t n)
{
	ssize_t got;

	do
		got = linereader_next(lr, buf, n);
	while (got > 0 && buf[got - 1] != '\n');
}

/* Runs every line read from fd until its end, prompting first if mode
 * says so. */
static void run_input(int fd, enum prompt_mode mode)
{
	static struct linereader lr;
	static char line[SH_LINE_MAX];
	ssize_t n;

	linereader_init(&lr, fd);
	for (;;) {
		if (mode == PROMPT_SHOW) {
			INSN_MARK(INSN_MARK_BOOT_END);	/* make bench: boot ends */
			printf("$ ");
			fflush(stdout);
		}
		n = linereader_next(&lr, line, sizeof(line));
		if (n < 0)
			fprintf(stderr, "sh: read: %s\n", strerror(errno));
		if (n <= 0)
			return;
		if (line[n - 1] != '\n' && n == sizeof(line) - 1) {
			skip_line(&lr, line, sizeof(line));
			fprintf(stderr, "sh: line too long\n");
			last_status = 2;
			continue;
		}
		run_line(line);
	}
}

int main(int argc, char **argv)
{
	int fd;

	sh_parse_set_pid(getpid());
	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		run_line(argv[2]);
		return exit_code(last_status);
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: sh [-c command | file]\n");
		return 2;
	}
	if (argc == 2) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", argv[1],
				strerror(errno));
			return 127;
		}
		run_input(fd, PROMPT_NONE);
		close(fd);
	} else {
		run_input(0, PROMPT_SHOW);
	}
	return exit_code(last_status);
}
