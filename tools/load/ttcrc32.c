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

/* Installs the folding step when this CPU has PCLMUL and SSE4.1. Returns
 * whether it did. */
bool ttcrc32_install(void)
{
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("pclmul") ||
	    !__builtin_cpu_supports("sse4.1"))
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
