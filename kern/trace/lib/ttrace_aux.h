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
	uint64_t invalid;	/* records skipped: VALID clear */
	bool malformed;		/* walk stopped at a bad length */
};

int ttrace_aux_init(struct ttrace_aux *aux, void *mem, size_t size);

/* Writer side. */
int ttrace_aux_reserve(struct ttrace_aux *aux, unsigned tag, unsigned cpu,
		       size_t payload_len, uint64_t *pos);
void ttrace_aux_fill(struct ttrace_aux *aux, uint64_t pos, uint64_t timestamp,
		     uint64_t ident, const void *payload, size_t payload_len);
void ttrace_aux_publish(struct ttrace_aux *aux, uint64_t pos);

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
