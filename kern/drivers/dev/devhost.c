/*
 * #h: the host channel, bound at /dev/host. Its one file, `out`, streams
 * everything written to it into a file on the host (a shared-memory window,
 * see arch/x86_64/src/hostout.c and scripts/qemu.sh --hostout), byte for
 * byte:
 *
 *	ttrace save /dev/host/out
 *
 * Writes fail with ENODEV when the machine has no such channel, and with
 * ENOSPC once its window is full.
 */
#include <ns.h>
#include <spinlock.h>
#include <abi/errno.h>
#include <arch/arch.h>

enum { Qdir, Qout };

static struct spinlock host_lock = SPINLOCK_INIT("host");	/* appends */

static const struct dirtab host_tab[] = {
	{ ".", { Qdir, 0, QTDIR }, 0, S_IFDIR | 0555 },
	{ "out", { Qout, 0, QTSTREAM }, 0, S_IFCHR | 0222 },
};

static long host_write(struct chan *c, const void *buf, size_t n, uint64_t off)
{
	(void)off;
	if (c->qid.path != Qout)
		return -EBADF;
	if (!arch_hostout_present())
		return -ENODEV;
	uint64_t flags = spin_lock_irqsave(&host_lock);
	bool ok = arch_hostout_write(buf, n);
	spin_unlock_irqrestore(&host_lock, flags);
	return ok ? (long)n : -ENOSPC;
}

static const struct dev host_dev = {
	.dc = 'h',
	.name = "host",
	DEV_TAB(host_tab),
	.write = host_write,
};

DEV_REGISTER(host_dev);
