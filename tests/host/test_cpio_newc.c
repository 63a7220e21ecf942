/*
 * Host tests for kern/lib/cpio_newc.c. Archives are built here entry by entry
 * in the newc layout (the same bytes `cpio -o -H newc` and
 * scripts/mkinitramfs.py write) into a malloc'd buffer of exactly their
 * size, so AddressSanitizer catches any read past the end; truncated and
 * corrupted copies must be refused, never overrun.
 */
#include <stdlib.h>
#include <string.h>

#include "htest.h"
#include <cpio_newc.h>

#define T_S_IFDIR	0040000
#define T_S_IFREG	0100000
#define T_S_IFLNK	0120000

struct archive {
	char buf[8192];
	size_t len;
};

/* Appends one entry (name, mode, data of size bytes) to a. */
static void add(struct archive *a, const char *name, unsigned mode,
		const char *data, size_t size)
{
	size_t namesize = strlen(name) + 1;

	a->len += (size_t)sprintf(a->buf + a->len,
		"070701%08x%08x%08x%08x%08x%08x%08zx%08x%08x%08x%08x%08zx%08x",
		1u, mode, 0u, 0u, 1u, 0u, size, 0u, 0u, 0u, 0u, namesize, 0u);
	memcpy(a->buf + a->len, name, namesize);
	a->len += namesize;
	while (a->len % 4)
		a->buf[a->len++] = 0;
	memcpy(a->buf + a->len, data, size);
	a->len += size;
	while (a->len % 4)
		a->buf[a->len++] = 0;
}

static void finish(struct archive *a)
{
	add(a, "TRAILER!!!", 0, "", 0);
}

/* Returns a malloc'd copy of the first n bytes of a. */
static char *exact(const struct archive *a, size_t n)
{
	char *p = malloc(n ? n : 1);

	memcpy(p, a->buf, n);
	return p;
}

/* Looks up slash-separated path in the tree; returns the node or -1. */
static long lookup(const struct cpio_node *nodes, long n, const char *path)
{
	char copy[256], *save = NULL;
	long node = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *c = strtok_r(copy, "/", &save); c && node >= 0;
	     c = strtok_r(NULL, "/", &save))
		node = cpio_tree_child(nodes, (size_t)n, (size_t)node, c);
	return node < 0 ? -1 : node;
}

static int test_next(void)
{
	static struct archive a;
	struct cpio_file f;
	size_t pos = 0;
	char *ar;

	add(&a, "bin", T_S_IFDIR | 0755, "", 0);
	add(&a, "bin/sh", T_S_IFREG | 0755, "#!elf", 5);
	add(&a, "etc/motd", T_S_IFREG | 0644, "hello\n", 6);
	finish(&a);
	ar = exact(&a, a.len);
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == 1);
	HT_CHECK(strcmp(f.name, "bin") == 0 && f.size == 0);
	HT_CHECK(f.mode == (T_S_IFDIR | 0755));
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == 1);
	HT_CHECK(strcmp(f.name, "bin/sh") == 0 && f.size == 5);
	HT_CHECK(memcmp(f.data, "#!elf", 5) == 0);
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == 1);
	HT_CHECK(strcmp(f.name, "etc/motd") == 0 && f.size == 6);
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == 0);
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == 0);
	free(ar);
	return 0;
}

/* Every truncation of a valid archive parses or fails cleanly. */
static int test_truncated(void)
{
	static struct archive a;

	add(&a, "bin/sh", T_S_IFREG | 0755, "0123456789", 10);
	add(&a, "bin/ls", T_S_IFREG | 0755, "abc", 3);
	finish(&a);
	for (size_t n = 0; n <= a.len; n++) {
		char *ar = exact(&a, n);
		struct cpio_node nodes[8];
		long r = cpio_tree_build(ar, n, nodes, 8);

		HT_CHECK(r == -22 || r >= 1);
		HT_CHECK(cpio_tree_bound(ar, n) == -22 ||
			 cpio_tree_bound(ar, n) >= 1);
		free(ar);
	}
	return 0;
}

