/*
 * #h: the host channel, bound at /dev/host. Its one file, `out`, streams
 * everything written to it into a file on the host (a shared-memory window,
 * see arch/x86_64/src/hostout.c and scripts/qemu.sh --hostout), byte for
 * byte:
 *
 *	ttrace save /dev/host/out
 *
 * Writes fail with ENODEV when the machine has no such channel, with
 * ENOSPC once its window is full, and with EBUSY while the kernel's
 * trace drain owns the channel (devhost.h: it appends a trace file a
 * piece at a time, which no other write may split).
 */
#include <devhost.h>
#include <ns.h>
#include <spinlock.h>
#include <abi/errno.h>
#include <arch/arch.h>

enum { Qdir, Qout };

static struct spinlock host_lock = SPINLOCK_INIT("host");	/* appends */
static bool host_owned;		/* host_lock: the drain owns the channel */

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
	bool owned = host_owned, ok = !owned && arch_hostout_write(buf, n);
	spin_unlock_irqrestore(&host_lock, flags);
	return owned ? -EBUSY : ok ? (long)n : -ENOSPC;
}

/* See devhost.h. Process context. */
int devhost_claim(void)
{
	uint64_t flags;
	int ret;

	if (!arch_hostout_present())
		return -ENODEV;
	flags = spin_lock_irqsave(&host_lock);
	ret = host_owned ? -EBUSY : 0;
	host_owned = true;
	spin_unlock_irqrestore(&host_lock, flags);
	return ret;
}

/* See devhost.h: the owner alone appends, so no lock. */
bool devhost_append(const void *buf, size_t n)
{
	return arch_hostout_write(buf, n);
}

/* See devhost.h. */
void *devhost_place(size_t n)
{
	return arch_hostout_place(n);
}

void devhost_release(void)
{
	uint64_t flags = spin_lock_irqsave(&host_lock);

	host_owned = false;
	spin_unlock_irqrestore(&host_lock, flags);
}

static const struct dev host_dev = {
	.dc = 'h',
	.name = "host",
	DEV_TAB(host_tab),
	.write = host_write,
};

DEV_REGISTER(host_dev);
