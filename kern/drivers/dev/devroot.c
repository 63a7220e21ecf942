/*
 * #r: the initramfs, mounted at / and read-only.
 *
 * The boot loader loads a cpio "newc" archive as the first Multiboot
 * module (build/initramfs.cpio: the programs in /bin, a few files in
 * /etc). At init the archive's tree is indexed in place (cpio_newc.h), so
 * files are read straight out of the module's memory, which the page
 * allocator never hands out. A file's qid.path is its node index;
 * directories the archive only implies exist all the same. Creating,
 * writing or removing gives EROFS (the device has no such hooks). Without
 * a module, / is an empty directory.
 */
#include <ns.h>
#include <cpio_newc.h>
#include <init.h>
#include <kmalloc.h>
#include <multiboot.h>
#include <printk.h>
#include <string.h>
#include <arch/mmu.h>
#include <abi/errno.h>

static struct cpio_node *root_nodes;
static size_t root_count;

/* Indexes the archive in the first boot module, if there is one. */
static void root_init(void)
{
	static struct cpio_node empty = { .name = "", .mode = S_IFDIR | 0555 };
	const struct multiboot_module *mod;
	const void *ar;
	size_t len;
	long max, n;

	root_nodes = &empty;
	root_count = 1;
	if (!boot_mbi || !(boot_mbi->flags & MB_INFO_MODS) ||
	    boot_mbi->mods_count == 0) {
		printk(KERN_WARN "initramfs: no boot module; / is empty\n");
		return;
	}
	mod = KADDR(boot_mbi->mods_addr);
	ar = KADDR(mod->mod_start);
	len = mod->mod_end - mod->mod_start;
	if ((max = cpio_tree_bound(ar, len)) < 0 ||
	    (root_nodes = kmalloc((size_t)max * sizeof(*root_nodes))) == NULL ||
	    (n = cpio_tree_build(ar, len, root_nodes, (size_t)max)) < 0)
		panic("initramfs: bad cpio archive (%zu bytes)", len);
	root_count = (size_t)n;
	printk(KERN_INFO "initramfs: %zu bytes, %zu files and directories\n",
	       len, root_count - 1);
}

/* Sets c to node i. */
static void set_node(struct chan *c, size_t i)
{
	bool dir = (root_nodes[i].mode & S_IFMT) == S_IFDIR;

	c->qid = (struct qid){ .path = i, .type = dir ? QTDIR : QTFILE };
}

static int root_attach(struct chan *c)
{
	set_node(c, 0);
	return 0;
}

static int root_walk(struct chan *c, const char *name)
{
	long i = cpio_tree_child(root_nodes, root_count, c->qid.path, name);

	if (i < 0)
		return (int)i;
	set_node(c, (size_t)i);
	return 0;
}

static int root_stat(struct chan *c, struct stat *st)
{
	const struct cpio_node *node = &root_nodes[c->qid.path];

	st->mode = node->mode;
	st->size = node->size;
	return 0;
}

static int root_open(struct chan *c, int omode)
{
	(void)c;
	return (omode & O_ACCMODE) == O_RDONLY ? 0 : -EROFS;
}

static long root_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	const struct cpio_node *node = &root_nodes[c->qid.path];

	if (off >= node->size)
		return 0;
	n = (size_t)MIN((uint64_t)n, node->size - off);
	memcpy(buf, (const char *)node->data + off, n);
	return (long)n;
}

static int root_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	long k = cpio_tree_nth(root_nodes, root_count, c->qid.path, i);
	const struct cpio_node *node;

	if (k < 0)
		return 0;
	node = &root_nodes[k];
	memset(de, 0, sizeof(*de));
	memcpy(de->name, node->name, MIN(node->namelen, (uint32_t)NAME_MAX));
	de->mode = node->mode;
	de->size = node->size;
	return 1;
}

static const struct dev root_dev = {
	.dc = 'r',
	.name = "root",
	.init = root_init,
	.attach = root_attach,
	.walk = root_walk,
	.stat = root_stat,
	.open = root_open,
	.read = root_read,
	.readdir = root_readdir,
};

DEV_REGISTER(root_dev);
