/*
 * sys/stat.h: stat, fstat, mkdir and the file-type tests. struct stat and
 * the S_IF* bits come from abi/syscall.h.
 *
 *	struct stat st;
 *	if (stat(path, &st) == 0 && S_ISDIR(st.mode)) ...
 */
#ifndef ULIB_SYS_STAT_H
#define ULIB_SYS_STAT_H

#include <abi/syscall.h>

#define S_ISDIR(m)	(((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m)	(((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m)	(((m) & S_IFMT) == S_IFCHR)
#define S_ISFIFO(m)	(((m) & S_IFMT) == S_IFIFO)

/* Fill st for the file at path / open on fd. Return 0, or -1 with errno. */
int stat(const char *path, struct stat *st);
int fstat(int fd, struct stat *st);

/* Creates directory path. Returns 0, or -1 with errno set. */
int mkdir(const char *path);

#endif /* ULIB_SYS_STAT_H */
