/*
 * ttrace_file.h: the ttrace trace FILE, one self-describing file that holds
 * a whole trace (version header, event metadata, aux snapshot, every CPU's
 * ring, counters) so it can leave the machine and be decoded anywhere.
 * docs/trace-file.md is the prose version; the two must agree.
 *
 * Shape (in the spirit of Xilinx etrace: a framed stream of typed records):
 *
 *	file header		48 bytes: magic, byte-order mark, version, CRC
 *	section ...		16-byte header {type, cpu, length}, payload,
 *				CRC-32C of header + payload, zero padding
 *	END section		section count, CRC-32C of every byte before it,
 *				file size: truncation and splicing show
 *
 * Every payload starts at a file offset that is a multiple of 64, so a
 * reader that loads the file into 64-byte aligned memory can use RECORDS
 * payloads as arrays of struct ttrace_entry in place.
 *
 * Like ttrace_format.h this header uses only fixed-width types, so the
 * kernel, the user tool and the host tools all read it as is. The code
 * (kern/trace/lib/file.c) is pure: no allocation, no I/O; the writer hands
 * bytes to a callback and the reader walks a caller's buffer, checking every
 * bound, so hostile files cannot make it read out of bounds.
 *
 * Usage (writer, streaming a big section in chunks):
 *	struct ttrace_file_writer w;
 *	ttrace_file_writer_init(&w, out_fn, &fd);
 *	ttrace_file_write_header(&w);
 *	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &v, sizeof(v));
 *	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0, len);
 *	while ((n = read(aux, buf, sizeof(buf))) > 0)
 *		ttrace_file_section_data(&w, buf, n);
 *	ttrace_file_section_end(&w);
 *	if (ttrace_file_write_end(&w) < 0) ...	// sticky error: check once
 *
 * Usage (reader):
 *	struct ttrace_file_reader r;
 *	struct ttrace_file_sec s;
 *	struct ttrace_file_error e;
 *	int rc;
 *	if (ttrace_file_open(&r, buf, size, &e) < 0) fail(e.offset, e.msg);
 *	while ((rc = ttrace_file_next(&r, &s, &e)) > 0)
 *		use(s.type, s.cpu, s.payload, s.length);
 *	if (rc < 0) fail(e.offset, e.msg);	// rc == 0: END checked, all good
 */
#ifndef TTRACE_FILE_H
#define TTRACE_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <ttrace_format.h>

/* ------------------------------------------------------------------------ */
/* On-disk layout                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Magic, PNG style: a high-bit byte (catches 7-bit transfers), "TTR", CR LF
 * (catches newline conversion), ^Z (stops DOS `type`) and LF.
 */
#define TTRACE_FILE_MAGIC	"\x89TTR\r\n\x1a\n"
#define TTRACE_FILE_MAGIC_LEN	8
/* Byte-order mark, stored in the writer's order: 04 03 02 01 on x86_64. */
#define TTRACE_FILE_BOM		0x01020304U
#define TTRACE_FILE_BOM_SWAPPED	0x04030201U
#define TTRACE_FILE_VERSION	3	/* this layout, CRC-32C (2: CRC-32) */
#define TTRACE_FILE_HDR_SIZE	48
#define TTRACE_FILE_SEC_HDR_SIZE 16
#define TTRACE_FILE_CRC_SIZE	4
#define TTRACE_FILE_ALIGN	64	/* payloads start at multiples of this */

/* The file header, at offset 0. */
struct ttrace_file_header {
	uint8_t magic[TTRACE_FILE_MAGIC_LEN];	/*  0: TTRACE_FILE_MAGIC */
	uint32_t bom;			/*  8: TTRACE_FILE_BOM */
	uint16_t version;		/* 12: TTRACE_FILE_VERSION */
	uint16_t header_size;		/* 14: 48 */
	uint16_t section_header_size;	/* 16: 16 */
	uint16_t payload_align;		/* 18: 64 */
	uint32_t flags;			/* 20: 0 */
	uint64_t reserved[2];		/* 24: 0 */
	uint32_t reserved2;		/* 40: 0 */
	uint32_t crc;			/* 44: CRC-32C of bytes 0-43 */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_header) == 48, "file header");
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, bom, 8);
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, version, 12);
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, section_header_size, 16);
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, flags, 20);
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, reserved, 24);
TTRACE_OFFSET_ASSERT(struct ttrace_file_header, crc, 44);

/*
 * A section: this header, `length` payload bytes, the CRC-32C (u32) of the
 * 16 header bytes followed by the payload, then 0-63 zero bytes so that the
 * next section's payload is 64-byte aligned (the next header starts at an
 * offset that is 48 mod 64). END is the last section and has no padding.
 */
