/*
 * cpio_newc: the initramfs archive, a cpio in the "newc" format (what
 * `cpio -o -H newc` writes), read in place.
 *
 * An archive is a list of entries, each a 110-byte ASCII header (magic
 * "070701" or "070702", then 13 eight-digit hex fields: ino, mode, uid,
 * gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor,
 * namesize, check), the NUL-terminated name padded to a multiple of 4
 * bytes counting the header, and the data padded to 4. The entry named
 * "TRAILER!!!" ends it.
 *
 * cpio_next() walks the entries. cpio_tree_build() turns them into a tree
 * of nodes over the archive's own bytes (names and data are not copied):
 * node 0 is the root, every directory a path implies exists even if the
 * archive has no entry for it, names may start with "./" or "/", and only
 * regular files and directories are kept (symlinks and devices are
 * skipped). A later entry for the same path replaces an earlier file.
 *
 *	long max = cpio_tree_bound(ar, len);
 *	struct cpio_node *nodes = kmalloc(max * sizeof(*nodes));
 *	long n = cpio_tree_build(ar, len, nodes, max);
 *	long sh = cpio_tree_child(nodes, n, cpio_tree_child(nodes, n, 0,
 *				  "bin"), "sh");
 *
 * Pure code: no allocation, no locks; tested on the host in
 * tests/host/test_cpio_newc.c.
 */
#ifndef CPIO_NEWC_H
#define CPIO_NEWC_H

#include <compiler.h>

#define CPIO_HDR_SIZE	110

struct cpio_file {
	const char *name;	/* NUL-terminated, inside the archive */
	uint32_t mode;		/* S_IFMT type and permission bits */
	const void *data;
	uint64_t size;
};

struct cpio_node {
	const char *name;	/* this component, not NUL-terminated */
	uint32_t namelen;
	uint32_t parent;	/* node index; the root is its own parent */
	uint32_t mode;		/* S_IFDIR or S_IFREG plus permissions */
	const void *data;	/* files only */
	uint64_t size;
};

/*
 * Reads the entry at *pos of archive ar (len bytes) into f and moves *pos
 * to the next. Returns 1 for an entry, 0 at the trailer or at the end of
 * the bytes, -EINVAL for a malformed entry.
 */
int cpio_next(const void *ar, size_t len, size_t *pos, struct cpio_file *f);

/* Returns an upper bound on the nodes cpio_tree_build() makes for ar: one
 * for the root plus one per name component. -EINVAL if malformed. */
long cpio_tree_bound(const void *ar, size_t len);

/*
 * Builds the tree of ar into nodes (max of them). Returns the number of
 * nodes, -EINVAL for a malformed archive or a name with "..", a file
 * where a directory is needed, or a component over NAME_MAX bytes, and
 * -ENOSPC if max is too small.
 */
long cpio_tree_build(const void *ar, size_t len, struct cpio_node *nodes,
		     size_t max);

/* Returns the index of the child called name of directory node dir, or
 * -ENOENT. */
long cpio_tree_child(const struct cpio_node *nodes, size_t n, size_t dir,
		     const char *name);

/* Returns the index of the i-th child (in archive order) of directory node
 * dir, or -ENOENT when it has no more. */
long cpio_tree_nth(const struct cpio_node *nodes, size_t n, size_t dir,
		   uint64_t i);

#endif /* CPIO_NEWC_H */
