/*
 * tterrno: where each failing syscall's error came from, out of the
 * function graph's return values (`ttdecode errno`, docs/analysis.md).
 *
 * Per thread it keeps the graph's call stack (each entry at its depth)
 * and, since the syscall began, the first function to return each error
 * value, with the call chain that led to it. When the syscall returns E,
 * the origin is the function that first returned E: the deepest one,
 * since a function returns after its callees. The first, not the last
 * or the outermost, because errors also travel outside return values
 * (ns_open() hands its walk's -ENOENT up through a pointer and returns
 * NULL; errstr_set(err, ...) then returns it again): the first return of
 * E is where it was made. When no traced function returned E since the
 * syscall began (the graph filter left them out, or the syscall's own
 * code made E), the report says so.
 *
 * Usage:
 *	struct tterrno e;
 *	tterrno_init(&e, report_fn, arg);
 *	tterrno_sys_enter(&e, pid, ns, nr);
 *	tterrno_entry(&e, pid, fn, depth);
 *	tterrno_exit(&e, pid, ns, fn, depth, retval);
 *	tterrno_sys_exit(&e, pid, ns, nr, ret);	// calls report_fn if ret < 0
 *	tterrno_free(&e);
 */
#ifndef TTERRNO_H
#define TTERRNO_H

#include <stdbool.h>
#include <stdint.h>

#define TTERRNO_DEPTH	64		/* graph depths kept (deeper: the
					   chain stops there) */
#define TTERRNO_MAX	4095		/* errors are -1 .. -TTERRNO_MAX */
#define TTERRNO_ORIGINS	8		/* distinct errors kept per syscall
					   (more: the later ones untraced) */

struct tterrno_report {
	uint32_t pid;
	uint64_t nr;			/* the syscall */
	int64_t ret;			/* its error (negative) */
	int64_t start, ns;		/* its enter and exit */
	bool found;			/* an origin was traced */
	int64_t at;			/* when the origin returned */
	uint32_t nchain;		/* chain[0] outermost .. the origin */
	uint64_t chain[TTERRNO_DEPTH];
};

typedef void (*tterrno_report_fn)(void *arg, const struct tterrno_report *r);

/* The first return of error err in a syscall. */
struct tterrno_origin {
	int64_t err, at;
	uint32_t nchain;
	uint64_t chain[TTERRNO_DEPTH];
};

struct tterrno_thread {
	uint32_t pid;
	bool in_sys;
	int64_t sys_start;
	uint64_t stack[TTERRNO_DEPTH];	/* fn at each depth */
	uint32_t norigins;
	struct tterrno_origin origins[TTERRNO_ORIGINS];
};

struct tterrno {
	struct tterrno_thread *th;	/* sorted by pid */
	uint32_t n;
	uint64_t cap;
	tterrno_report_fn report;
	void *arg;
	uint64_t failed;		/* syscalls that failed */
	uint64_t untraced;		/* ... whose origin is not traced */
	bool oom;
};

void tterrno_init(struct tterrno *e, tterrno_report_fn report, void *arg);
void tterrno_free(struct tterrno *e);
int64_t tterrno_value(uint64_t retval);
void tterrno_sys_enter(struct tterrno *e, uint32_t pid, int64_t ns);
void tterrno_sys_exit(struct tterrno *e, uint32_t pid, int64_t ns,
		      uint64_t nr, int64_t ret);
void tterrno_entry(struct tterrno *e, uint32_t pid, uint64_t fn,
		   uint32_t depth);
void tterrno_exit(struct tterrno *e, uint32_t pid, int64_t ns, uint64_t fn,
		  uint32_t depth, uint64_t retval);

#endif /* TTERRNO_H */
