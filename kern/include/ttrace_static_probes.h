/*
 * ttrace_static_probes.h: static probes (docs/probes.md, "Static
 * probes"): callbacks compiled into an event's sites. An event marked
 * `probe=ttrace_sp_NAME` in kern/trace/ttrace.events gets, in its generated
 * emitter, right after the armed test,
 *
 *	if (!ttrace_sp_NAME(arg, ...))
 *		return;			// the record is dropped
 *
 * so the function, defined here always-inline with the event's argument
 * types, costs no call. It runs in the tracepoint's context (anywhere):
 * no lock, no allocation, no sleep. Pure C on globals, so the host tests
 * compile it too.
 */
#ifndef TTRACE_STATIC_PROBES_H
#define TTRACE_STATIC_PROBES_H

#include <compiler.h>
#include <stdint.h>
#include <ttrace_format.h>

/* syscall_exit: failed syscalls (ret < 0), the counter syscall_errors. */
extern uint64_t ttrace_sp_syscall_errors_count;

static __always_inline bool ttrace_sp_syscall_errors(uint64_t nr, int64_t ret)
{
	(void)nr;
	if (unlikely(ret < 0))
		__atomic_fetch_add(&ttrace_sp_syscall_errors_count, 1,
				   __ATOMIC_RELAXED);
	return true;
}

#endif /* TTRACE_STATIC_PROBES_H */
