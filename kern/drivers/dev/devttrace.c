/*
 * #ttrace: the tracer as files (docs/ttrace-device.md), bound at
 * /dev/ttrace. This file only translates file operations into calls on the
 * tracer core (kern/src/ttrace.c, ttrace_control.c) and the pure decoders
 * in kern/lib; it holds no ring or aux logic.
 *
 *	ctl	commands in, state out	events	event list
 *	stats	counters		marker	user annotations in
 *	version	binary header		meta	metadata blob
 *	aux	header + aux snapshot	cpuN	CPU N's records as text
 *	rawN	CPU N's ring, binary
 *
 * aux and cpuN are snapshots: taken at an open file's first read and kept
 * with the chan until it is closed, so a reader with a small buffer still
 * sees one consistent picture, and reading again (a new open) gives the
 * same records plus new ones.
 */
#include <ns.h>
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_ctl.h>
#include <ttrace_decode.h>
#include <trace_ring.h>
#include <buddy.h>
#include <kmalloc.h>
#include <pmem.h>
#include <printfmt.h>
#include <string.h>
#include <abi/errno.h>
#include <arch/mmu.h>
#include <arch/tsc.h>

enum { Qdir, Qctl, Qevents, Qstats, Qmarker, Qversion, Qmeta, Qaux,
       Qcpu = 0x100, Qraw = 0x200 };

#define NFIXED		8
#define LINE_MAX	256

static struct dirtab tt_tab[NFIXED + 2 * CONFIG_MAX_NUM_CPUS];
static size_t tt_ntab;
static char tt_names[2 * CONFIG_MAX_NUM_CPUS][8];

/* A snapshot held by an open chan: data[0..len). */
struct snap {
	char *data;
	size_t len;
	unsigned order;
};

static void tab_add(const char *name, uint64_t path, uint32_t perm,
		    uint64_t length)
{
	struct dirtab *t = &tt_tab[tt_ntab++];

	t->name = name;
	t->qid.path = path;
	t->qid.type = path == Qdir ? QTDIR : QTFILE;
	t->perm = perm;
	t->length = length;
}

/* Builds the directory once the CPUs are known (ns_init runs after SMP). */
static void tt_init(void)
{
	size_t ring_bytes = (ttrace_ring_of(0)->mask + 1) * sizeof(struct ttrace_entry);

	tab_add(".", Qdir, S_IFDIR | 0555, 0);
	tab_add("ctl", Qctl, S_IFREG | 0644, 0);
	tab_add("events", Qevents, S_IFREG | 0444, 0);
	tab_add("stats", Qstats, S_IFREG | 0444, 0);
	tab_add("marker", Qmarker, S_IFREG | 0222, 0);
	tab_add("version", Qversion, S_IFREG | 0444, sizeof(struct ttrace_version));
	tab_add("meta", Qmeta, S_IFREG | 0444, ttrace_meta_blob_size);
	tab_add("aux", Qaux, S_IFREG | 0444, 0);
	for (uint32_t c = 0; c < num_cpus; c++) {
		fmt_snprintf(tt_names[2 * c], 8, "cpu%u", c);
		fmt_snprintf(tt_names[2 * c + 1], 8, "raw%u", c);
		tab_add(tt_names[2 * c], Qcpu + c, S_IFREG | 0444, 0);
		tab_add(tt_names[2 * c + 1], Qraw + c, S_IFREG | 0444, ring_bytes);
	}
}

static int tt_attach(struct chan *c)
{
	return devgen_attach(c, tt_tab);
}

static int tt_walk(struct chan *c, const char *name)
{
	return devgen_walk(c, name, tt_tab, tt_ntab);
}

static int tt_stat(struct chan *c, struct stat *st)
{
	return devgen_stat(c, st, tt_tab, tt_ntab);
}

static int tt_open(struct chan *c, int omode)
{
	return devgen_open(c, omode, tt_tab, tt_ntab);
}

static int tt_readdir(struct chan *c, uint64_t i, struct dirent *de)
{
	return devgen_readdir(c, i, de, tt_tab, tt_ntab);
}

static struct snap *snap_alloc(size_t bytes)
{
	struct snap *s = kzmalloc(sizeof(*s));
	unsigned order = 0;

	while (((size_t)PGSIZE << order) < bytes && order < BUDDY_MAX_ORDER)
		order++;
	if (!s || ((size_t)PGSIZE << order) < bytes ||
	    !(s->data = get_cont_pages(order, 0))) {
		kfree(s);
		return NULL;
	}
	s->order = order;
	return s;
}

static void snap_free(struct snap *s)
{
	if (s) {
		free_cont_pages(s->data, s->order);
		kfree(s);
	}
}

static size_t aux_bytes(void)
{
	uint64_t bytes, size, dropped;

	ttrace_aux_usage(&bytes, &size, &dropped);
	return size;
}

/* The aux file: the version header, then the linear aux snapshot. */
static struct snap *aux_snapshot(void)
{
	struct ttrace_version v;
	struct ttrace_aux_view view;
	struct snap *s = snap_alloc(sizeof(v) + aux_bytes());

	if (!s)
		return NULL;
	if (ttrace_aux_read(s->data + sizeof(v), aux_bytes(), &view)) {
		snap_free(s);
		return NULL;
	}
	ttrace_fill_version(&v);
	v.aux_first = view.first;
	v.aux_last = view.last;
	memcpy(s->data, &v, sizeof(v));
	s->len = sizeof(v) + view.len;
	return s;
}