struct ttrace_file_section {
	uint32_t type;			/*  0: enum ttrace_file_sec_type */
	uint32_t cpu;			/*  4: RECORDS, LOSS, STATS: the CPU */
	uint64_t length;		/*  8: payload bytes */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_section) == 16, "section hdr");
TTRACE_OFFSET_ASSERT(struct ttrace_file_section, cpu, 4);
TTRACE_OFFSET_ASSERT(struct ttrace_file_section, length, 8);

/*
 * Section types and their payloads. Readers skip types they do not know
 * (after checking the frame and CRC like any other), so new types can be
 * added without a version bump.
 *	VERSION	struct ttrace_version (128 bytes); the first section, once
 *	META	the event metadata blob (version.meta_size bytes), once
 *	AUX	struct ttrace_file_aux, then last - first bytes: the linear aux
 *		snapshot (byte 0 = the record at counter first); at most once
 *	RECORDS	struct ttrace_file_run, then run.count 64-byte entries: the
 *		slots of cpu's ring with logical indices first .. first +
 *		count - 1, each a first entry whose seq matches its index or
 *		a continuation of the event before it; whole events only
 *	LOSS	struct ttrace_file_run alone: cpu's logical indices first ..
 *		first + count - 1 are missing, for run.reason
 *		(enum ttrace_loss_reason)
 *		RECORDS and LOSS sections of one cpu come in index order and
 *		each starts where the one before ended: a gap that no LOSS
 *		declares is an error. Any number per cpu; a stream
 *		interleaves the cpus.
 *	STATS	struct ttrace_file_stats for cpu (optional, at most once per
 *		cpu): the counters of cpu's ring as the writer found it after
 *		its runs, since that ring's start (its last clear, mode or
 *		bufsize), which with its size and mode they name; longer
 *		payloads carry later fields, ignored by this code
 *	TSC	num_cpus struct ttrace_file_tsc: each CPU's TSC offset from
 *		CPU 0's as applied at boot; decoders subtract it before
 *		merging CPUs (optional, at most once)
 *	RANGE	num_cpus struct ttrace_file_range: the logical indices each
 *		CPU's runs cover, as the writer read them, so a run cut
 *		from either end of a CPU's shows (optional for readers,
 *		written by every writer; at most once)
 *	END	struct ttrace_file_end; the last section
 * Type 4 (RING, a raw slot array without index ranges) was format
 * version 1's: readers refuse it in a version 3 file.
 */
enum ttrace_file_sec_type {
	TTRACE_FILE_SEC_VERSION = 1,
	TTRACE_FILE_SEC_META = 2,
	TTRACE_FILE_SEC_AUX = 3,
	TTRACE_FILE_SEC_RING = 4,	/* format 1 only: refused */
	TTRACE_FILE_SEC_STATS = 5,
	TTRACE_FILE_SEC_END = 6,
	TTRACE_FILE_SEC_RECORDS = 7,
	TTRACE_FILE_SEC_LOSS = 8,
	TTRACE_FILE_SEC_TSC = 9,
	TTRACE_FILE_SEC_RANGE = 10,
	TTRACE_FILE_SEC_NTYPES = 11,
};

/* TSC payload, one per CPU: that CPU's TSC minus CPU 0's, in cycles, and
 * how far the true value may be from it (UINT64_MAX: not measured). The
 * device's tsc file gives exactly this array. */
struct ttrace_file_tsc {
	int64_t offset;			/*  0 */
	uint64_t uncertainty;		/*  8 */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_tsc) == 16, "tsc entry");

/* RANGE payload, one per CPU: the CPU's runs cover exactly the logical
 * indices [first, end) (first == end: the file has no run of it). */
struct ttrace_file_range {
	uint64_t first;			/*  0 */
	uint64_t end;			/*  8 */
};
TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_range) == 16, "range entry");

/*
 * RECORDS and LOSS payload prefix: one entry's size, so the entries that
 * follow stay 64-byte aligned. The #ttrace device's rawN and streamN
 * files return exactly such payloads, one per read (docs/ttrace-device.md).
 */
struct ttrace_file_run {
	uint64_t first;			/*  0: logical index of the first slot */
	uint64_t count;			/*  8: slots */
	uint32_t type;			/* 16: TTRACE_FILE_SEC_RECORDS or _LOSS */
	uint32_t reason;		/* 20: LOSS: enum ttrace_loss_reason */
	uint64_t reserved[5];		/* 24: zero */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_run) == TTRACE_ENTRY_SIZE,
		     "run prefix is one entry");

/*
 * The most slots a RECORDS run of a file holds: the version header's
 * entries_per_cpu (the ring's size when the writer began: a run never
 * holds more than its ring did at once, and a writer whose rings grew
 * while it read them, a bufsize, cuts its runs there), but never fewer
 * than one whole event's slots, which any ring a run is read from holds.
 */
