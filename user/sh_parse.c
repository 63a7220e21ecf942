/*
 * sh_parse: tokenising, quoting and $? expansion for the shell (grammar in
 * sh_parse.h). One left-to-right pass with no lookahead beyond two
 * characters: a word is copied, already unquoted and expanded, into the
 * pipeline's text buffer and the command's argv points at it, so the
 * result needs no freeing. The first error found is kept in the parser and
 * stops the pass.
 */
#include "sh_parse.h"
#include <string.h>

struct parser {
	const char *s;			/* next unread character */
	int status;			/* what $? expands to */
	struct sh_pipeline *p;		/* output */
	const char *err;		/* first error, or NULL */
};

static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_operator(int c)
{
	return c == '|' || c == '&' || c == ';' || c == '<' || c == '>';
}

/* Returns 1 if c cannot be part of an unquoted word. */
static int ends_word(int c)
{
	return c == 0 || is_blank(c) || is_operator(c);
}

static void skip_blanks(struct parser *ps)
{
	while (is_blank(*ps->s))
		ps->s++;
}

/* Skips blanks; returns 1 if only a comment or nothing is left. */
static int at_line_end(struct parser *ps)
{
	skip_blanks(ps);
	return *ps->s == 0 || *ps->s == '#';
}

/* Records msg unless an earlier error is already recorded; returns -1. */
static int fail(struct parser *ps, const char *msg)
{
	if (ps->err == NULL)
		ps->err = msg;
	return -1;
}

/* Appends c to the text buffer; returns 0, or -1 if the buffer is full. */
static int put(struct parser *ps, char c)
{
	struct sh_pipeline *p = ps->p;

	if (p->textlen == sizeof(p->text))
		return fail(ps, "line too long");
	p->text[p->textlen++] = c;
	return 0;
}

static int shell_pid;		/* what $$ expands to */

/* Sets what $$ expands to: the shell's pid. */
void sh_parse_set_pid(int pid)
{
	shell_pid = pid;
}

/* Appends what $? or $$ (at ps->s) expands to, in decimal, and moves
 * past it; returns 0 or -1 like put. */
static int put_status(struct parser *ps)
{
	char digits[12];
	int num = ps->s[1] == '$' ? shell_pid : ps->status;
	unsigned int v = num < 0 ? -(unsigned int)num : (unsigned int)num;
	int n = 0;

	ps->s += 2;
	if (num < 0 && put(ps, '-') < 0)
		return -1;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		if (put(ps, digits[--n]) < 0)
			return -1;
	return 0;
}

static int is_status(const char *s)
{
	return s[0] == '$' && (s[1] == '?' || s[1] == '$');
}

/* Copies a '...' string (ps->s at the opening quote) literally. Returns 0,
 * or -1 if it is unterminated or does not fit. */
static int read_single(struct parser *ps)
{
	ps->s++;
	while (*ps->s != '\'') {
		if (*ps->s == 0)
			return fail(ps, "unterminated '");
		if (put(ps, *ps->s++) < 0)
			return -1;
	}
	ps->s++;
	return 0;
}

/* Copies a "..." string (ps->s at the opening quote), expanding $? and
 * the escapes \" \\ \$. Returns 0, or -1 like read_single. */
static int read_double(struct parser *ps)
{
	ps->s++;
	while (*ps->s != '"') {
		const char *s = ps->s;
		int r;

		if (*s == 0)
			return fail(ps, "unterminated \"");
		if (is_status(s)) {
			r = put_status(ps);
		} else if (s[0] == '\\' && s[1] && strchr("\"\\$", s[1])) {
			ps->s += 2;
			r = put(ps, s[1]);
		} else {
			ps->s++;
			r = put(ps, s[0]);
		}
		if (r < 0)
			return -1;
	}
	ps->s++;
	return 0;
}

/* Reads the word starting at ps->s (a character that does not end a word)
 * into the text buffer. Returns the word, or NULL on error. */
static char *read_word(struct parser *ps)
{
	char *word = ps->p->text + ps->p->textlen;

	while (!ends_word(*ps->s)) {
		const char *s = ps->s;
		int r;

		if (*s == '\'') {
			r = read_single(ps);
		} else if (*s == '"') {
			r = read_double(ps);
		} else if (is_status(s)) {
			r = put_status(ps);
		} else if (s[0] == '\\' && s[1] != 0) {
			ps->s += 2;
			r = put(ps, s[1]);
		} else {
			ps->s++;
			r = put(ps, s[0]);
		}
		if (r < 0)
			return NULL;
	}
	return put(ps, 0) < 0 ? NULL : word;
}

