/*
 * #t: a RAM file system, mounted at /tmp.
 *
 * Files and directories are nodes in a tree; file contents are pages
 * (filedata.h) charged, with every node, against one 16 MiB budget, so
 * writes past it fail with ENOSPC and removing files gives the space back.
 *
 * A node is reference counted: one reference while it is linked in its
 * directory, one per chan on it. Removing unlinks it, so a file removed
 * while open stays readable and writable through its open descriptors
 * until the last one closes, and only then are its pages freed. One
 * spinlock covers the tree, the budget and all contents; nothing here
 * sleeps.
 */
#include <ns.h>
#include <filedata.h>
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>

#define TMP_LIMIT	(16ul << 20)

struct tmp_node {
	char name[NAME_MAX + 1];
	uint64_t ino;
	uint32_t mode;
	int ref;			/* chans, plus one while linked */
	struct tmp_node *parent;	/* NULL when not linked */
	struct tmp_node *children;	/* a directory's, in creation order */
	struct tmp_node *sibling;
	struct filedata data;
};

static struct spinlock tmp_lock = SPINLOCK_INIT("tmp");
static struct filedata_pool tmp_pool = {
	.page_alloc = kpage_alloc,
	.page_free = kpage_free,
	.mem_alloc = kmalloc,
	.mem_free = kfree,
	.limit = TMP_LIMIT,
};
static struct tmp_node tmp_root = {
	.name = "/", .ino = 1, .mode = S_IFDIR | 0777, .ref = 1,
};
static uint64_t tmp_next_ino = 2;

/* Drops a reference to n, freeing it with the last. tmp_lock held. */
static void node_put(struct tmp_node *n)
{
	if (--n->ref > 0)
		return;
	filedata_free(&tmp_pool, &n->data);
	filedata_uncharge(&tmp_pool, sizeof(*n));
	kfree(n);
}

static bool is_dir(const struct tmp_node *n)
{
	return (n->mode & S_IFMT) == S_IFDIR;
}

/* Points c at n, moving c's reference there. tmp_lock held. */
static void set_node(struct chan *c, struct tmp_node *n)
{
	n->ref++;
	if (c->aux)
		node_put(c->aux);
	c->aux = n;
	c->qid = (struct qid){ .path = n->ino, .type = is_dir(n) ? QTDIR : 0 };
}

/* Returns dir's child called name, or NULL. tmp_lock held. */
static struct tmp_node *find_child(struct tmp_node *dir, const char *name)
{
	struct tmp_node *n = dir->children;

	while (n && strcmp(n->name, name) != 0)
		n = n->sibling;
	return n;
}

static int tmp_attach(struct chan *c)
{
	spin_lock(&tmp_lock);
	set_node(c, &tmp_root);
	spin_unlock(&tmp_lock);
	return 0;
}

static int tmp_walk(struct chan *c, const char *name)
{
	struct tmp_node *n;

	spin_lock(&tmp_lock);
	if ((n = find_child(c->aux, name)) != NULL)
		set_node(c, n);
	spin_unlock(&tmp_lock);
	return n ? 0 : -ENOENT;
}

static int tmp_stat(struct chan *c, struct stat *st)
{
	struct tmp_node *n = c->aux;

	spin_lock(&tmp_lock);
	st->mode = n->mode;
	st->size = n->data.size;
	spin_unlock(&tmp_lock);
	return 0;
}

static void tmp_close(struct chan *c)
{
	spin_lock(&tmp_lock);
	if (c->aux)
		node_put(c->aux);
	spin_unlock(&tmp_lock);
}

static long tmp_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	size_t r;

	spin_lock(&tmp_lock);
	r = filedata_read(&((struct tmp_node *)c->aux)->data, buf, n, off);
	spin_unlock(&tmp_lock);
	return (long)r;
}

static long tmp_write(struct chan *c, const void *buf, size_t n,
		      uint64_t off)
{
	long r;

	spin_lock(&tmp_lock);
	r = filedata_write(&tmp_pool, &((struct tmp_node *)c->aux)->data, buf,
			   n, off);
	spin_unlock(&tmp_lock);
	return r;
}

static int tmp_truncate(struct chan *c, uint64_t len)
{
	int r;

	spin_lock(&tmp_lock);
	r = filedata_truncate(&tmp_pool, &((struct tmp_node *)c->aux)->data,
			      len);
	spin_unlock(&tmp_lock);
	return r;
}

/* Makes node name of kind in dir, linked last. Returns it or NULL with
 * *err set. tmp_lock held. */
static struct tmp_node *new_node(struct tmp_node *dir, const char *name,
				 enum create_kind kind, int *err)
{
	struct tmp_node *n, **tail = &dir->children;

	if ((*err = filedata_charge(&tmp_pool, sizeof(*n))) < 0)
		return NULL;
	if ((n = kzmalloc(sizeof(*n))) == NULL) {
		filedata_uncharge(&tmp_pool, sizeof(*n));
		*err = -ENOMEM;
		return NULL;
	}
	strlcpy(n->name, name, sizeof(n->name));
	n->ino = tmp_next_ino++;
	n->mode = kind == CREATE_DIR ? S_IFDIR | 0777 : S_IFREG | 0666;
	n->ref = 1;
	n->parent = dir;
	while (*tail)
		tail = &(*tail)->sibling;
	*tail = n;
	return n;
}

static int tmp_create(struct chan *c, const char *name, int omode,
		      enum create_kind kind)
{
	struct tmp_node *dir = c->aux, *n = NULL;
	int err = 0;

	(void)omode;
	spin_lock(&tmp_lock);
	if (dir != &tmp_root && dir->parent == NULL)
		err = -ENOENT;		/* the directory was removed */
	else if (find_child(dir, name))
		err = -EEXIST;
	else if ((n = new_node(dir, name, kind, &err)) != NULL)
		set_node(c, n);
	spin_unlock(&tmp_lock);
	return err;
}

/* Unlinks n from its directory. tmp_lock held. */
static void unlink_node(struct tmp_node *n)
{
	struct tmp_node **pp = &n->parent->children;

	while (*pp != n)
		pp = &(*pp)->sibling;
	*pp = n->sibling;
	n->parent = NULL;
	n->sibling = NULL;
	node_put(n);
}

static int tmp_remove(struct chan *c)
{
	struct tmp_node *n = c->aux;
	int err = 0;

	spin_lock(&tmp_lock);
	if (n == &tmp_root)
		err = -EBUSY;
	else if (n->parent == NULL)
		err = -ENOENT;
	else if (n->children)
		err = -ENOTEMPTY;
	else
		unlink_node(n);
	spin_unlock(&tmp_lock);
	return err;
}

static int tmp_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	struct tmp_node *n;

	spin_lock(&tmp_lock);
	for (n = ((struct tmp_node *)c->aux)->children; n && i > 0; i--)
		n = n->sibling;
	if (n) {
		memset(de, 0, sizeof(*de));
		strlcpy(de->name, n->name, sizeof(de->name));
		de->mode = n->mode;
		de->size = n->data.size;
	}
	spin_unlock(&tmp_lock);
	return n != NULL;
}

static const struct dev tmp_dev = {
	.dc = 't',
	.name = "tmp",
	.attach = tmp_attach,
	.walk = tmp_walk,
	.stat = tmp_stat,
	.close = tmp_close,
	.read = tmp_read,
	.write = tmp_write,
	.create = tmp_create,
	.remove = tmp_remove,
	.truncate = tmp_truncate,
	.readdir = tmp_readdir,
};

DEV_REGISTER(tmp_dev);
