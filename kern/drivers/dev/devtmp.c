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
 *
 * Nothing is linear in the size of a directory: a name is found through
 * one hash table of every linked node, keyed by directory and name; a
 * directory lists its children in creation order, added at the tail and
 * taken out in place; readdir keeps a cursor in the chan (a reference to
 * the node it listed last), so listing in order costs one step an entry.
 */
#include <ns.h>
#include <filedata.h>
#include <hash.h>
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>

#define TMP_LIMIT	(16ul << 20)
#define NAME_HASH_BITS	12

struct tmp_node {
	char name[NAME_MAX + 1];
	uint64_t ino;
	uint32_t mode;
	int ref;			/* chans, plus one while linked */
	struct tmp_node *parent;	/* NULL when not linked */
	struct list children;		/* a directory's, in creation order */
	struct list sibling;		/* on the parent's children */
	struct list hash_link;		/* on its name's hash bucket */
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
	.children = LIST_INIT(tmp_root.children),
};
static struct list name_hash[1 << NAME_HASH_BITS];
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

/* The hash bucket of name in dir. tmp_lock held. */
static struct list *name_bucket(const struct tmp_node *dir, const char *name)
{
	return list_bucket(name_hash, hash_str(name, dir->ino,
					       NAME_HASH_BITS));
}

/* Returns dir's child called name, or NULL. tmp_lock held. */
static struct tmp_node *find_child(struct tmp_node *dir, const char *name)
{
	struct list *b = name_bucket(dir, name);

	for (struct list *l = b->next; l != b; l = l->next) {
		struct tmp_node *n = container_of(l, struct tmp_node,
						  hash_link);

		if (n->parent == dir && strcmp(n->name, name) == 0)
			return n;
	}
	return NULL;
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
	if (c->dir_pos)
		node_put((struct tmp_node *)c->dir_pos);
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
	struct tmp_node *n;

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
	list_init(&n->children);
	list_add_tail(&dir->children, &n->sibling);
	list_add_tail(name_bucket(dir, name), &n->hash_link);
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
	list_del(&n->sibling);
	list_del(&n->hash_link);
	n->parent = NULL;
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
	else if (!list_empty(&n->children))
		err = -ENOTEMPTY;
	else
		unlink_node(n);
	spin_unlock(&tmp_lock);
	return err;
}

/* Returns child i of c's directory, or NULL, starting from c's cursor
 * when it is at or before i and still linked; moves the cursor there.
 * tmp_lock held. */
static struct tmp_node *nth_child(struct chan *c, uint64_t i)
{
	struct tmp_node *dir = c->aux, *cur = (struct tmp_node *)c->dir_pos;
	struct list *l = dir->children.next;
	uint64_t k = 0;

	if (cur && cur->parent == dir && c->dir_index <= i) {
		l = &cur->sibling;
		k = c->dir_index;
	}
	for (; l != &dir->children && k < i; k++)
		l = l->next;
	if (cur)
		node_put(cur);
	c->dir_pos = 0;
	if (l == &dir->children)
		return NULL;
	cur = container_of(l, struct tmp_node, sibling);
	cur->ref++;
	c->dir_pos = (uintptr_t)cur;
	c->dir_index = i;
	return cur;
}

static int tmp_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	struct tmp_node *n;

	spin_lock(&tmp_lock);
	if ((n = nth_child(c, i)) != NULL) {
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
