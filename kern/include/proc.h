/*
 * Processes and kernel threads.
 *
 * A process is an address space, a file descriptor table, a current
 * directory and one kernel thread that runs its syscalls and traps. Kernel
 * tasks (ktasks) are kernel threads with no process. Every kernel thread has
 * its own kernel stack; the scheduler (sched.c) switches between them.
 *
 * Locking: `proc_lock` guards the process list, parent/child links and
 * states. A process's fd table and cwd are touched only by the process's
 * own thread (processes are single-threaded), except by /proc readers,
 * which only read names and numbers.
 */
#ifndef PROC_H
#define PROC_H

#include <compiler.h>
#include <fgraph.h>
#include <kmsg.h>
#include <list.h>
#include <spinlock.h>
#include <timer.h>
#include <smp.h>
#include <abi/syscall.h>

#define NOFILE		64		/* fds per process */
#define PATH_MAX	256		/* bytes, with the NUL */
#define ERRMAX		512		/* errstr bytes, with the NUL */
#define PROC_NAME_MAX	32

struct chan;
struct trapframe;

enum kthread_state {
	KT_RUNNABLE,
	KT_RUNNING,
	KT_SLEEPING,
	KT_DEAD,
	KT_NSTATES,
};

/* The states' names, for people (the trace's aux tag state). */
extern const char *const kthread_state_names[KT_NSTATES];

/* Every thread's prio in records: Linux's nice 0 (the scheduler has one
 * class, docs/scheduler.md). */
#define KTHREAD_PRIO	120

/* struct kthread's trace_flags. */
#define KT_TRACED	0x80	/* the scheduler records it: every thread
				   but the trace drain's (kthread_untrace);
				   bit 63 of trace_word */

struct kthread {
	uint64_t id;
	/* Its thread word: what the scheduler's records say of it, as one
	 * record word (sched_records.h, docs/trace-format.md "Threads in
	 * records"): pid, prio, state and flags, little endian. */
	union {
		struct {
			uint32_t trace_pid;	/* its pid in records, set
						   once: its process's,
						   TTRACE_KTHREAD_PID(id) for a
						   ktask, TTRACE_IDLE_PID for
						   an idle thread */
			uint16_t prio;		/* Linux's prio in records:
						   KTHREAD_PRIO (one class) */
			uint8_t state;		/* enum kthread_state */
			uint8_t trace_flags;	/* KT_TRACED */
		};
		uint64_t trace_word;
	};
	/* Its task_newtask's second word, set once where it is made: the
	 * name it starts under (a ktask's own pid, a process's parent's)
	 * and the pid of the thread that made it (0: the boot). */
	union {
		struct {
			uint32_t trace_comm;
			uint32_t trace_parent;
		};
		uint64_t trace_birth;
	};
	char name[PROC_NAME_MAX];	/* ktasks only */
	uintptr_t kstack;		/* base of KSTACK_SIZE bytes */
	uintptr_t saved_rsp;		/* when switched out */
	const void *wchan;		/* what it sleeps on */
	struct list wait_link;		/* on wchan's wait queue */
	struct ktimer timer;		/* its timed sleep's (ksleep_until) */
	uint64_t tick_tsc;		/* TSC of the timer that ended it */
	struct proc *proc;		/* NULL for a ktask */
	uint32_t syscall_nr;		/* current syscall + 1, 0 if none */
	int cpu;			/* last CPU it ran on */
	int bound_cpu;			/* the one CPU it runs on, or -1 */
	struct kthread *next;		/* run queue link */
	struct kmsg reap_msg;		/* a ktask's: its reaper, sent at exit */
	struct fgraph_shadow fgraph;	/* function-graph return addresses */
	uint64_t wake_tsc;		/* wakeup tracer: when made runnable
					   (0: not since it last ran) */
	uintptr_t wake_pc;		/* ... and where */
	uint64_t off_tsc;		/* profiler (profile.c): when it last
					   left its CPU (0: not since the
					   off-CPU profile went on) */
};

enum proc_state {
	PROC_ALIVE,
	PROC_ZOMBIE,
};

