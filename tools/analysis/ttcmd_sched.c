/*
 * ttcmd_sched.c: `ttdecode critpath` and `ttdecode wakeup`, the printing
 * of ttcrit's analyses of a trace's scheduling model (docs/analysis.md).
 *
 *	ttdecode critpath [--from NS] [--to NS] (--pid N | --boot) TRACE
 *	ttdecode wakeup [--from NS] [--to NS] TRACE
 *
 * Times print as nanoseconds since boot, durations in ns, so that the
 * pieces of a critical path add up, visibly, to its window. Names come
 * from the trace's aux records at the time they are used.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ttcrit.h"
#include "ttdecode.h"
#include "ttmerge.h"
#include "ttmodel.h"

#define NAME_MAX_LEN	96

/* The aux name of (tag, ident) at ns into buf, else prefix and ident in
 * decimal (prefix NULL: the ident in hex). */
static const char *aux_name(const struct ttload *t, unsigned tag,
			    uint64_t ident, int64_t ns, const char *prefix,
			    char buf[NAME_MAX_LEN])
{
	const char *str;
	size_t n = ttload_resolve((void *)t, tag, ident,
				  ttfilter_ns_to_ts(t, ns > 0 ? (uint64_t)ns :
						    0), &str);

	if (n)
		snprintf(buf, NAME_MAX_LEN, "%.*s", (int)n, str);
	else if (prefix)
		snprintf(buf, NAME_MAX_LEN, "%s%llu", prefix, ull(ident));
	else
		snprintf(buf, NAME_MAX_LEN, "%#llx", ull(ident));
	return buf;
}

/* "NAME[pid]" of a thread at ns. */
static const char *thread_name(const struct ttload *t, uint32_t pid,
			       int64_t ns, char buf[NAME_MAX_LEN])
{
	const char *str;
	size_t n = ttload_resolve((void *)t, TTRACE_AUX_PROC_NAME, pid,
				  ttfilter_ns_to_ts(t, ns > 0 ? (uint64_t)ns :
						    0), &str);

	if (!n)
		snprintf(buf, NAME_MAX_LEN, "pid %u", pid);
	else if (pid >= TTRACE_IDLE_PID(0))
		snprintf(buf, NAME_MAX_LEN, "%.*s", (int)n, str);
	else
		snprintf(buf, NAME_MAX_LEN, "%.*s[%u]", n > 80 ? 80 : (int)n,
			 str, pid);
	return buf;
}

/* "woken by NAME[pid] at NS" / "by IRQ NAME" / "by nobody traced". */
static void print_waker(const struct ttload *t, const struct ttcrit_entry *e,
			int64_t to)
{
	char b[NAME_MAX_LEN];
	const char *verb = e->state == TTSCHED_NEW ? "created" : "woken";

	if (e->woken > to) {
		printf(", not woken by %" PRId64 "%s", to,
		       e->woken == INT64_MAX ? " (nor by the trace's end)" :
		       "");
		return;
	}
	if (e->waker.kind == TTSCHED_WAKER_THREAD)
		printf(", %s by %s", verb,
		       thread_name(t, e->waker.id, e->woken, b));
	else if (e->waker.kind == TTSCHED_WAKER_IRQ)
		printf(", %s by IRQ %s", verb, aux_name(t, TTRACE_AUX_IRQ_NAME,
		       e->waker.id, e->woken, "vector ", b));
	else
		printf(", %s by nobody traced", verb);
	printf(" at %" PRId64, e->woken);
}

