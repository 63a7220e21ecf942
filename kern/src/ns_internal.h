/*
 * ns_internal.h: what the two halves of the name space share: ns.c
 * (path resolution) and mount.c (the mount table). Callers elsewhere use
 * ns.h.
 */
#ifndef NS_INTERNAL_H
#define NS_INTERNAL_H

#include <ns.h>

struct mount {
	char point[PATH_MAX];	/* "" when the slot is free */
	const struct dev *dev;
	char subpath[PATH_MAX];	/* "" or "/a/b" inside dev */
};

/* ns.c */

/*
 * Finds what cleaned path names: its device and the path inside it, in
 * *m (m->point is left empty for a "#" path). Returns 0, -ENODEV or
 * -ENAMETOOLONG.
 */
int ns_source_of(const char *path, struct mount *m);
/* Attaches d and walks sub. Returns the chan or NULL with *err set. */
struct chan *ns_attach_walk(const struct dev *d, const char *sub, long *err);
/* Resolves cleaned path to an unopened chan, or NULL with *err set. */
struct chan *ns_walk_clean(const char *path, long *err);

/* mount.c */

/* Copies into *m the mount whose point is the longest prefix of clean
 * path. Returns the offset of the rest of path, or -ENOENT if none. Takes
 * the table's read lock. */
long mount_match(const char *path, struct mount *m);
/* True if some mount point is path or lies below it. */
bool mount_busy(const char *path);

#endif /* NS_INTERNAL_H */
