/*
 * The LTTng-UST tracepoint make bench compares ours with: five 64-bit
 * words, as ttrace_test_seq. LTTng's TRACEPOINT_EVENT header protocol.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ttbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ttlttng_tp.h"

#if !defined(TTLTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TTLTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ttbench, event,
	LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c, uint64_t, d,
			  uint64_t, e),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, a, a)
		lttng_ust_field_integer(uint64_t, b, b)
		lttng_ust_field_integer(uint64_t, c, c)
		lttng_ust_field_integer(uint64_t, d, d)
		lttng_ust_field_integer(uint64_t, e, e)
	)
)

#endif /* TTLTTNG_TP_H */

#include <lttng/tracepoint-event.h>
