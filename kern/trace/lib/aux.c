/*
 * aux.c: the aux record ring. ttrace_aux.h describes the offsets, the
 * locking split and why a reader's copy can be trusted; this file keeps to
 * that plan. Everything that reads a snapshot (ttrace_aux_trim, the
 * iterator, lookups) treats the bytes as hostile: lengths are checked
 * against the bounds before use, nothing is read outside the view.
 */
#include <string.h>

#include <ttrace_aux.h>

static uint64_t aux_load_path(const struct ttrace_aux *aux, uint64_t pos)
{
	return __atomic_load_n(ttrace_aux_word(aux->buf, aux->mask, pos),
			       __ATOMIC_ACQUIRE);
}

static void aux_copy_out(const struct ttrace_aux *aux, uint64_t pos,
			 void *dst, size_t len)
{
	size_t off = (size_t)(pos & aux->mask);
	size_t head = MIN(len, (size_t)aux->size - off);

	memcpy(dst, &aux->buf[off], head);
	memcpy((uint8_t *)dst + head, aux->buf, len - head);
}

static uint64_t get_u64(const uint8_t *p)
{
	return ttrace_aux_get_u64(p);
}

/*
 * Sets up aux over size bytes of caller memory (8-byte aligned, size a power
 * of two >= TTRACE_AUX_MIN_SIZE). Returns 0, or -1 on bad arguments. The
 * memory is not cleared: readers see only [first, last), and every byte
 * there is written first (the path word by the reserve, VALID clear; the
 * rest, padding included, by the fill), so what was in it before never
 * shows. (Clearing 1 MiB was a fifth of the tracer's cost to the boot.)
 */
int ttrace_aux_init(struct ttrace_aux *aux, void *mem, size_t size)
{
	if (!mem || ((uintptr_t)mem & 7) || !IS_PWR2(size) ||
	    size < TTRACE_AUX_MIN_SIZE)
		return -1;
	aux->buf = mem;
	aux->size = size;
	aux->mask = size - 1;
	aux->first = 0;
	aux->last = 0;
	aux->dropped = 0;
	return 0;
}

/*
 * The slow part of ttrace_aux_reserve(): refuses a record too big for the
 * limit or the ring (TTRACE_AUX_ETOOBIG), else advances first past the
 * oldest records until one of payload_len bytes fits. Returns 0, or an
 * error with nothing changed but the dropped count (TTRACE_AUX_EBUSY when
 * it would overwrite a record in flight). Precondition: the caller holds
 * the aux WRITE lock.
 */
int ttrace_aux_make_room(struct ttrace_aux *aux, size_t payload_len)
{
	uint64_t first = aux->first, last = aux->last;
	uint64_t need = TTRACE_AUX_ALIGN_UP(TTRACE_AUX_HDR_SIZE +
					    (uint64_t)payload_len);

	if (payload_len > TTRACE_AUX_MAX_PAYLOAD || need > aux->size) {
		aux->dropped++;
		return TTRACE_AUX_ETOOBIG;
	}
	while (last + need - first > aux->size) {
		uint64_t path = aux_load_path(aux, first);
		uint64_t old = TTRACE_AUX_ALIGN_UP(TTRACE_AUX_PATH_LEN(path));

		if (!(path & TTRACE_AUX_VALID)) {
			aux->dropped++;
			return TTRACE_AUX_EBUSY;
		}
		if (old < TTRACE_AUX_HDR_SIZE || old > last - first) {
			first = last;	/* cannot happen; recover by emptying */
			break;
		}
		first += old;
	}
	WRITE_ONCE(aux->first, first);
	return 0;
}

/* Word i of a record after its path word (ttrace_aux_put_words()). */
static uint64_t record_word(uint64_t ts, uint64_t ident, const uint8_t *p,
			    size_t n, uint64_t i)
{
	uint64_t off = (i - 2) * 8;

	if (i < 2)
		return i ? ident : ts;
	if (off + 8 <= n)
		return get_u64(p + off);
	return off < n ? ttrace_aux_get_tail(p + off, n - off) : 0;
}

/*
 * ttrace_aux_fill() for a record that wraps around the buffer's end: the
 * same words, stored one by one. n is at most the reserved payload length.
 */
void ttrace_aux_fill_wrapped(struct ttrace_aux *aux, uint64_t pos,
			     uint64_t ts, uint64_t ident, const uint8_t *p,
			     size_t n)
{
	uint64_t need = TTRACE_AUX_ALIGN_UP(TTRACE_AUX_PATH_LEN(
		aux_load_path(aux, pos)));

	for (uint64_t i = 0; i < need / 8 - 1; i++)
		*ttrace_aux_word(aux->buf, aux->mask, pos + 8 + 8 * i) =
			record_word(ts, ident, p, n, i);
}

