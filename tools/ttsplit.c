/*
 * ttsplit.c: `ttdecode split STREAM OUTPREFIX`, the trace files of a stream
 * that holds several written back to back (the host channel file after
 * several `ttrace save /dev/host/out`) cut into OUTPREFIX-0.ttr,
 * OUTPREFIX-1.ttr, ... It prints how many.
 *
 * Where each file ends is found by kern/trace/lib's reader in stream mode
 * (ttrace_file_open_stream): the header, every section's frame, CRC and
 * padding, and the END section (section count, whole-file CRC, size) are
 * checked, so only whole files are written; what sections hold is left to
 * `verify`. A stream that ends inside a file (a save torn off), or holds
 * bytes that are not the start of one, fails with the offset in the
 * stream, after writing the whole files before it:
 *
 *	ttdecode: STREAM: offset N: what is wrong
 *	ttdecode split: K whole traces before offset P written
 *
 * The stream is mapped rather than read: a soak's stream is large, and
 * each file is written straight from the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ttdecode.h"

/* The size of the trace file starting at buf (size bytes there), or 0
 * with err set (offsets from buf) if no whole file starts there. */
static uint64_t file_extent(const uint8_t *buf, uint64_t size,
			    struct ttrace_file_error *err)
{
	struct ttrace_file_reader r;
	struct ttrace_file_sec s;
	int rc;

	if (ttrace_file_open_stream(&r, buf, size, err) < 0)
		return 0;
	while ((rc = ttrace_file_next(&r, &s, err)) > 0)
		;
	return rc < 0 ? 0 : r.size;
}

/* Writes the n bytes at buf to PREFIX-i.ttr. Returns 0, or -1 said. */
static int write_piece(const char *prefix, unsigned i, const void *buf,
		       uint64_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s-%u.ttr", prefix, i);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "ttdecode: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Maps the file at path read-only; *size gets its size. Returns the
 * mapping (NULL for an empty file), or MAP_FAILED after saying why. */
static const uint8_t *map_stream(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *p = MAP_FAILED;

	*size = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "ttdecode: %s: %s\n", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "ttdecode: %s: not a regular file\n", path);
	} else if (st.st_size == 0) {
		p = NULL;
	} else {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
			 0);
		if (p == MAP_FAILED)
			fprintf(stderr, "ttdecode: %s: %s\n", path,
				strerror(errno));
		else
			*size = (uint64_t)st.st_size;
	}
	if (fd >= 0)
		close(fd);
	return p;
}

/* ttdecode split STREAM OUTPREFIX (above). Returns the exit status. */
static int ttdecode_split(int argc, char **argv)
{
	struct ttrace_file_error err;
	const uint8_t *buf;
	uint64_t size, pos = 0, n;
	unsigned count = 0;
	int rc = 0;

	if (argc != 2)
		return ttdecode_usage_error("split", "two operands");
	buf = map_stream(argv[0], &size);
	if (buf == MAP_FAILED)
		return 1;
	while (pos < size) {
		n = file_extent(buf + pos, size - pos, &err);
		if (!n) {
			err.offset += pos;
			rc = ttload_report(argv[0], &err);
			fprintf(stderr, "ttdecode split: %u whole traces before "
				"offset %llu written\n", count, ull(pos));
			break;
		}
		if (write_piece(argv[1], count, buf + pos, n) < 0) {
			rc = 1;
			break;
		}
		pos += n;
		count++;
	}
	if (buf)
		munmap((void *)buf, (size_t)size);
	if (!rc)
		printf("split: %u traces\n", count);
	return rc;
}

static const struct ttdecode_command cmd_split = {
	"split", 2, ttdecode_split, "split STREAM OUTPREFIX" };
TTDECODE_COMMAND(cmd_split);
