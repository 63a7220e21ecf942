/*
 * dirent.h: reading directories. A directory is opened with open() like any
 * file; readdir() then fills an array of struct dirent (abi/syscall.h) and
 * returns how many it filled, 0 at the end:
 *
 *	struct dirent d[8];
 *	int fd = open("/bin", O_RDONLY), n;
 *	while ((n = readdir(fd, d, 8)) > 0)
 *		for (int i = 0; i < n; i++)
 *			puts(d[i].name);
 */
#ifndef ULIB_DIRENT_H
#define ULIB_DIRENT_H

#include <abi/syscall.h>

/* Reads up to n entries of the directory open on fd into ents. Returns the
 * number read, 0 at the end, or -1 with errno set. */
int readdir(int fd, struct dirent *ents, int n);

#endif /* ULIB_DIRENT_H */