/* Reads first and last. Precondition: the caller holds the READ lock. */
void ttrace_aux_bounds(const struct ttrace_aux *aux, uint64_t *first,
		       uint64_t *last)
{
	*first = READ_ONCE(aux->first);
	*last = READ_ONCE(aux->last);
}

/*
 * Copies the record chain [first, last) (from ttrace_aux_bounds) into out as
 * a linear image: byte i is the byte at counter first + i. Each path word is
 * loaded (acquire) before the bytes it covers; records not VALID keep only
 * their path word, the rest zeroed; if a length is bad (the chain was
 * overwritten under us) the rest is zeroed. Returns last - first, or 0 if out
 * is too small. No lock held; follow with ttrace_aux_trim().
 */
size_t ttrace_aux_copy(const struct ttrace_aux *aux, uint64_t first,
		       uint64_t last, void *out, size_t out_size)
{
	uint8_t *o = out;
	uint64_t pos = first;

	if (last - first > out_size || last - first > aux->size)
		return 0;
	while (pos < last) {
		uint64_t path = aux_load_path(aux, pos);
		uint64_t len = TTRACE_AUX_PATH_LEN(path);
		uint64_t need = TTRACE_AUX_ALIGN_UP(len);
		uint8_t *dst = o + (pos - first);

		if (len < TTRACE_AUX_HDR_SIZE || need > last - pos)
			break;
		memcpy(dst, &path, sizeof(path));
		if (path & TTRACE_AUX_VALID)
			aux_copy_out(aux, pos + 8, dst + 8, (size_t)need - 8);
		else
			memset(dst + 8, 0, (size_t)need - 8);
		pos += need;
	}
	memset(o + (pos - first), 0, (size_t)(last - pos));
	return (size_t)(last - first);
}

/*
 * Decides what part of a copy made by ttrace_aux_copy(first, last) can be
 * trusted, given first_after, the value of first read (under the READ lock)
 * after the copy. Records before first_after may have been overwritten
 * while we copied; the rest were not. first_after must be a record boundary
 * of the copy's own chain, else the copy followed a length that was being
 * overwritten and cannot be trusted. Returns 0 and fills view, or -1
 * (retry). Pure: copy may be garbage.
 */
int ttrace_aux_trim(const void *copy, uint64_t first, uint64_t last,
		    uint64_t first_after, struct ttrace_aux_view *view)
{
	const uint8_t *c = copy;
	uint64_t total = last - first, target, pos = 0;

	if (last < first || first_after < first)
		return -1;
	if (first_after >= last)
		first_after = last;
	target = first_after - first;
	while (pos < target) {
		uint64_t len, need;

		if (total - pos < TTRACE_AUX_HDR_SIZE)
			return -1;
		len = TTRACE_AUX_PATH_LEN(get_u64(c + pos));
		need = TTRACE_AUX_ALIGN_UP(len);
		if (len < TTRACE_AUX_HDR_SIZE || need > total - pos)
			return -1;
		pos += need;
	}
	if (pos != target)
		return -1;
	view->data = c + pos;
	view->len = (size_t)(total - pos);
	view->first = first_after;
	view->last = last;
	return 0;
}

/*
 * Takes a consistent snapshot of aux into out (out_size >= aux->size is
 * always enough): view->data == out and holds the records from
 * view->first to view->last, calling the lock callbacks (lock may be NULL if nothing
 * runs concurrently) around the two short reads of the bounds; retries a few
 * times if writers overwrote the copy. Returns 0 and fills view, or -1.
 */
int ttrace_aux_snapshot(const struct ttrace_aux *aux,
			const struct ttrace_aux_lock *lock, void *out,
			size_t out_size, struct ttrace_aux_view *view)
{
	for (int tries = 0; tries < 8; tries++) {
		uint64_t first, last, first_after, unused;

		if (lock)
			lock->rlock(lock->arg);
		ttrace_aux_bounds(aux, &first, &last);
		if (lock)
			lock->runlock(lock->arg);
		if (last - first > out_size)
			return -1;
		ttrace_aux_copy(aux, first, last, out, out_size);
		if (lock)
			lock->rlock(lock->arg);
		ttrace_aux_bounds(aux, &first_after, &unused);
		if (lock)
			lock->runlock(lock->arg);
		if (ttrace_aux_trim(out, first, last, first_after, view) == 0) {
			/* records before first_after were overwritten as we
			 * copied: the view starts later; move it to out */
			memmove(out, view->data, view->len);
			view->data = out;
			return 0;
		}
	}
	return -1;
}

