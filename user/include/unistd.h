/*
 * unistd.h: the system calls of abi/syscall.h as C functions, plus getopt.
 *
 * Every wrapper returns what the kernel returned when that is >= 0, and -1
 * with errno set (abi/errno.h) when the kernel returned -errno. syscall6()
 * is the raw entry for callers (usertests) that need the kernel's exact
 * result: it returns -errno itself and leaves errno alone.
 *
 * Processes start programs with spawn() rather than fork/exec:
 *
 *	int fdmap[3] = { 0, pipefd[1], 2 };	// child's stdin, stdout, stderr
 *	char *argv[] = { "ls", "-l", NULL };
 *	int pid = spawn("/bin/ls", argv, fdmap), status;
 *	waitpid(pid, &status);			// status: exit()'s argument;
 *						// >= 128 if the kernel killed it
 */
#ifndef ULIB_UNISTD_H
#define ULIB_UNISTD_H

#include <sys/types.h>
#include <abi/syscall.h>
#include <compiler.h>

#define STDIN_FILENO	0
#define STDOUT_FILENO	1
#define STDERR_FILENO	2

/* Raw system call nr with six arguments; returns the kernel's result. */
long syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

/* Processes. */
__noreturn void _exit(int status);	/* exit without flushing stdout */
int spawn(const char *path, char *const argv[], const int fdmap[3]); /* pid */
int wait(int *status);			/* any child; returns its pid */
int waitpid(int pid, int *status);	/* child pid; returns pid */
int getpid(void);
int kill(int pid);
int nanosleep(uint64_t ns);		/* sleeps at least ns nanoseconds */
int yield(void);
int setfg(int pid);			/* ^C on the console kills pid; 0: none */
__noreturn void poweroff(int status);	/* QEMU exits with status */
int capdrop(unsigned caps);	/* drops rights CAP_* for good (0: none);
				 * returns those left */

/* File descriptors. */
ssize_t read(int fd, void *buf, size_t n);	/* bytes read, 0 at end */
ssize_t write(int fd, const void *buf, size_t n);
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
off_t lseek(int fd, off_t off, int whence);	/* new offset */
int close(int fd);
int dup2(int oldfd, int newfd);			/* newfd */
int pipe(int fds[2]);				/* fds[0] reads, fds[1] writes */
int ftruncate(int fd, off_t length);

/* Writes all n bytes of buf to fd, looping over short writes. Returns n, or
 * -1 with errno set if a write failed. */
ssize_t write_all(int fd, const void *buf, size_t n);

/* Name space. */
int chdir(const char *path);
int bind(const char *old, const char *new, int flags); /* new shows old */
int unmount(const char *path);		/* the mount at path is gone */

/* Copies the current directory's path into buf (n bytes). Returns buf, or
 * NULL with errno set (ERANGE if it does not fit). */
char *getcwd(char *buf, size_t n);

/* Copies the text of this process's last kernel error into buf (n bytes).
 * Returns its length, or -1 with errno set. */
int errstr(char *buf, size_t n);

/*
 * getopt: POSIX option parsing. Returns the next option character of argv,
 * '?' for an unknown option or a missing argument (':' for the latter when
 * opts starts with ':'), and -1 when the options end; optind is then the
 * index of the first operand. Set optind = 1 to start over.
 */
extern char *optarg;
extern int optind, opterr, optopt;
int getopt(int argc, char *const argv[], const char *opts);

#endif /* ULIB_UNISTD_H */
