/*
 * Host tests for the pure parts of the user libc: the arena allocator behind
 * malloc (user/lib/arena.c), getopt (user/lib/getopt.c) and the line reader
 * (user/lib/linereader.c and getline.c, fed through a host pipe) and the
 * error texts
 * (user/lib/strerror.c). The files under test are
 * included by their paths relative to this one, so the test is a single
 * translation unit that builds with the plain host-test rule:
 *
 *	gcc $(HOSTCFLAGS) -o build/host/test_ulib tests/host/test_ulib.c
 *
 * getopt.c and strerror.c define getopt/optind/optarg and strerror, which
 * take the place of the host libc's in this program.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "htest.h"
#include "../../user/lib/arena.c"
#include "../../user/lib/getopt.c"
#include "../../user/lib/linereader.c"
#include "../../user/lib/getline.c"
#include "../../user/lib/strerror.c"

#define ARENA_BYTES	(64 * 1024)

static char arena_mem[ARENA_BYTES] __attribute__((aligned(16)));

/* Checks a's invariants and that it holds exactly bytes free in blocks
 * blocks. Returns 0 or fails. */
static int check_free(const struct arena *a, size_t bytes, size_t blocks)
{
	size_t got_bytes, got_blocks;

	if (arena_check(a, &got_bytes, &got_blocks) < 0)
		HT_FAIL("arena corrupt");
	if (got_bytes != bytes || got_blocks != blocks)
		HT_FAIL("free %zu bytes in %zu blocks, want %zu in %zu",
			got_bytes, got_blocks, bytes, blocks);
	return 0;
}

static int test_arena_basic(void)
{
	struct arena a;
	char *p, *q;

	arena_init(&a, arena_mem, sizeof(arena_mem));
	if (check_free(&a, ARENA_BYTES, 1))
		return 1;
	p = arena_alloc(&a, 100);
	q = arena_alloc(&a, 1);
	HT_CHECK(p && q && p != q);
	HT_CHECK((uintptr_t)p % 16 == 0 && (uintptr_t)q % 16 == 0);
	HT_CHECK(p >= arena_mem && p + 100 <= arena_mem + ARENA_BYTES);
	memset(p, 0xaa, 100);
	memset(q, 0x55, 1);
	HT_CHECK(p[99] == (char)0xaa && q[0] == 0x55);
	HT_CHECK(arena_free(&a, p) == 0);
	HT_CHECK(arena_free(&a, q) == 0);
	HT_CHECK(arena_free(&a, NULL) == 0);
	return check_free(&a, ARENA_BYTES, 1);
}

static int test_arena_zero_and_huge(void)
{
	struct arena a;
	void *p, *q;

	arena_init(&a, arena_mem, sizeof(arena_mem));
	p = arena_alloc(&a, 0);
	q = arena_alloc(&a, 0);
	HT_CHECK(p && q && p != q);
	HT_CHECK(arena_alloc(&a, SIZE_MAX) == NULL);
	HT_CHECK(arena_alloc(&a, SIZE_MAX - 8) == NULL);
	HT_CHECK(arena_alloc(&a, ARENA_BYTES) == NULL);
	HT_CHECK(arena_free(&a, p) == 0 && arena_free(&a, q) == 0);
	if (check_free(&a, ARENA_BYTES, 1))
		return 1;
	/* The whole arena minus one header is the largest block. */
	p = arena_alloc(&a, ARENA_BYTES - sizeof(struct arena_block));
	HT_CHECK(p != NULL);
	HT_CHECK(arena_alloc(&a, 0) == NULL);
	HT_CHECK(arena_free(&a, p) == 0);
	/* An arena too small for any block hands out nothing. */
	arena_init(&a, arena_mem, 31);
	HT_CHECK(arena_alloc(&a, 0) == NULL);
	return check_free(&a, 0, 0);
}

/* Fills the arena with n-byte blocks into ptrs (up to max); returns how
 * many fit. */
static int fill(struct arena *a, void **ptrs, int max, size_t n)
{
	int count = 0;

	while (count < max && (ptrs[count] = arena_alloc(a, n)) != NULL)
		count++;
	return count;
}

/* Frees in several orders (forward, backward, evens then odds, a stride
 * permutation: 7919 is prime) must always coalesce back to one block. */
