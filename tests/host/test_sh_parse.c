/*
 * Host tests for the shell parser (user/sh_parse.c). The file under test is
 * included by its path relative to this one, so the test is a single
 * translation unit that builds with the plain host-test rule:
 *
 *	gcc $(HOSTCFLAGS) -o build/host/test_sh_parse tests/host/test_sh_parse.c
 *
 * Most cases render a whole parsed line as text and compare it with the
 * expected rendering: a command is {word,word,...} followed by <in, >out or
 * >>out; '|', ';', '&&', '||' appear between them as in the input.
 */
#include <stdio.h>
#include <string.h>
#include "htest.h"
#include "../../user/sh_parse.c"

struct parse_case {
	const char *line;
	const char *want;	/* rendering, or the error message */
};

/* Appends the rendering of cmd to out. */
static void render_cmd(const struct sh_cmd *cmd, char *out, size_t n)
{
	strncat(out, "{", n - strlen(out) - 1);
	for (int i = 0; i < cmd->argc; i++) {
		if (i > 0)
			strncat(out, ",", n - strlen(out) - 1);
		strncat(out, cmd->argv[i], n - strlen(out) - 1);
	}
	strncat(out, "}", n - strlen(out) - 1);
	if (cmd->in) {
		strncat(out, "<", n - strlen(out) - 1);
		strncat(out, cmd->in, n - strlen(out) - 1);
	}
	if (cmd->out) {
		strncat(out, cmd->out_mode == SH_OUT_APPEND ? ">>" : ">",
			n - strlen(out) - 1);
		strncat(out, cmd->out, n - strlen(out) - 1);
	}
}

/* Parses all of line with $? = status and renders it into out. Returns
 * NULL, or the parse error. */
static const char *render_line(const char *line, int status, char *out,
			       size_t n)
{
	static const char *const conn[] = {
		[SH_END] = "", [SH_SEQ] = " ; ", [SH_AND] = " && ",
		[SH_OR] = " || ",
	};
	static struct sh_pipeline p;
	const char *err;

	out[0] = 0;
	do {
		err = sh_parse_pipeline(&line, status, &p);
		if (err)
			return err;
		for (int i = 0; i < p.ncmds; i++) {
			if (i > 0)
				strncat(out, " | ", n - strlen(out) - 1);
			render_cmd(&p.cmds[i], out, n);
		}
		strncat(out, conn[p.next], n - strlen(out) - 1);
	} while (p.next != SH_END);
	return NULL;
}

/* Runs a table of cases that must parse; returns 0 or fails. */
static int check_renderings(const struct parse_case *cases, size_t n)
{
	char out[1024];

	for (size_t i = 0; i < n; i++) {
		const char *err = render_line(cases[i].line, 7, out,
					      sizeof(out));

		if (err)
			HT_FAIL("'%.120s': error '%s'", cases[i].line, err);
		if (strcmp(out, cases[i].want) != 0)
			HT_FAIL("'%.120s': got '%.150s' want '%.150s'",
				cases[i].line, out, cases[i].want);
	}
	return 0;
}

static int test_words(void)
{
	static const struct parse_case cases[] = {
		{ "ls", "{ls}" },
		{ "  ls   -l\t/bin  ", "{ls,-l,/bin}" },
		{ "echo a\nb", "{echo,a,b}" },
		{ "", "" },
		{ "   ", "" },
		{ "# just a comment", "" },
		{ "echo a # comment | not a pipe", "{echo,a}" },
		{ "echo a#b", "{echo,a#b}" },
		{ "echo $ $x a$", "{echo,$,$x,a$}" },
	};
	return check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
}

static int test_quotes(void)
{
	static const struct parse_case cases[] = {
		{ "echo 'a b'  \"c d\"", "{echo,a b,c d}" },
		{ "echo a'b c'd\"e\"", "{echo,ab cde}" },
		{ "echo '' \"\"", "{echo,,}" },
		{ "echo '|;&&<>' \"|;>\"", "{echo,|;&&<>,|;>}" },
		{ "echo 'say \"hi\"' \"it's\"", "{echo,say \"hi\",it's}" },
		{ "echo \"a\\\"b\\\\c\\$d\\e\"", "{echo,a\"b\\c$d\\e}" },
		{ "echo '\\n'", "{echo,\\n}" },
		{ "echo a\\ b \\; \\|", "{echo,a b,;,|}" },
		{ "echo trailing\\", "{echo,trailing\\}" },
		{ "echo '#' \"#\" \\#x", "{echo,#,#,#x}" },
	};
	return check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
}

