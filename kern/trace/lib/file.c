/*
 * file.c: writing and walking ttrace trace files (ttrace_file.h,
 * docs/trace-file.md). Pure code shared by the kernel, the user `ttrace`
 * tool and the host tools: no allocation, no system calls.
 *
 * The writer frames sections as the caller streams them and keeps two
 * running CRCs (the open section's and the whole file's), so a ring of any
 * size goes out in small chunks. The reader treats the buffer as hostile:
 * every length is checked against the bytes that remain before it is used,
 * in an order that cannot overflow, and every failure names the file offset
 * where the problem is. It checks framing only; what a payload means is the
 * loader's business (tools/load/ttload.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <printfmt.h>
#include <string.h>

#include <compiler.h>
#include <ttrace_file.h>
#include "crc32c.h"

/*
 * CRC-32C (Castagnoli: reflected polynomial 0x82F63B78; iSCSI, ext4,
 * btrfs). Why not zlib's CRC-32: x86-64 computes CRC-32C with one
 * instruction per 8 bytes (SSE4.2's crc32) in general registers, so the
 * kernel runs it anywhere without SSE state, and the drain computes a
 * run's CRC in the pass that copies it out of the ring (ring.c,
 * crc32c.h): docs/trace-file.md "CRC-32C".
 *
 * Three ways to a state, the fastest this CPU has (ttrace_crc32_mode()):
 * the instruction (a program that finds SSE4.2 says so with
 * ttrace_crc32_set_hw(): tools/load/ttcrc32.c, arch/x86_64/src/crc32.c),
 * with three independent streams over long buffers (the instruction's
 * latency is three times its throughput) joined by a multiplication
 * table; sixteen 256-entry tables (slicing-by-16, 16 KiB) built once by
 * the first caller that wins the state word; and until they are ready
 * (and on big-endian hosts) a nibble at a time. The tables are the
 * reference the host test checks the instruction against.
 */
#define CRC_POLY	0x82f63b78u
#define CRC_COMBINE_MIN	16384	/* payload bytes worth a combine (reader) */
#define CRC_WRITER_COMBINE_MIN 2048	/* ... for the writer, which would
					   otherwise pass over them twice */
#define CRC_LANE	2048	/* bytes of each of the three streams */

static const uint32_t crc_nibble[16] = {
	0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1,
	0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
	0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
	0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

enum { CRC_TABLES_NONE, CRC_TABLES_BUILDING, CRC_TABLES_READY };
uint32_t ttrace_crc_slice[TTRACE_CRC_SLICES][256];
/* crc_lane[k][b]: byte b at position k of a state, carried over CRC_LANE
 * zero bytes (the state times x^(8 CRC_LANE), a byte at a time) */
static uint32_t crc_lane[4][256];
static int crc_tables_state;
static bool crc_hw;

static uint32_t crc_multmodp(uint32_t a, uint32_t b);
static uint32_t crc_shift_op(uint64_t len);

static uint32_t crc_nibbles(uint32_t crc, const uint8_t *p, uint64_t len)
{
	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return crc;
}

/* Fills crc_lane: each entry is linear in its byte, so eight products
 * per position and xors for the rest. */
static void crc_lane_build(void)
{
	uint32_t op = crc_shift_op(CRC_LANE);

	for (int k = 0; k < 4; k++) {
		crc_lane[k][0] = 0;
		for (uint32_t i = 1; i < 256; i++) {
			uint32_t low = i & (0u - i);

			crc_lane[k][i] = i == low ?
				crc_multmodp(op, i << (8 * k)) :
				crc_lane[k][low] ^ crc_lane[k][i ^ low];
		}
	}
}

/* Builds the tables if nobody has; returns whether they are ready. */
static bool crc_tables(void)
{
	int none = CRC_TABLES_NONE;

	if (__atomic_load_n(&crc_tables_state, __ATOMIC_ACQUIRE) ==
	    CRC_TABLES_READY)
		return true;
	if (!__atomic_compare_exchange_n(&crc_tables_state, &none,
					 CRC_TABLES_BUILDING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;	/* another caller builds them */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC_POLY & (0u - (c & 1)));
		ttrace_crc_slice[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < TTRACE_CRC_SLICES; k++)
			ttrace_crc_slice[k][i] =
				(ttrace_crc_slice[k - 1][i] >> 8) ^
				ttrace_crc_slice[0][ttrace_crc_slice[k - 1][i] &
						    0xff];
	crc_lane_build();
	__atomic_store_n(&crc_tables_state, CRC_TABLES_READY, __ATOMIC_RELEASE);
	return true;
}

/* See crc32c.h. */
int ttrace_crc32_mode(void)
{
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || !crc_tables())
		return TTRACE_CRC_NIBBLES;
	return __atomic_load_n(&crc_hw, __ATOMIC_RELAXED) ? TTRACE_CRC_HW :
							    TTRACE_CRC_TABLES;
}

/* See ttrace_file.h: the instruction may be used (a CPU with SSE4.2). */
void ttrace_crc32_set_hw(bool on)
{
	__atomic_store_n(&crc_hw, on, __ATOMIC_RELAXED);
}

static uint64_t crc_load64(const uint8_t *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, sizeof(w));	/* no call: -ffreestanding */
	return w;
}

