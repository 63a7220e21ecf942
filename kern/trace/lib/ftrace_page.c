/*
 * ftrace_page.c: Linux's ring-buffer pages (ttrace_ftpage.h has the
 * layout). Pure: a page is filled in the caller's memory, every write
 * checked against the page's room first, so a page never overflows.
 */
#include <string.h>

#include <ttrace_ftpage.h>

#define FP_MISSED	(1ull << 31)	/* RB_MISSED_EVENTS */
#define FP_STORED	(1ull << 30)	/* RB_MISSED_STORED */
#define FP_DELTA_BITS	27
#define FP_TYPE_EXTEND	30
#define FP_SMALL_MAX	(28 * 4)	/* the largest payload with type_len */

/* See ttrace_ftpage.h. */
void ttrace_ftpage_init(struct ttrace_ftpage *p, uint8_t *page)
{
	memset(page, 0, TTRACE_FTPAGE_SIZE);
	*p = (struct ttrace_ftpage){ .page = page };
}

/* See ttrace_ftpage.h. */
void ttrace_ftpage_lost(struct ttrace_ftpage *p, uint64_t count)
{
	if (!p->events)
		p->missed += count;
}

/* See ttrace_ftpage.h. */
void ttrace_ftpage_stamp(struct ttrace_ftpage *p, uint64_t ns)
{
	if (!p->events) {
		memcpy(p->page, &ns, 8);
		p->last = ns;
	}
}

static void fp_word(struct ttrace_ftpage *p, uint32_t w)
{
	memcpy(p->page + TTRACE_FTPAGE_HDR + p->len, &w, 4);
	p->len += 4;
}

/* See ttrace_ftpage.h. */
bool ttrace_ftpage_add(struct ttrace_ftpage *p, uint64_t ns, const void *rec,
		       size_t n)
{
	size_t pad = (n + 3) & ~(size_t)3;
	size_t need = 4 + pad + (pad > FP_SMALL_MAX ? 4 : 0);
	size_t room = TTRACE_FTPAGE_DATA - (p->missed ? 8 : 0);
	uint64_t delta;

	ttrace_ftpage_stamp(p, ns);
	if (ns < p->last)
		ns = p->last;
	delta = ns - p->last;
	if (delta >> FP_DELTA_BITS)
		need += 8;
	if (n > TTRACE_FTPAGE_REC_MAX || p->len + need > room)
		return false;
	if (delta >> FP_DELTA_BITS) {
		fp_word(p, FP_TYPE_EXTEND |
			(uint32_t)(delta & ((1u << FP_DELTA_BITS) - 1)) << 5);
		fp_word(p, (uint32_t)(delta >> FP_DELTA_BITS));
		delta = 0;
	}
	if (pad > FP_SMALL_MAX) {
		fp_word(p, (uint32_t)delta << 5);
		fp_word(p, (uint32_t)pad + 4);
	} else {
		fp_word(p, (uint32_t)(pad / 4) | (uint32_t)delta << 5);
	}
	memcpy(p->page + TTRACE_FTPAGE_HDR + p->len, rec, n);
	p->len += pad;
	p->last = ns;
	p->events++;
	return true;
}

/* See ttrace_ftpage.h. */
void ttrace_ftpage_end(struct ttrace_ftpage *p)
{
	uint64_t commit = p->len;

	if (p->missed) {
		commit |= FP_MISSED | FP_STORED;
		memcpy(p->page + TTRACE_FTPAGE_HDR + p->len, &p->missed, 8);
	}
	memcpy(p->page + 8, &commit, 8);
}
