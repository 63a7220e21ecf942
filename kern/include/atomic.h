/*
 * Atomics: thin, named wrappers over the compiler's __atomic builtins so call
 * sites read as intent. All are sequentially consistent unless the name says
 * otherwise.
 */
#ifndef ATOMIC_H
#define ATOMIC_H

#include <compiler.h>

#define atomic_read(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define atomic_set(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define atomic_add(p, v)	__atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_add(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_or(p, v)	__atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_and(p, v)	__atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)
#define atomic_swap(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define atomic_cas(p, oldp, v)	__atomic_compare_exchange_n((p), (oldp), (v), \
				false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#endif /* ATOMIC_H */