/* Sixteen bytes a turn through the tables (built; little-endian). */
static uint32_t crc_slices(uint32_t crc, const uint8_t *p, uint64_t len)
{
	const uint32_t (*t)[256] = ttrace_crc_slice;

	for (; len >= 16; p += 16, len -= 16) {
		uint64_t a = crc_load64(p) ^ crc, b = crc_load64(p + 8);

		crc = t[15][a & 0xff] ^ t[14][(a >> 8) & 0xff] ^
		      t[13][(a >> 16) & 0xff] ^ t[12][(a >> 24) & 0xff] ^
		      t[11][(a >> 32) & 0xff] ^ t[10][(a >> 40) & 0xff] ^
		      t[9][(a >> 48) & 0xff] ^ t[8][a >> 56] ^
		      t[7][b & 0xff] ^ t[6][(b >> 8) & 0xff] ^
		      t[5][(b >> 16) & 0xff] ^ t[4][(b >> 24) & 0xff] ^
		      t[3][(b >> 32) & 0xff] ^ t[2][(b >> 40) & 0xff] ^
		      t[1][(b >> 48) & 0xff] ^ t[0][b >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* The state crc carried over CRC_LANE zero bytes (tables built). */
static uint32_t crc_lane_shift(uint32_t crc)
{
	return crc_lane[0][crc & 0xff] ^ crc_lane[1][(crc >> 8) & 0xff] ^
	       crc_lane[2][(crc >> 16) & 0xff] ^ crc_lane[3][crc >> 24];
}

/* By the instruction (crc_hw; tables built): three streams of CRC_LANE
 * bytes at a time while they last, then one. */
static uint32_t crc_hw_run(uint32_t crc, const uint8_t *p, uint64_t len)
{
	for (; len >= 3 * CRC_LANE; p += 3 * CRC_LANE, len -= 3 * CRC_LANE) {
		uint32_t b = 0, c = 0;

		for (const uint8_t *q = p; q < p + CRC_LANE; q += 8) {
			crc = ttrace_crc32c_u64(crc, crc_load64(q), true);
			b = ttrace_crc32c_u64(b, crc_load64(q + CRC_LANE), true);
			c = ttrace_crc32c_u64(c, crc_load64(q + 2 * CRC_LANE),
					      true);
		}
		crc = crc_lane_shift(crc_lane_shift(crc) ^ b) ^ c;
	}
	for (; len >= 8; p += 8, len -= 8)
		crc = ttrace_crc32c_u64(crc, crc_load64(p), true);
	while (len--)
		crc = (crc >> 8) ^ ttrace_crc_slice[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* See ttrace_file.h: chainable, start with 0. */
uint32_t ttrace_crc32(uint32_t crc, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;

	/* short buffers: the tables only if built already */
	if (len < 64 && __atomic_load_n(&crc_tables_state, __ATOMIC_ACQUIRE) !=
			CRC_TABLES_READY)
		return ~crc_nibbles(~crc, p, len);
	switch (ttrace_crc32_mode()) {
	case TTRACE_CRC_HW:
		return ~crc_hw_run(~crc, p, len);
	case TTRACE_CRC_TABLES:
		return ~crc_slices(~crc, p, len);
	default:
		return ~crc_nibbles(~crc, p, len);
	}
}

/* a * b modulo the CRC polynomial (reflected bit order). */
static uint32_t crc_multmodp(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (uint32_t m = 1u << 31; a; m >>= 1) {	/* to a's last bit */
		if (a & m) {
			p ^= b;
			a ^= m;
		}
		b = (b >> 1) ^ (CRC_POLY & (0u - (b & 1)));
	}
	return p;
}

/* x^(2^k) modulo the CRC polynomial, k = 0..30 (zlib's x2n_table, for
 * 0x82F63B78, whose x has order 2^31 - 1: x^(2^31) is x again). */
#define CRC_X2N_PERIOD	31
static const uint32_t crc_x2n[CRC_X2N_PERIOD] = {
	0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000,
	0x82f63b78, 0x6ea2d55c, 0x18b8ea18, 0x510ac59a, 0xb82be955,
	0xb8fdb1e7, 0x88e56f72, 0x74c360a4, 0xe4172b16, 0x0d65762a,
	0x35d73a62, 0x28461564, 0xbf455269, 0xe2ea32dc, 0xfe7740e6,
	0xf946610b, 0x3c204f8f, 0x538586e3, 0x59726915, 0x734d5309,
	0xbc1ac763, 0x7d0722cc, 0xd289cabe, 0xe94ca9bc, 0x05b74f3f,
	0xa51e1f42,
};

/* x^(8 len) modulo the polynomial: what carries a CRC over len bytes
 * (a multiplication per set bit of len). */
static uint32_t crc_shift_op(uint64_t len)
{
	uint32_t p = 1u << 31;	/* x^0 */

	for (unsigned k = 3; len; len >>= 1, k++)
		if (len & 1)
			p = crc_multmodp(crc_x2n[k % CRC_X2N_PERIOD], p);
	return p;
}

/*
 * The CRC-32 of A followed by B, given crc_a = CRC-32(A), crc_b =
 * CRC-32(B) and op = crc_shift_op(|B|) (zlib's crc32_combine_op).
 */
static uint32_t crc32_combine_op(uint32_t crc_a, uint32_t crc_b, uint32_t op)
{
	return crc_multmodp(op, crc_a) ^ crc_b;
}

/* See ttrace_file.h: the next header starts at 48 mod 64. */
uint64_t ttrace_file_pad(uint64_t end)
{
	return (TTRACE_FILE_ALIGN - TTRACE_FILE_SEC_HDR_SIZE - end) &
	       (TTRACE_FILE_ALIGN - 1);
}

const char *ttrace_file_sec_name(uint32_t type)
{
	static const char *const names[TTRACE_FILE_SEC_NTYPES] = {
		[TTRACE_FILE_SEC_VERSION] = "VERSION",
		[TTRACE_FILE_SEC_META] = "META",
		[TTRACE_FILE_SEC_AUX] = "AUX",
		[TTRACE_FILE_SEC_RING] = "RING",
		[TTRACE_FILE_SEC_RECORDS] = "RECORDS",
		[TTRACE_FILE_SEC_LOSS] = "LOSS",
		[TTRACE_FILE_SEC_TSC] = "TSC",
		[TTRACE_FILE_SEC_RANGE] = "RANGE",
		[TTRACE_FILE_SEC_STATS] = "STATS",
		[TTRACE_FILE_SEC_END] = "END",
	};

	return type < TTRACE_FILE_SEC_NTYPES && names[type] ? names[type] :
	       "UNKNOWN";
}

/* ---- writer -------------------------------------------------------------- */

/* Sets up w to hand its bytes to out(arg, ...). */
void ttrace_file_writer_init(struct ttrace_file_writer *w,
			     ttrace_file_out_fn out, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->arg = arg;
}

/* Where w's next len bytes would land (ttrace_file_place_fn), or NULL:
 * no place function, no room, or w has failed. */
void *ttrace_file_writer_place(struct ttrace_file_writer *w, uint64_t len)
{
	return w->place && !w->error ? w->place(w->arg, len) : NULL;
}

/* Emits len bytes, updating the file CRC (but for a long section's
 * header and payload, w->sec_combine: its end combines the section's
 * CRC into the file's) and offset. Returns w->error. */
static int emit(struct ttrace_file_writer *w, const void *buf, uint64_t len)
{
	if (w->error)
		return w->error;
	if (len && w->out(w->arg, buf, len) < 0)
		return w->error = TTRACE_FILE_EIO;
	if (!w->sec_combine)
		w->file_crc = ttrace_crc32(w->file_crc, buf, len);
	w->offset += len;
	return 0;
}

static int misuse(struct ttrace_file_writer *w)
{
	if (!w->error)
		w->error = TTRACE_FILE_ESTATE;
	return w->error;
}

/* Writes the file header; the first call. Returns 0 or an error code. */
int ttrace_file_write_header(struct ttrace_file_writer *w)
{
	struct ttrace_file_header h;

	if (w->error || w->state != 0)
		return misuse(w);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TTRACE_FILE_MAGIC, TTRACE_FILE_MAGIC_LEN);
	h.bom = TTRACE_FILE_BOM;
	h.version = TTRACE_FILE_VERSION;
	h.header_size = sizeof(h);
	h.section_header_size = sizeof(struct ttrace_file_section);
	h.payload_align = TTRACE_FILE_ALIGN;
	h.crc = ttrace_crc32(0, &h, offsetof(struct ttrace_file_header, crc));
	w->state = 1;
	return emit(w, &h, sizeof(h));
}

/*
 * Opens a section of exactly length payload bytes (type END is refused: use
 * ttrace_file_write_end). Returns 0 or an error code.
 */
int ttrace_file_section_begin(struct ttrace_file_writer *w, uint32_t type,
			      uint32_t cpu, uint64_t length)
{
	struct ttrace_file_section s = { type, cpu, length };

	if (w->error || w->state != 1 || w->sec_type ||
	    type == 0 || type == TTRACE_FILE_SEC_END)
		return misuse(w);
	w->sec_type = type;
	w->sec_left = length;
	w->sec_bytes = sizeof(s);
	w->sec_combine = length >= CRC_WRITER_COMBINE_MIN;
	w->sec_crc = ttrace_crc32(0, &s, sizeof(s));
	return emit(w, &s, sizeof(s));
}

/* c's operator for len bytes, made again only when len changes. */
static uint32_t shift_op_for(struct ttrace_crc_op *c, uint64_t len)
{
	if (c->len != len) {
		c->len = len;
		c->op = crc_shift_op(len);
	}
	return c->op;
}

/* Takes len more payload bytes of the open section (no more than it has
 * left). Returns 0, or the error (misuse). */
static int section_take(struct ttrace_file_writer *w, uint64_t len)
{
	if (w->error || !w->sec_type || len > w->sec_left)
		return misuse(w);
	w->sec_left -= len;
	w->sec_bytes += len;
	return 0;
}

/* Appends len payload bytes to the open section (no more than it has left). */
int ttrace_file_section_data(struct ttrace_file_writer *w, const void *buf,
			     uint64_t len)
{
	if (section_take(w, len))
		return w->error;
	w->sec_crc = ttrace_crc32(w->sec_crc, buf, len);
	return emit(w, buf, len);
}

/*
 * ttrace_file_section_data() of bytes whose CRC-32C the caller computed
 * as it made them (crc == ttrace_crc32(0, buf, len): a run read by
 * trace_ring_read_crc()): in a long section they are not read again,
 * their CRC is combined into the section's (the file's takes the
 * section's at its end); short ones are read (cheaper than a combine).
 */
int ttrace_file_section_data_crc(struct ttrace_file_writer *w,
				 const void *buf, uint64_t len, uint32_t crc)
{
	if (!w->sec_combine || len < CRC_WRITER_COMBINE_MIN)
		return ttrace_file_section_data(w, buf, len);
	if (section_take(w, len))
		return w->error;
	w->sec_crc = crc32_combine_op(w->sec_crc, crc,
				      shift_op_for(&w->data, len));
	return emit(w, buf, len);
}

/* Closes the open section once all its payload is written: CRC, padding. */
int ttrace_file_section_end(struct ttrace_file_writer *w)
{
	static const uint8_t zeros[TTRACE_FILE_ALIGN];
	uint32_t crc = w->sec_crc;

	if (w->error || !w->sec_type || w->sec_left)
		return misuse(w);
	if (w->sec_combine)	/* one pass over a long payload, not two */
		w->file_crc = crc32_combine_op(w->file_crc, crc,
					       shift_op_for(&w->comb,
							    w->sec_bytes));
	w->sec_combine = false;
	emit(w, &crc, sizeof(crc));
	emit(w, zeros, ttrace_file_pad(w->offset));
	w->sec_type = 0;
	w->nsections++;
	return w->error;
}

/* Writes a whole section from one buffer. */
int ttrace_file_write_section(struct ttrace_file_writer *w, uint32_t type,
			      uint32_t cpu, const void *payload,
			      uint64_t length)
{
	ttrace_file_section_begin(w, type, cpu, length);
	ttrace_file_section_data(w, payload, length);
	return ttrace_file_section_end(w);
}

/*
 * Writes the END section; the file is then complete (w->offset bytes, whose
 * CRC-32 is w->file_crc). Returns 0 or the first error of the whole write.
 */
int ttrace_file_write_end(struct ttrace_file_writer *w)
{
	struct ttrace_file_section s = { TTRACE_FILE_SEC_END, 0,
					 sizeof(struct ttrace_file_end) };
	struct ttrace_file_end e;
	uint32_t crc;

	if (w->error || w->state != 1 || w->sec_type)
		return misuse(w);
	e.nsections = w->nsections;
	e.file_crc = w->file_crc;
	e.file_size = w->offset + TTRACE_FILE_END_SIZE;
	crc = ttrace_crc32(ttrace_crc32(0, &s, sizeof(s)), &e, sizeof(e));
	emit(w, &s, sizeof(s));
	emit(w, &e, sizeof(e));
	emit(w, &crc, sizeof(crc));
	w->state = 2;
	return w->error;
}

/* ---- reader -------------------------------------------------------------- */

/* Fills err with "problem" at offset (the caller prints "offset N: ..."). */
void ttrace_file_set_error(struct ttrace_file_error *err, uint64_t offset,
			   const char *fmt, ...)
{
	va_list ap;

	err->offset = offset;
	va_start(ap, fmt);
	fmt_vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* See ttrace_file.h: bytes [from, to) of p (at file offset base + from)
 * must be zero; what names them in the error. */
int ttrace_file_zero_check(const uint8_t *p, uint64_t base, uint64_t from,
			   uint64_t to, const char *what,
			   struct ttrace_file_error *err)
{
	for (uint64_t i = from; i < to; i++)
		if (p[i])
			return ttrace_file_set_error(err, base + i, "%s: byte "
						     "%#x is not zero (reserved)",
						     what, p[i]), -1;
	return 0;
}

static int header_check(const struct ttrace_file_header *h,
			struct ttrace_file_error *err)
{
	uint32_t crc = ttrace_crc32(0, h, offsetof(struct ttrace_file_header,
						   crc));

	if (memcmp(h->magic, TTRACE_FILE_MAGIC, TTRACE_FILE_MAGIC_LEN))
		return ttrace_file_set_error(err, 0, "not a ttrace file (bad "
					     "magic)"), -1;
	if (h->bom == TTRACE_FILE_BOM_SWAPPED)
		return ttrace_file_set_error(err, 8, "file written in the "
					     "other byte order"), -1;
	if (h->bom != TTRACE_FILE_BOM)
		return ttrace_file_set_error(err, 8, "bad byte-order mark "
					     "%#x", h->bom), -1;
	/* the version before the CRC: version 2 files are CRC-32 */
	if (h->version == 2)
		return ttrace_file_set_error(err, 12, "file format version 2 "
					     "(CRC-32): this reader reads "
					     "version %u (CRC-32C)",
					     TTRACE_FILE_VERSION), -1;
	if (h->crc != crc)
		return ttrace_file_set_error(err, 0, "file header CRC mismatch "
					     "(stored %#x, computed %#x)",
					     h->crc, crc), -1;
	if (h->version != TTRACE_FILE_VERSION)
		return ttrace_file_set_error(err, 12, "unsupported file format "
					     "version %u", h->version), -1;
	if (h->header_size != TTRACE_FILE_HDR_SIZE ||
	    h->section_header_size != TTRACE_FILE_SEC_HDR_SIZE ||
	    h->payload_align != TTRACE_FILE_ALIGN)
		return ttrace_file_set_error(err, 14, "bad header, section "
					     "header or alignment size"), -1;
	return ttrace_file_zero_check((const uint8_t *)h, 0,
				      offsetof(struct ttrace_file_header, flags),
				      offsetof(struct ttrace_file_header, crc),
				      "file header: flags or reserved", err);
}

/*
 * Starts a walk over the size bytes of a whole file at buf, checking its
 * header. Returns 0, or -1 with err filled.
 */
int ttrace_file_open(struct ttrace_file_reader *r, const void *buf,
		     uint64_t size, struct ttrace_file_error *err)
{
	struct ttrace_file_header h;

	memset(r, 0, sizeof(*r));
	if (size < TTRACE_FILE_HDR_SIZE)
		return ttrace_file_set_error(err, 0, "file too short for a "
					     "header (size %llu)",
					     (unsigned long long)size), -1;
	memcpy(&h, buf, sizeof(h));
	if (header_check(&h, err) < 0)
		return -1;
	r->buf = buf;
	r->size = size;
	r->pos = TTRACE_FILE_HDR_SIZE;
	r->crc = ttrace_crc32(0, buf, TTRACE_FILE_HDR_SIZE);
	return 0;
}

/* See ttrace_file.h. Returns 0, or -1 with err filled. */
int ttrace_file_open_stream(struct ttrace_file_reader *r, const void *buf,
			    uint64_t size, struct ttrace_file_error *err)
{
	if (ttrace_file_open(r, buf, size, err) < 0)
		return -1;
	r->stream = 1;
	return 0;
}

/* Checks the END section at r->pos (frame already checked); in a stream
 * the file ends there, and r->size says so. */
static int end_check(struct ttrace_file_reader *r,
		     const struct ttrace_file_section *s,
		     struct ttrace_file_error *err)
{
	struct ttrace_file_end e;
	uint64_t pos = r->pos, end = pos + TTRACE_FILE_END_SIZE;

	if (s->length != sizeof(e) || s->cpu != 0)
		return ttrace_file_set_error(err, pos, "section END: bad "
					     "length %llu or cpu %u",
					     (unsigned long long)s->length,
					     s->cpu), -1;
	memcpy(&e, r->buf + pos + TTRACE_FILE_SEC_HDR_SIZE, sizeof(e));
	if (e.nsections != r->nsections)
		return ttrace_file_set_error(err, pos, "section END: %u "
					     "sections recorded but %u present",
					     e.nsections, r->nsections), -1;
	if (e.file_crc != r->crc)
		return ttrace_file_set_error(err, pos, "section END: file "
					     "checksum mismatch (stored %#x, "
					     "computed %#x)", e.file_crc,
					     r->crc), -1;
	if (e.file_size != end)
		return ttrace_file_set_error(err, pos, "section END: file size "
					     "%llu recorded, but END ends at "
					     "%llu", (unsigned long long)e.file_size,
					     (unsigned long long)end), -1;
	if (end != r->size && !r->stream)
		return ttrace_file_set_error(err, end, "%llu bytes of trailing "
					     "data after the END section",
					     (unsigned long long)(r->size - end)), -1;
	r->size = end;
	r->done = 1;
	return 0;
}

/* Checks the zero padding of n bytes at off. */
static int pad_check(const struct ttrace_file_reader *r, uint64_t off,
		     uint64_t n, const char *name, struct ttrace_file_error *err)
{
	if (n > r->size - off)
		return ttrace_file_set_error(err, off, "file ends inside the "
					     "padding after section %s "
					     "(size %llu)", name,
					     (unsigned long long)r->size), -1;
	for (uint64_t i = 0; i < n; i++)
		if (r->buf[off + i])
			return ttrace_file_set_error(err, off + i, "nonzero "
						     "padding after section "
						     "%s", name), -1;
	return 0;
}

/* Reads the section header at r->pos and checks that the frame fits. */
static int frame_check(const struct ttrace_file_reader *r,
		       struct ttrace_file_section *s,
		       struct ttrace_file_error *err)
{
	uint64_t pos = r->pos, left = r->size - pos;

	if (left == 0)
		return ttrace_file_set_error(err, pos, "file ends without an "
					     "END section (truncated?)"), -1;
	if (left < TTRACE_FILE_SEC_HDR_SIZE)
		return ttrace_file_set_error(err, pos, "file ends inside a "
					     "section header (size %llu)",
					     (unsigned long long)r->size), -1;
	memcpy(s, r->buf + pos, sizeof(*s));
	left -= TTRACE_FILE_SEC_HDR_SIZE;
	if (s->type == 0)
		return ttrace_file_set_error(err, pos, "section type 0 is "
					     "reserved"), -1;
	if (s->length > left || left - s->length < TTRACE_FILE_CRC_SIZE)
		return ttrace_file_set_error(err, pos, "section %s length %llu "
					     "runs past end of file (size %llu)",
					     ttrace_file_sec_name(s->type),
					     (unsigned long long)s->length,
					     (unsigned long long)r->size), -1;
	return 0;
}

/*
 * Returns the next section in *s (1), or 0 once the END section has been
 * read and found to match the file (count, whole-file CRC, size), or -1
 * with err filled on any problem: the walk then stays at the bad section.
 */
int ttrace_file_next(struct ttrace_file_reader *r, struct ttrace_file_sec *s,
		     struct ttrace_file_error *err)
{
	struct ttrace_file_section h;
	uint64_t pos = r->pos, crc_off, next;
	uint32_t crc;
	const char *name;

	if (r->done)
		return 0;
	if (frame_check(r, &h, err) < 0)
		return -1;
	name = ttrace_file_sec_name(h.type);
	crc_off = pos + TTRACE_FILE_SEC_HDR_SIZE + h.length;
	crc = ttrace_crc32(0, r->buf + pos, TTRACE_FILE_SEC_HDR_SIZE + h.length);
	if (crc != get_u32(r->buf + crc_off))
		return ttrace_file_set_error(err, pos, "section %s (type %u, cpu "
					     "%u, %llu bytes): CRC mismatch "
					     "(stored %#x, computed %#x)", name,
					     h.type, h.cpu,
					     (unsigned long long)h.length,
					     get_u32(r->buf + crc_off), crc), -1;
	if (h.type == TTRACE_FILE_SEC_END)
		return end_check(r, &h, err) < 0 ? -1 : 0;
	next = crc_off + TTRACE_FILE_CRC_SIZE;
	if (pad_check(r, next, ttrace_file_pad(next), name, err) < 0)
		return -1;
	next += ttrace_file_pad(next);
	/* the file's CRC from the section's, without a second pass over a
	 * big payload */
	if (h.length >= CRC_COMBINE_MIN)
		r->crc = ttrace_crc32(crc32_combine_op(r->crc, crc,
						crc_shift_op(crc_off - pos)),
				      r->buf + crc_off, next - crc_off);
	else
		r->crc = ttrace_crc32(r->crc, r->buf + pos, next - pos);
	r->pos = next;
	r->nsections++;
	s->type = h.type;
	s->cpu = h.cpu;
	s->length = h.length;
	s->offset = pos;
	s->payload_offset = pos + TTRACE_FILE_SEC_HDR_SIZE;
	s->payload = r->buf + s->payload_offset;
	return 1;
}
