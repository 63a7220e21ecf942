/*
 * Processes: creation from an ELF file (spawn), exit, wait, kill, and the
 * handling of user-mode faults.
 *
 * Life of a process: proc_spawn() builds the address space, the stack with
 * argv, the fd table and a kernel thread whose first run drops into user
 * mode. proc_exit() (on the process's own thread) releases everything but
 * the proc struct and the thread's stack, becomes a zombie and wakes its
 * parent; the parent's wait() reaps it once the thread has switched away
 * for good. A process whose parent is gone is reaped by a routine kernel
 * message instead, one embedded in the proc, so that exiting never needs
 * memory and an orphan is reaped however short memory is. When pid 1 exits the machine powers off with its status.
 *
 * Under proc_lock, every process is on one list in pid order (pids only
 * grow, so publishing appends) and in a pid hash, and each is on its
 * parent's list of children: finding a pid, the next pid, a zombie child or
 * the children to orphan never walks the processes that do not matter.
 */
#include <arch_hooks.h>
#include <proc.h>
#include <sched.h>
#include <vm.h>
#include <pmem.h>
#include <elf.h>
#include <ns.h>
#include <kmalloc.h>
#include <kmsg.h>
#include <printk.h>
#include <ksyms.h>
#include <smp.h>
#include <string.h>
#include <syscall.h>
#include <hash.h>
#include <console.h>
#include <irq.h>
#include <ttrace.h>
#include <abi/errno.h>
#include <abi/syscall.h>
#include <arch/arch.h>
#include <arch/mmu.h>
#include <arch/pcpu.h>
#include <arch/trap.h>

#define MAX_ARGS	64

#define PID_HASH_BITS	10

struct spinlock proc_lock = SPINLOCK_INIT("proc");
static struct list procs = LIST_INIT(procs);	/* in pid order */
static struct list pid_hash[1 << PID_HASH_BITS];
static int next_pid = 1;

/* proc_lock held. */
struct proc *proc_find_locked(int pid)
{
	struct list *b = list_bucket(pid_hash, hash_word((uint64_t)pid,
							 PID_HASH_BITS));

	for (struct list *l = b->next; l != b; l = l->next) {
		struct proc *p = container_of(l, struct proc, hash_link);

		if (p->pid == pid)
			return p;
	}
	return NULL;
}

/* The process after p in pid order, or NULL. proc_lock held. */
static struct proc *proc_after_locked(struct list *l)
{
	return l->next == &procs ? NULL :
	       container_of(l->next, struct proc, link);
}

int proc_pid_after(int pid)
{
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	struct proc *p = pid ? proc_find_locked(pid) : NULL;
	struct list *l = p ? &p->link : &procs;

	if (!p && pid)		/* pid has gone: find its place */
		while ((p = proc_after_locked(l)) && p->pid < pid)
			l = &p->link;
	p = proc_after_locked(l);
	spin_unlock_irqrestore(&proc_lock, flags);
	return p ? p->pid : 0;
}

/* One line on each CPU: what runs there. */
static void dump_cpus(void)
{
	for (uint32_t c = 0; c < num_cpus; c++) {
		const struct per_cpu_info *pc = &per_cpu_info[c];
		const struct proc *p = READ_ONCE(pc->cur_proc);

		printk(KERN_EMERG "cpu%u: %s %d, irq depth %u\n", c,
		       p ? "pid" : "kernel thread", p ? p->pid : 0,
		       READ_ONCE(pc->irq_depth));
	}
}

/* One process: pid, parent, name, its thread's state and syscall, and
 * for a sleeping thread what it sleeps on and where, walking only its own
 * kernel stack. proc_lock held; kt may be running elsewhere, so what is
 * read may be stale, never out of bounds. */