static inline uint64_t ttrace_file_run_max(uint64_t entries_per_cpu)
{
	return entries_per_cpu > 1 + TTRACE_MAX_CONT ? entries_per_cpu :
						      1 + TTRACE_MAX_CONT;
}

/* Fills h for a RECORDS run (records != 0) or a LOSS run with reason. */
static inline void ttrace_file_run_init(struct ttrace_file_run *h,
					int records, uint64_t first,
					uint64_t count, uint32_t reason)
{
	*h = (struct ttrace_file_run){
		.first = first,
		.count = count,
		.type = records ? TTRACE_FILE_SEC_RECORDS : TTRACE_FILE_SEC_LOSS,
		.reason = records ? 0 : reason,
	};
}

/* AUX payload prefix: the counters of the snapshot that follows. */
struct ttrace_file_aux {
	uint64_t first;			/*  0: counter of the first record */
	uint64_t last;			/*  8: one past the last (padded) */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_aux) == 16, "aux prefix");

/* STATS payload: one CPU's ring counters (trace_ring.h defines them),
 * as the writer found the ring after its runs: counted since that ring's
 * start, the logical index of its last clear, mode or bufsize (so they
 * describe the runs from start on; a file whose runs began in an earlier
 * ring holds that ring's records too, not counted here), which with the
 * ring's size and mode they name. Files written before filtered existed
 * have the first TTRACE_FILE_STATS_MIN bytes only; before str_dropped,
 * TTRACE_FILE_STATS_FILTERED; before start, entries and mode,
 * TTRACE_FILE_STATS_STR_DROPPED. */
struct ttrace_file_stats {
	uint64_t written;		/*  0: slots written since start */
	uint64_t overwritten;		/*  8: lost to wrapping (overwrite) */
	uint64_t dropped;		/* 16: refused when full (saturate) */
	uint64_t filtered;		/* 24: kept out by a probe (no loss) */
	uint64_t str_dropped;		/* 32: records whose probe string
					 * aux was busy for (a loss) */
	uint64_t start;			/* 40: the ring's start (logical index) */
	uint64_t entries;		/* 48: the ring's size */
	uint64_t mode;			/* 56: enum ttrace_ring_mode_word */
};

#define TTRACE_FILE_STATS_MIN	24	/* written, overwritten, dropped */
#define TTRACE_FILE_STATS_FILTERED 32	/* ... and filtered */
#define TTRACE_FILE_STATS_STR_DROPPED 40 /* ... and str_dropped */

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_stats) == 64, "stats");
TTRACE_OFFSET_ASSERT(struct ttrace_file_stats, start, 40);

/* END payload. */
struct ttrace_file_end {
	uint32_t nsections;		/*  0: sections before END */
	uint32_t file_crc;		/*  4: CRC-32C of bytes [0, END header) */
	uint64_t file_size;		/*  8: size of the whole file */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_file_end) == 16, "end payload");

/* Bytes of the END section, header to CRC: the file ends right after. */
#define TTRACE_FILE_END_SIZE	(TTRACE_FILE_SEC_HDR_SIZE + \
				 sizeof(struct ttrace_file_end) + \
				 TTRACE_FILE_CRC_SIZE)

/* ------------------------------------------------------------------------ */
/* Code (kern/trace/lib/file.c)                                             */
/* ------------------------------------------------------------------------ */

/*
 * CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and
 * final xor 0xffffffff; as iSCSI, ext4 and btrfs): start with crc = 0 and
 * feed the result back to continue, so crc32(crc32(0, a), b) ==
 * crc32(0, a + b). crc32("123456789") = 0xe3069283.
 */
uint32_t ttrace_crc32(uint32_t crc, const void *buf, uint64_t len);

/* Says whether this CPU has x86-64's crc32 instruction (SSE4.2), which
 * ttrace_crc32() then uses (the host tools: tools/load/ttcrc32.c; the
 * kernel: arch/x86_64/src/crc32.c); else it uses tables. */
void ttrace_crc32_set_hw(bool on);

/* Zero bytes that follow a section whose CRC ends at file offset end. */
uint64_t ttrace_file_pad(uint64_t end);

/* "VERSION", "RECORDS", ... or "UNKNOWN". */
const char *ttrace_file_sec_name(uint32_t type);

/* Error codes of the writer. */
enum ttrace_file_werr {
	TTRACE_FILE_EIO = -1,		/* the output callback failed */
	TTRACE_FILE_ESTATE = -2,	/* calls out of order or sizes wrong */
};

/* Writes len bytes somewhere; returns 0, or -1 on failure. */
typedef int (*ttrace_file_out_fn)(void *arg, const void *buf, uint64_t len);
/*
 * Optional, for an output that is memory: where the next len bytes would
 * land if written now, or NULL (no room). A writer of bytes made there in
 * place hands out() that same address, and out() must then not copy.
 */
