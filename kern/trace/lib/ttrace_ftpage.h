/*
 * ttrace_ftpage.h: Linux's ring-buffer pages (kernel/trace/ring_buffer.c,
 * the header_page and header_event formats), the binary form of
 * trace_pipe_raw and of trace.dat's per-CPU data (kern/trace/lib/
 * ftrace_page.c). Pure; the kernel's trace_pipe_raw (kern/trace/
 * tracefs_raw.c) fills pages with it and a host tool reads them with
 * libtraceevent's kbuffer (tests/host/kbuffer_read.c).
 *
 * A page is TTRACE_FTPAGE_SIZE bytes: u64 timestamp (ns, the first
 * event's), u64 commit (data bytes; bit 31 RB_MISSED_EVENTS and bit 30
 * RB_MISSED_STORED when a loss came before the page, its count then
 * stored as a u64 after the data), then the events, each a u32 header:
 * type_len in the low 5 bits (payload bytes / 4, or 0 with the length in
 * the next word), time_delta in the high 27 bits; a time-extend event
 * (type 30) first when the delta does not fit.
 *
 * Usage:
 *	struct ttrace_ftpage p;
 *	ttrace_ftpage_init(&p, page);		// TTRACE_FTPAGE_SIZE bytes
 *	while (ttrace_ftpage_add(&p, ns, rec, n))	// false: page full
 *		...
 *	ttrace_ftpage_lost(&p, count);		// before the first add only
 *	ttrace_ftpage_stamp(&p, ns);		// a page of losses only: its time
 *	ttrace_ftpage_end(&p);			// the commit word written
 */
#ifndef TTRACE_FTPAGE_H
#define TTRACE_FTPAGE_H

#include <compiler.h>

#define TTRACE_FTPAGE_SIZE	4096
#define TTRACE_FTPAGE_HDR	16	/* u64 timestamp, u64 commit */
#define TTRACE_FTPAGE_DATA	(TTRACE_FTPAGE_SIZE - TTRACE_FTPAGE_HDR)
#define TTRACE_FTPAGE_REC_MAX	2048	/* a record's bytes, at most */

struct ttrace_ftpage {
	uint8_t *page;		/* TTRACE_FTPAGE_SIZE bytes */
	size_t len;		/* data bytes */
	uint64_t last;		/* the last event's time, ns */
	uint64_t missed;	/* events lost before this page */
	uint32_t events;	/* events in the page */
};

/* Starts an empty page in page (zeroed). */
void ttrace_ftpage_init(struct ttrace_ftpage *p, uint8_t *page);
/* Declares count events lost before the page's first (a page with no
 * events yet only): the page's commit says so. */
void ttrace_ftpage_lost(struct ttrace_ftpage *p, uint64_t count);
/* Sets the time of a page with no events yet (one that only declares
 * losses; the first add sets it otherwise). */
void ttrace_ftpage_stamp(struct ttrace_ftpage *p, uint64_t ns);
/* Appends the record rec (n bytes, n <= TTRACE_FTPAGE_REC_MAX) at time
 * ns (an earlier time than the last is taken as the last's). Returns
 * false, the page unchanged, when it does not fit (the caller ends the
 * page and starts another). */
bool ttrace_ftpage_add(struct ttrace_ftpage *p, uint64_t ns, const void *rec,
		       size_t n);
/* Writes the commit word (and the loss count): the page is whole. */
void ttrace_ftpage_end(struct ttrace_ftpage *p);

#endif /* TTRACE_FTPAGE_H */