static int test_status_expansion(void)
{
	static const struct parse_case cases[] = {
		{ "echo $?", "{echo,7}" },
		{ "echo x$?y", "{echo,x7y}" },
		{ "echo \"[$?]\"", "{echo,[7]}" },
		{ "echo '$?'", "{echo,$?}" },
		{ "echo \\$?", "{echo,$?}" },
		{ "echo \"\\$?\"", "{echo,$?}" },
		{ "echo $?$?", "{echo,77}" },
		{ "cat <$? >$?", "{cat}<7>7" },
	};
	char out[64];

	if (check_renderings(cases, sizeof(cases) / sizeof(cases[0])))
		return 1;
	HT_CHECK(render_line("echo $?", 0, out, sizeof(out)) == NULL);
	HT_CHECK(strcmp(out, "{echo,0}") == 0);
	HT_CHECK(render_line("echo $?", 256, out, sizeof(out)) == NULL);
	HT_CHECK(strcmp(out, "{echo,256}") == 0);
	HT_CHECK(render_line("echo $?", -1, out, sizeof(out)) == NULL);
	HT_CHECK(strcmp(out, "{echo,-1}") == 0);
	return 0;
}

/* $$: the shell's pid, as `echo $$ > /dev/ttrace/set_event_pid` needs. */
static int test_pid_expansion(void)
{
	static const struct parse_case cases[] = {
		{ "echo $$", "{echo,42}" },
		{ "echo $$ > set_event_pid", "{echo,42}>set_event_pid" },
		{ "echo \"[$$]\"", "{echo,[42]}" },
		{ "echo '$$'", "{echo,$$}" },
		{ "echo \\$$", "{echo,$$}" },
		{ "echo $$$?", "{echo,427}" },
		{ "echo $", "{echo,$}" },
	};
	int r;

	sh_parse_set_pid(42);
	r = check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
	sh_parse_set_pid(0);
	return r;
}

static int test_redirections(void)
{
	static const struct parse_case cases[] = {
		{ "cat < in > out", "{cat}<in>out" },
		{ "cat<in>out", "{cat}<in>out" },
		{ "echo hi >> log", "{echo,hi}>>log" },
		{ ">f echo hi", "{echo,hi}>f" },
		{ "echo a > x > y", "{echo,a}>y" },
		{ "echo a >> x > y", "{echo,a}>y" },
		{ "cat < 'my file'", "{cat}<my file" },
		{ "echo a>b", "{echo,a}>b" },
	};
	return check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
}

static int test_pipelines(void)
{
	static const struct parse_case cases[] = {
		{ "ls | wc", "{ls} | {wc}" },
		{ "cat<f|grep x|wc -l>n", "{cat}<f | {grep,x} | {wc,-l}>n" },
		{ "a|b|c|d|e|f|g|h",
		  "{a} | {b} | {c} | {d} | {e} | {f} | {g} | {h}" },
	};
	return check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
}

static int test_connectors(void)
{
	static const struct parse_case cases[] = {
		{ "a; b", "{a} ; {b}" },
		{ "a;b;", "{a} ; {b}" },
		{ "a ;  ", "{a}" },
		{ "a; # done", "{a}" },
		{ "a && b || c", "{a} && {b} || {c}" },
		{ "a&&b||c;d", "{a} && {b} || {c} ; {d}" },
		{ "a | b && c | d", "{a} | {b} && {c} | {d}" },
	};
	return check_renderings(cases, sizeof(cases) / sizeof(cases[0]));
}

static int test_errors(void)
{
	static const struct parse_case cases[] = {
		{ "echo 'abc", "unterminated '" },
		{ "echo \"abc", "unterminated \"" },
		{ "echo a |", "missing command" },
		{ "| echo a", "missing command" },
		{ "a || | b", "missing command" },
		{ "; a", "missing command" },
		{ "a ;; b", "missing command" },
		{ "a &&", "missing command after &&" },
		{ "a || # nothing", "missing command after ||" },
		{ "a & b", "background jobs (&) are not supported" },
		{ "a &", "background jobs (&) are not supported" },
		{ "cat <", "missing file name after <" },
		{ "cat > ;", "missing file name after >" },
		{ "cat >> | x", "missing file name after >" },
		{ "> f", "missing command" },
		{ "a|b|c|d|e|f|g|h|i", "too many commands in pipeline" },
	};
	char out[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *err = render_line(cases[i].line, 0, out,
					      sizeof(out));

		if (err == NULL || strcmp(err, cases[i].want) != 0)
			HT_FAIL("'%.120s': got '%.150s' want '%.150s'",
				cases[i].line, err ? err : "(ok)",
				cases[i].want);
	}
	return 0;
}