/* What entry e says, after its thread's name. */
static void print_what(const struct ttload *t, const struct ttcrit_entry *e,
		       int64_t to)
{
	char b[NAME_MAX_LEN];

	switch (e->state) {
	case TTSCHED_RUNNING:
		if (e->sys)
			printf(" running in %s", aux_name(t,
			       TTRACE_AUX_SYSCALL_NAME, e->sys - 1, e->start,
			       "syscall ", b));
		else if (e->pid >= TTRACE_KTHREAD_PID(0))
			printf(" running in the kernel");	/* a kthread's */
		else
			printf(" running in user mode");
		printf(" on cpu%u", e->cpu);
		return;
	case TTSCHED_RUNNABLE:
		if (e->cpu == TTSCHED_NO_CPU)
			printf(" runnable");
		else
			printf(" runnable on cpu%u", e->cpu);
		if (e->behind != TTCRIT_NO_PID)
			printf(" behind %s", thread_name(t, e->behind,
							 e->start, b));
		return;
	case TTSCHED_BLOCKED:
	case TTSCHED_NEW:
		printf(e->state == TTSCHED_NEW ? " not yet created" :
		       " blocked");
		if (e->caller)
			printf(" in %s", aux_name(t, TTRACE_AUX_KSYM_NAME,
			       e->caller, e->start, NULL, b));
		if (e->chan)
			printf(" on %#llx", ull(e->chan));
		print_waker(t, e, to);
		printf(e->kind == TTCRIT_WAIT ? ":" : "");
		return;
	default:
		printf(" %s", e->state == TTSCHED_DEAD ? "exited" :
		       "untraced (before its first record)");
	}
}

/* The window's seconds of each thread and state, largest first. */
struct total {
	uint32_t pid, state;
	int64_t ns;
};

static int by_ns(const void *a, const void *b)
{
	const struct total *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) :
	       x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) :
	       (x->state > y->state) - (x->state < y->state);
}

/* Prints p's sum and its totals by thread and state. Returns -1 when
 * out of memory. */
static int print_totals(const struct ttload *t, const struct ttcrit_path *p,
			int64_t from, int64_t to)
{
	struct total *tot = calloc(p->n ? p->n : 1, sizeof(*tot));
	uint64_t n = 0;
	int64_t sum = 0;
	char b[NAME_MAX_LEN];

	if (!tot)
		return -1;
	for (uint64_t i = 0; i < p->n; i++) {
		const struct ttcrit_entry *e = &p->e[i];
		uint64_t k;

		if (e->kind != TTCRIT_PIECE)
			continue;
		sum += e->end - e->start;
		for (k = 0; k < n && (tot[k].pid != e->pid ||
				      tot[k].state != e->state); k++)
			;
		if (k == n)
			tot[n++] = (struct total){ e->pid, e->state, 0 };
		tot[k].ns += e->end - e->start;
	}
	printf("pieces: %" PRId64 " ns = wall %" PRId64 " ns\n", sum,
	       to - from);
	qsort(tot, n, sizeof(*tot), by_ns);
	printf("by thread and state:\n");
	for (uint64_t k = 0; k < n; k++)
		printf("%14" PRId64 " ns %6.2f%%  %s %s\n", tot[k].ns,
		       100.0 * (double)tot[k].ns / (double)(to - from),
		       thread_name(t, tot[k].pid, from, b),
		       tot[k].state == TTCRIT_UNTRACED ? "untraced" :
		       ttsched_state_name(tot[k].state));
	free(tot);
	return 0;
}

/* The declared losses of t between from and to (ns), said as a warning:
 * the path may miss what they held. */
static void print_losses(const struct ttload *t, int64_t from, int64_t to)
{
	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		for (uint64_t i = 0; i < t->cpus[c].nlosses; i++) {
			const struct ttload_loss *l = &t->cpus[c].losses[i];
			int64_t ns = l->ts == UINT64_MAX ? to :
				     ttmodel_ns(t, l->ts);

			if (ns >= from && ns <= to)
				printf("warning: cpu%u: %llu records lost (%s) "
				       "before %" PRId64 ": the path there may "
				       "miss what they held\n", c,
				       ull(l->count),
				       ttrace_loss_name(l->reason), ns);
		}
}

