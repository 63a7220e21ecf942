/*
 * ttrace_aux.h: the aux ring, a power-of-two byte ring of variable-length
 * records (struct ttrace_aux_hdr + payload, see ttrace_format.h) that names
 * the numbers found in trace entries.
 *
 * Offsets. first and last are 64-bit byte counters that only grow; a
 * counter c lives at buf[c & mask]. first is the start of the oldest live
 * record, last is one past the newest (its padded end). Invariant:
 * first <= last <= first + size, both multiples of 8, and [first, last) is a
 * chain of records, each starting where the previous one's padded length
 * ends. (Akaros kept "last" as the start of the newest record and folded
 * both back below 2 * size; the counters here need no folding and no
 * special empty case: empty is first == last.)
 *
 * Locking: the caller supplies an rwlock. A writer holds the WRITE lock only
 * in ttrace_aux_reserve() (a few loads and stores); the copy of its bytes
 * (ttrace_aux_fill) and the release (ttrace_aux_publish) run unlocked, so a
 * slow reader never blocks writers for long. A record whose VALID bit is
 * clear is in flight; reserve never overwrites one (it fails instead, so an
 * interrupt handler can never wait for the code it interrupted).
 *
 * Readers: take first and last under the READ lock, copy the chain without
 * a lock (each path word is loaded before its bytes), take first again under
 * the READ lock, and keep only records from the new first on: nothing there
 * can have been overwritten during the copy, because a writer advances first
 * past a record (under the write lock) before it touches its bytes.
 * ttrace_aux_snapshot() does all of this given lock callbacks. The result is
 * a linear image (byte 0 = the record at the snapshot's first) that
 * ttrace_aux_next() walks; the walk checks every length and bound, so it is
 * safe on hostile files.
 *
 * Usage (kernel writer):
 *	wlock(&aux_lock);
 *	err = ttrace_aux_reserve(&aux, TTRACE_AUX_PROC_NAME, cpu, len, &pos);
 *	wunlock(&aux_lock);
 *	if (!err) {
 *		ttrace_aux_fill(&aux, pos, rdtscp(), pid, name, len);
 *		ttrace_aux_publish(&aux, pos);
 *	}
 */
#ifndef TTRACE_AUX_H
#define TTRACE_AUX_H

#include <compiler.h>
#include <ttrace_format.h>

#define TTRACE_AUX_DEFAULT_SIZE	(1024 * 1024)
#define TTRACE_AUX_MIN_SIZE	256

struct ttrace_aux {
	uint8_t *buf;
	uint64_t size;		/* power of two */
	uint64_t mask;		/* size - 1 */
	uint64_t first;		/* oldest live record (counter) */
	uint64_t last;		/* one past the newest record (counter) */
	uint64_t dropped;	/* records refused by reserve */
};

/* Error codes of ttrace_aux_reserve(). */
enum {
	TTRACE_AUX_ETOOBIG = -1,	/* payload over the limit or the ring */
	TTRACE_AUX_EBUSY = -2,		/* would overwrite a record in flight */
};

/* Lock callbacks for ttrace_aux_snapshot(): read lock and unlock. */
struct ttrace_aux_lock {
	void (*rlock)(void *arg);
	void (*runlock)(void *arg);
	void *arg;
};

/* A linear snapshot: data[0] is the record that starts at counter first. */
struct ttrace_aux_view {
	const uint8_t *data;
	size_t len;		/* last - first */
	uint64_t first;
	uint64_t last;
};

/* One record as returned by ttrace_aux_next(). */
struct ttrace_aux_rec {
	uint32_t tag;
	uint32_t cpu;
	uint64_t timestamp;
	uint64_t ident;
	const uint8_t *payload;
	size_t len;		/* payload bytes */
	uint64_t offset;	/* counter of the record's start */
};

/* Walk state over a view; see ttrace_aux_iter_init(). */
struct ttrace_aux_iter {
	const struct ttrace_aux_view *view;
	size_t pos;
	uint64_t invalid;	/* records skipped: VALID clear or
				   reserved path bits set */
	size_t reserved;	/* 1 + the position of the first record
				   with reserved path bits set, or 0 */
	bool malformed;		/* walk stopped at a bad length */
};

int ttrace_aux_init(struct ttrace_aux *aux, void *mem, size_t size);

/*
 * Writer side: inline, as a tracepoint's ring writer is (a name costs a
 * few dozen instructions, not calls); only the eviction of old records
 * (ttrace_aux_make_room()) is out of line.
 */
int ttrace_aux_make_room(struct ttrace_aux *aux, size_t payload_len);