static int test_limits(void)
{
	static char line[4 * SH_TEXT_MAX];
	static struct sh_pipeline p;
	const char *src = line;
	char *w = line;

	/* SH_MAXARGS words fit, one more does not. */
	for (int i = 0; i < SH_MAXARGS; i++)
		w += sprintf(w, "w%d ", i);
	HT_CHECK(sh_parse_pipeline(&src, 0, &p) == NULL);
	HT_CHECK(p.ncmds == 1 && p.cmds[0].argc == SH_MAXARGS);
	HT_CHECK(p.cmds[0].argv[SH_MAXARGS] == NULL);
	strcpy(w, "extra");
	src = line;
	HT_CHECK(strcmp(sh_parse_pipeline(&src, 0, &p),
			"too many arguments") == 0);

	/* A word longer than the text buffer is an error, not an overflow. */
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	src = line;
	HT_CHECK(strcmp(sh_parse_pipeline(&src, 0, &p), "line too long") == 0);
	HT_CHECK(p.textlen == SH_TEXT_MAX);

	/* So is $? expanding past it. */
	for (size_t i = 0; i + 2 < sizeof(line); i += 2)
		memcpy(line + i, "$?", 2);
	src = line;
	HT_CHECK(strcmp(sh_parse_pipeline(&src, 123456, &p),
			"line too long") == 0);
	return 0;
}

/* The pipelines come out one at a time, each expanded with the status the
 * caller passes, and *srcp advances past each connector. */
static int test_incremental(void)
{
	static struct sh_pipeline p;
	const char *src = "false ; echo $? && echo \"$?\"";

	HT_CHECK(sh_parse_pipeline(&src, 0, &p) == NULL);
	HT_CHECK(p.ncmds == 1 && strcmp(p.cmds[0].argv[0], "false") == 0);
	HT_CHECK(p.next == SH_SEQ);
	HT_CHECK(strcmp(src, "echo $? && echo \"$?\"") == 0);
	HT_CHECK(sh_parse_pipeline(&src, 1, &p) == NULL);
	HT_CHECK(strcmp(p.cmds[0].argv[1], "1") == 0 && p.next == SH_AND);
	HT_CHECK(sh_parse_pipeline(&src, 0, &p) == NULL);
	HT_CHECK(strcmp(p.cmds[0].argv[1], "0") == 0 && p.next == SH_END);
	HT_CHECK(*src == 0);
	HT_CHECK(sh_parse_pipeline(&src, 0, &p) == NULL && p.ncmds == 0);
	return 0;
}

/* sh_check_line finds an error anywhere in the line, before anything of it
 * would run. */
static int test_check_line(void)
{
	static struct sh_pipeline scratch;

	HT_CHECK(sh_check_line("a; b && c | d || e", &scratch) == NULL);
	HT_CHECK(sh_check_line("", &scratch) == NULL);
	HT_CHECK(sh_check_line("a; b; c 'd", &scratch) != NULL);
	HT_CHECK(strcmp(sh_check_line("a; b &&", &scratch),
			"missing command after &&") == 0);
	return 0;
}

static int test_should_run(void)
{
	HT_CHECK(sh_should_run(SH_SEQ, 0) && sh_should_run(SH_SEQ, 1));
	HT_CHECK(sh_should_run(SH_AND, 0) && !sh_should_run(SH_AND, 1));
	HT_CHECK(!sh_should_run(SH_OR, 0) && sh_should_run(SH_OR, 255));
	HT_CHECK(!sh_should_run(SH_AND, 256) && sh_should_run(SH_OR, 256));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_words, "sh_parse_words" },
	{ test_quotes, "sh_parse_quotes" },
	{ test_status_expansion, "sh_parse_status" },
	{ test_pid_expansion, "sh_parse_pid" },
	{ test_redirections, "sh_parse_redirections" },
	{ test_pipelines, "sh_parse_pipelines" },
	{ test_connectors, "sh_parse_connectors" },
	{ test_errors, "sh_parse_errors" },
	{ test_limits, "sh_parse_limits" },
	{ test_incremental, "sh_parse_incremental" },
	{ test_check_line, "sh_parse_check_line" },
	{ test_should_run, "sh_should_run" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
