/*
 * ttcrc32.c: CRC-32 by folding (see ttcrc32.h). The method is Intel's
 * "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
 * Instruction" (Gopal et al., 2009), in its bit-reflected form, with the
 * constants its appendix gives for the polynomial 0x04C11DB7 (as Linux's
 * crc32-pclmul and zlib's crc32_simd use them): four 128-bit lanes are
 * folded 64 bytes at a time, then folded into one, then one lane at a
 * time, and the last 128 bits are reduced to 32 (Barrett). The caller
 * (ttrace_crc32) hands over a multiple of 16 bytes, at least 64, and does
 * the tail itself, so nothing here reads past the buffer. The table code
 * in kern/lib stays the portable fallback and the reference the host test
 * (test_ttrace_file's crc32_fold) compares this with.
 */
#include <stdint.h>

#include <ttrace_file.h>

#include "ttcrc32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

#define FOLD_TARGET	__attribute__((target("pclmul,sse4.1")))

/* x^(k) mod P constants, bit-reflected (the paper's k1..k5, mu and P'). */
static const uint64_t k1k2[2] = { 0x0154442bd4, 0x01c6e41596 };	/* 512 */
static const uint64_t k3k4[2] = { 0x01751997d0, 0x00ccaa009e };	/* 128 */
static const uint64_t k5k0[2] = { 0x0163cd6124, 0 };		/* 64 */
static const uint64_t poly[2] = { 0x01db710641, 0x01f7011641 }; /* P', u */

/* x folded over 128 bits with the constants k, plus the next block y. */
FOLD_TARGET static __m128i fold16(__m128i x, __m128i k, __m128i y)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(hi, lo), y);
}

/* The 128 bits of x reduced to the 32-bit CRC state (fold to 64 bits,
 * then Barrett). */
FOLD_TARGET static uint32_t reduce128(__m128i x)
{
	__m128i k = _mm_loadu_si128((const __m128i *)k3k4);
	__m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i t;

	t = _mm_clmulepi64_si128(x, k, 0x10);
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	k = _mm_loadl_epi64((const __m128i *)k5k0);
	t = _mm_srli_si128(x, 4);
	x = _mm_clmulepi64_si128(_mm_and_si128(x, low32), k, 0x00);
	x = _mm_xor_si128(x, t);
	k = _mm_loadu_si128((const __m128i *)poly);
	t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), k, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), k, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}

/* A ttrace_crc32_fold_fn: len a multiple of 16, at least 64. */
FOLD_TARGET static uint32_t crc_fold(uint32_t state, const uint8_t *p,
				     uint64_t len)
{
	const __m128i *v = (const __m128i *)(const void *)p;
	__m128i x1 = _mm_loadu_si128(v), x2 = _mm_loadu_si128(v + 1);
	__m128i x3 = _mm_loadu_si128(v + 2), x4 = _mm_loadu_si128(v + 3);
	__m128i k = _mm_loadu_si128((const __m128i *)k1k2);

	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)state));
	for (v += 4, len -= 64; len >= 64; v += 4, len -= 64) {
		x1 = fold16(x1, k, _mm_loadu_si128(v));
		x2 = fold16(x2, k, _mm_loadu_si128(v + 1));
		x3 = fold16(x3, k, _mm_loadu_si128(v + 2));
		x4 = fold16(x4, k, _mm_loadu_si128(v + 3));
	}
	k = _mm_loadu_si128((const __m128i *)k3k4);
	x1 = fold16(x1, k, x2);
	x1 = fold16(x1, k, x3);
	x1 = fold16(x1, k, x4);
	for (; len >= 16; v++, len -= 16)
		x1 = fold16(x1, k, _mm_loadu_si128(v));
	return reduce128(x1);
}

/* Installs the folding step when this CPU has PCLMUL and SSE4.1. Returns
 * whether it did. One CPUID (leaf 1), not __builtin_cpu_init(): that one
 * asks a dozen leaves, each a VM exit under a hypervisor, and cost a
 * tenth of `ttdecode text` on a 10k-record trace there. */
bool ttcrc32_install(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_PCLMUL) ||
	    !(c & bit_SSE4_1))
		return false;
	ttrace_crc32_set_fold(crc_fold);
	return true;
}

#else

bool ttcrc32_install(void)
{
	return false;
}

#endif