/* The word at counter pos (8-aligned) of the buffer buf of mask + 1 bytes. */
static __always_inline uint64_t *ttrace_aux_word(uint8_t *buf, uint64_t mask,
						 uint64_t pos)
{
	return (uint64_t *)(void *)&buf[pos & mask];
}

/* 8 bytes at p, at any alignment, as one load. */
static __always_inline uint64_t ttrace_aux_get_u64(const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Reserves a record for payload_len bytes at the end of the ring, advancing
 * first past the records it will overwrite, and stores its path word with
 * VALID clear. Returns 0 with the record's counter in *pos, or
 * TTRACE_AUX_ETOOBIG / TTRACE_AUX_EBUSY (nothing changed but the dropped
 * count). Precondition: the caller holds the aux WRITE lock.
 */
static __always_inline int ttrace_aux_reserve(struct ttrace_aux *aux,
					      unsigned tag, unsigned cpu,
					      size_t payload_len, uint64_t *pos)
{
	uint64_t last = aux->last, len, need;
	int err;

	len = TTRACE_AUX_HDR_SIZE + (uint64_t)payload_len;
	need = TTRACE_AUX_ALIGN_UP(len);
	if ((payload_len > TTRACE_AUX_MAX_PAYLOAD ||
	     last + need - aux->first > aux->size) &&
	    (err = ttrace_aux_make_room(aux, payload_len)))
		return err;
	__atomic_store_n(ttrace_aux_word(aux->buf, aux->mask, last),
			 TTRACE_AUX_PATH(tag, cpu, len, 0), __ATOMIC_RELAXED);
	WRITE_ONCE(aux->last, last + need);
	*pos = last;
	return 0;
}

/*
 * ttrace_aux_reserve()'s common case alone: a record of payload_len bytes
 * that fits after last without evicting a record and without wrapping
 * round the buffer's end. Reserves it (path word stored, VALID clear) and
 * returns true with its path word, whose record is linear memory, in *w;
 * or returns false with nothing changed (nothing counted either: the
 * caller goes on to ttrace_aux_reserve(), which evicts, wraps or refuses).
 * Precondition: the caller holds the aux WRITE lock.
 */
static __always_inline bool ttrace_aux_reserve_linear(struct ttrace_aux *aux,
						      unsigned tag,
						      unsigned cpu,
						      size_t payload_len,
						      uint64_t **w)
{
	uint64_t len = TTRACE_AUX_HDR_SIZE + (uint64_t)payload_len;
	uint64_t path = TTRACE_AUX_PATH(tag, cpu, len, 0);
	uint64_t last = aux->last, off = last & aux->mask;
	uint64_t need = TTRACE_AUX_ALIGN_UP(len);

	if (payload_len > TTRACE_AUX_MAX_PAYLOAD ||
	    MAX(last - aux->first, off) + need > aux->size)
		return false;
	*w = (uint64_t *)(void *)&aux->buf[off];
	__atomic_store_n(*w, path, __ATOMIC_RELAXED);
	WRITE_ONCE(aux->last, last + need);
	return true;
}

/* The n (< 8) bytes at p as the start of a word, the rest zero: a 4-, a
 * 2- and a 1-byte load as n's bits say, not a loop over the bytes. */
static __always_inline uint64_t ttrace_aux_get_tail(const uint8_t *p,
						    size_t n)
{
	static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
		      "the bytes are gathered low byte first");
	uint64_t v = 0;
	uint32_t v4;
	uint16_t v2;
	size_t i = 0;

	if (n & 4) {
		__builtin_memcpy(&v4, p, 4);
		v = v4;
		i = 4;
	}
	if (n & 2) {
		__builtin_memcpy(&v2, p + i, 2);
		v |= (uint64_t)v2 << (8 * i);
		i += 2;
	}
	if (n & 1)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Stores a record's words after its path word at d (linear memory): the
 * timestamp, the ident and the n payload bytes at p (any alignment, none
 * read past n), the last word zero padded. Returns the payload words
 * stored: n / 8 rounded up.
 */
static __always_inline size_t ttrace_aux_put_payload(uint64_t *d, uint64_t ts,
						     uint64_t ident,
						     const uint8_t *p, size_t n)
{
	size_t i;

	d[0] = ts;
	d[1] = ident;
	d += 2;
#pragma GCC unroll 2
	for (i = 0; i < n / 8; i++)
		d[i] = ttrace_aux_get_u64(p + 8 * i);
	if (n & 7) {
		d[i] = ttrace_aux_get_tail(p + 8 * i, n & 7);
		i++;
	}
	return i;
}

/*
 * ttrace_aux_put_payload(), then zero words up to words payload words in
 * all.
 */
static __always_inline void ttrace_aux_put_words(uint64_t *d, uint64_t ts,
						 uint64_t ident,
						 const uint8_t *p, size_t n,
						 size_t words)
{
	for (size_t i = ttrace_aux_put_payload(d, ts, ident, p, n); i < words;
	     i++)
		d[2 + i] = 0;
}

void ttrace_aux_fill_wrapped(struct ttrace_aux *aux, uint64_t pos,
			     uint64_t ts, uint64_t ident, const uint8_t *p,
			     size_t n);

/*
 * Writes the record reserved at pos: timestamp, ident, then the payload
 * and zero padding, a word at a time (records are 8-aligned). Copies at
 * most the reserved payload length; a shorter payload is zero filled.
 * payload may have any alignment; no byte past its payload_len is read.
 * A record that wraps around the buffer's end goes out of line.
 * Precondition: pos came from ttrace_aux_reserve(); no lock held.
 */
static __always_inline void ttrace_aux_fill(struct ttrace_aux *aux,
					    uint64_t pos, uint64_t timestamp,
					    uint64_t ident, const void *payload,
					    size_t payload_len)
{
	uint8_t *buf = aux->buf;
	uint64_t *w = ttrace_aux_word(buf, aux->mask, pos);
	uint64_t len = TTRACE_AUX_PATH_LEN(__atomic_load_n(w,
							   __ATOMIC_RELAXED));
	uint64_t need = TTRACE_AUX_ALIGN_UP(len);
	size_t n = (size_t)MIN((uint64_t)payload_len,
			       len - TTRACE_AUX_HDR_SIZE);

	static_assert(TTRACE_AUX_ALIGN == 8 && TTRACE_AUX_HDR_SIZE == 24,
		      "records are whole words: path, timestamp, ident, ...");
	if (unlikely((uint8_t *)w + need > buf + aux->size)) {
		ttrace_aux_fill_wrapped(aux, pos, timestamp, ident, payload, n);
		return;
	}
	ttrace_aux_put_words(w + 1, timestamp, ident, payload, n,
			     (size_t)(need - TTRACE_AUX_HDR_SIZE) / 8);
}

/* ttrace_aux_publish() given the record's path word w. */
static __always_inline void ttrace_aux_publish_word(uint64_t *w)
{
	uint64_t path = __atomic_load_n(w, __ATOMIC_RELAXED);

	wmb();
	__atomic_store_n(w, path | TTRACE_AUX_VALID, __ATOMIC_RELAXED);
}

/*
 * ttrace_aux_fill() for the record reserved by ttrace_aux_reserve_linear()
 * at path word w for exactly n payload bytes (payload at any alignment).
 * Precondition: no lock held.
 */
static __always_inline void ttrace_aux_fill_linear(uint64_t *w,
						   uint64_t timestamp,
						   uint64_t ident,
						   const void *payload,
						   size_t n)
{
	ttrace_aux_put_payload(w + 1, timestamp, ident, payload, n);
}

/*
 * Marks the record at pos VALID once its bytes are written (wmb first).
 * Precondition: ttrace_aux_fill() was called for pos; no lock held.
 */
static __always_inline void ttrace_aux_publish(struct ttrace_aux *aux,
					       uint64_t pos)
{
	ttrace_aux_publish_word(ttrace_aux_word(aux->buf, aux->mask, pos));
}

/* Reader side, split (caller takes the read lock where it says). */
void ttrace_aux_bounds(const struct ttrace_aux *aux, uint64_t *first,
		       uint64_t *last);
size_t ttrace_aux_copy(const struct ttrace_aux *aux, uint64_t first,
		       uint64_t last, void *out, size_t out_size);
int ttrace_aux_trim(const void *copy, uint64_t first, uint64_t last,
		    uint64_t first_after, struct ttrace_aux_view *view);

/* Reader side, all in one. */
int ttrace_aux_snapshot(const struct ttrace_aux *aux,
			const struct ttrace_aux_lock *lock, void *out,
			size_t out_size, struct ttrace_aux_view *view);

/* Walking and looking up (pure; safe on hostile data). */
void ttrace_aux_iter_init(struct ttrace_aux_iter *it,
			  const struct ttrace_aux_view *view);
bool ttrace_aux_next(struct ttrace_aux_iter *it, struct ttrace_aux_rec *rec);
bool ttrace_aux_lookup(const struct ttrace_aux_view *view, unsigned tag,
		       uint64_t ident, uint64_t ts, struct ttrace_aux_rec *rec);
size_t ttrace_aux_resolve(void *view, unsigned tag, uint64_t ident,
			  uint64_t ts, const char **str);

#endif /* TTRACE_AUX_H */
