/*
 * ttcrc32.c: tells the trace file's CRC-32C (ttrace_crc32(), in
 * kern/trace/lib/file.c: one implementation for the kernel and the
 * tools) that this CPU has SSE4.2's crc32 instruction. The host test
 * (test_ttrace_file's crc32_hw, crc32_bitwise) compares it with the
 * tables and with a bitwise CRC.
 */
#include <stdint.h>

#include <ttrace_file.h>

#include "ttcrc32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/* Turns the instruction on when this CPU has SSE4.2. Returns whether it
 * did. One CPUID (leaf 1), not __builtin_cpu_init(): that one asks a
 * dozen leaves, each a VM exit under a hypervisor, and cost a tenth of
 * `ttdecode text` on a 10k-record trace there. */
bool ttcrc32_install(void)
{
	unsigned a, b, c, d;
	bool hw = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);

	ttrace_crc32_set_hw(hw);
	return hw;
}

#else

bool ttcrc32_install(void)
{
	return false;
}

#endif