static int test_corrupt(void)
{
	static struct archive a;
	struct cpio_file f;
	size_t pos;
	char *ar;

	add(&a, "x", T_S_IFREG | 0644, "data", 4);
	finish(&a);
	ar = exact(&a, a.len);
	ar[0] = '1';		/* magic */
	pos = 0;
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == -22);
	memcpy(ar, a.buf, a.len);
	ar[6 + 8 * 6] = 'g';	/* filesize not hex */
	pos = 0;
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == -22);
	memcpy(ar, a.buf, a.len);
	memcpy(ar + 6 + 8 * 6, "7fffffff", 8);	/* data past the end */
	pos = 0;
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == -22);
	memcpy(ar, a.buf, a.len);
	memcpy(ar + 6 + 8 * 11, "00000000", 8);	/* no name at all */
	pos = 0;
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == -22);
	memcpy(ar, a.buf, a.len);
	memcpy(ar + 6 + 8 * 11, "00000001", 8);	/* name without its NUL */
	pos = 0;
	HT_CHECK(cpio_next(ar, a.len, &pos, &f) == -22);
	free(ar);
	return 0;
}

static int test_tree(void)
{
	static struct archive a;
	struct cpio_node nodes[32];
	long n, bound, bin, sh, etc, i;
	char *ar;

	add(&a, ".", T_S_IFDIR | 0755, "", 0);
	add(&a, "./bin/sh", T_S_IFREG | 0755, "SH", 2);
	add(&a, "/bin/ls", T_S_IFREG | 0755, "LS", 2);
	add(&a, "bin", T_S_IFDIR | 0711, "", 0);
	add(&a, "etc//motd", T_S_IFREG | 0644, "hi", 2);
	add(&a, "etc/link", T_S_IFLNK | 0777, "motd", 4);
	add(&a, "bin/sh", T_S_IFREG | 0755, "SH2", 3);
	finish(&a);
	ar = exact(&a, a.len);
	bound = cpio_tree_bound(ar, a.len);
	HT_CHECK(bound >= 6 && bound <= 32);
	n = cpio_tree_build(ar, a.len, nodes, (size_t)bound);
	HT_CHECK(n == 6);	/* root bin sh ls etc motd */
	bin = lookup(nodes, n, "bin");
	sh = lookup(nodes, n, "bin/sh");
	etc = lookup(nodes, n, "etc");
	HT_CHECK(bin > 0 && sh > 0 && etc > 0);
	HT_CHECK(nodes[bin].mode == (T_S_IFDIR | 0711));
	HT_CHECK(nodes[etc].mode == (T_S_IFDIR | 0555));
	HT_CHECK(nodes[sh].size == 3 && memcmp(nodes[sh].data, "SH2", 3) == 0);
	HT_CHECK(nodes[sh].parent == (uint32_t)bin);
	HT_CHECK(lookup(nodes, n, "etc/motd") > 0);
	HT_CHECK(lookup(nodes, n, "etc/link") < 0);
	HT_CHECK(lookup(nodes, n, "bin/sh/x") < 0);
	HT_CHECK(lookup(nodes, n, "bi") < 0);
	/* Children come in archive order, then -ENOENT. */
	HT_CHECK(cpio_tree_nth(nodes, (size_t)n, 0, 0) == bin);
	HT_CHECK(cpio_tree_nth(nodes, (size_t)n, 0, 1) == etc);
	HT_CHECK(cpio_tree_nth(nodes, (size_t)n, 0, 2) == -2);
	i = cpio_tree_nth(nodes, (size_t)n, (size_t)bin, 1);
	HT_CHECK(i > 0 && nodes[i].namelen == 2 &&
		 memcmp(nodes[i].name, "ls", 2) == 0);
	HT_CHECK(cpio_tree_build(ar, a.len, nodes, 3) == -28);
	free(ar);
	return 0;
}

static int test_bad_trees(void)
{
	static struct archive a, b, c;
	struct cpio_node nodes[16];
	char name[80];

	add(&a, "bin", T_S_IFREG | 0644, "x", 1);
	add(&a, "bin/sh", T_S_IFREG | 0644, "x", 1);	/* under a file */
	finish(&a);
	HT_CHECK(cpio_tree_build(a.buf, a.len, nodes, 16) == -22);
	add(&b, "a/../b", T_S_IFREG | 0644, "x", 1);
	finish(&b);
	HT_CHECK(cpio_tree_build(b.buf, b.len, nodes, 16) == -22);
	memset(name, 'n', 64);
	name[64] = 0;
	add(&c, name, T_S_IFREG | 0644, "x", 1);
	finish(&c);
	HT_CHECK(cpio_tree_build(c.buf, c.len, nodes, 16) == -22);
	HT_CHECK(cpio_tree_build("", 0, nodes, 16) == 1);
	HT_CHECK(cpio_tree_build("", 0, nodes, 0) == -28);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_next, "cpio_next" },
	{ test_truncated, "cpio_truncated" },
	{ test_corrupt, "cpio_corrupt" },
	{ test_tree, "cpio_tree" },
	{ test_bad_trees, "cpio_bad_trees" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