typedef void *(*ttrace_file_place_fn)(void *arg, uint64_t len);

/*
 * Incremental writer. It keeps running CRCs, so a section of any size can
 * be streamed in chunks; nothing is buffered. A long section's bytes are
 * read once: they feed its CRC, and the file's CRC takes them in at the
 * section's end by combining the two (zlib's crc32_combine). The first error sticks: every
 * later call returns it, so a caller may check only the last one.
 */
/* A CRC combine's operator for a length, kept while lengths repeat (a
 * stream's runs do): file.c's crc_shift_op() of len. */
struct ttrace_crc_op {
	uint64_t len;
	uint32_t op;
};

struct ttrace_file_writer {
	ttrace_file_out_fn out;
	ttrace_file_place_fn place;	/* NULL: none (ttrace_file_writer_init) */
	void *arg;
	uint64_t offset;		/* bytes written so far */
	uint64_t sec_left;		/* payload bytes the open section expects */
	uint64_t sec_bytes;		/* bytes of the open section so far */
	uint32_t file_crc;		/* CRC-32C of every byte written (but a
					   sec_combine section's, until its
					   end) */
	uint32_t sec_crc;		/* CRC-32C of the open section so far */
	uint32_t nsections;		/* sections ended, END excluded */
	uint32_t sec_type;		/* open section's type, 0 if none */
	int32_t state;			/* 0 fresh, 1 header done, 2 ended */
	bool sec_combine;		/* the open section is long: its CRC
					   is combined into file_crc at its
					   end */
	struct ttrace_crc_op comb;	/* the last such section's size */
	struct ttrace_crc_op data;	/* the last section_data_crc's size */
	int32_t error;			/* 0 or enum ttrace_file_werr */
};

void ttrace_file_writer_init(struct ttrace_file_writer *w,
			     ttrace_file_out_fn out, void *arg);
void *ttrace_file_writer_place(struct ttrace_file_writer *w, uint64_t len);
int ttrace_file_write_header(struct ttrace_file_writer *w);
int ttrace_file_section_begin(struct ttrace_file_writer *w, uint32_t type,
			      uint32_t cpu, uint64_t length);
int ttrace_file_section_data(struct ttrace_file_writer *w, const void *buf,
			     uint64_t len);
int ttrace_file_section_data_crc(struct ttrace_file_writer *w,
				 const void *buf, uint64_t len, uint32_t crc);
int ttrace_file_section_end(struct ttrace_file_writer *w);
int ttrace_file_write_section(struct ttrace_file_writer *w, uint32_t type,
			      uint32_t cpu, const void *payload,
			      uint64_t length);
int ttrace_file_write_end(struct ttrace_file_writer *w);

/* Where a reader stopped and why: "offset N: msg". */
struct ttrace_file_error {
	uint64_t offset;
	char msg[200];
};

/* A section as the reader returns it; payload points into the buffer. */
struct ttrace_file_sec {
	uint32_t type;
	uint32_t cpu;
	uint64_t length;
	uint64_t offset;		/* file offset of the section header */
	uint64_t payload_offset;	/* file offset of the payload */
	const uint8_t *payload;
};

/* Walk state over a whole file held in memory. */
struct ttrace_file_reader {
	const uint8_t *buf;
	uint64_t size;
	uint64_t pos;			/* offset of the next section header */
	uint32_t crc;			/* CRC-32C of bytes [0, pos) */
	uint32_t nsections;		/* sections returned so far */
	int32_t done;			/* END was read and checked */
	int32_t stream;			/* more may follow END: see
					   ttrace_file_open_stream() */
};

int ttrace_file_open(struct ttrace_file_reader *r, const void *buf,
		     uint64_t size, struct ttrace_file_error *err);
int ttrace_file_next(struct ttrace_file_reader *r, struct ttrace_file_sec *s,
		     struct ttrace_file_error *err);
/*
 * ttrace_file_open() for the first of several files written back to back
 * in buf (a host channel file after several saves): ttrace_file_next()
 * then ends at that file's END without requiring the buffer to end there,
 * and sets r->size to the file's size, where the next one starts.
 */
int ttrace_file_open_stream(struct ttrace_file_reader *r, const void *buf,
			    uint64_t size, struct ttrace_file_error *err);
void ttrace_file_set_error(struct ttrace_file_error *err, uint64_t offset,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reserved bytes: 0 if bytes [from, to) of p are zero, else -1 with err
 * naming the first other one at file offset base + its index, and what. */
int ttrace_file_zero_check(const uint8_t *p, uint64_t base, uint64_t from,
			   uint64_t to, const char *what,
			   struct ttrace_file_error *err);

#endif /* TTRACE_FILE_H */
