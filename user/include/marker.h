/*
 * marker: a user marker in the trace (docs/probes.md's user group: the
 * text lands in the aux buffer, a user_marker record names it), for the
 * programs whose traces the tests read by their markers.
 *
 *	marker("sched-begin");
 */
#ifndef ULIB_MARKER_H
#define ULIB_MARKER_H

/* Writes text to /dev/ttrace/marker; a failure is warned about, not
 * fatal (a trace without the marker says so by itself). */
void marker(const char *text);

#endif /* ULIB_MARKER_H */
