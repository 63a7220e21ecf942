/*
 * lastboot.c: the checks of the persistent area that the next boot runs
 * on what the previous boot left there (ttrace_lastboot.h). Pure: the
 * kernel hands it copies, a host test hands it crafted or random buffers,
 * and every number read from them is checked before it is used.
 */
#include <string.h>

#include <ttrace_decode.h>
#include <ttrace_lastboot.h>

/* CRC-32 of the header with its crc field taken as zero. */
uint32_t ttrace_lastboot_crc(const struct ttrace_lastboot_hdr *h)
{
	struct ttrace_lastboot_hdr c = *h;

	c.crc = 0;
	return ttrace_crc32(0, &c, sizeof(c));
}

/*
 * Checks the header at buf (len bytes) against the layout this kernel
 * would write (expect: paddr, size, cb_size). Returns 0; -1 with *why
 * when there is no usable header (never written, of another layout, or
 * damaged).
 */
int ttrace_lastboot_hdr_check(const void *buf, size_t len,
			      const struct ttrace_lastboot_hdr *expect,
			      const char **why)
{
	const struct ttrace_lastboot_hdr *h = buf;
	uint64_t pool;

	if (len < sizeof(*h) || h->magic != TTRACE_LASTBOOT_MAGIC)
		return *why = "no header (a cold boot, or the area was never "
			      "written)", -1;
	if (ttrace_lastboot_crc(h) != h->crc)
		return *why = "the header's CRC does not match (damaged)", -1;
	if (h->version != TTRACE_LASTBOOT_VERSION || h->paddr != expect->paddr ||
	    h->size != expect->size || h->cb_size != expect->cb_size ||
	    h->slot > 1)
		return *why = "the header is of another layout (another kernel "
			      "or configuration)", -1;
	pool = ttrace_lastboot_pool_off(h);
	if (pool > h->size || h->pool_used > h->size - pool)
		return *why = "the header's pool does not fit the area", -1;
	return 0;
}

/* The copy of the bytes of region r: in the control block or the pool's
 * used part, wholly; NULL when neither holds it. */
static const void *region_copy(const struct ttrace_lastboot_hdr *h,
			       const struct ttrace_root_region *r,
			       const uint8_t *cb, const uint8_t *pool)
{
	uint64_t cb_pa = h->paddr + ttrace_lastboot_cb_off(h, h->slot);
	uint64_t pool_pa = h->paddr + ttrace_lastboot_pool_off(h);

	if (r->paddr >= cb_pa && r->paddr - cb_pa <= h->cb_size &&
	    r->size <= h->cb_size - (r->paddr - cb_pa))
		return cb + (r->paddr - cb_pa);
	if (r->paddr >= pool_pa && r->paddr - pool_pa <= h->pool_used &&
	    r->size <= h->pool_used - (r->paddr - pool_pa))
		return pool + (r->paddr - pool_pa);
	return NULL;
}

/*
 * Rebuilds the previous boot's tracer from copies of its control block
 * (cb: h->cb_size bytes, 64-byte aligned) and of its pool's used part
 * (pool: h->pool_used bytes, 64-byte aligned), h checked by
 * ttrace_lastboot_hdr_check(): p->img is then ready for
 * ttrace_image_write(). dumps has room for TTRACE_ROOT_MAX_REGIONS. The
 * trace must be the last boot's (boot_id == last_boot, see
 * ttrace_lastboot.h), the root record must check and every region it
 * names must lie in the copies (a ring given ordinary memory by bufsize
 * does not: refused).
 * Returns 0, or -1 with *why.
 */
int ttrace_lastboot_build(const struct ttrace_lastboot_hdr *h,
			  const void *cb, const void *pool,
			  struct ttrace_pull_dump *dumps, struct ttrace_pull *p,
			  const char **why)
{
	const struct ttrace_root *root;
	const struct ttrace_root_region *reg;

	if (!h->boot_id || h->boot_id != h->last_boot)
		return *why = "the last boot kept no trace (a reset before "
			      "the tracer started): an older trace there is "
			      "not served", -1;
	if (ttrace_root_check(cb, h->cb_size, &root, why) < 0)
		return -1;
	reg = ttrace_root_regions(root);
	for (uint32_t i = 0; i < root->nregions; i++) {
		dumps[i].data = region_copy(h, &reg[i], cb, pool);
		dumps[i].size = reg[i].size;
		if (!dumps[i].data)
			return *why = "a region of the trace lies outside the "
				      "persistent area (rings resized by "
				      "bufsize, or more CPUs than it holds)", -1;
	}
	if (ttrace_pull_image(root, dumps, p) < 0)
		return *why = p->why, -1;
	return 0;
}
