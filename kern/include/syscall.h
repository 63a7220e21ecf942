/*
 * The syscall table: one entry per number in abi/syscall.h with its name
 * (the same table ttrace records into its aux buffer at boot) and handler.
 * Every handler takes the six raw argument words and returns >= 0 or
 * -errno; it casts the words it uses itself:
 *
 *	long sys_close(const uint64_t *a) { return fd_close((int)a[0]); }
 */
#ifndef SYSCALL_H
#define SYSCALL_H

#include <compiler.h>
#include <abi/syscall.h>

typedef long (*syscall_fn)(const uint64_t *args);

struct syscall_desc {
	const char *name;
	syscall_fn fn;
};

extern const struct syscall_desc syscall_table[NR_SYSCALLS];

/* File syscalls (sysfile.c on descriptors, syspath.c on path names) */
long sys_open(const uint64_t *a);
long sys_close(const uint64_t *a);
long sys_read(const uint64_t *a);
long sys_write(const uint64_t *a);
long sys_pread(const uint64_t *a);
long sys_pwrite(const uint64_t *a);
long sys_lseek(const uint64_t *a);
long sys_stat(const uint64_t *a);
long sys_fstat(const uint64_t *a);
long sys_readdir(const uint64_t *a);
long sys_mkdir(const uint64_t *a);
long sys_remove(const uint64_t *a);
long sys_dup2(const uint64_t *a);
long sys_pipe(const uint64_t *a);
long sys_chdir(const uint64_t *a);
long sys_getcwd(const uint64_t *a);
long sys_bind(const uint64_t *a);
long sys_unmount(const uint64_t *a);
long sys_ftruncate(const uint64_t *a);

/* Process syscalls (sysproc.c) */
long sys_exit(const uint64_t *a);
long sys_spawn(const uint64_t *a);
long sys_wait(const uint64_t *a);
long sys_getpid(const uint64_t *a);
long sys_kill(const uint64_t *a);
long sys_nanosleep(const uint64_t *a);
long sys_errstr(const uint64_t *a);
long sys_yield(const uint64_t *a);
long sys_setfg(const uint64_t *a);
long sys_poweroff(const uint64_t *a);
long sys_capdrop(const uint64_t *a);

#endif /* SYSCALL_H */
