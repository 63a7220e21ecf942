/*
 * save.c: `ttrace save [-s] FILE`, the whole trace as one file
 * (docs/trace-file.md), copied from the #ttrace device's trace file (or
 * snaptrace: the snapshot a snapshot probe took), which the kernel's one
 * writer makes as it is read (kern/trace/lib/image.c). record, graph
 * and stream (record.c, graph.c) copy the same way; nothing here knows
 * the file's sections.
 *
 * The copy goes through chunk (CHUNK bytes), so a trace of any size needs
 * CHUNK bytes of memory. The file's size and CRC-32 (zlib's crc32 of the
 * whole file) are printed so that a copy on the host can be checked with
 * `ttdecode verify`.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "ttrace_cmd.h"

/* Opens path for a trace file to be copied to o. */
void out_open(struct copy *o, const char *path)
{
	o->fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);
	o->path = path;
	o->bytes = 0;
	o->crc = 0;
	partial = path;
}

/* Copies what fd (a trace file, path) has for now to o: returns the
 * bytes copied, 0 at its end (a stream: or while it has nothing new). */
size_t copy_some(struct copy *o, int fd, const char *path)
{
	ssize_t n = read(fd, chunk, CHUNK);

	if (n < 0)
		die_sys(path);
	if (write_all(o->fd, chunk, (size_t)n) < 0)
		die_sys(o->path);
	o->crc = ttrace_crc32(o->crc, chunk, (uint64_t)n);
	o->bytes += (uint64_t)n;
	return (size_t)n;
}

/* Closes what out_open() opened; prints its size and CRC-32. */
void out_close(struct copy *o)
{
	if (close(o->fd) < 0)
		die_sys(o->path);
	partial = NULL;
	printf("ttrace: saved %s: %llu bytes, crc32c %#010x\n", o->path,
	       (unsigned long long)o->bytes, o->crc);
}

/* Saves the device's trace file file ("trace.ttr", or "snaptrace": the
 * snapshot a snapshot probe took) to path; prints its size and CRC-32. */
void save(const char *path, const char *file)
{
	char dev[32];
	struct copy o;
	int fd;

	snprintf(dev, sizeof(dev), DEV "/%s", file);
	fd = open_or_die(dev, O_RDONLY);
	out_open(&o, path);
	while (copy_some(&o, fd, dev))
		;
	close(fd);
	out_close(&o);
}
