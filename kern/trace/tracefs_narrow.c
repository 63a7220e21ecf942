/*
 * tracefs_narrow.c: the tree's files that narrow what is recorded to
 * some processes or some calls (docs/tracefs.md): set_event_pid,
 * set_ftrace_pid (the pid lists, pids.c), set_ftrace_notrace,
 * set_graph_notrace and max_graph_depth (the function graph's exclude
 * lists and depth, fgraph.c). Each file only parses and calls them, as
 * ftrace's: `>` (O_TRUNC) empties a list, `>>` adds, a refused write
 * changes nothing.
 */
#include <parse_num.h>
#include <seqbuf.h>
#include <string.h>
#include <ttrace.h>
#include <abi/errno.h>

#include "internal.h"
#include "tracefs.h"

/* The pids of a write to a pid list: decimal numbers, blank separated;
 * returns how many, or -EINVAL with *why. */
static int parse_pids(const char *line, int *pids, const char **why)
{
	const char *p = line;
	uint64_t v;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == TTRACE_PIDS_MAX || !parse_u64(p, &p, &v) ||
		    (*p && *p != ' ' && *p != '\t') || !v || v > INT32_MAX) {
			*why = "pid list: write up to 16 pids (decimal numbers)";
			return -EINVAL;
		}
		pids[n++] = (int)v;
	}
}

static int pids_write(unsigned list, const char *line, const char **why)
{
	int pids[TTRACE_PIDS_MAX];
	int n = parse_pids(line, pids, why);

	if (n <= 0)	/* `echo > set_event_pid`: emptied by the O_TRUNC */
		return n;
	return ttrace_pids_add(list, pids, (uint32_t)n, why);
}

void tracefs_event_pid_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	ttrace_pids_text(TTRACE_PIDS_EVENT, s);
}

int tracefs_event_pid_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	return pids_write(TTRACE_PIDS_EVENT, line, why);
}

int tracefs_event_pid_trunc(uint32_t inst, const char **why)
{
	(void)inst, (void)why;
	ttrace_pids_clear(TTRACE_PIDS_EVENT);
	return 0;
}

void tracefs_ftrace_pid_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	ttrace_pids_text(TTRACE_PIDS_FTRACE, s);
	if (!(READ_ONCE(ttrace_pid_lists) & TTRACE_PIDS_FTRACE))
		seqbuf_puts(s, "no pid\n");	/* as ftrace says */
}

int tracefs_ftrace_pid_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	return pids_write(TTRACE_PIDS_FTRACE, line, why);
}

int tracefs_ftrace_pid_trunc(uint32_t inst, const char **why)
{
	(void)inst, (void)why;
	ttrace_pids_clear(TTRACE_PIDS_FTRACE);
	return 0;
}

/* ---- the function graph's exclude lists and depth ------------------------ */

/* Adds every glob of line to exclude list which: each checked by adding
 * it; on a refusal the list is as before the write. */
static int exclude_write(enum fgraph_exclude which, char *line,
			 const char **why)
{
	char *globs[FGRAPH_GLOBS + 1], *p = line;
	uint32_t n = 0;
	const char *err = NULL;

	while (*(globs[n] = tracefs_next_word(&p)))
		if (++n > FGRAPH_GLOBS) {
			*why = "notrace: at most 8 globs";
			return -EINVAL;
		}
	ttrace_ctl_mutex_enter(&ttrace_main);
	for (uint32_t i = 0; i < n && !err; i++)
		if ((err = fgraph_exclude_add(which, globs[i])))
			while (i--)	/* the ones this write added */
				fgraph_exclude_drop_last(which);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	ttrace_ctl_mutex_exit(&ttrace_main);
	*why = err;
	return err ? -EINVAL : 0;
}

static int exclude_trunc(enum fgraph_exclude which)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	fgraph_exclude_clear(which);
	ttrace_patch_sync(TEXT_PATCH_LIVE);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return 0;
}

static void exclude_text(enum fgraph_exclude which, struct seqbuf *s)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	fgraph_exclude_text(which, s);
	ttrace_ctl_mutex_exit(&ttrace_main);
}

void tracefs_ftrace_notrace_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	exclude_text(FGRAPH_FTRACE_NOTRACE, s);
}

int tracefs_ftrace_notrace_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	return exclude_write(FGRAPH_FTRACE_NOTRACE, line, why);
}

int tracefs_ftrace_notrace_trunc(uint32_t inst, const char **why)
{
	(void)inst, (void)why;
	return exclude_trunc(FGRAPH_FTRACE_NOTRACE);
}

void tracefs_graph_notrace_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	exclude_text(FGRAPH_GRAPH_NOTRACE, s);
}

int tracefs_graph_notrace_write(uint32_t inst, char *line, const char **why)
{
	(void)inst;
	return exclude_write(FGRAPH_GRAPH_NOTRACE, line, why);
}

int tracefs_graph_notrace_trunc(uint32_t inst, const char **why)
{
	(void)inst, (void)why;
	return exclude_trunc(FGRAPH_GRAPH_NOTRACE);
}

void tracefs_max_depth_text(struct seqbuf *s, uint32_t inst)
{
	(void)inst;
	seqbuf_printf(s, "%u\n", fgraph_max_depth());
}

/* max_graph_depth: N records calls to depth N (1: the outermost only),
 * 0 all of them. */
int tracefs_max_depth_write(uint32_t inst, char *line, const char **why)
{
	uint64_t v;

	(void)inst;
	if (!parse_u64_whole(line, &v) || v > UINT32_MAX) {
		*why = "max_graph_depth: write a depth (0: no limit)";
		return -EINVAL;
	}
	ttrace_ctl_mutex_enter(&ttrace_main);
	fgraph_set_max_depth((uint32_t)v);
	ttrace_ctl_mutex_exit(&ttrace_main);
	return 0;
}
