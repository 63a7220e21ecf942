/*
 * tttracedat.h: what the two halves of `ttdecode tracedat` share: the
 * file writer (tttracedat.c: sections, pages, ttrace's own events) and
 * Linux's events (tttracedat_linux.c: the records a Linux user's tools
 * know by name, written with Linux's format files, docs/exports.md).
 *
 * Usage (tttracedat.c):
 *	td_linux_init(x);			// which events are Linux's
 *	td_linux_ftrace(x);			// the ftrace formats
 *	td_u32(x, td_linux_nsystems(x) + 1);	// Linux's systems, ttrace
 *	td_linux_systems(x);
 *	n = td_linux_record(x, rec, ev, ns);	// 0: not Linux's
 *	td_linux_free(x);
 */
#ifndef TTTRACEDAT_H
#define TTTRACEDAT_H

#include <stdio.h>

#include <ttrace_ftevent.h>
#include <ttrace_ftlinux.h>
#include <ttrace_ftpage.h>

#include "ttload.h"
#include "ttmodel.h"

#define TD_RELEASE	"6.12.0-ttrace"	/* the Linux whose formats we follow */
#define TD_FLAG_IRQS_OFF	0x01	/* common_flags (Linux's trace_events.h) */
#define TD_FLAG_NEED_RESCHED	0x04
#define TD_FLAG_HARDIRQ		0x08

/* A kernel function call the model paired on its thread's track (or a
 * CPU's, outside a process): fn returned at end, entered at start. */
struct td_call {
	uint64_t end, fn, start;
};

struct td_export {
	struct ttload *t;
	const struct ttmodel *m;
	FILE *f;
	const struct ttrace_ftlinux **linux_of; /* per event id: its Linux
					   event, or NULL */
	struct ttrace_ftlinux_ops ops;	/* what its records need of the
					   trace (tttracedat_linux.c) */
	/* the CPU being written: its page (kern/trace/lib/ftrace_page.c) */
	uint8_t page[TTRACE_FTPAGE_SIZE];
	struct ttrace_ftpage p;		/* the page being filled in page */
	bool open;			/* p is a started page */
	uint64_t missed;		/* declared losses before the next page */
	uint32_t pid;			/* running on the CPU (0 idle) */
	struct td_call *calls;		/* the model's function calls, by */
	uint64_t ncalls;		/* (end, fn) */
	struct ttexport_prios prios;	/* sched_switch's prev/next_prio */
	/* totals */
	uint64_t events, pages, lost, unknown;
	bool failed;			/* a write failed */
};

/* A growing text, for the sections whose size comes first. */
struct td_text {
	char *s;
	size_t len, cap;
	bool oom;
};

void td_put(struct td_export *x, const void *p, size_t n);
void td_u32(struct td_export *x, uint32_t v);
void td_u64(struct td_export *x, uint64_t v);
void __attribute__((format(printf, 2, 3)))
td_printf(struct td_text *b, const char *fmt, ...);
void td_text_out(struct td_export *x, struct td_text *b, bool wide);
void td_format_out(struct td_export *x, const struct seqbuf *s);

int td_linux_init(struct td_export *x);
void td_linux_ftrace(struct td_export *x);
uint32_t td_linux_nsystems(const struct td_export *x);
void td_linux_systems(struct td_export *x);
size_t td_linux_record(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns);
void td_linux_free(struct td_export *x);

#endif /* TTTRACEDAT_H */