static void dump_proc(const struct proc *p)
{
	const struct kthread *kt = p->kt;
	uint32_t nr = kt ? READ_ONCE(kt->syscall_nr) : 0;

	printk(KERN_EMERG "%5d %5d %-12s %-9s %s%s", p->pid, p->ppid, p->name,
	       p->state == PROC_ZOMBIE ? "zombie" :
	       kt ? kthread_state_names[kt->state] : "-",
	       nr ? "in " : "",
	       nr > 0 && nr <= NR_SYSCALLS && syscall_table[nr - 1].name ?
	       syscall_table[nr - 1].name : "");
	if (!kt || p->state == PROC_ZOMBIE || kt->state != KT_SLEEPING) {
		printk(KERN_EMERG "\n");
		return;
	}
	if (kt->wchan)
		printk(KERN_EMERG " on %p\n", kt->wchan);
	else
		printk(KERN_EMERG " until tsc %lu\n", kt->timer.deadline);
	/* swtch() pushed rbp last but one: r15 r14 r13 r12 rbx rbp ret */
	uintptr_t rsp = READ_ONCE(kt->saved_rsp);

	if (rsp >= kt->kstack && rsp + 7 * 8 <= kt->kstack + KSTACK_SIZE)
		backtrace_print_within(((const uintptr_t *)rsp)[5], kt->kstack,
				       kt->kstack + KSTACK_SIZE, &kt->fgraph);
}

/* ^T's IPI on each other CPU (IRQ_BACKTRACE): where it was interrupted
 * and, in the kernel, the frames below, walked on the running thread's own
 * stack. A CPU spinning with interrupts off never answers. */
void proc_dump_here(const struct trapframe *tf)
{
	const struct kthread *kt = current_kthread();
	const struct proc *p = current_proc();
	uintptr_t off = 0;
	const char *name = ksym_lookup(arch_trap_pc(tf), &off);

	if (arch_trap_from_user(tf)) {
		printk(KERN_EMERG "cpu%u: pid %d in user mode\n", core_id(),
		       p ? p->pid : 0);
		return;
	}
	printk(KERN_EMERG "cpu%u: %s %d at %s+0x%lx\n", core_id(),
	       p ? "pid" : "kernel thread", p ? p->pid : 0,
	       name ? name : "?", off);
	if (kt && kt->kstack)
		backtrace_print_within(arch_trap_frame_pointer(tf),
				       kt->kstack, kt->kstack + KSTACK_SIZE,
				       &kt->fgraph);
}

/* ^T on the console: every CPU and every process, with where each sleeper
 * sleeps, then asks the other CPUs where they run (proc_dump_here()), for
 * a machine that looks stuck. Interrupt context: takes proc_lock only if
 * it is free, so it cannot deadlock with the code it interrupted. */
void proc_dump(void)
{
	dump_cpus();
	if (!spin_trylock(&proc_lock)) {
		printk(KERN_EMERG "ps: the process list is locked (cpu %u)\n",
		       READ_ONCE(proc_lock.holder) - 1);
		return;
	}
	printk(KERN_EMERG "  PID  PPID NAME         STATE\n");
	for (struct list *l = procs.next; l != &procs; l = l->next)
		dump_proc(container_of(l, struct proc, link));
	spin_unlock(&proc_lock);
	/* this CPU answers too, once the interrupt that asked returns: its
	 * IPI then finds what the interrupt interrupted */
	arch_send_ipi_others(IRQ_BACKTRACE);
	arch_send_ipi(core_id(), IRQ_BACKTRACE);
}

static struct proc *proc_alloc(const char *path, int ppid)
{
	struct proc *p = kzmalloc(sizeof(*p));
	const char *base = strrchr(path, '/');

	if (!p)
		return NULL;
	strlcpy(p->name, base ? base + 1 : path, sizeof(p->name));
	strlcpy(p->path, path, sizeof(p->path));
	p->ppid = ppid;
	p->state = PROC_ALIVE;
	list_init(&p->children);
	strlcpy(p->cwd, "/", sizeof(p->cwd));
	return p;
}

static uint32_t nprocs;		/* published, not yet reaped; proc_lock */