static int test_arena_coalesce(void)
{
	static void *ptrs[4096];
	struct arena a;

	for (int order = 0; order < 4; order++) {
		int n;

		arena_init(&a, arena_mem, sizeof(arena_mem));
		n = fill(&a, ptrs, 4096, 40);
		HT_CHECK(n > 100 && n < 4096);
		for (int i = 0; i < n; i++) {
			int k = order == 0 ? i : order == 1 ? n - 1 - i :
				order == 2 ? (i < (n + 1) / 2 ? 2 * i :
					      2 * (i - (n + 1) / 2) + 1) :
				(i * 7919) % n;

			HT_CHECK(arena_free(&a, ptrs[k]) == 0);
		}
		if (check_free(&a, ARENA_BYTES, 1))
			return 1;
	}
	return 0;
}

static int test_arena_bad_free(void)
{
	struct arena a;
	static char outside[64] __attribute__((aligned(16)));
	char *p, *q, *r;

	arena_init(&a, arena_mem, sizeof(arena_mem));
	p = arena_alloc(&a, 64);
	q = arena_alloc(&a, 64);
	r = arena_alloc(&a, 64);
	HT_CHECK(arena_free(&a, outside + 16) == -1);
	HT_CHECK(arena_free(&a, p + 16) == -1);
	HT_CHECK(arena_free(&a, p + 1) == -1);
	HT_CHECK(arena_free(&a, arena_mem) == -1);
	HT_CHECK(arena_free(&a, q) == 0);
	HT_CHECK(arena_free(&a, q) == -1);	/* double free, not merged */
	HT_CHECK(arena_free(&a, p) == 0);	/* p merges into q's block */
	HT_CHECK(arena_free(&a, p) == -1);
	HT_CHECK(arena_free(&a, q) == -1);
	HT_CHECK(arena_realloc(&a, q, 10) == NULL);
	HT_CHECK(arena_free(&a, r) == 0);
	return check_free(&a, ARENA_BYTES, 1);
}

static int test_arena_realloc(void)
{
	struct arena a;
	char *p, *q, *big;

	arena_init(&a, arena_mem, sizeof(arena_mem));
	p = arena_realloc(&a, NULL, 10);
	HT_CHECK(p != NULL);
	memcpy(p, "0123456789", 10);
	HT_CHECK(arena_realloc(&a, p, 5) == p);		/* shrink in place */
	HT_CHECK(arena_realloc(&a, p, 16) == p);	/* fits the block */
	big = arena_alloc(&a, 16);			/* pin p's neighbour */
	q = arena_realloc(&a, p, 1000);
	HT_CHECK(q != NULL && q != p);
	HT_CHECK(memcmp(q, "0123456789", 10) == 0);
	HT_CHECK(arena_realloc(&a, q, ARENA_BYTES) == NULL);
	HT_CHECK(memcmp(q, "0123456789", 10) == 0);	/* kept on failure */
	HT_CHECK(arena_free(&a, q) == 0 && arena_free(&a, big) == 0);
	return check_free(&a, ARENA_BYTES, 1);
}

/* Random mixes of alloc, free and realloc; every live block keeps a
 * pattern that must survive, and the invariants hold after every step. */
static int test_arena_random(void)
{
	enum { SLOTS = 64, STEPS = 20000 };
	static unsigned char *ptr[SLOTS];
	static size_t len[SLOTS];
	uint64_t seed = 12345;
	size_t bytes, blocks;
	struct arena a;

	arena_init(&a, arena_mem, sizeof(arena_mem));
	memset(ptr, 0, sizeof(ptr));
	for (int step = 0; step < STEPS; step++) {
		int s = (int)(ht_rand(&seed) % SLOTS);
		size_t n = ht_rand(&seed) % (ht_rand(&seed) % 4 ?
						 200 : 4000);

		for (size_t i = 0; ptr[s] && i < len[s]; i++)
			if (ptr[s][i] != (unsigned char)(s + i))
				HT_FAIL("slot %d byte %zu clobbered", s, i);
		if (ptr[s] && n % 3 == 0) {
			HT_CHECK(arena_free(&a, ptr[s]) == 0);
			ptr[s] = NULL;
		} else {
			unsigned char *p = arena_realloc(&a, ptr[s], n);

			if (p == NULL)
				continue;
			ptr[s] = p;
			len[s] = n;
			for (size_t i = 0; i < n; i++)
				p[i] = (unsigned char)(s + i);
		}
		HT_CHECK(arena_check(&a, &bytes, &blocks) == 0);
	}
	for (int s = 0; s < SLOTS; s++)
		HT_CHECK(arena_free(&a, ptr[s]) == 0);
	return check_free(&a, ARENA_BYTES, 1);
}

