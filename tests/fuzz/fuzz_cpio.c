/*
 * Fuzz target: the initramfs reader (kern/lib/cpio_newc.c): every entry
 * read with cpio_next(), then the tree built as the root file system
 * builds it, each directory listed with cpio_tree_nth() and each name
 * looked up again with cpio_tree_child(). An entry's name and data must
 * lie inside the archive; the tree may not hold more nodes than its bound.
 */
#include <stdlib.h>
#include <string.h>

#include <cpio_newc.h>

#include "fuzz.h"

/* Aborts unless [p, p + n) lies in [ar, ar + len). */
static void inside(const void *ar, size_t len, const void *p, uint64_t n)
{
	const uint8_t *a = ar, *q = p;

	if (q < a || q > a + len || n > (uint64_t)(a + len - q))
		abort();
}

/* Lists every directory of the tree and looks each child up by name. */
static void walk(const struct cpio_node *nodes, size_t n)
{
	char name[256];

	for (size_t d = 0; d < n; d++) {
		long c;

		for (uint64_t i = 0; (c = cpio_tree_nth(nodes, n, d, i)) >= 0;
		     i++) {
			if ((size_t)c >= n || nodes[c].namelen >= sizeof(name))
				abort();
			memcpy(name, nodes[c].name, nodes[c].namelen);
			name[nodes[c].namelen] = 0;
			if (cpio_tree_child(nodes, n, d, name) < 0)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpio_file f;
	struct cpio_node *nodes;
	size_t pos = 0;
	long bound, n;

	while (cpio_next(data, size, &pos, &f) > 0) {
		inside(data, size, f.name, strlen(f.name) + 1);
		inside(data, size, f.data, f.size);
	}
	if ((bound = cpio_tree_bound(data, size)) <= 0)
		return 0;
	if (!(nodes = calloc((size_t)bound, sizeof(*nodes))))
		return 0;
	n = cpio_tree_build(data, size, nodes, (size_t)bound);
	if (n > bound)
		abort();
	if (n > 0)
		walk(nodes, (size_t)n);
	free(nodes);
	return 0;
}
