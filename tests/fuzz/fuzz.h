/*
 * The fuzz targets of `make fuzz` (docs/reliability.md): one file per
 * parser, tests/fuzz/fuzz_TARGET.c, each defining the libFuzzer entry
 * point on the parser's own code from kern/lib, tools/ or user/.
 *
 * Built two ways from the same file (mk/fuzz.mk):
 *	build/fuzz/TARGET		clang -fsanitize=fuzzer,address,undefined:
 *					the fuzzer, run by scripts/fuzz.py
 *	build/host/test_fuzz_TARGET	gcc with ASan/UBSan and
 *					tests/fuzz/replay.c as main: replays
 *					tests/fuzz/corpus/TARGET and
 *					tests/fuzz/crashes/TARGET in `make test`
 * A target returns 0 for every input; it may only fail by crashing, by a
 * sanitizer report, by a leak, or by running too long (a hang).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are cut (each target's corpus stays small and
 * the fuzzer's mutations stay where the parser looks). */
#define FUZZ_MAX_INPUT	(1u << 20)

/* Makes the size-byte trace file b (size >= its header) whole again:
 * every CRC, and the END section's counts, recomputed over its bytes as
 * the writer would have, for the sections whose frames fit (reseal.c). */
void reseal(uint8_t *b, uint64_t size);

#endif /* FUZZ_H */