struct proc {
	int pid;
	int ppid;
	char name[PROC_NAME_MAX];
	char path[PATH_MAX];		/* the program it runs (aux names it) */
	enum proc_state state;
	bool killed;			/* exit at the next chance */
	uint32_t caps;			/* rights, CAP_* of abi/syscall.h:
					   init has CAP_ALL, a child its
					   parent's; only capdrop, by the
					   process itself, clears one */
	int exit_status;		/* 0-255 from exit, >= 128 when killed */
	uint64_t *pml4;			/* address space */
	void *bounce;			/* its read and write syscalls' page
					   (sysfile.c): one of its pages, so
					   a wait in a read takes none */
	uintptr_t heap_end;		/* end of the loaded image */
	struct kthread *kt;
	struct chan *fds[NOFILE];
	char cwd[PATH_MAX];		/* absolute, cleaned */
	char errstr[ERRMAX];		/* text of the last error */
	bool errstr_kept;		/* a device set errstr: keep it */
	struct list link;		/* all processes, in pid order */
	struct list hash_link;		/* pid hash bucket */
	struct list children;		/* live and zombie, not being reaped */
	struct list child_link;		/* on the parent's children */
	struct kmsg reap_msg;		/* an orphan's: its reaper */
};

extern struct spinlock proc_lock;

/* The process whose thread runs on this CPU, or NULL in a ktask; and the
 * thread. Inline: every syscall and trap asks, and a call would be one
 * more function-graph site on each (docs/function-graph.md). */
static inline struct proc *current_proc(void)
{
	return this_cpu()->cur_proc;
}

/* trace_word's little-endian layout, as the events file places its
 * parts (kern/trace/ttrace.events: pid@0, prio@4, prev_state@6). */
static_assert(offsetof(struct kthread, prio) ==
	      offsetof(struct kthread, trace_pid) + 4, "trace_word: prio");
static_assert(offsetof(struct kthread, state) ==
	      offsetof(struct kthread, trace_pid) + 6, "trace_word: state");
static_assert(offsetof(struct kthread, trace_flags) ==
	      offsetof(struct kthread, trace_pid) + 7, "trace_word: flags");
static_assert(offsetof(struct kthread, trace_parent) ==
	      offsetof(struct kthread, trace_comm) + 4, "trace_birth");

/* Whether the scheduler records nothing of kt (its time shows as its
 * CPU's idle time): the trace drain's ktask. */
static inline bool kthread_untraced(const struct kthread *kt)
{
	return !(kt->trace_flags & KT_TRACED);
}

static inline struct kthread *current_kthread(void)
{
	return this_cpu()->cur_kthread;
}

/* Returns the smallest pid above pid (0: the first), or 0 if none. Takes
 * proc_lock. */
int proc_pid_after(int pid);
uint32_t proc_count(void);
/* Finds a live or zombie process by pid; proc_lock must be held. */
struct proc *proc_find_locked(int pid);
/* ^T: prints every CPU and process with where each sleeps, and has the
 * other CPUs print where they run (proc_dump_here(), their IPI). */
void proc_dump(void);
struct trapframe;
void proc_dump_here(const struct trapframe *tf);
/* Whether the current thread has the rights caps (CAP_*): a kernel
 * thread has them all. Any context. */
static inline bool proc_capable(uint32_t caps)
{
	struct proc *p = current_proc();

	return !p || (READ_ONCE(p->caps) & caps) == caps;
}
/* Marks pid killed and wakes it if it sleeps; returns 0 or -ESRCH. */
int proc_kill(int pid);
int proc_spawn(struct proc *parent, const char *path, int argc,
	       char *const argv[], const int fdmap[3]);
__noreturn void proc_exit(int status);
int proc_wait(int pid, int *status);

/*
 * Sleep and wakeup, as in xv6: ksleep() atomically releases lk and sleeps
 * on chan, and retakes lk before returning. Returns 0 when woken, -EINTR
 * when the process was killed (a ktask is never killed). kwakeup() wakes
 * every thread sleeping on chan. Callers loop on their condition.
 */
int ksleep(const void *chan, struct spinlock *lk);
void kwakeup(const void *chan);

/* Copies between kernel and the current process's user memory. Every
 * address is checked against the page tables (present, user, and writable
 * for copyout); returns 0 or -EFAULT, having copied nothing on failure. */
int copyin(void *dst, const void __user *usrc, size_t n);
int copyout(void __user *udst, const void *src, size_t n);
/* Copies a NUL-terminated user string of at most max bytes (NUL included);
 * returns its length, -EFAULT, or -ENAMETOOLONG when no NUL fits. */
long copyinstr(char *dst, const char __user *usrc, size_t max);

#endif /* PROC_H */
