/*
 * tttracedat_linux.c: the events of a trace that Linux has too, written to
 * the trace.dat as Linux writes them, so trace-cmd report's plugins, -w
 * (wakeup latency), --profile and KernelShark's sched plugin read them as
 * a Linux trace's. Which events, their formats and their records are
 * kern/trace/lib/ftrace_linux.c's (ttrace_ftlinux.h), the ones the
 * kernel's tracefs serves; this file gives them what the whole trace
 * knows: names at any time (the aux), a thread's prio from its wakeups
 * (sched_switch has none of its own), the time a returning call began
 * (its entry, paired by the model on its own thread), and picks which
 * Linux systems the file carries.
 */
#include <stdlib.h>
#include <string.h>

#include "ttexport.h"
#include "tttracedat.h"

static int by_end(const void *a, const void *b)
{
	const struct td_call *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* ops: the time an exit of fn began: its entry on its own thread (the
 * model's pairing, td_calls), else the exit's own time ns. */
static uint64_t calltime(void *arg, const struct ttrace_event_view *ev,
			 uint64_t fn, uint32_t depth, uint64_t ns)
{
	struct td_export *x = arg;
	struct td_call key = { ev->timestamp, fn, 0 }, *call;

	(void)depth;

	call = x->ncalls ? bsearch(&key, x->calls, x->ncalls,
				   sizeof(*x->calls), by_end) : NULL;
	return call ? ttexport_ns(x->t, call->start) : ns;
}

/* The calls of the model's function spans that returned (their exit
 * pairs with their own thread's entry, wherever each ran), by (end, fn).
 * Returns 0 or -1 (memory). */
static int find_calls(struct td_export *x)
{
	const struct ttmodel *m = x->m;
	uint64_t n = 0;

	for (uint32_t i = 0; i < m->ntracks; i++)
		for (uint64_t k = 0; k < m->tracks[i].nspans; k++)
			n += m->tracks[i].spans[k].kind == TTMODEL_FUNC &&
			     m->tracks[i].spans[k].how == TTMODEL_DONE;
	if (n && !(x->calls = malloc(n * sizeof(*x->calls))))
		return -1;
	for (uint32_t i = 0; i < m->ntracks; i++)
		for (uint64_t k = 0; k < m->tracks[i].nspans; k++) {
			const struct ttmodel_span *s = &m->tracks[i].spans[k];

			if (s->kind == TTMODEL_FUNC && s->how == TTMODEL_DONE)
				x->calls[x->ncalls++] = (struct td_call){
					s->end, s->ident, s->start };
		}
	if (n)
		qsort(x->calls, n, sizeof(*x->calls), by_end);
	return 0;
}

/* ops: pid's prio at ts, from its wakeups (ttexport_prio). */
static uint32_t prio(void *arg, uint64_t pid, uint64_t ts)
{
	const struct td_export *x = arg;

	return ttexport_prio(&x->prios, pid, ts);
}

/*
 * Finds which events of the trace are Linux's (x->linux_of), each
 * thread's prio (x->prios) and the function calls an exit's calltime
 * comes from. Returns 0 or -1 (memory).
 */
int td_linux_init(struct td_export *x)
{
	const struct ttrace_meta_table *m = &x->t->meta;

	x->linux_of = calloc(m->nevents ? m->nevents : 1,
			     sizeof(*x->linux_of));
	if (!x->linux_of)
		return -1;
	for (uint32_t i = 0; i < m->nevents; i++)
		x->linux_of[i] = ttrace_ftlinux_find(&m->events[i]);
	x->ops = (struct ttrace_ftlinux_ops){
		.resolve = ttload_resolve, .rarg = x->t, .prio = prio,
		.calltime = calltime, .arg = x };
	if (ttexport_prios_init(&x->prios, x->t) < 0)
		return -1;
	return find_calls(x);
}

void td_linux_free(struct td_export *x)
{
	ttexport_prios_free(&x->prios);
	free(x->linux_of);
	free(x->calls);
}

/* Whether an event of the trace is Linux's event l. */
static bool mapped(const struct td_export *x, const struct ttrace_ftlinux *l)
{
	for (uint32_t i = 0; i < x->t->meta.nevents; i++)
		if (x->linux_of[i] == l)
			return true;
	return false;
}

/* Whether Linux's event l has its format in the file: when the trace has
 * it; and sched_switch and the function graph's always (a trace without
 * them is still read as Linux's), funcgraph_exit in the form of the
 * trace's func_exit (the last one, without retval, if none). */
static bool wanted(const struct td_export *x, const struct ttrace_ftlinux *l)
{
	const char *ours = ttrace_ftlinux_ours(l);

	if (mapped(x, l))
		return true;
	if (!strcmp(ours, "func_exit")) {
		size_t k = 0;

		while (ttrace_ftlinux_at(k + 1))
			k++;
		return l == ttrace_ftlinux_at(k) &&
		       !mapped(x, ttrace_ftlinux_at(k - 1));
	}
	return !strcmp(ours, "sched_switch") || !strcmp(ours, "func_entry");
}

/* The system of the table's k-th event when it is the first wanted one
 * of its system, else NULL. */
static const char *first_of_system(const struct td_export *x, size_t k)
{
	const struct ttrace_ftlinux *l = ttrace_ftlinux_at(k);
	const char *sys = ttrace_ftlinux_system(l);

	if (!wanted(x, l))
		return NULL;
	for (size_t j = 0; j < k; j++)
		if (!strcmp(ttrace_ftlinux_system(ttrace_ftlinux_at(j)), sys) &&
		    wanted(x, ttrace_ftlinux_at(j)))
			return NULL;
	return sys;
}

/* Writes the format files of system sys's wanted events: count, then
 * each. */
static void system_formats(struct td_export *x, const char *sys)
{
	const struct ttrace_ftlinux *l;
	uint32_t n = 0;

	for (size_t k = 0; (l = ttrace_ftlinux_at(k)); k++)
		n += !strcmp(ttrace_ftlinux_system(l), sys) && wanted(x, l);
	td_u32(x, n);
	for (size_t k = 0; (l = ttrace_ftlinux_at(k)); k++) {
		char text[TTRACE_FTEVENT_FORMAT_MAX];
		struct seqbuf s;

		if (strcmp(ttrace_ftlinux_system(l), sys) || !wanted(x, l))
			continue;
		seqbuf_init(&s, text, sizeof(text));
		ttrace_ftlinux_format(&s, l);
		td_format_out(x, &s);
	}
}

/* The ftrace section: the count and formats of ftrace's events. */
void td_linux_ftrace(struct td_export *x)
{
	system_formats(x, "ftrace");
}

/* How many event systems of Linux's td_linux_systems() writes. */
uint32_t td_linux_nsystems(const struct td_export *x)
{
	uint32_t n = 0;

	for (size_t k = 0; ttrace_ftlinux_at(k); k++) {
		const char *sys = first_of_system(x, k);

		n += sys && strcmp(sys, "ftrace");
	}
	return n;
}

/* Each system of Linux's events but ftrace: its name, then its formats. */
void td_linux_systems(struct td_export *x)
{
	for (size_t k = 0; ttrace_ftlinux_at(k); k++) {
		const char *sys = first_of_system(x, k);

		if (!sys || !strcmp(sys, "ftrace"))
			continue;
		td_put(x, sys, strlen(sys) + 1);
		system_formats(x, sys);
	}
}

/* Record ev (at ns) as its Linux event in rec: its size, or 0 if ev is
 * none of Linux's. */
size_t td_linux_record(struct td_export *x, uint8_t *rec,
		       const struct ttrace_event_view *ev, uint64_t ns)
{
	const struct ttrace_ftlinux *l = ev->id < x->t->meta.nevents ?
					 x->linux_of[ev->id] : NULL;

	return l ? ttrace_ftlinux_record(rec, l, &x->t->meta.events[ev->id],
					 ev, ns, &x->pid, &x->ops) : 0;
}