/* Runs getopt over argv with opts, rendering each result into out as
 * "c", "c=arg", "?x" (unknown/missing x) or ":x"; appends "|" and the
 * operands left. */
static void run_getopt(int argc, char **argv, const char *opts, char *out)
{
	int c;

	optind = 1;
	opterr = 0;
	out[0] = 0;
	while ((c = getopt(argc, argv, opts)) != -1) {
		char item[64];

		if (c == '?' || c == ':')
			snprintf(item, sizeof(item), "%c%c ", c, optopt);
		else if (optarg)
			snprintf(item, sizeof(item), "%c=%.40s ", c, optarg);
		else
			snprintf(item, sizeof(item), "%c ", c);
		strcat(out, item);
	}
	strcat(out, "|");
	for (int i = optind; i < argc; i++) {
		strcat(out, " ");
		strcat(out, argv[i]);
	}
}

static int test_getopt(void)
{
	static const struct {
		const char *args;	/* space-separated, argv[0] first */
		const char *opts;
		const char *want;
	} cases[] = {
		{ "p -a -b val -cval file", "ab:c:", "a b=val c=val | file" },
		{ "p -vn5 x y", "vn:", "v n=5 | x y" },
		{ "p -vc -- -a", "vca", "v c | -a" },
		{ "p - -a", "a", "| - -a" },
		{ "p file -a", "a", "| file -a" },
		{ "p -x -a", "a", "?x a |" },
		{ "p -n", "n:", "?n |" },
		{ "p -n", ":n:", ":n |" },
		{ "p -ax", ":a", "a ?x |" },
		{ "p", "a", "|" },
	};
	char buf[256], out[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[16];
		int argc = 0;

		strcpy(buf, cases[i].args);
		for (char *w = strtok(buf, " "); w; w = strtok(NULL, " "))
			argv[argc++] = w;
		argv[argc] = NULL;
		run_getopt(argc, argv, cases[i].opts, out);
		if (strcmp(out, cases[i].want) != 0)
			HT_FAIL("'%s' '%s': got '%s' want '%s'", cases[i].args,
				cases[i].opts, out, cases[i].want);
	}
	return 0;
}

/* Makes a pipe holding data, write end closed; returns the read end. */
static int pipe_with(const char *data, size_t n)
{
	int fds[2];

	if (pipe(fds) < 0 || write(fds[1], data, n) != (ssize_t)n)
		return -1;
	close(fds[1]);
	return fds[0];
}

static int test_linereader(void)
{
	static struct linereader lr;
	char line[8];
	int fd = pipe_with("ab\n\nlonger line\nend", 19);

	HT_CHECK(fd >= 0);
	linereader_init(&lr, fd);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 3);
	HT_CHECK(strcmp(line, "ab\n") == 0);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 1);
	HT_CHECK(strcmp(line, "\n") == 0);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 7);
	HT_CHECK(strcmp(line, "longer ") == 0);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 5);
	HT_CHECK(strcmp(line, "line\n") == 0);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 3);
	HT_CHECK(strcmp(line, "end") == 0);
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 0);
	HT_CHECK(line[0] == 0);
	close(fd);
	return 0;
}

/* Lines that straddle the reader's block boundary come back whole. */
static int test_linereader_blocks(void)
{
	static struct linereader lr;
	static char data[3 * LINEREADER_BUF], line[LINEREADER_BUF];
	size_t n = 0, lines = 0;
	int fd;

	while (n + 40 < sizeof(data))
		n += (size_t)sprintf(data + n, "line %zu of the test\n", lines++);
	fd = pipe_with(data, n);
	HT_CHECK(fd >= 0);
	linereader_init(&lr, fd);
	for (size_t i = 0; i < lines; i++) {
		char want[64];

		sprintf(want, "line %zu of the test\n", i);
		HT_CHECK(linereader_next(&lr, line, sizeof(line)) > 0);
		if (strcmp(line, want) != 0)
			HT_FAIL("line %zu: got '%.60s'", i, line);
	}
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == 0);
	close(fd);
	return 0;
}

