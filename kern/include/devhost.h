/*
 * devhost.h: the host channel (#h, kern/drivers/dev/devhost.c) for a
 * kernel writer that owns it for a while, so that what it appends piece
 * by piece is not interleaved with anyone's writes to /dev/host/out:
 * the in-kernel trace drain (kern/trace/drain.c). While it is owned,
 * writes to /dev/host/out fail with EBUSY.
 *
 *	if (devhost_claim() == 0) {
 *		while (...)
 *			if (!devhost_append(buf, n)) ...	// window full
 *		devhost_release();
 *	}
 */
#ifndef DEVHOST_H
#define DEVHOST_H

#include <compiler.h>
#include <stddef.h>

/* Takes the channel: 0, -ENODEV (none) or -EBUSY (owned already). */
int devhost_claim(void);
/* Appends n bytes; false when the window is full. The owner only. */
bool devhost_append(const void *buf, size_t n);
/* Where the next n bytes would land (to make them there and append them
 * from there, no copy), or NULL: no room. The owner only. */
void *devhost_place(size_t n);
/* Gives the channel back. The owner only. */
void devhost_release(void);

#endif /* DEVHOST_H */
