/*
 * The kernel's __user parameters (compiler.h): each function with an
 * argument that holds a user-space address the process chose, and which
 * arguments. scripts/gen-user-args.py makes the table from the sources at
 * build time, so marking a parameter is all it takes. A function probe
 * reads a string at such an argument as a user string, whatever its
 * type says (kern/trace/fprobe.c, docs/probes.md): a process that passes
 * a kernel address to a syscall cannot have a probe copy kernel memory
 * into the trace.
 *
 *	for (size_t i = 0; i < user_args_count; i++)
 *		if (!strcmp(user_args_table[i].func, "copyinstr"))
 *			...user_args_table[i].args: 0x02, argument 1...
 */
#ifndef USER_ARGS_H
#define USER_ARGS_H

#include <compiler.h>

struct user_args {
	const char *func;
	uint8_t args;		/* bit N: argument N is __user */
};

extern const struct user_args user_args_table[];
extern const size_t user_args_count;

#endif /* USER_ARGS_H */
