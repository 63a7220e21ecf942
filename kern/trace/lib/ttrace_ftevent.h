/*
 * ttrace_ftevent.h: a ttrace event as a Linux trace event
 * (kern/trace/lib/ftrace_event.c): its `format` file (Linux's layout,
 * answer-formats.md A.1) and its record in a ring-buffer page
 * (ttrace_ftpage.h), the one description both follow, so what
 * trace_pipe_raw and trace.dat write is what the format says. The events
 * Linux has too are written in Linux's own layout instead
 * (ttrace_ftlinux.h); this is the generic one, for every other event.
 *
 * The record: the common header (u16 type = TTRACE_FTEVENT_ID_BASE + the
 * ttrace id, u8 flags, u8 preempt count, s32 pid), then every argument
 * in 8 bytes (u64 or s64; a pointer as u64; a name argument, str:TAG,
 * its ident), then per name argument a `__data_loc char[] NAME_name`
 * (u32: offset | length << 16) whose string, as the trace's aux names it
 * (ttrace_ftevent_name(): what `ttdecode text` prints), follows the
 * fixed part. The print fmt is the event's own format made to read its
 * fields (every integer as ll, %p as %pS, %s of NAME_name), else
 * NAME=VALUE pairs.
 *
 * The header and the common fields are every format's (Linux's events
 * too).
 *
 * Usage:
 *	ttrace_ftevent_format(&s, &meta->events[id]);
 *	n = ttrace_ftevent_record(rec, e, &ev, pid, ttrace_aux_resolve, &view);
 */
#ifndef TTRACE_FTEVENT_H
#define TTRACE_FTEVENT_H

#include <compiler.h>
#include <seqbuf.h>
#include <ttrace_decode.h>
#include <ttrace_meta.h>

#define TTRACE_FTEVENT_ID_BASE	1000	/* ttrace event id + this: its ID */
#define TTRACE_FTEVENT_STR_MAX	256	/* a string field's bytes, NUL in */
#define TTRACE_FTEVENT_FORMAT_MAX 8192	/* a format file's text, at most */

/* header_page and header_event, as tracefs's events/ has them. */
extern const char ttrace_ftevent_header_page[];
extern const char ttrace_ftevent_header_event[];

/* The common fields' lines of every format file (after "format:\n"),
 * the blank line after them included. */
extern const char ttrace_ftevent_common[];

/* The common header of a record of format id (pid in it, flags and
 * preempt count 0) into rec; returns its bytes (8). */
size_t ttrace_ftevent_header(uint8_t *rec, unsigned id, uint32_t pid);

/* The head of a format file: name, ID and the common fields. */
void ttrace_ftevent_head(struct seqbuf *s, const char *name, unsigned id);

/* The name (tag, ident) resolve gives at ts into dst (size > 0 bytes),
 * NUL terminated, unprintable bytes as '?'; "#IDENT" when nothing names
 * it, "" for a stack's frame past its end (tag ksym, 0). Returns its
 * length. */
size_t ttrace_ftevent_name(char *dst, size_t size, ttrace_resolve_fn resolve,
			   void *rarg, unsigned tag, uint64_t ident,
			   uint64_t ts);

/* Event e's generic format file text. */
void ttrace_ftevent_format(struct seqbuf *s, const struct ttrace_event_meta *e);

/* Event ev (of metadata e) as a generic record into rec
 * (TTRACE_FTPAGE_REC_MAX bytes), pid in its header, names from resolve;
 * returns its bytes. */
size_t ttrace_ftevent_record(uint8_t *rec, const struct ttrace_event_meta *e,
			     const struct ttrace_event_view *ev, uint32_t pid,
			     ttrace_resolve_fn resolve, void *rarg);

#endif /* TTRACE_FTEVENT_H */