/* Starts a walk over view (which the iterator only reads). */
void ttrace_aux_iter_init(struct ttrace_aux_iter *it,
			  const struct ttrace_aux_view *view)
{
	it->view = view;
	it->pos = 0;
	it->invalid = 0;
	it->reserved = 0;
	it->malformed = false;
}

/*
 * Returns the next VALID record of the walk in *rec (payload points into
 * the view), or false at the end. Records with VALID clear or reserved bits
 * set are skipped and counted (the first of the latter, which no writer
 * makes, in it->reserved too); a length that is too small, too large or
 * runs past the view ends the walk with it->malformed set.
 */
bool ttrace_aux_next(struct ttrace_aux_iter *it, struct ttrace_aux_rec *rec)
{
	const uint8_t *d = it->view->data;
	uint64_t total = it->view->len;

	while (it->pos < total) {
		uint64_t pos = it->pos, path, len;

		if (total - pos < TTRACE_AUX_HDR_SIZE)
			goto malformed;
		path = get_u64(d + pos);
		len = TTRACE_AUX_PATH_LEN(path);
		if (len < TTRACE_AUX_HDR_SIZE || len > total - pos ||
		    len - TTRACE_AUX_HDR_SIZE > TTRACE_AUX_MAX_PAYLOAD)
			goto malformed;
		it->pos = (size_t)MIN(pos + TTRACE_AUX_ALIGN_UP(len), total);
		if ((path & TTRACE_AUX_PATH_RESERVED) && !it->reserved)
			it->reserved = pos + 1;
		if (!(path & TTRACE_AUX_VALID) || (path & TTRACE_AUX_PATH_RESERVED)) {
			it->invalid++;
			continue;
		}
		rec->tag = TTRACE_AUX_PATH_TAG(path);
		rec->cpu = TTRACE_AUX_PATH_CPU(path);
		rec->timestamp = get_u64(d + pos + 8);
		rec->ident = get_u64(d + pos + 16);
		rec->payload = d + pos + TTRACE_AUX_HDR_SIZE;
		rec->len = (size_t)(len - TTRACE_AUX_HDR_SIZE);
		rec->offset = it->view->first + pos;
		return true;
	}
	return false;
malformed:
	it->malformed = true;
	it->pos = (size_t)total;
	return false;
}

/* The ksym record naming pc: the one with the largest symbol address at
 * or below pc (any time: a kernel's symbols do not change). */
static bool ksym_lookup_below(const struct ttrace_aux_view *view, uint64_t pc,
			      struct ttrace_aux_rec *rec)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r;
	bool have = false;

	ttrace_aux_iter_init(&it, view);
	while (ttrace_aux_next(&it, &r))
		if (r.tag == TTRACE_AUX_KSYM_NAME && r.ident <= pc &&
		    (!have || r.ident >= rec->ident)) {
			*rec = r;
			have = true;
		}
	return have;
}

/*
 * Finds the record naming (tag, ident) that was current at time ts: the
 * newest one written at or before ts, else the oldest one after it (a name
 * logged late still beats none); for tag ksym, the symbol at or below
 * ident. Returns false if there is none.
 */
bool ttrace_aux_lookup(const struct ttrace_aux_view *view, unsigned tag,
		       uint64_t ident, uint64_t ts, struct ttrace_aux_rec *rec)
{
	struct ttrace_aux_iter it;
	struct ttrace_aux_rec r, before, after;
	bool have_before = false, have_after = false;

	if (tag == TTRACE_AUX_KSYM_NAME)
		return ksym_lookup_below(view, ident, rec);
	ttrace_aux_iter_init(&it, view);
	while (ttrace_aux_next(&it, &r)) {
		if (r.tag != tag || r.ident != ident)
			continue;
		if (r.timestamp <= ts) {
			if (!have_before || r.timestamp >= before.timestamp)
				before = r;
			have_before = true;
		} else if (!have_after || r.timestamp < after.timestamp) {
			after = r;
			have_after = true;
		}
	}
	if (have_before)
		*rec = before;
	else if (have_after)
		*rec = after;
	return have_before || have_after;
}

/*
 * A name resolver for the formatter (ttrace_resolve_fn) over a view (passed
 * as void *): sets *str to the name's bytes (not NUL terminated) and returns
 * their length, or 0 (and *str NULL) if unknown.
 */
size_t ttrace_aux_resolve(void *view, unsigned tag, uint64_t ident,
			  uint64_t ts, const char **str)
{
	struct ttrace_aux_rec rec;

	*str = NULL;
	if (!ttrace_aux_lookup(view, tag, ident, ts, &rec))
		return 0;
	*str = (const char *)rec.payload;
	return rec.len;
}
