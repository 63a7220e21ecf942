/*
 * reseal(): a fuzzed trace file made valid again in its framing: every CRC
 * and the END section recomputed over the mutated bytes, as the writer
 * would have. A random change almost always breaks a CRC; resealed, the
 * input reaches the payload checks behind it (fuzz_ttload) and, when
 * they accept it, the exporters (fuzz_export).
 */
#include <stddef.h>
#include <string.h>

#include <ttrace_file.h>

#include "fuzz.h"

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Rewrites the END payload at pos (its frame in the file) for a file of
 * nsec sections whose bytes before pos have CRC-32 crc, and END's CRC. */
static void reseal_end(uint8_t *b, uint64_t pos, uint32_t nsec, uint32_t crc)
{
	struct ttrace_file_end e = {
		.nsections = nsec, .file_crc = crc,
		.file_size = pos + TTRACE_FILE_END_SIZE,
	};
	uint64_t crc_off = pos + TTRACE_FILE_SEC_HDR_SIZE + sizeof(e);

	memcpy(b + pos + TTRACE_FILE_SEC_HDR_SIZE, &e, sizeof(e));
	put_u32(b + crc_off, ttrace_crc32(0, b + pos, crc_off - pos));
}

/* See fuzz.h. */
void reseal(uint8_t *b, uint64_t size)
{
	struct ttrace_file_section h;
	uint64_t pos = TTRACE_FILE_HDR_SIZE, next;
	uint32_t crc, nsec = 0;

	put_u32(b + offsetof(struct ttrace_file_header, crc),
		ttrace_crc32(0, b, offsetof(struct ttrace_file_header, crc)));
	crc = ttrace_crc32(0, b, TTRACE_FILE_HDR_SIZE);
	while (size - pos >= sizeof(h)) {
		memcpy(&h, b + pos, sizeof(h));
		if (h.type == TTRACE_FILE_SEC_END) {
			if (size - pos >= TTRACE_FILE_END_SIZE)
				reseal_end(b, pos, nsec, crc);
			return;
		}
		if (h.length > size - pos - sizeof(h) ||
		    size - pos - sizeof(h) - h.length < TTRACE_FILE_CRC_SIZE)
			return;
		next = pos + sizeof(h) + h.length;
		put_u32(b + next, ttrace_crc32(0, b + pos, next - pos));
		next += TTRACE_FILE_CRC_SIZE;
		next += ttrace_file_pad(next);
		if (next > size)
			return;
		crc = ttrace_crc32(crc, b + pos, next - pos);
		pos = next;
		nsec++;
	}
}
