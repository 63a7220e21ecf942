/*
 * Process syscalls: spawn, exit, wait, getpid, kill, nanosleep, errstr,
 * yield, setfg, poweroff, capdrop. Each validates its user arguments (copyin and
 * friends give EFAULT) before acting.
 */
#include <syscall.h>
#include <proc.h>
#include <sched.h>
#include <console.h>
#include <kmalloc.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/arch.h>

#define SPAWN_MAX_ARGS	64
#define SPAWN_ARG_MAX	4096		/* bytes of one argument */

long sys_exit(const uint64_t *a)
{
	proc_exit((int)(a[0] & 0xff));
}

static void free_args(char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		kfree(argv[i]);
}

/* Copies the user argv array (NULL-terminated) into kernel strings;
 * returns argc or -errno. */
static int copy_argv(uint64_t __user uargv, char **argv)
{
	int argc;

	for (argc = 0; argc <= SPAWN_MAX_ARGS; argc++) {
		uint64_t uptr;
		long n;

		if (copyin(&uptr, (const void *)(uargv + argc * 8), 8))
			return free_args(argv, argc), -EFAULT;
		if (!uptr)
			return argc;
		if (argc == SPAWN_MAX_ARGS)
			break;
		argv[argc] = kmalloc(SPAWN_ARG_MAX);
		if (!argv[argc])
			return free_args(argv, argc), -ENOMEM;
		n = copyinstr(argv[argc], (const char *)uptr, SPAWN_ARG_MAX);
		if (n < 0) {
			free_args(argv, argc + 1);
			return n == -ENAMETOOLONG ? -E2BIG : (int)n;
		}
	}
	free_args(argv, argc);
	return -E2BIG;
}

/* spawn(path, argv, fdmap[3]) -> pid */
long sys_spawn(const uint64_t *a)
{
	char *argv[SPAWN_MAX_ARGS];
	char path[PATH_MAX];
	int fdmap[3];
	long n = copyinstr(path, (const char *)a[0], sizeof(path));
	int argc;

	if (n < 0)
		return n;
	if (copyin(fdmap, (const void *)a[2], sizeof(fdmap)))
		return -EFAULT;
	argc = copy_argv(a[1], argv);
	if (argc < 0)
		return argc;
	n = proc_spawn(current_proc(), path, argc, argv, fdmap);
	free_args(argv, argc);
	return n;
}

/* wait(pid, int *status) -> pid. The status pointer is checked before a
 * child is reaped, so a bad pointer loses no exit status. */
long sys_wait(const uint64_t *a)
{
	int status = 0;
	int pid;

	if (a[1] && copyout((void *)a[1], &status, sizeof(status)))
		return -EFAULT;
	pid = proc_wait((int)a[0], &status);
	if (pid > 0 && a[1] && copyout((void *)a[1], &status, sizeof(status)))
		return -EFAULT;
	return pid;
}

long sys_getpid(const uint64_t *a)
{
	(void)a;
	return current_proc()->pid;
}

long sys_kill(const uint64_t *a)
{
	return proc_kill((int)a[0]);
}

/* nanosleep(ns): blocks once, until a timer of this CPU at the TSC
 * deadline wakes it (or a kill does: -EINTR). */
long sys_nanosleep(const uint64_t *a)
{
	return ksleep_ns(a[0]);
}

/* errstr(buf, n) -> length: the text of this process's last error. */
long sys_errstr(const uint64_t *a)
{
	struct proc *p = current_proc();
	size_t len = strlen(p->errstr);

	if (a[1] == 0)
		return -EINVAL;
	if (len >= a[1])
		len = a[1] - 1;
	if (copyout((void *)a[0], p->errstr, len) ||
	    copyout((char *)a[0] + len, "", 1))
		return -EFAULT;
	return (long)len;
}

long sys_yield(const uint64_t *a)
{
	(void)a;
	yield();
	return 0;
}

long sys_setfg(const uint64_t *a)
{
	console_set_fg((int)a[0]);
	return 0;
}

/* capdrop(caps) -> the rights left: the process's own thread alone
 * writes its caps, and only clears bits (include/abi/syscall.h). */
long sys_capdrop(const uint64_t *a)
{
	struct proc *p = current_proc();

	if (a[0] & ~(uint64_t)CAP_ALL)
		return -EINVAL;
	WRITE_ONCE(p->caps, p->caps & ~(uint32_t)a[0]);
	return p->caps;
}

long sys_poweroff(const uint64_t *a)
{
	arch_poweroff((int)(a[0] & 0xff));
}
