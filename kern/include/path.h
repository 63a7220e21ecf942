/*
 * path: lexical path names for the name space (kern/src/ns.c).
 *
 * A cleaned path is absolute and canonical: it starts at a root, "/" for
 * the mounted tree or "#name" for device name's own tree (as in Plan 9's
 * "#c/cons"), then has zero or more components joined by single slashes,
 * with no "." or "..", no empty component and no trailing slash:
 *
 *	/  /tmp  /tmp/a  #c  #c/cons  #ttrace
 *
 * path_clean() makes one from what a user typed: a relative path is taken
 * from the current directory (itself a cleaned path), "." is dropped and
 * ".." removes the previous component, as in Plan 9's cleanname; ".." at a
 * root stays there. The cleaning is purely textual: "/a/file/.." is "/a"
 * even if file is not a directory.
 *
 *	char clean[256];
 *	long len = path_clean(clean, sizeof(clean), "/tmp", "../bin//ls");
 *	// clean = "/bin/ls", len = 7
 *	const char *p = clean;
 *	char name[NAME_MAX + 1];
 *	while (path_elem(&p, name))	// "bin", then "ls"
 *		...
 *
 * Nothing here allocates or locks; it compiles on the host and is tested
 * in tests/host/test_path.c.
 */
#ifndef PATH_H
#define PATH_H

#include <compiler.h>

/*
 * Cleans path against cwd into out (size bytes). Returns the length of the
 * result, -ENOENT for an empty path or an empty "#" device name, and
 * -ENAMETOOLONG when a component is longer than NAME_MAX (abi/syscall.h)
 * or the result does not fit in size bytes with its NUL. The result is
 * built component by component (cwd's first, for a relative path), and
 * every step must fit, even one that a later ".." would shorten. cwd must
 * be a cleaned path ("/" is used if it is not); it is used only when path
 * is relative.
 */
long path_clean(char *out, size_t size, const char *cwd, const char *path);

/*
 * Copies the next component of the cleaned path at *p into name (NAME_MAX
 * + 1 bytes) and advances *p past it. Returns false when there is none.
 * Start it after the root: see path_root_len().
 */
bool path_elem(const char **p, char *name);

/* Returns the length of the root of cleaned path: 1 for "/", 1 + the name
 * for "#name". */
size_t path_root_len(const char *path);

/*
 * If cleaned path is prefix or lies below it, returns the rest of path
 * after prefix (an empty string or one starting with '/'); otherwise NULL.
 * The root "/" is a prefix of every path that starts with '/'.
 */
const char *path_under(const char *prefix, const char *path);

/*
 * Splits cleaned path into its parent (into parent, size bytes) and its
 * last component (into name, NAME_MAX + 1 bytes). Returns 0, or -EINVAL
 * for a root, which has no last component.
 */
int path_split(const char *path, char *parent, size_t size, char *name);

#endif /* PATH_H */
