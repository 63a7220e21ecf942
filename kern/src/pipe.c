/*
 * Pipes: a 4 KiB ring between a read chan and a write chan.
 *
 * A pipe is not in the name space (nothing can walk to it), so its device
 * is not registered in .devtab; pipe_alloc() makes both chans directly.
 * Reader and writer counts are counts of chans: dup2 and spawn share a
 * chan, so a pipe end is closed when the last descriptor on its chan is.
 *
 * Blocking is xv6's: one spinlock per pipe, readers sleep on &p->nread
 * while the ring is empty and some writer is left, writers on &p->nwrite
 * while it is full and some reader is left. ksleep returns -EINTR when the
 * process is killed, so a killed reader or writer gets out. A write with
 * no reader left fails with EPIPE (there are no signals); a read with no
 * writer left and nothing buffered returns 0, end of file.
 */
#include <ns.h>
#include <kmalloc.h>
#include <pmem.h>
#include <spinlock.h>
#include <string.h>
#include <abi/errno.h>

#define PIPE_SIZE	4096

enum { Qread, Qwrite };

struct pipe {
	struct spinlock lock;
	char *buf;		/* PIPE_SIZE bytes, a page */
	uint64_t nread;		/* bytes ever read; free-running */
	uint64_t nwrite;	/* bytes ever written */
	int readers;		/* open read chans */
	int writers;		/* open write chans */
};

static long pipe_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	struct pipe *p = c->aux;
	size_t k = 0;

	(void)off;
	spin_lock(&p->lock);
	while (p->nread == p->nwrite && p->writers > 0) {
		if (ksleep(&p->nread, &p->lock) < 0) {
			spin_unlock(&p->lock);
			return -EINTR;
		}
	}
	for (; k < n && p->nread < p->nwrite; k++)
		((char *)buf)[k] = p->buf[p->nread++ % PIPE_SIZE];
	kwakeup(&p->nwrite);
	spin_unlock(&p->lock);
	return (long)k;
}

/* Waits until p has room or no reader. Returns 0 or -EINTR; p->lock
 * held. */
static int wait_room(struct pipe *p)
{
	while (p->nwrite - p->nread == PIPE_SIZE && p->readers > 0) {
		kwakeup(&p->nread);
		if (ksleep(&p->nwrite, &p->lock) < 0)
			return -EINTR;
	}
	return 0;
}

static long pipe_write(struct chan *c, const void *buf, size_t n,
		       uint64_t off)
{
	struct pipe *p = c->aux;
	const char *src = buf;
	size_t k = 0;
	long err = 0;

	(void)off;
	spin_lock(&p->lock);
	while (k < n) {
		if ((err = wait_room(p)) < 0)
			break;
		if (p->readers == 0) {
			err = -EPIPE;
			break;
		}
		while (k < n && p->nwrite - p->nread < PIPE_SIZE)
			p->buf[p->nwrite++ % PIPE_SIZE] = src[k++];
	}
	kwakeup(&p->nread);
	spin_unlock(&p->lock);
	return k > 0 ? (long)k : err;
}

static int pipe_stat(struct chan *c, struct stat *st)
{
	struct pipe *p = c->aux;

	st->mode = S_IFIFO | (c->qid.path == Qread ? 0400 : 0200);
	spin_lock(&p->lock);
	st->size = p->nwrite - p->nread;
	spin_unlock(&p->lock);
	return 0;
}

static void pipe_close(struct chan *c)
{
	struct pipe *p = c->aux;
	bool last;

	spin_lock(&p->lock);
	if (c->qid.path == Qread)
		p->readers--;
	else
		p->writers--;
	last = p->readers == 0 && p->writers == 0;
	kwakeup(&p->nread);
	kwakeup(&p->nwrite);
	spin_unlock(&p->lock);
	if (last) {
		kpage_free(p->buf);
		kfree(p);
	}
}

static const struct dev pipe_dev = {
	.dc = '|',
	.name = "pipe",
	.stat = pipe_stat,
	.close = pipe_close,
	.read = pipe_read,
	.write = pipe_write,
};

/* Makes the chan for end q (Qread or Qwrite) of p. */
static struct chan *pipe_end(struct pipe *p, int q)
{
	struct chan *c = chan_new(&pipe_dev);

	if (c == NULL)
		return NULL;
	c->qid = (struct qid){ .path = (uint64_t)q, .type = QTSTREAM };
	c->aux = p;
	c->flags = COPEN;
	c->omode = q == Qread ? O_RDONLY : O_WRONLY;
	strlcpy(c->path, "#|", sizeof(c->path));
	return c;
}

int pipe_alloc(struct chan *ends[2])
{
	struct pipe *p = kzmalloc(sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	spinlock_init(&p->lock, "pipe");
	p->buf = kpage_alloc();
	ends[0] = pipe_end(p, Qread);
	ends[1] = pipe_end(p, Qwrite);
	if (p->buf && ends[0] && ends[1]) {
		p->readers = p->writers = 1;
		return 0;
	}
	/* Free by hand: a half-made pipe has no counts for close to drop. */
	kfree(ends[0]);
	kfree(ends[1]);
	if (p->buf)
		kpage_free(p->buf);
	kfree(p);
	return -ENOMEM;
}