/* Processes in the table now, zombies included (the ttrace counter
 * procs). */
uint32_t proc_count(void)
{
	return READ_ONCE(nprocs);
}

/* Publishes p, child of parent (NULL for init), under a new pid. */
static void proc_publish(struct proc *p, struct proc *parent)
{
	uint64_t flags = spin_lock_irqsave(&proc_lock);

	p->pid = next_pid++;
	WRITE_ONCE(nprocs, nprocs + 1);
	list_add_tail(&procs, &p->link);
	list_add_tail(list_bucket(pid_hash, hash_word((uint64_t)p->pid,
						      PID_HASH_BITS)),
		      &p->hash_link);
	if (parent)
		list_add_tail(&parent->children, &p->child_link);
	spin_unlock_irqrestore(&proc_lock, flags);
}

/* Unlinks and frees a zombie whose thread is dead. */
static void proc_reap(struct proc *p)
{
	uint64_t flags;

	sched_wait_dead(p->kt);
	flags = spin_lock_irqsave(&proc_lock);
	list_del(&p->link);
	list_del(&p->hash_link);
	list_del(&p->child_link);
	WRITE_ONCE(nprocs, nprocs - 1);
	spin_unlock_irqrestore(&proc_lock, flags);
	ttrace_proc_free(p->pid, p->pid);
	kthread_free(p->kt);
	kfree(p);
}

static void reap_orphan(void *arg)
{
	proc_reap(arg);
}

/* Copies argv strings and the pointer array to the top of the new stack;
 * returns the user address of argv, or 0 if they do not fit. */
static uintptr_t push_args(void *stack_kva, int argc, char *const argv[])
{
	char *ktop = (char *)stack_kva + PGSIZE;
	uintptr_t utop = USTACK_TOP;
	uintptr_t uptrs[MAX_ARGS + 1];
	size_t used = 0;

	for (int i = argc - 1; i >= 0; i--) {
		size_t n = strlen(argv[i]) + 1;

		if (used + n > PGSIZE / 2)
			return 0;
		used += n;
		memcpy(ktop - used, argv[i], n);
		uptrs[i] = utop - used;
	}
	uptrs[argc] = 0;
	used = ROUNDUP(used, 16) + ROUNDUP((argc + 1) * sizeof(uintptr_t), 16);
	memcpy(ktop - used, uptrs, (argc + 1) * sizeof(uintptr_t));
	return utop - used;
}

/* Builds p's address space from the size-byte executable open on c;
 * fills tf. */
static int load_image(struct proc *p, struct chan *c, uint64_t size,
		      int argc, char *const argv[], struct trapframe *tf)
{
	uintptr_t entry, end, uargv;
	void *stack_top_page = NULL;
	int err;

	p->pml4 = vm_create();
	if (!p->pml4)
		return -ENOMEM;
	err = elf_load(p->pml4, c, size, &entry, &end);
	for (uintptr_t va = USTACK_TOP - USTACK_SIZE; !err && va < USTACK_TOP;
	     va += PGSIZE)
		err = vm_map_zero(p->pml4, va, VM_WRITE, &stack_top_page);
	if (err)
		return err;
	uargv = push_args(stack_top_page, argc, argv);
	if (!uargv)
		return -E2BIG;
	p->heap_end = end;
	arch_user_start(tf, entry, uargv, (uint64_t)argc, uargv);
	return 0;
}

/* init's stdin, stdout and stderr: the console. */
static int open_console(struct proc *p)
{
	long err;
	struct chan *c = ns_open("/dev/cons", O_RDWR, &err);

	if (!c)
		return (int)err;
	p->fds[0] = c;
	p->fds[1] = chan_get(c);
	p->fds[2] = chan_get(c);
	return 0;
}

static void proc_destroy_unborn(struct proc *p)
{
	if (p->pml4)
		vm_free(p->pml4);
	if (p->bounce)
		vm_pages_put(p->bounce, 0);
	if (p->kt)
		kthread_free(p->kt);
	fd_close_all(p);
	kfree(p);
}

