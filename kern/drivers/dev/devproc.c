/*
 * #p: the processes, mounted at /proc.
 *
 *	/proc/PID/status	one line: "PID PPID STATE CPU NAME\n", STATE
 *				R (running or runnable), S (sleeping) or Z
 *				(exited, not yet waited for); CPU is the one
 *				its thread last ran on
 *
 * The files are made by a generator (procgen, Plan 9's), from which the
 * channel layer makes walk, stat, open and readdir. Nothing is cached: a
 * walk checks that the pid exists (the generator finds the name it is
 * given in the pid hash, without listing), the open file's first read
 * (and any read from offset 0) formats the line afresh under proc_lock
 * (devgen_readtext(): the next reads serve that line), and a process that
 * has gone by then gives ENOENT. The
 * root lists the pids in increasing order; the chan's readdir cursor
 * remembers the last pid listed, so reading the directory in order costs
 * one pid-hash lookup an entry.
 *
 * qid.path: 0 for the root, PID << 8 | Qpid for a process's directory,
 * PID << 8 | Qstatus for its status file.
 */
#include <ns.h>
#include <printfmt.h>
#include <seqbuf.h>
#include <string.h>
#include <abi/errno.h>

enum { Qroot, Qpid, Qstatus };

#define QPATH(pid, q)	((uint64_t)(pid) << 8 | (q))
#define QPID(path)	((int)((path) >> 8))
#define QTYPE(path)	((int)((path) & 0xff))
#define STATUS_MAX	(32 + PROC_NAME_MAX)

/* Returns the pid spelled by name (decimal digits only), or -1. */
static int parse_pid(const char *name)
{
	long pid = 0;

	if (name[0] == 0 || strlen(name) > 9)
		return -1;
	for (const char *s = name; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		pid = pid * 10 + (*s - '0');
	}
	return (int)pid;
}

/* True if process pid exists, alive or zombie. */
static bool pid_exists(int pid)
{
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	bool found = proc_find_locked(pid) != NULL;

	spin_unlock_irqrestore(&proc_lock, flags);
	return found;
}

/* Returns the i-th pid in increasing order, or 0 past the last, starting
 * from c's cursor when it is at or before i and its pid still exists. */
static int nth_pid(struct chan *c, uint64_t i)
{
	uint64_t k = 0;
	int pid;

	if (c->dir_pos && c->dir_index <= i && pid_exists((int)c->dir_pos)) {
		k = c->dir_index;
		pid = (int)c->dir_pos;
	} else {
		pid = proc_pid_after(0);
	}
	for (; pid && k < i; k++)
		pid = proc_pid_after(pid);
	c->dir_index = i;
	c->dir_pos = (uint64_t)pid;
	return pid;
}

/* Returns p's STATE letter. proc_lock held. */
static char state_letter(const struct proc *p)
{
	if (p->state == PROC_ZOMBIE || !p->kt || p->kt->state == KT_DEAD)
		return 'Z';
	return p->kt->state == KT_SLEEPING ? 'S' : 'R';
}

/* Formats c's process's status line into s (devtext_fn). Returns 0 or
 * -ENOENT. */
static int status_text(struct chan *c, struct seqbuf *s)
{
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	struct proc *p = proc_find_locked(QPID(c->qid.path));

	if (p)
		seqbuf_printf(s, "%d %d %c %d %s\n", p->pid, p->ppid,
			      state_letter(p), p->kt ? p->kt->cpu : -1,
			      p->name);
	spin_unlock_irqrestore(&proc_lock, flags);
	return p ? 0 : -ENOENT;
}

/* Fills *e with the entry of kind q (Qroot, Qpid, Qstatus) of pid. */
static int proc_entry(struct devdir *e, int q, int pid)
{
	memset(e, 0, sizeof(*e));
	e->qid.path = QPATH(pid, q);
	e->qid.type = q == Qstatus ? QTFILE : QTDIR;
	e->perm = q == Qstatus ? S_IFREG | 0444 : S_IFDIR | 0555;
	if (q == Qroot)
		strlcpy(e->name, ".", sizeof(e->name));
	else if (q == Qpid)
		fmt_snprintf(e->name, sizeof(e->name), "%d", pid);
	else
		strlcpy(e->name, "status", sizeof(e->name));
	return 1;
}

/* The generator: the root's entries are the pids (the one named, for a
 * walk, as its only entry), a process directory's its status file. */
static int procgen(struct chan *c, const char *name, uint64_t i,
		   struct devdir *e)
{
	int q = QTYPE(c->qid.path), pid = QPID(c->qid.path);

	if (i == DEVGEN_SELF)
		return proc_entry(e, q, pid);
	if (q == Qpid)
		return i == 0 ? proc_entry(e, Qstatus, pid) : 0;
	if (q != Qroot)
		return 0;
	if (!name)
		return (pid = nth_pid(c, i)) > 0 ? proc_entry(e, Qpid, pid) : 0;
	if (i > 0 || (pid = parse_pid(name)) <= 0 || !pid_exists(pid))
		return 0;
	proc_entry(e, Qpid, pid);
	strlcpy(e->name, name, sizeof(e->name));	/* "007" walks to 7 */
	return 1;
}

static long procfs_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	return devgen_readtext(c, buf, n, off, STATUS_MAX, status_text);
}

static const struct dev procfs_dev = {
	.dc = 'p',
	.name = "proc",
	.gen = procgen,
	.read = procfs_read,
};

DEV_REGISTER(procfs_dev);