/* Copies every valid record of ring r, skipping slots in flight. */
static size_t copy_ring(struct trace_ring *r, struct ttrace_entry *out, size_t max)
{
	struct trace_ring_cursor cur = { 0 };
	uint64_t head = trace_ring_head(r);
	size_t n = 0;

	while (n < max) {
		n += trace_ring_copy_valid(r, out + n, max - n, &cur);
		if (cur.next >= head)
			break;
		cur.from = cur.next + 1;	/* an in-flight slot: skip it */
	}
	return n;
}

/* Formats the records of ents[0..n) into s as text lines. */
static void format_lines(struct snap *s, size_t cap, const struct ttrace_entry *ents,
			 size_t n, struct ttrace_aux_view *names)
{
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;

	ttrace_pair_init(&it, ents, n);
	while (ttrace_pair_next(&it, &ev) && s->len + LINE_MAX < cap) {
		int len = ttrace_format_timed_line(s->data + s->len, LINE_MAX - 1,
						   tsc_freq_hz, tsc_at_boot,
						   &ttrace_meta_builtin, &ev,
						   ttrace_aux_resolve, names);

		s->len += (size_t)MIN(len, LINE_MAX - 2);
		s->data[s->len++] = '\n';
	}
}

/* The cpuN file: CPU c's valid records, oldest first, one line each. */
static struct snap *cpu_snapshot(uint32_t c)
{
	struct trace_ring *r = ttrace_ring_of(c);
	size_t nent = r->mask + 1;
	struct snap *ents = snap_alloc(nent * sizeof(struct ttrace_entry));
	struct snap *names = snap_alloc(aux_bytes());
	struct snap *s = snap_alloc(nent * LINE_MAX);	/* every line fits */
	struct ttrace_aux_view view;
	size_t n;

	if (!ents || !names || !s || ttrace_aux_read(names->data, aux_bytes(), &view)) {
		snap_free(s);
		s = NULL;
		goto out;
	}
	n = copy_ring(r, (struct ttrace_entry *)ents->data, nent);
	format_lines(s, (size_t)PGSIZE << s->order,
		     (const struct ttrace_entry *)ents->data, n, &view);
out:
	snap_free(ents);
	snap_free(names);
	return s;
}

static long snap_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	struct snap *s = c->aux;

	if (!s) {
		s = c->qid.path == Qaux ? aux_snapshot() :
		    cpu_snapshot((uint32_t)(c->qid.path - Qcpu));
		if (!s)
			return -ENOMEM;
		c->aux = s;
	}
	if (off >= s->len)
		return 0;
	n = MIN(n, s->len - (size_t)off);
	memcpy(buf, s->data + off, n);
	return (long)n;
}

static long bytes_read(const void *src, size_t len, void *buf, size_t n,
		       uint64_t off)
{
	if (off >= len)
		return 0;
	n = MIN(n, len - (size_t)off);
	memcpy(buf, (const char *)src + off, n);
	return (long)n;
}

/* ctl, events and stats: small texts made afresh for each read. */
static long text_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	char *text = kmalloc(PGSIZE);
	size_t len = 0;
	long ret;

	if (!text)
		return -ENOMEM;
	if (c->qid.path == Qctl)
		len = ttrace_state_text(text, PGSIZE);
	else if (c->qid.path == Qevents)
		len = ttrace_ctl_list(&ttrace_ctl, text, PGSIZE);
	else
		len = ttrace_stats_text(text, PGSIZE);
	ret = bytes_read(text, MIN(len, (size_t)PGSIZE), buf, n, off);
	kfree(text);
	return ret;
}

static long tt_read(struct chan *c, void *buf, size_t n, uint64_t off)
{
	uint64_t q = c->qid.path;

	if (q == Qversion) {
		struct ttrace_version v;

		ttrace_fill_version(&v);
		return bytes_read(&v, sizeof(v), buf, n, off);
	}
	if (q == Qmeta)
		return bytes_read(ttrace_meta_blob, ttrace_meta_blob_size, buf, n, off);
	if (q == Qaux || (q >= Qcpu && q < Qcpu + num_cpus))
		return snap_read(c, buf, n, off);
	if (q >= Qraw && q < Qraw + num_cpus)
		return (long)trace_ring_read_raw(ttrace_ring_of((uint32_t)(q - Qraw)),
						 off, buf, n);
	if (q == Qctl || q == Qevents || q == Qstats)
		return text_read(c, buf, n, off);
	return -EBADF;
}

static long tt_write(struct chan *c, const void *buf, size_t n, uint64_t off)
{
	const char *why;

	(void)off;
	switch (c->qid.path) {
	case Qctl:
		if (ttrace_control(buf, n, &why))
			return errstr_device(-EINVAL, why);
		return (long)n;
	case Qmarker:
		ttrace_mark(buf, n);
		return (long)n;
	}
	return -EBADF;
}

static void tt_close(struct chan *c)
{
	snap_free(c->aux);
	c->aux = NULL;
}

static const struct dev ttrace_dev = {
	.dc = 'T',
	.name = "ttrace",
	.init = tt_init,
	.attach = tt_attach,
	.walk = tt_walk,
	.stat = tt_stat,
	.open = tt_open,
	.close = tt_close,
	.read = tt_read,
	.write = tt_write,
	.readdir = tt_readdir,
};

DEV_REGISTER(ttrace_dev);
