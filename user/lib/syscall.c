/*
 * System call wrappers: one C function per call of abi/syscall.h.
 *
 * syscall6() is the only code that executes SYSCALL: number in rax,
 * arguments in rdi, rsi, rdx, r10, r8, r9, result in rax; the instruction
 * clobbers rcx and r11. Each wrapper passes its arguments through unchanged
 * (bad pointers included: the kernel must reject them, and usertests checks
 * that it does) and turns a negative result into errno and -1 (see
 * unistd.h).
 */
#include <unistd.h>
#include <fcntl.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int errno;

long syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			       "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

/* Returns r if it is a success (>= 0); else sets errno to -r, returns -1. */
static long sys_result(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Calls nr with up to three arguments through sys_result. */
static long sys3(long nr, long a0, long a1, long a2)
{
	return sys_result(syscall6(nr, a0, a1, a2, 0, 0, 0));
}

void _exit(int status)
{
	for (;;)
		syscall6(SYS_exit, status, 0, 0, 0, 0, 0);
}

int spawn(const char *path, char *const argv[], const int fdmap[3])
{
	return (int)sys3(SYS_spawn, (long)path, (long)argv, (long)fdmap);
}

int wait(int *status)
{
	return (int)sys3(SYS_wait, -1, (long)status, 0);
}

int waitpid(int pid, int *status)
{
	return (int)sys3(SYS_wait, pid, (long)status, 0);
}

int getpid(void)
{
	return (int)sys3(SYS_getpid, 0, 0, 0);
}

int kill(int pid)
{
	return (int)sys3(SYS_kill, pid, 0, 0);
}

int nanosleep(uint64_t ns)
{
	return (int)sys3(SYS_nanosleep, (long)ns, 0, 0);
}

int yield(void)
{
	return (int)sys3(SYS_yield, 0, 0, 0);
}

int setfg(int pid)
{
	return (int)sys3(SYS_setfg, pid, 0, 0);
}

void poweroff(int status)
{
	for (;;)
		syscall6(SYS_poweroff, status, 0, 0, 0, 0, 0);
}

int open(const char *path, int flags)
{
	return (int)sys3(SYS_open, (long)path, flags, 0);
}

int close(int fd)
{
	return (int)sys3(SYS_close, fd, 0, 0);
}

ssize_t read(int fd, void *buf, size_t n)
{
	return sys3(SYS_read, fd, (long)buf, (long)n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return sys3(SYS_write, fd, (long)buf, (long)n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return sys_result(syscall6(SYS_pread, fd, (long)buf, (long)n, off,
				   0, 0));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return sys_result(syscall6(SYS_pwrite, fd, (long)buf, (long)n, off,
				   0, 0));
}

off_t lseek(int fd, off_t off, int whence)
{
	return sys3(SYS_lseek, fd, off, whence);
}

int stat(const char *path, struct stat *st)
{
	return (int)sys3(SYS_stat, (long)path, (long)st, 0);
}

int fstat(int fd, struct stat *st)
{
	return (int)sys3(SYS_fstat, fd, (long)st, 0);
}

int readdir(int fd, struct dirent *ents, int n)
{
	return (int)sys3(SYS_readdir, fd, (long)ents, n);
}

int mkdir(const char *path)
{
	return (int)sys3(SYS_mkdir, (long)path, 0, 0);
}

int remove(const char *path)
{
	return (int)sys3(SYS_remove, (long)path, 0, 0);
}

int dup2(int oldfd, int newfd)
{
	return (int)sys3(SYS_dup2, oldfd, newfd, 0);
}

int pipe(int fds[2])
{
	return (int)sys3(SYS_pipe, (long)fds, 0, 0);
}

int chdir(const char *path)
{
	return (int)sys3(SYS_chdir, (long)path, 0, 0);
}

char *getcwd(char *buf, size_t n)
{
	return sys3(SYS_getcwd, (long)buf, (long)n, 0) < 0 ? NULL : buf;
}

int bind(const char *old, const char *new, int flags)
{
	return (int)sys3(SYS_bind, (long)old, (long)new, flags);
}

int unmount(const char *path)
{
	return (int)sys3(SYS_unmount, (long)path, 0, 0);
}

int capdrop(unsigned caps)
{
	return (int)sys3(SYS_capdrop, caps, 0, 0);
}

int errstr(char *buf, size_t n)
{
	return (int)sys3(SYS_errstr, (long)buf, (long)n, 0);
}

int ftruncate(int fd, off_t length)
{
	return (int)sys3(SYS_ftruncate, fd, length, 0);
}
