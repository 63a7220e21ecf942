/*
 * pids.c: the pid lists of ftrace's set_event_pid and set_ftrace_pid
 * (docs/tracefs.md): records only for the listed processes.
 *
 * The filter is checked where it costs nothing while no list is set: a
 * listed process's thread carries a bit (struct fgraph_shadow's pids),
 * and ttrace_pid_lists says which lists are set. While the events' list
 * is set, patch.c points every armed event's site at ttrace_probe_fire()
 * (the probes' path, out of line), which tests the running thread's bit
 * first: a load and a test; with no list the sites jump straight to the
 * inline record as before. The function graph tests the ftrace list's bit
 * in its hook (fgraph.c narrow()), so a call of an unlisted thread pushes
 * no frame. The thread running is the one tested, as Linux tests
 * current: an interrupt taken in a listed process is recorded, one taken
 * in another is not. Children are not followed (Linux's event-fork and
 * function-fork options are off by default and not here): pids are never
 * reused, so a list names the same processes until it is emptied.
 *
 * The lists are changed under the ctl mutex; the bits under proc_lock
 * (the thread cannot go while it is held).
 */
#include <proc.h>
#include <seqbuf.h>
#include <spinlock.h>
#include <string.h>
#include <ttrace.h>
#include <abi/errno.h>

#include "internal.h"

uint8_t ttrace_pid_lists;	/* TTRACE_PIDS_*: the lists not empty */

static struct pid_list {
	uint32_t n;
	int pid[TTRACE_PIDS_MAX];
} lists[2];			/* ctl mutex: [list - 1] */

/* The thread of live process pid, or NULL. proc_lock held. */
static struct kthread *thread_of(int pid)
{
	struct proc *p = proc_find_locked(pid);

	return p && p->state == PROC_ALIVE ? p->kt : NULL;
}

/* Sets bit list in the threads of pids[0..n), if every one is a live
 * process (else changes nothing and returns false); with on false,
 * clears it in those that are. */
static bool mark(const int *pids, uint32_t n, unsigned list, bool on)
{
	bool all = true;

	spin_lock(&proc_lock);
	for (uint32_t i = 0; i < n && on; i++)
		all &= thread_of(pids[i]) != NULL;
	for (uint32_t i = 0; i < n && all; i++) {
		struct kthread *kt = thread_of(pids[i]);

		if (kt)
			WRITE_ONCE(kt->fgraph.pids, (uint8_t)(on ?
				   kt->fgraph.pids | list :
				   kt->fgraph.pids & ~list));
	}
	spin_unlock(&proc_lock);
	return all;
}

/* The sites and the graph follow ttrace_pid_lists. ctl mutex held. */
static void lists_changed(void)
{
	fgraph_narrow_update();
	ttrace_rearm_locked(&ttrace_main);
}

/*
 * Adds pids[0..n) to list (TTRACE_PIDS_EVENT or _FTRACE), all or none.
 * Returns 0, or -ESRCH (one is no live process) or -ENOSPC (the list
 * would hold more than TTRACE_PIDS_MAX) with *why. Process context.
 */
int ttrace_pids_add(unsigned list, const int *pids, uint32_t n,
		    const char **why)
{
	struct pid_list *l = &lists[list - 1];
	int err = 0;

	ttrace_ctl_mutex_enter(&ttrace_main);
	if (l->n + n > TTRACE_PIDS_MAX) {
		*why = "pid list: at most 16 pids ('>' empties it)";
		err = -ENOSPC;
	} else if (!mark(pids, n, list, true)) {
		*why = "pid list: no such process";
		err = -ESRCH;
	} else {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = 0;

			while (k < l->n && l->pid[k] != pids[i])
				k++;
			if (k == l->n)		/* not listed already */
				l->pid[l->n++] = pids[i];
		}
		WRITE_ONCE(ttrace_pid_lists, ttrace_pid_lists | list);
		lists_changed();
	}
	ttrace_ctl_mutex_exit(&ttrace_main);
	return err;
}

/* Empties list: every event recorded again for everyone (the sites back
 * first, then the threads' bits). Process context. */
void ttrace_pids_clear(unsigned list)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	WRITE_ONCE(ttrace_pid_lists, ttrace_pid_lists & ~list);
	lists_changed();
	mark(lists[list - 1].pid, lists[list - 1].n, list, false);
	lists[list - 1].n = 0;
	ttrace_ctl_mutex_exit(&ttrace_main);
}

/* The pids of list, one a line. Process context. */
void ttrace_pids_text(unsigned list, struct seqbuf *s)
{
	ttrace_ctl_mutex_enter(&ttrace_main);
	for (uint32_t i = 0; i < lists[list - 1].n; i++)
		seqbuf_printf(s, "%d\n", lists[list - 1].pid[i]);
	ttrace_ctl_mutex_exit(&ttrace_main);
}
