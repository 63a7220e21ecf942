/*
 * ttcrc32.c: installs the CRC-32 folding (ttrace_crc32_fold_pclmul(), in
 * kern/trace/lib/file.c beside the tables it speeds up: one
 * implementation for the kernel and the tools) when this CPU can run it.
 * The host test (test_ttrace_file's crc32_fold, crc32_bitwise) compares
 * it with the tables and with a bitwise CRC.
 */
#include <stdint.h>

#include <ttrace_file.h>

#include "ttcrc32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

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
	ttrace_crc32_set_fold(ttrace_crc32_fold_pclmul);
	return true;
}

#else

bool ttcrc32_install(void)
{
	return false;
}

#endif
