/*
 * cpio "newc" reading and the initramfs tree (rules in cpio_newc.h).
 *
 * The tree is a flat array: each node knows its parent, so finding a
 * child is a scan of the array. An initramfs holds a few dozen files, and
 * the scan touches only small structs, so this beats keeping child lists
 * up to date while the tree is built.
 */
#include <cpio_newc.h>
#include <string.h>
#include <abi/errno.h>
#include <abi/syscall.h>

#define FIELD_MODE	1
#define FIELD_FILESIZE	6
#define FIELD_NAMESIZE	11

/* Parses the 8 hex digits of header field i at hdr. Returns false if any
 * is not a hex digit. */
static bool hex_field(const char *hdr, int i, uint32_t *out)
{
	const char *s = hdr + 6 + 8 * i;
	uint32_t v = 0;

	for (int k = 0; k < 8; k++) {
		char c = s[k];
		uint32_t d;

		if (c >= '0' && c <= '9')
			d = (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (uint32_t)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int cpio_next(const void *ar, size_t len, size_t *pos, struct cpio_file *f)
{
	const char *base = ar, *hdr = base + *pos;
	uint32_t mode, size, namesize;
	size_t name_end, data_end;

	if (*pos >= len)
		return 0;
	if (len - *pos < CPIO_HDR_SIZE || (memcmp(hdr, "070701", 6) != 0 &&
					   memcmp(hdr, "070702", 6) != 0))
		return -EINVAL;
	if (!hex_field(hdr, FIELD_MODE, &mode) ||
	    !hex_field(hdr, FIELD_FILESIZE, &size) ||
	    !hex_field(hdr, FIELD_NAMESIZE, &namesize) || namesize == 0)
		return -EINVAL;
	name_end = *pos + CPIO_HDR_SIZE + namesize;
	if (name_end > len || base[name_end - 1] != 0 ||
	    memchr(hdr + CPIO_HDR_SIZE, 0, namesize - 1) != NULL)
		return -EINVAL;
	data_end = pad4(name_end) + size;
	if (pad4(name_end) > len || data_end > len)
		return -EINVAL;
	f->name = hdr + CPIO_HDR_SIZE;
	f->mode = mode;
	f->data = base + pad4(name_end);
	f->size = size;
	if (strcmp(f->name, "TRAILER!!!") == 0)
		return 0;
	*pos = MIN(pad4(data_end), len);
	return 1;
}

long cpio_tree_bound(const void *ar, size_t len)
{
	struct cpio_file f;
	size_t pos = 0;
	long n = 1;
	int r;

	while ((r = cpio_next(ar, len, &pos, &f)) > 0)
		for (const char *s = f.name; *s; s++)
			n += *s == '/' || s == f.name;
	return r < 0 ? r : n;
}

/* Returns the child of dir called [name, name + n), or -ENOENT. */
static long find_child(const struct cpio_node *nodes, size_t count,
		       size_t dir, const char *name, size_t n)
{
	for (size_t i = 1; i < count; i++)
		if (nodes[i].parent == dir && nodes[i].namelen == n &&
		    memcmp(nodes[i].name, name, n) == 0)
			return (long)i;
	return -ENOENT;
}

/* The tree being built: nodes[0..count) of max. */
struct cpio_tree {
	struct cpio_node *nodes;
	size_t count;
	size_t max;
};

/* Returns the node for component [name, name + n) under dir, adding it
 * with mode if missing. -EINVAL if dir is a file, -ENOSPC if full. */
static long get_node(struct cpio_tree *t, size_t dir, const char *name,
		     size_t n, uint32_t mode)
{
	long i;

	if ((t->nodes[dir].mode & S_IFMT) != S_IFDIR || n > NAME_MAX ||
	    (n == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	if ((i = find_child(t->nodes, t->count, dir, name, n)) >= 0)
		return i;
	if (t->count == t->max)
		return -ENOSPC;
	t->nodes[t->count] = (struct cpio_node){
		.name = name, .namelen = (uint32_t)n, .parent = (uint32_t)dir,
		.mode = mode,
	};
	return (long)t->count++;
}

/* Adds file or directory f, and the directories its name implies. */
static int add_entry(struct cpio_tree *t, const struct cpio_file *f)
{
	const char *s = f->name;
	long node = 0;

	while (*s) {
		size_t n = 0;
		const char *next;
		bool last;

		while (s[n] && s[n] != '/')
			n++;
		for (next = s + n; *next == '/'; next++)
			;
		last = *next == 0;

		if (n > 0 && !(n == 1 && s[0] == '.'))
			node = get_node(t, (size_t)node, s, n,
					last ? f->mode : S_IFDIR | 0555);
		if (node < 0)
			return (int)node;
		s = next;
	}
	if (node == 0)		/* "." or "/": the root itself */
		return 0;
	if ((t->nodes[node].mode & S_IFMT) != (f->mode & S_IFMT))
		return -EINVAL;
	t->nodes[node].mode = f->mode;
	t->nodes[node].data = f->data;
	t->nodes[node].size = f->size;
	return 0;
}

long cpio_tree_build(const void *ar, size_t len, struct cpio_node *nodes,
		     size_t max)
{
	struct cpio_tree t = { .nodes = nodes, .count = 1, .max = max };
	struct cpio_file f;
	size_t pos = 0;
	int r;

	if (max == 0)
		return -ENOSPC;
	nodes[0] = (struct cpio_node){ .name = "", .mode = S_IFDIR | 0555 };
	while ((r = cpio_next(ar, len, &pos, &f)) > 0) {
		uint32_t type = f.mode & S_IFMT;

		if (type != S_IFREG && type != S_IFDIR)
			continue;
		if ((r = add_entry(&t, &f)) < 0)
			return r;
	}
	return r < 0 ? r : (long)t.count;
}

long cpio_tree_child(const struct cpio_node *nodes, size_t n, size_t dir,
		     const char *name)
{
	return find_child(nodes, n, dir, name, strlen(name));
}

long cpio_tree_nth(const struct cpio_node *nodes, size_t n, size_t dir,
		   uint64_t i)
{
	for (size_t k = 1; k < n; k++)
		if (nodes[k].parent == dir && i-- == 0)
			return (long)k;
	return -ENOENT;
}
