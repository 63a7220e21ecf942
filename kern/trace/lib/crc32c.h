/*
 * crc32c.h: one 8-byte step of the trace file's CRC-32C (file.c,
 * docs/trace-file.md), inline, for the ring reader that computes a run's
 * CRC in the same pass as its copy (ring.c). Everyone else calls
 * ttrace_crc32() (ttrace_file.h).
 *
 * The step works on the running state (the CRC before its final xor,
 * ~crc), as the hardware does: x86-64's SSE4.2 `crc32` instruction, which
 * works in general registers (no SSE state: the kernel may run it
 * anywhere), or else the tables file.c builds (ttrace_crc32_tables()).
 */
#ifndef TTRACE_CRC32C_H
#define TTRACE_CRC32C_H

#include <stdbool.h>
#include <stdint.h>

#include <compiler.h>

/* Slicing tables: crc_slice[k][b] is byte b followed by k zero bytes. */
#define TTRACE_CRC_SLICES	16
extern uint32_t ttrace_crc_slice[TTRACE_CRC_SLICES][256];

/*
 * Which step ttrace_crc32() takes for 8 bytes: TTRACE_CRC_HW (the CPU's
 * instruction), TTRACE_CRC_TABLES (built), or TTRACE_CRC_NIBBLES (neither
 * yet: the tables are being built, or on a big-endian host). The ring
 * reader's crc argument takes these, NIBBLES (0) meaning it takes no step.
 */
enum { TTRACE_CRC_NIBBLES = 0, TTRACE_CRC_TABLES, TTRACE_CRC_HW };
int ttrace_crc32_mode(void);

/* The state after the 8 little-endian bytes w, by the instruction (hw,
 * a CPU with SSE4.2 only) or the tables (built). */
static __always_inline uint32_t ttrace_crc32c_u64(uint32_t state,
						   uint64_t w, bool hw)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (hw) {	/* reads the low half of %q0, zeroes its high half */
		__asm__("crc32q %1, %q0" : "+r"(state) : "rm"(w));
		return state;
	}
#endif
	{
		const uint32_t (*t)[256] = ttrace_crc_slice;

		w ^= state;
		return t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^
		       t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
		       t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
		       t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
	}
}

/* ttrace_crc32c_u64() of the word at p, the state in (and out of) a
 * whole register: by the instruction, straight from memory (one
 * instruction, no moves between steps). */
static __always_inline uint64_t ttrace_crc32c_mem(uint64_t state,
						   const uint64_t *p, bool hw)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (hw) {	/* reads the low half of state, zeroes the high */
		__asm__("crc32q %1, %0" : "+r"(state) : "m"(*p));
		return state;
	}
#endif
	return ttrace_crc32c_u64((uint32_t)state, *p, false);
}

#endif /* TTRACE_CRC32C_H */
