/*
 * Compiler helpers shared by the kernel, kern/lib and the host tests.
 * Nothing here knows about the architecture: barriers are C11 fences, which
 * cost nothing but a compiler barrier on x86 for wmb/rmb (TSO) and an mfence
 * for mb.
 */
#ifndef COMPILER_H
#define COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __packed	__attribute__((packed))
#define __aligned(n)	__attribute__((aligned(n)))
#define __noreturn	__attribute__((noreturn))
#define __unused	__attribute__((unused))
#define __always_inline	inline __attribute__((always_inline))
#define __section(s)	__attribute__((section(s)))
/* Never traced by the function-graph tracer (no patchable entry): the
 * tracer, the text patcher and the trap path use such functions. */
#define notrace		__attribute__((patchable_function_entry(0, 0)))
/* A parameter that holds a user-space address (a pointer or an integer),
 * which the process chose: on a prototype or a definition, it puts the
 * argument in the table a function probe reads strings by
 * (kern/include/user_args.h). No code changes. */
#define __user

#ifndef static_assert
#define static_assert _Static_assert
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#define ROUNDUP(x, n)	(((x) + (n) - 1) / (n) * (n))
#define ROUNDDOWN(x, n)	((x) / (n) * (n))
#define IS_PWR2(x)	((x) != 0 && ((x) & ((x) - 1)) == 0)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

/* Cache line size of every CPU we run on; trace entries are exactly this. */
#define ARCH_CL_SIZE	64

/* Barriers. cmb() stops only the compiler. */
#define cmb()	__asm__ __volatile__("" ::: "memory")
#define wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif /* COMPILER_H */