static int print_path(const struct ttload *t, const struct ttsched *s,
		      uint32_t pid, int64_t from, int64_t to)
{
	struct ttcrit_path p;
	char b[NAME_MAX_LEN];

	if (ttcrit_path(&p, s, pid, from, to) < 0)
		return -1;
	printf("critpath of %s from %" PRId64 " to %" PRId64 ": %" PRId64
	       " ns\n", thread_name(t, pid, from, b), from, to, to - from);
	print_losses(t, from, to);
	printf("%14s %14s %12s  what\n", "start", "end", "ns");
	for (uint64_t i = 0; i < p.n; i++) {
		const struct ttcrit_entry *e = &p.e[i];

		printf("%14" PRId64 " %14" PRId64 " %12" PRId64 "  %*s%s",
		       e->start, e->end, e->end - e->start, 2 * e->depth, "",
		       thread_name(t, e->pid, e->start, b));
		print_what(t, e, to);
		printf("\n");
	}
	if (print_totals(t, &p, from, to) < 0) {
		ttcrit_path_free(&p);
		return -1;
	}
	ttcrit_path_free(&p);
	return 0;
}

/* ---- critpath ------------------------------------------------------------ */

/*
 * The boot's end (the shell_ready mark, docs/boot-profile.md) in *ns and
 * the thread that reached it (the syscall's, else the one running on its
 * CPU) in *pid. Returns 0, or -1 when the trace has no such mark.
 */
static int boot_end(const struct ttload *t, const struct ttsched *s,
		    int64_t *ns, uint32_t *pid)
{
	uint32_t id = ttsched_event_id(t, "boot_phase");
	struct ttmerge mg;
	struct ttmerge_item it;
	int rc = -1;

	if (id == UINT32_MAX || ttmerge_init(&mg, t) < 0)
		return -1;
	while (rc && ttmerge_next(&mg, &it)) {
		const struct ttrace_event_view *ev = it.ev;
		const char *str;
		int64_t k;

		if (it.loss || ev->id != id || ev->nwords < 1 ||
		    ttload_resolve((void *)t, TTRACE_AUX_BOOT_PHASE,
				   ev->args[0], ev->timestamp, &str) != 11 ||
		    memcmp(str, "shell_ready", 11))
			continue;
		*ns = ttmodel_ns(t, ev->timestamp);
		*pid = TTRACE_CTX_PID(ev->context);
		if (ev->ctx_kind != TTRACE_CTX_SYSC || !*pid) {
			k = ttsched_run_at(s, it.cpu, *ns);
			*pid = k >= 0 ? s->cpus[it.cpu].runs[k].pid : 0;
		}
		rc = 0;
	}
	ttmerge_free(&mg);
	return rc;
}

/* Takes --boot out of argv; returns whether it was there. */
static bool take_boot(int *argc, char **argv)
{
	int out = 0;
	bool boot = false;

	for (int i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--boot"))
			boot = true;
		else
			argv[out++] = argv[i];
	}
	*argc = out;
	return boot;
}

