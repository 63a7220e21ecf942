/*
 * ttcmd_errno.c: `ttdecode errno`, the origin of every failing syscall's
 * error in a trace (tterrno.h, docs/analysis.md):
 *
 *	ttdecode errno [--from NS] [--to NS] TRACE
 *
 * reads syscall_enter/exit and the function graph's func_entry/func_exit
 * (whose retval field is the function's return value) in time order, per
 * thread (the syscall or trap context's pid), and prints one report per
 * syscall that returned an error:
 *
 *	4019283 ns errtest[5] open = -2 (no such file or directory): first returned by walk_component
 *	    sys_open > path_lookup > walk_component
 */
#include <inttypes.h>

#include <errno_text.h>

#include "ttdecode.h"
#include "ttmerge.h"
#include "ttmodel.h"
#include "ttsched.h"
#include "tterrno.h"

enum role { R_SYS_ENTER, R_SYS_EXIT, R_ENTRY, R_EXIT, NROLES };

static const char *const role_names[NROLES] = {
	"syscall_enter", "syscall_exit", "func_entry", "func_exit",
};

struct errno_run {
	const struct ttload *t;
	const struct ttfilter *f;
	uint32_t role[NROLES];
	uint32_t retval;		/* func_exit's field, or UINT32_MAX */
};

/* The aux name of (tag, ident) at ts, printed, else the ident in hex. */
static void put_name(const struct ttload *t, unsigned tag, uint64_t ident,
		     uint64_t ts)
{
	const char *str;
	size_t n = ttload_resolve((void *)t, tag, ident, ts, &str);

	if (n)
		printf("%.*s", (int)n, str);
	else
		printf("%#llx", ull(ident));
}

static void report(void *arg, const struct tterrno_report *r)
{
	const struct errno_run *run = arg;
	const struct ttload *t = run->t;
	uint64_t ts = ttfilter_ns_to_ts(t, r->ns > 0 ? (uint64_t)r->ns : 0);

	if (!ttfilter_time(run->f, ts))
		return;
	printf("%" PRId64 " ns ", r->ns);
	put_name(t, TTRACE_AUX_PROC_NAME, r->pid, ts);
	printf("[%u] ", r->pid);
	put_name(t, TTRACE_AUX_SYSCALL_NAME, r->nr, ts);
	printf(" = %lld (%s): ", (long long)r->ret, errno_text(-r->ret));
	if (!r->found) {
		printf("no traced function returned it%s\n",
		       run->retval == UINT32_MAX ? " (func_exit records no "
		       "return value in this trace)" : "");
		return;
	}
	printf("first returned by ");
	put_name(t, TTRACE_AUX_FUNC_NAME, r->chain[r->nchain - 1], ts);
	printf(" at %" PRId64 " ns\n   ", r->at);
	for (uint32_t i = 0; i < r->nchain; i++) {
		printf(" %s", i ? "> " : "");
		put_name(t, TTRACE_AUX_FUNC_NAME, r->chain[i], ts);
	}
	printf("\n");
}

/* One record of the trace into e. */
static void event(struct errno_run *run, struct tterrno *e,
		  const struct ttrace_event_view *ev)
{
	uint32_t pid = TTRACE_CTX_PID(ev->context), id = ev->id;
	int64_t ns = ttmodel_ns(run->t, ev->timestamp);

	if ((ev->ctx_kind != TTRACE_CTX_SYSC &&
	     ev->ctx_kind != TTRACE_CTX_TRAP) || !pid || ev->nwords < 1)
		return;
	if (id == run->role[R_SYS_ENTER])
		tterrno_sys_enter(e, pid, ns);
	else if (id == run->role[R_SYS_EXIT] && ev->nwords >= 2)
		tterrno_sys_exit(e, pid, ns, ev->args[0],
				 (int64_t)ev->args[1]);
	else if (id == run->role[R_ENTRY] && ev->nwords >= 2)
		tterrno_entry(e, pid, ev->args[0], (uint32_t)ev->args[1]);
	else if (id == run->role[R_EXIT] && ev->nwords >= 2 &&
		 run->retval < ev->nwords)
		tterrno_exit(e, pid, ns, ev->args[0], (uint32_t)ev->args[1],
			     ev->args[run->retval]);
}

static int errno_walk(struct errno_run *run)
{
	struct ttmerge_ids roles = { { 0 } };
	struct tterrno e;
	struct ttmerge mg;
	struct ttmerge_item it;

	for (uint32_t r = 0; r < NROLES; r++) {
		run->role[r] = ttsched_event_id(run->t, role_names[r]);
		ttmerge_ids_add(&roles, run->role[r]);
	}
	run->retval = ttsched_arg(run->t, run->role[R_EXIT], "retval");
	if (ttmerge_init_only(&mg, run->t, &roles) < 0)
		return -1;
	tterrno_init(&e, report, run);
	while (!e.oom && ttmerge_next(&mg, &it))
		if (it.loss)
			printf("-- cpu%u: %llu records lost (%s) --\n", it.cpu,
			       ull(it.loss->count),
			       ttrace_loss_name(it.loss->reason));
		else
			event(run, &e, it.ev);
	ttmerge_free(&mg);
	printf("%llu failing syscalls, %llu without a traced origin\n",
	       ull(e.failed), ull(e.untraced));
	tterrno_free(&e);
	return e.oom ? -1 : 0;
}

static int run_errno(int argc, char **argv)
{
	struct errno_run run;
	struct ttfilter f;
	struct ttload t;
	int rc;

	if ((rc = ttdecode_open("errno", &argc, argv, TTFILTER_WINDOW, 1,
				"one TRACE operand", &f, &t)))
		return rc;
	run = (struct errno_run){ .t = &t, .f = &f };
	rc = errno_walk(&run);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	ttdecode_close(&f, &t);
	return rc < 0 ? 1 : ttdecode_finish_output(stdout, "stdout");
}

static const struct ttdecode_command cmd_errno = {
	"errno", 1, run_errno, "errno [--from NS] [--to NS] TRACE" };
TTDECODE_COMMAND(cmd_errno);
