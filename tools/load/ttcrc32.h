/*
 * ttcrc32: the trace file's CRC-32C by x86-64's crc32 instruction (SSE4.2)
 * for the host tools, turned on in kern/trace/lib's ttrace_crc32() through
 * ttrace_crc32_set_hw(): the loader checks every byte of a trace file.
 *
 * Usage (idempotent, cheap; on a CPU or compiler without SSE4.2 it leaves
 * the tables in charge):
 *	ttcrc32_install();
 *	crc = ttrace_crc32(0, buf, len);
 */
#ifndef TTCRC32_H
#define TTCRC32_H

#include <stdbool.h>

bool ttcrc32_install(void);

#endif /* TTCRC32_H */