/* Parses the redirection at ps->s ('<', '>' or '>>') into cmd. Returns 0,
 * or -1 if the file name is missing or bad. */
static int parse_redirect(struct parser *ps, struct sh_cmd *cmd)
{
	char op = *ps->s++;
	char *file;

	if (op == '>') {
		cmd->out_mode = SH_OUT_TRUNC;
		if (*ps->s == '>') {
			ps->s++;
			cmd->out_mode = SH_OUT_APPEND;
		}
	}
	if (at_line_end(ps) || is_operator(*ps->s))
		return fail(ps, op == '<' ? "missing file name after <" :
			    "missing file name after >");
	file = read_word(ps);
	if (file == NULL)
		return -1;
	if (op == '<')
		cmd->in = file;
	else
		cmd->out = file;
	return 0;
}

/* Parses one command (words and redirections) into cmd. Stops before a
 * connector, '|', a comment or the end. Returns 0, or -1 on error. */
static int parse_cmd(struct parser *ps, struct sh_cmd *cmd)
{
	cmd->argc = 0;
	cmd->in = NULL;
	cmd->out = NULL;
	cmd->out_mode = SH_OUT_TRUNC;
	while (!at_line_end(ps)) {
		char c = *ps->s;

		if (c == '<' || c == '>') {
			if (parse_redirect(ps, cmd) < 0)
				return -1;
			continue;
		}
		if (is_operator(c))
			break;
		if (cmd->argc == SH_MAXARGS)
			return fail(ps, "too many arguments");
		cmd->argv[cmd->argc] = read_word(ps);
		if (cmd->argv[cmd->argc] == NULL)
			return -1;
		cmd->argc++;
	}
	cmd->argv[cmd->argc] = NULL;
	return cmd->argc == 0 ? fail(ps, "missing command") : 0;
}

/* Reads what follows a complete pipeline into p->next. Returns 0, or -1
 * if it is not a connector or nothing follows && or ||. */
static int parse_connector(struct parser *ps)
{
	struct sh_pipeline *p = ps->p;
	const char *s;

	if (at_line_end(ps)) {
		ps->s += strlen(ps->s);
		p->next = SH_END;
		return 0;
	}
	s = ps->s;
	if (s[0] == ';') {
		ps->s++;
		p->next = at_line_end(ps) ? SH_END : SH_SEQ;
		if (p->next == SH_END)
			ps->s += strlen(ps->s);
		return 0;
	}
	if (s[0] != s[1] || (s[0] != '&' && s[0] != '|'))
		return fail(ps, "background jobs (&) are not supported");
	ps->s += 2;
	p->next = s[0] == '&' ? SH_AND : SH_OR;
	if (at_line_end(ps))
		return fail(ps, s[0] == '&' ? "missing command after &&" :
			    "missing command after ||");
	return 0;
}

const char *sh_parse_pipeline(const char **srcp, int status,
			      struct sh_pipeline *p)
{
	struct parser ps = { .s = *srcp, .status = status, .p = p };

	p->ncmds = 0;
	p->textlen = 0;
	p->next = SH_END;
	if (at_line_end(&ps)) {
		*srcp = ps.s + strlen(ps.s);
		return NULL;
	}
	for (;;) {
		if (p->ncmds == SH_MAXCMDS) {
			fail(&ps, "too many commands in pipeline");
			break;
		}
		if (parse_cmd(&ps, &p->cmds[p->ncmds]) < 0)
			break;
		p->ncmds++;
		if (ps.s[0] != '|' || ps.s[1] == '|') {
			parse_connector(&ps);
			break;
		}
		ps.s++;
	}
	*srcp = ps.s;
	return ps.err;
}

const char *sh_check_line(const char *src, struct sh_pipeline *scratch)
{
	const char *err;

	do
		err = sh_parse_pipeline(&src, 0, scratch);
	while (err == NULL && scratch->next != SH_END);
	return err;
}

int sh_should_run(enum sh_conn conn, int status)
{
	if (conn == SH_AND)
		return status == 0;
	if (conn == SH_OR)
		return status != 0;
	return 1;
}
