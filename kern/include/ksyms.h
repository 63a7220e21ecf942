/*
 * Kernel symbol lookup for backtraces. The table is generated at link time
 * from the kernel's own symbols (scripts/gen-ksyms.sh) and linked into the
 * .ksyms section in a second link pass.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <compiler.h>

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset);
const char *ksym_at(uint64_t i, uintptr_t *addr);
const char *ksym_find(bool (*match)(const char *arg, const char *name),
		      const char *arg);
void backtrace_print(uintptr_t rbp);
struct fgraph_shadow;
void backtrace_print_within(uintptr_t rbp, uintptr_t lo, uintptr_t hi,
			    const struct fgraph_shadow *shadow);

#endif /* KSYMS_H */