static int run_critpath(int argc, char **argv)
{
	bool boot = take_boot(&argc, argv);
	struct ttfilter f;
	struct ttload t;
	struct ttsched s;
	int64_t from, to;
	uint32_t pid;
	int rc;

	if ((rc = ttdecode_open("critpath", &argc, argv, TTFILTER_ALL, 1,
				"one TRACE operand", &f, &t)))
		return rc;
	if (f.has_cpu || f.glob || boot == f.has_pid) {
		ttdecode_close(&f, &t);
		return ttdecode_usage_error("critpath", boot ?
			"--boot takes no --pid, --cpu or --event" :
			"one of --pid N or --boot (and no --cpu, --event)");
	}
	if (ttsched_build(&s, &t, f.has_from && !boot ? (int64_t)f.from_ns :
			  INT64_MIN) < 0) {
		ttdecode_close(&f, &t);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	from = f.has_from ? (int64_t)f.from_ns : s.start;
	to = f.has_to ? (int64_t)f.to_ns : s.end;
	pid = f.pid;
	if (boot && boot_end(&t, &s, &to, &pid) < 0) {
		fprintf(stderr, "ttdecode critpath: no shell_ready mark in "
			"%s: not a boot trace (make bootprof)\n", argv[0]);
		rc = 1;
	} else if (boot) {
		from = f.has_from ? from : 0;	/* power-on */
	}
	if (!rc && !ttsched_thread(&s, pid)) {
		fprintf(stderr, "ttdecode critpath: pid %u has no scheduling "
			"record in %s\n", pid, argv[0]);
		rc = 1;
	}
	if (!rc && print_path(&t, &s, pid, from, to < from ? from : to) < 0) {
		fprintf(stderr, "ttdecode: out of memory\n");
		rc = 1;
	}
	ttsched_free(&s);
	ttdecode_close(&f, &t);
	return rc ? rc : ttdecode_finish_output(stdout, "stdout");
}

static const struct ttdecode_command cmd_critpath = {
	"critpath", 1, run_critpath,
	"critpath [--from NS] [--to NS] (--pid N | --boot) TRACE" };
TTDECODE_COMMAND(cmd_critpath);

/* ---- wakeup -------------------------------------------------------------- */

static int by_max(const void *a, const void *b)
{
	const struct ttcrit_latency *x = a, *y = b;

	return x->max != y->max ? (x->max < y->max ? 1 : -1) :
	       (x->pid > y->pid) - (x->pid < y->pid);
}

static int print_latencies(const struct ttload *t, const struct ttsched *s,
			   int64_t from, int64_t to)
{
	struct ttcrit_latency *l = calloc(s->nthreads ? s->nthreads : 1,
					  sizeof(*l));
	uint32_t n = 0;
	char b[NAME_MAX_LEN];

	if (!l)
		return -1;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		if (s->threads[i].pid >= TTRACE_IDLE_PID(0))
			continue;	/* a CPU's idle thread waits for nothing */
		if (ttcrit_latency(s, &s->threads[i], from, to, &l[n]) < 0) {
			free(l);
			return -1;
		}
		n += l[n].count > 0;
	}
	qsort(l, n, sizeof(*l), by_max);
	printf("%-24s %8s %12s %12s %12s %14s %14s\n", "thread", "delays",
	       "p50 ns", "p99 ns", "max ns", "max at", "running ns");
	for (uint32_t i = 0; i < n; i++)
		printf("%-24s %8llu %12" PRId64 " %12" PRId64 " %12" PRId64
		       " %14" PRId64 " %14" PRId64 "\n",
		       thread_name(t, l[i].pid, l[i].max_at, b),
		       ull(l[i].count), l[i].p50, l[i].p99, l[i].max,
		       l[i].max_at, l[i].running);
	printf("%u threads; %llu wakeups of threads not blocked, %llu "
	       "switches in without a wakeup\n", n, ull(s->counts.spurious),
	       ull(s->counts.unwoken));
	free(l);
	return 0;
}

static int run_wakeup(int argc, char **argv)
{
	struct ttfilter f;
	struct ttload t;
	struct ttsched s;
	int rc;

	if ((rc = ttdecode_open("wakeup", &argc, argv, TTFILTER_WINDOW, 1,
				"one TRACE operand", &f, &t)))
		return rc;
	if (ttsched_build(&s, &t, f.has_from ? (int64_t)f.from_ns :
			  INT64_MIN) < 0) {
		ttdecode_close(&f, &t);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	rc = print_latencies(&t, &s, f.has_from ? (int64_t)f.from_ns : s.start,
			     f.has_to ? (int64_t)f.to_ns : s.end + 1);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	ttsched_free(&s);
	ttdecode_close(&f, &t);
	return rc < 0 ? 1 : ttdecode_finish_output(stdout, "stdout");
}

static const struct ttdecode_command cmd_wakeup = {
	"wakeup", 1, run_wakeup, "wakeup [--from NS] [--to NS] TRACE" };
TTDECODE_COMMAND(cmd_wakeup);
