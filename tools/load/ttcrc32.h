/*
 * ttcrc32: CRC-32 (zlib's) folded with carry-less multiplication (x86-64
 * PCLMULQDQ) for the host tools, installed into kern/trace/lib's ttrace_crc32()
 * through ttrace_crc32_set_fold(): the loader checks every byte of a trace
 * file, and the tables (slicing-by-16) were 8% of `ttdecode text`.
 *
 * Usage (idempotent, cheap; on a CPU or compiler without PCLMUL it leaves
 * the tables in charge):
 *	ttcrc32_install();
 *	crc = ttrace_crc32(0, buf, len);
 */
#ifndef TTCRC32_H
#define TTCRC32_H

#include <stdbool.h>

bool ttcrc32_install(void);

#endif /* TTCRC32_H */