/* Whole lines of any length, including lengths around the reader's
 * block size and the buffer's growth steps. */
static int test_getline(void)
{
	static const size_t lens[] = { 0, 1, 127, 128, 1023, 1024, 1025,
				       5000, 20000 };
	static char data[32768];
	static struct linereader lr;
	char *line = NULL;
	size_t n = 0, cap = 0;
	int fd;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(data + n, 'a' + (int)i, lens[i]);
		n += lens[i];
		data[n++] = '\n';
	}
	memcpy(data + n, "tail", 4);
	fd = pipe_with(data, n + 4);
	HT_CHECK(fd >= 0);
	linereader_init(&lr, fd);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ssize_t got = linereader_getline(&lr, &line, &cap);

		if (got != (ssize_t)lens[i] + 1 || line[got - 1] != '\n' ||
		    line[got] != 0 || strspn(line, "abcdefghi") != lens[i])
			HT_FAIL("line %zu: got %zd bytes, want %zu", i, got,
				lens[i] + 1);
	}
	HT_CHECK(linereader_getline(&lr, &line, &cap) == 4);
	HT_CHECK(strcmp(line, "tail") == 0 && cap >= 20001);
	HT_CHECK(linereader_getline(&lr, &line, &cap) == 0);
	free(line);
	close(fd);
	return 0;
}

static int test_linereader_error(void)
{
	static struct linereader lr;
	char line[2];

	linereader_init(&lr, -1);
	errno = 0;
	HT_CHECK(linereader_next(&lr, line, sizeof(line)) == -1);
	HT_CHECK(errno == EBADF);
	return 0;
}

/* Every error number of abi/errno.h has its own text. */
static int test_strerror(void)
{
	static const int errs[] = {
		EPERM, ENOENT, ESRCH, EINTR, EIO, E2BIG, ENOEXEC, EBADF,
		ECHILD, EAGAIN, ENOMEM, EACCES, EFAULT, EBUSY, EEXIST, EXDEV,
		ENODEV, ENOTDIR, EISDIR, EINVAL, ENFILE, EMFILE, ENOTTY,
		EFBIG, ENOSPC, ESPIPE, EROFS, EPIPE, ERANGE, ENAMETOOLONG,
		ENOSYS, ENOTEMPTY, ELOOP,
	};
	const size_t n = sizeof(errs) / sizeof(errs[0]);

	for (size_t i = 0; i < n; i++) {
		const char *text = strerror(errs[i]);

		if (strcmp(text, "unknown error") == 0 || text[0] == 0)
			HT_FAIL("error %d has no text", errs[i]);
		for (size_t k = 0; k < i; k++)
			if (strcmp(text, strerror(errs[k])) == 0)
				HT_FAIL("errors %d and %d share '%s'", errs[k],
					errs[i], text);
	}
	HT_CHECK(strcmp(strerror(ENOENT), "no such file or directory") == 0);
	HT_CHECK(strcmp(strerror(-1), "unknown error") == 0);
	HT_CHECK(strcmp(strerror(ELOOP + 1), "unknown error") == 0);
	HT_CHECK(strcmp(strerror(6), "unknown error") == 0);	/* a gap */
	return 0;
}

static const struct ht_test tests[] = {
	{ test_arena_basic, "arena_basic" },
	{ test_arena_zero_and_huge, "arena_zero_and_huge" },
	{ test_arena_coalesce, "arena_coalesce" },
	{ test_arena_bad_free, "arena_bad_free" },
	{ test_arena_realloc, "arena_realloc" },
	{ test_arena_random, "arena_random" },
	{ test_getopt, "getopt" },
	{ test_linereader, "linereader" },
	{ test_linereader_blocks, "linereader_blocks" },
	{ test_linereader_error, "linereader_error" },
	{ test_getline, "getline" },
	{ test_strerror, "strerror" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