/* Starts path as a new process, child of parent (NULL for init), with
 * argv[0..argc) and fds from parent's fdmap (see fd_dup_for_child).
 * Returns the pid or -errno. */
int proc_spawn(struct proc *parent, const char *path, int argc,
	       char *const argv[], const int fdmap[3])
{
	struct trapframe tf;
	struct proc *p;
	struct chan *c;
	struct stat st;
	long err;

	if (argc > MAX_ARGS)
		return -E2BIG;
	if ((c = ns_open(path, O_RDONLY, &err)) == NULL)
		return (int)err;
	if (c->qid.type & QTDIR)
		err = -EISDIR;
	else
		err = chan_stat(c, &st);
	p = err ? NULL : proc_alloc(path, parent ? parent->pid : 0);
	if (p)
		p->caps = parent ? parent->caps : CAP_ALL;
	if (!err && !p)
		err = -ENOMEM;
	if (err) {
		chan_put(c);
		return (int)err;
	}
	err = load_image(p, c, st.size, argc, argv, &tf);
	chan_put(c);
	if (!err && parent)
		strlcpy(p->cwd, parent->cwd, sizeof(p->cwd));
	if (!err)
		err = parent ? fd_dup_for_child(parent, p, fdmap) :
			       open_console(p);
	if (!err && !(p->bounce = vm_pages_get(0, MEM_ZERO)))
		err = -ENOMEM;
	if (!err && !(p->kt = kthread_alloc()))
		err = -ENOMEM;
	if (err) {
		proc_destroy_unborn(p);
		return (int)err;
	}
	p->kt->proc = p;
	kthread_prepare_user(p->kt, &tf);
	proc_publish(p, parent);
	kthread_set_proc_pid(p->kt, (uint32_t)p->pid);
	ttrace_name_proc(p->pid, p->name);
	ttrace_aux_string(TTRACE_AUX_PROC_NAME, TTRACE_EXEC_IDENT(p->pid), path);
	ttrace_proc_create(p->pid, p->pid, p->ppid);
	ttrace_proc_exec(p->pid, TTRACE_EXEC_IDENT(p->pid), p->pid);
	sched_make_runnable(p->kt);
	return p->pid;
}

/* Hands p's children to nobody: zombies are reaped now, live ones when
 * they exit. proc_lock held. */
static void orphan_children_locked(struct proc *p)
{
	while (!list_empty(&p->children)) {
		struct proc *c = container_of(p->children.next, struct proc,
					      child_link);

		list_del(&c->child_link);
		c->ppid = 0;
		if (c->state == PROC_ZOMBIE)
			send_kernel_message_in(0, &c->reap_msg, reap_orphan,
					       c);
	}
}

/* Ends the current process with status. Does not return. */
__noreturn void proc_exit(int status)
{
	struct proc *p = current_proc();
	uint64_t flags;
	struct proc *parent;

	fd_close_all(p);
	mmu_switch_to(NULL);
	this_cpu()->cur_proc = NULL;
	vm_free(p->pml4);
	p->pml4 = NULL;
	vm_pages_put(p->bounce, 0);
	p->bounce = NULL;
	ttrace_proc_exit(p->pid, status, p->pid);
	if (p->pid == 1) {
		printk(KERN_INFO "init exited with status %d: powering off\n",
		       status);
		arch_poweroff(status);
	}
	flags = spin_lock_irqsave(&proc_lock);
	p->exit_status = status;
	p->state = PROC_ZOMBIE;
	orphan_children_locked(p);
	parent = p->ppid ? proc_find_locked(p->ppid) : NULL;
	if (parent) {
		/* zombies first, so a wait for any child looks at one */
		list_del(&p->child_link);
		list_add_after(&parent->children, &p->child_link);
		kwakeup(parent);
	}
	else
		send_kernel_message_in(0, &p->reap_msg, reap_orphan, p);
	spin_unlock_irqrestore(&proc_lock, flags);
	sched_exit_current();
}

