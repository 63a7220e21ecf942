/*
 * errlog.c: ftrace's error log (ttrace_dynevent.h): the last
 * TTRACE_ERRLOG_MAX refused writes to the tracefs tree, in fixed-size
 * entries, read back in Linux's layout (kernel/trace/trace.c,
 * tracing_err_log_seq_show()). Pure; the caller locks.
 */
#include <seqbuf.h>
#include <string.h>

#include <ttrace_dynevent.h>

#define ERRLOG_PREFIX	"  Command: "

/* Copies at most size - 1 bytes of s (n of them) into dst, NUL-ended,
 * the unprintable ones as '?'. */
static void copy_cut(char *dst, size_t size, const char *s, size_t n)
{
	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = s[i] >= ' ' && s[i] < 0x7f ? s[i] : '?';
	dst[n] = 0;
}

/* See ttrace_dynevent.h. */
void ttrace_errlog_add(struct ttrace_errlog *l, uint64_t ns, const char *loc,
		       const char *cmd, size_t len, size_t pos,
		       const char *why)
{
	struct ttrace_errlog_entry *e = &l->e[l->next];

	if (len && cmd[len - 1] == '\n')
		len--;
	e->ns = ns;
	copy_cut(e->loc, sizeof(e->loc), loc, strlen(loc));
	copy_cut(e->why, sizeof(e->why), why, strlen(why));
	copy_cut(e->cmd, sizeof(e->cmd), cmd, len);
	e->pos = (uint32_t)(pos < strlen(e->cmd) ? pos : strlen(e->cmd));
	l->next = (l->next + 1) % TTRACE_ERRLOG_MAX;
	if (l->count < TTRACE_ERRLOG_MAX)
		l->count++;
}

/* See ttrace_dynevent.h. */
void ttrace_errlog_clear(struct ttrace_errlog *l)
{
	l->next = l->count = 0;
}

/* See ttrace_dynevent.h. */
void ttrace_errlog_text(const struct ttrace_errlog *l, struct seqbuf *s)
{
	uint32_t first = (l->next + TTRACE_ERRLOG_MAX - l->count) %
			 TTRACE_ERRLOG_MAX;

	for (uint32_t k = 0; k < l->count; k++) {
		const struct ttrace_errlog_entry *e =
			&l->e[(first + k) % TTRACE_ERRLOG_MAX];

		seqbuf_printf(s, "[%5llu.%06u] %s: error: %s\n" ERRLOG_PREFIX
			      "%s\n", (unsigned long long)(e->ns / 1000000000),
			      (unsigned)(e->ns % 1000000000 / 1000), e->loc,
			      e->why, e->cmd);
		for (uint32_t i = 0; i < sizeof(ERRLOG_PREFIX) - 1 + e->pos; i++)
			seqbuf_putc(s, ' ');
		seqbuf_puts(s, "^\n");
	}
}
