/*
 * The system call ABI shared by the kernel and the user libc.
 *
 * Entry: the SYSCALL instruction with the number in rax and up to six
 * arguments in rdi, rsi, rdx, r10, r8, r9 (the SysV order with r10 for rcx,
 * which SYSCALL clobbers). The result comes back in rax: >= 0 on success,
 * -errno (abi/errno.h) on failure. rcx and r11 are clobbered.
 *
 * A new process starts at its ELF entry with rdi = argc, rsi = argv (the
 * strings and the array live at the top of its stack) and rsp 16-byte
 * aligned.
 *
 * The names of the calls live in one table in the kernel (kern/src/syscall.c),
 * the same table ttrace records into its aux buffer at boot.
 */
#ifndef ABI_SYSCALL_H
#define ABI_SYSCALL_H

#include <stdint.h>

enum {
	SYS_exit = 1,		/* (int status) -> no return */
	SYS_spawn,		/* (path, argv, const int fdmap[3]) -> pid: child's
				 * fd i is a dup of the caller's fdmap[i] (-1: none) */
	SYS_wait,		/* (pid or -1, int *status) -> pid reaped */
	SYS_getpid,		/* () -> pid */
	SYS_kill,		/* (pid) -> 0 */
	SYS_nanosleep,		/* (uint64_t ns) -> 0 */
	SYS_open,		/* (path, flags) -> fd */
	SYS_close,		/* (fd) -> 0 */
	SYS_read,		/* (fd, buf, n) -> bytes, 0 at end */
	SYS_write,		/* (fd, buf, n) -> bytes */
	SYS_pread,		/* (fd, buf, n, off) -> bytes */
	SYS_pwrite,		/* (fd, buf, n, off) -> bytes */
	SYS_lseek,		/* (fd, off, whence) -> new offset */
	SYS_stat,		/* (path, struct stat *) -> 0 */
	SYS_fstat,		/* (fd, struct stat *) -> 0 */
	SYS_readdir,		/* (fd, struct dirent *, n) -> entries filled, 0 at end */
	SYS_mkdir,		/* (path) -> 0 */
	SYS_remove,		/* (path) -> 0: a file or an empty directory */
	SYS_dup2,		/* (oldfd, newfd) -> newfd */
	SYS_pipe,		/* (int fds[2]) -> 0: fds[0] reads, fds[1] writes */
	SYS_chdir,		/* (path) -> 0 */
	SYS_getcwd,		/* (buf, n) -> length */
	SYS_bind,		/* (old, new, flags) -> 0: new now shows old, e.g.
				 * bind("#ttrace", "/dev/ttrace", 0) */
	SYS_errstr,		/* (buf, n) -> length: text of this process's last error */
	SYS_yield,		/* () -> 0 */
	SYS_setfg,		/* (pid) -> 0: ^C on the console kills pid */
	SYS_poweroff,		/* (int status) -> no return: QEMU exits with status */
	SYS_ftruncate,		/* (fd, length) -> 0 */
	SYS_unmount,		/* (path) -> 0: takes down the mount at path */
	SYS_capdrop,		/* (caps) -> the rights left: drops the
				 * rights caps (CAP_*; 0: none, a query)
				 * for good, the children spawned after
				 * too; EINVAL for a bit that is none */
	NR_SYSCALLS
};

/*
 * A process's rights, as Linux's capabilities: init has them all, a child
 * gets its parent's, capdrop drops some for good (nothing gives one back).
 * CAP_TRACE: control the tracer and read what it recorded, as Linux's
 * CAP_PERFMON (docs/ttrace-device.md, "Who may use the tracer").
 */
#define CAP_TRACE	0x1
#define CAP_ALL		CAP_TRACE

/* open flags */
#define O_RDONLY	0x000
#define O_WRONLY	0x001
#define O_RDWR		0x002
#define O_ACCMODE	0x003
#define O_CREAT		0x040
#define O_TRUNC		0x200
#define O_APPEND	0x400

/* lseek whence */
#define SEEK_SET	0
#define SEEK_CUR	1
#define SEEK_END	2

/* stat.mode: file type in the top bits, permission bits below */
#define S_IFMT		0170000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFREG		0100000
#define S_IFIFO		0010000

#define NAME_MAX	63

struct stat {
	uint64_t size;
	uint64_t ino;
	uint32_t mode;
	uint32_t dev;		/* device letter/index the file lives on */
};

struct dirent {
	char name[NAME_MAX + 1];
	uint32_t mode;
	uint32_t pad;
	uint64_t size;
};

#endif /* ABI_SYSCALL_H */