/* proc_lock held: a zombie child of p matching pid (-1: any), and whether
 * p has any matching child at all. O(1): zombies come first on the list of
 * children (proc_exit puts them there). */
static struct proc *find_zombie_locked(struct proc *p, int pid, bool *any)
{
	struct proc *c = NULL;

	if (pid == -1 && !list_empty(&p->children))
		c = container_of(p->children.next, struct proc, child_link);
	else if (pid != -1 && (c = proc_find_locked(pid)) != NULL &&
		 (c->ppid != p->pid || !list_linked(&c->child_link)))
		c = NULL;
	*any = c != NULL;
	return c && c->state == PROC_ZOMBIE ? c : NULL;
}

/* Waits for a child (pid, or any when -1) to exit; reaps it and returns its
 * pid with *status set; -ECHILD when there is no such child, -EINTR when
 * killed while waiting. */
int proc_wait(int pid, int *status)
{
	struct proc *p = current_proc();
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	struct proc *z;
	bool any;
	int err = 0;

	while (!(z = find_zombie_locked(p, pid, &any)) && any && !err)
		err = ksleep(p, &proc_lock);
	if (z) {
		z->ppid = -1;	/* ours to reap: hide it from other waits */
		list_del(&z->child_link);
	}
	spin_unlock_irqrestore(&proc_lock, flags);
	if (!z)
		return err ? err : -ECHILD;
	*status = z->exit_status;
	pid = z->pid;
	proc_reap(z);
	return pid;
}

/* Marks pid killed (status 137, as for SIGKILL) and wakes it. */
int proc_kill(int pid)
{
	uint64_t flags = spin_lock_irqsave(&proc_lock);
	struct proc *p = proc_find_locked(pid);

	if (!p || p->state == PROC_ZOMBIE) {
		spin_unlock_irqrestore(&proc_lock, flags);
		return -ESRCH;
	}
	if (!p->killed)
		p->exit_status = 137;
	WRITE_ONCE(p->killed, true);
	sched_wake_thread(p->kt);
	spin_unlock_irqrestore(&proc_lock, flags);
	return 0;
}

/* A trap from user mode: a fault kills the process with a message naming
 * it; returns true (the trap is dealt with). */
bool user_trap(struct trapframe *tf)
{
	struct proc *p = current_proc();

	if (!p)
		return false;
	printk(KERN_WARN "pid %d (%s): %s at rip 0x%lx", p->pid, p->name,
	       trap_name(tf->trapno), arch_trap_pc(tf));
	if (tf->trapno == T_PGFLT)
		printk(KERN_WARN ", address 0x%lx", arch_fault_address());
	printk(KERN_WARN ": killed\n");
	p->exit_status = 128 + (int)tf->trapno;
	WRITE_ONCE(p->killed, true);
	return true;
}

/* On every return to user mode (syscall, fault or interrupt): exit if
 * killed, run routine kernel messages (no kernel path is interrupted
 * here, so this is "between tasks": a CPU that never idles still runs
 * them, which the tracer's grace period relies on), and give the CPU up if
 * the scheduler asks (need_resched), so a timer tick preempts a spinning
 * process. Both are this CPU's work word, one load when there is none.
 * Interrupts may be on or off. notrace, as Linux's exit to user
 * mode is noinstr: it is glue run on every return, and the graph shows
 * what it calls (docs/function-graph.md). */
notrace void user_trap_return(struct trapframe *tf)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct proc *p = pcpui->cur_proc;

	(void)tf;
	if (p && READ_ONCE(p->killed))
		proc_exit(p->exit_status);
	if (unlikely(READ_ONCE(pcpui->work.any))) {
		if (kmsg_pending())
			process_routine_kmsgs();
		if (sched_should_yield())
			yield();
	}
	if (p && READ_ONCE(p->killed))
		proc_exit(p->exit_status);
}
