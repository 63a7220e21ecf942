/*
 * Host tests of the exporters (tools/export/ttuftrace.c and ttctf.c): a trace
 * built by hand (entries with their seq, names through kern/lib's aux
 * ring, a LOSS section, a wide event with continuations, one CPU without
 * records) is loaded with tools/load/ttload.c, exported into a fresh directory,
 * and the bytes checked: every uftrace .dat word (depths kept consistent
 * when the ring lost an end: an exit without entry dropped, an entry
 * without exit closed at the loss and at the end, a blocked syscall
 * reopened after a context switch; kernel function calls of the graph
 * tracer nested with them and named by their aux records), the symbol,
 * map, task and info files,
 * and every CTF packet header and context (a packet split at the loss,
 * events_discarded counting it) and the first events' bytes.
 *
 *	test_ttexport		run the tests
 *	test_ttexport FILE	write the hand-made trace to FILE (for the
 *				end-to-end test's readers)
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "htest.h"

#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>

#include "ttexport.h"
#include "ttmerge.h"

#define NCPU		3		/* cpu2 writes nothing */
#define TSC_BOOT	1000000ULL
#define TSC_HZ		1000000000ULL	/* 1 tick = 1 ns */
#define AUX_SIZE	4096
#define MAXENT		64
#define LOST_N		5		/* cpu1's declared loss */
#define LOSS_FIRST	3		/* its first index */
#define BEFORE_N	7		/* cpu0's records overwritten before
					   the trace: its first LOSS run */

enum { EV_BOOT, EV_SYS_IN, EV_SYS_OUT, EV_IRQ_IN, EV_IRQ_OUT, EV_SCHED,
       EV_WIDE, EV_FUNC_IN, EV_FUNC_OUT, NEV };

static const struct ttrace_arg_meta a_boot[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE, 0, 0 },
	{ "arg", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_sys_in[] = {
	{ "nr", TTRACE_ARG_STR, TTRACE_AUX_SYSCALL_NAME, 0, 0 },
	{ "a0", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_sys_out[] = {
	{ "nr", TTRACE_ARG_STR, TTRACE_AUX_SYSCALL_NAME, 0, 0 },
	{ "ret", TTRACE_ARG_S64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_irq[] = {
	{ "vector", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_sched[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev_state", TTRACE_ARG_U32, 0, 0, 0 },
};
/* 8 words (one continuation); names that are TSDL keywords */
static const struct ttrace_arg_meta a_wide[] = {
	{ "event", TTRACE_ARG_U8, 0, 0, 0 }, { "string", TTRACE_ARG_S16, 0, 0, 0 },
	{ "struct", TTRACE_ARG_BOOL, 0, 0, 0 }, { "w3", TTRACE_ARG_U64, 0, 0, 0 },
	{ "w4", TTRACE_ARG_U64, 0, 0, 0 }, { "w5", TTRACE_ARG_U64, 0, 0, 0 },
	{ "w6", TTRACE_ARG_PTR, 0, 0, 0 }, { "w7", TTRACE_ARG_S32, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_func[] = {
	{ "fn", TTRACE_ARG_STR, TTRACE_AUX_FUNC_NAME, 0, 0 },
	{ "depth", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_event_meta events[NEV] = {
	{ "boot_phase", "%s arg=%llu", a_boot, EV_BOOT, 0, 1, 2 },
	{ "syscall_enter", "%s(%llu)", a_sys_in, EV_SYS_IN, 1, 1, 2 },
	{ "syscall_exit", "%s = %lld", a_sys_out, EV_SYS_OUT, 1, 1, 2 },
	{ "irq_enter", "vector=%u", a_irq, EV_IRQ_IN, 2, 1, 1 },
	{ "irq_exit", "vector=%u", a_irq, EV_IRQ_OUT, 2, 1, 1 },
	{ "sched_switch", "%s %s %u", a_sched, EV_SCHED, 3, 1, 3 },
	{ "wide", "%u %d %u %llu %llu %llu %p %d", a_wide, EV_WIDE, 3, 1, 8 },
	{ "func_entry", "%s depth=%u", a_func, EV_FUNC_IN, 4, 0, 2 },
	{ "func_exit", "%s depth=%u", a_func, EV_FUNC_OUT, 4, 0, 2 },
};
static const struct ttrace_group_meta groups[] = {
	{ "boot", 0, 1 }, { "syscall", 1, 1 }, { "irq", 2, 1 },
	{ "sched", 3, 1 }, { "func", 4, 0 },
};
static const struct ttrace_meta_table table = { events, groups, NEV, 5 };

/* Kernel functions of the graph tracer (with_funcs), by address. */
#define F_TRAP	0xffffffff80101000ULL
#define F_OPEN	0xffffffff80102000ULL
#define F_WALK	0xffffffff80103000ULL
#define F_LEFT	0xffffffff80104000ULL
#define F_GHOST	0xffffffff80105000ULL
static bool with_funcs;		/* cpu2 runs a traced call chain */
static bool leading_run = true;	/* cpu0's overwritten records declared */

/* ---- building the trace -------------------------------------------------- */

struct cpu_build {
	struct ttrace_entry e[MAXENT];
	uint64_t idx[MAXENT];		/* each entry's logical index */
	unsigned n;
	uint64_t next;			/* next logical index */
};

static struct cpu_build cpus[NCPU];
static struct obuf { uint8_t *p; size_t len, cap; } file;

static int obuf_out(void *arg, const void *buf, uint64_t len)
{
	struct obuf *o = arg;

	if (o->len + len > o->cap) {
		o->cap = (o->len + len) * 2;
		if (!(o->p = realloc(o->p, o->cap)))
			abort();
	}
	memcpy(o->p + o->len, buf, len);
	o->len += len;
	return 0;
}

/* Appends event id on cpu at ts (ns after boot) with context ctx/cword. */
static void put(unsigned cpu, uint64_t ts, unsigned id, unsigned ctx,
		uint64_t cword, const uint64_t *a, unsigned n)
{
	struct cpu_build *c = &cpus[cpu];
	struct ttrace_entry *e = &c->e[c->n];
	uint32_t ncont = ttrace_ncont(n);

	memset(e, 0, sizeof(*e) * (1 + ncont));
	e->timestamp = TSC_BOOT + ts;
	e->type = TTRACE_TYPE(id, ctx, ncont, ctx == TTRACE_CTX_IRQ, cpu) |
		  (uint64_t)TTRACE_SEQ_OF(c->next) << TTRACE_TYPE_SEQ_SHIFT;
	e->context = cword;
	for (unsigned i = 0; i < n && i < TTRACE_ENTRY_ARGS; i++)
		e->data[i] = a[i];
	for (uint32_t k = 0; k < ncont; k++) {
		e[1 + k].timestamp = e->timestamp | TTRACE_TS_CONT;
		for (unsigned i = 0; i < TTRACE_CONT_ARGS; i++) {
			unsigned w = TTRACE_ENTRY_ARGS + k * TTRACE_CONT_ARGS + i;

			e[1 + k].cont[i] = w < n ? a[w] : 0;
		}
	}
	c->n += 1 + ncont;
	c->next += 1 + ncont;
}

#define SYSC(pid, nr)	TTRACE_CTX_PIDWORD(pid, nr)
#define A(...)		(uint64_t[]){ __VA_ARGS__ }, \
			sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)

/*
 * cpu2 (with_funcs): open's call chain, trap { open { do_open { walk } } },
 * with the syscall's own events inside trap; then the exit of a function
 * whose entry is not in the trace, and an entry left open.
 */
static void gen_funcs(void)
{
	put(2, 1000, EV_FUNC_IN, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_TRAP, 0));
	put(2, 1010, EV_SYS_IN, TTRACE_CTX_SYSC, SYSC(1, 5), A(5, 0));
	put(2, 1020, EV_FUNC_IN, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_OPEN, 1));
	put(2, 1030, EV_FUNC_IN, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_WALK, 2));
	put(2, 1040, EV_FUNC_OUT, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_WALK, 2));
	put(2, 1050, EV_FUNC_OUT, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_OPEN, 1));
	put(2, 1060, EV_SYS_OUT, TTRACE_CTX_SYSC, SYSC(1, 5), A(5, 3));
	put(2, 1070, EV_FUNC_OUT, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_TRAP, 0));
	put(2, 1080, EV_FUNC_OUT, TTRACE_CTX_SYSC, SYSC(1, 5), A(F_GHOST, 3));
	put(2, 1090, EV_FUNC_IN, TTRACE_CTX_KTASK, 5, A(F_LEFT, 0));
}

/*
 * cpu0: BEFORE_N records overwritten before its first (a LOSS run), boot
 *	 kmain { irq 32 }, boot memory, (leaves boot) init's write(...),
 *	 switch from init to sh sitting in read (entered before the trace),
 *	 read returns, a wide event.
 * cpu1: pid 3's close exit without its entry, its open entered, irq 40
 *	 entered, LOST_N records lost, irq 33 entered and never left.
 */
static void gen_events(void)
{
	cpus[0].next = BEFORE_N;
	put(0, 100, EV_BOOT, TTRACE_CTX_BOOT, 0, A(1, 0));
	put(0, 200, EV_IRQ_IN, TTRACE_CTX_IRQ, 32, A(32));
	put(0, 300, EV_IRQ_OUT, TTRACE_CTX_IRQ, 32, A(32));
	put(0, 400, EV_BOOT, TTRACE_CTX_BOOT, 1, A(2, 0));
	put(0, 500, EV_SYS_IN, TTRACE_CTX_SYSC, SYSC(1, 4), A(4, 7));
	put(0, 600, EV_SCHED, TTRACE_CTX_SYSC, SYSC(2, 3), A(1, 2, 1));
	put(0, 700, EV_SYS_OUT, TTRACE_CTX_SYSC, SYSC(2, 3), A(3, 9));
	put(0, 800, EV_WIDE, TTRACE_CTX_KTASK, 5,
	    A(0x1ff, 0xfffe, 1, 3, 4, 5, 0xabc, (uint64_t)-2));
	put(1, 150, EV_SYS_OUT, TTRACE_CTX_SYSC, SYSC(3, 6), A(6, 0));
	put(1, 250, EV_SYS_IN, TTRACE_CTX_SYSC, SYSC(3, 5), A(5, 0));
	put(1, 350, EV_IRQ_IN, TTRACE_CTX_IRQ, 40, A(40));
	cpus[1].next += LOST_N;		/* [3, 8) lost */
	put(1, 900, EV_IRQ_IN, TTRACE_CTX_IRQ, 33, A(33));
	if (with_funcs)
		gen_funcs();
}

static void put_name(struct ttrace_aux *aux, unsigned tag, uint64_t ident,
		     const char *s, size_t n)
{
	uint64_t pos;

	if (ttrace_aux_reserve(aux, tag, 0, n, &pos) == 0) {
		ttrace_aux_fill(aux, pos, TSC_BOOT, ident, s, n);
		ttrace_aux_publish(aux, pos);
	}
}

/* Writes one CPU's records: RECORDS [0, 2), LOSS, RECORDS after it for
 * cpu1; everything in one RECORDS section for the others, cpu0's after
 * a LOSS run [0, BEFORE_N) when leading_run (as a writer reading from
 * the ring's start makes it), with a STATS section saying so. */
static void write_cpu(struct ttrace_file_writer *w, uint32_t c)
{
	struct cpu_build *b = &cpus[c];
	unsigned split = c == 1 ? LOSS_FIRST : b->n;
	struct ttrace_file_run h = { .first = c ? 0 : BEFORE_N, .count = split,
				     .type = TTRACE_FILE_SEC_RECORDS };
	struct ttrace_file_stats st = { .written = b->n + BEFORE_N,
					.overwritten = BEFORE_N };
	struct ttrace_file_run l = { .first = LOSS_FIRST, .count = LOST_N,
				     .type = TTRACE_FILE_SEC_LOSS,
				     .reason = TTRACE_LOSS_OVERWRITTEN };
	struct ttrace_file_run before = { .first = 0, .count = BEFORE_N,
					  .type = TTRACE_FILE_SEC_LOSS,
					  .reason = TTRACE_LOSS_OVERWRITTEN };

	if (!b->n)
		return;
	if (c == 0 && leading_run)
		ttrace_file_write_section(w, before.type, c, &before,
					  sizeof(before));
	ttrace_file_section_begin(w, h.type, c, sizeof(h) + split * 64ULL);
	ttrace_file_section_data(w, &h, sizeof(h));
	ttrace_file_section_data(w, b->e, split * 64ULL);
	ttrace_file_section_end(w);
	if (c == 0)
		ttrace_file_write_section(w, TTRACE_FILE_SEC_STATS, c, &st,
					  TTRACE_FILE_STATS_FILTERED);
	if (split == b->n)
		return;
	ttrace_file_write_section(w, l.type, c, &l, sizeof(l));
	h.first = LOSS_FIRST + LOST_N;
	h.count = b->n - split;
	ttrace_file_section_begin(w, h.type, c, sizeof(h) +
				  (b->n - split) * 64ULL);
	ttrace_file_section_data(w, &h, sizeof(h));
	ttrace_file_section_data(w, &b->e[split], (b->n - split) * 64ULL);
	ttrace_file_section_end(w);
}

/* The names: boot phases (one with a quote), syscalls, processes. */
static void build_aux(struct ttrace_aux_view *view)
{
	static _Alignas(8) uint8_t aux_mem[AUX_SIZE], snap[AUX_SIZE];
	static const char *const sys[] = { "", "", "", "read", "write",
					   "open", "close" };
	struct ttrace_aux aux;

	ttrace_aux_init(&aux, aux_mem, AUX_SIZE);
	put_name(&aux, TTRACE_AUX_BOOT_PHASE, 1, "kmain", 5);
	put_name(&aux, TTRACE_AUX_BOOT_PHASE, 2, "mem\"ory", 7);
	for (unsigned i = 3; i < 7; i++)
		put_name(&aux, TTRACE_AUX_SYSCALL_NAME, i, sys[i],
			 strlen(sys[i]));
	put_name(&aux, TTRACE_AUX_PROC_NAME, 1, "init", 4);
	put_name(&aux, TTRACE_AUX_PROC_NAME, 2, "sh", 2);
	if (with_funcs) {
		put_name(&aux, TTRACE_AUX_FUNC_NAME, F_TRAP, "syscall_trap", 12);
		put_name(&aux, TTRACE_AUX_FUNC_NAME, F_OPEN, "do_open", 7);
		put_name(&aux, TTRACE_AUX_FUNC_NAME, F_WALK, "ns_walk", 7);
		put_name(&aux, TTRACE_AUX_FUNC_NAME, F_LEFT, "left_open", 9);
	}
	if (ttrace_aux_snapshot(&aux, NULL, snap, sizeof(snap), view) < 0)
		abort();
}

/* Builds the whole trace file into `file`. */
static void build_trace(void)
{
	static uint8_t meta[4096];
	struct ttrace_aux_view view;
	struct ttrace_version v;
	struct ttrace_file_writer w;
	struct ttrace_file_aux fa;
	size_t meta_len = ttrace_meta_serialise(&table, meta, sizeof(meta));

	memset(cpus, 0, sizeof(cpus));
	gen_events();
	build_aux(&view);
	ttrace_version_init(&v);
	v.num_cpus = NCPU;
	v.entries_per_cpu = MAXENT;
	v.tsc_hz = TSC_HZ;
	v.tsc_boot = TSC_BOOT;
	v.aux_size = AUX_SIZE;
	v.aux_mask = AUX_SIZE - 1;
	v.aux_first = view.first;
	v.aux_last = view.last;
	v.event_count = NEV;
	v.group_mask = 0xf;
	v.tsc_now = TSC_BOOT + 10000;
	v.meta_size = (uint32_t)meta_len;
	free(file.p);
	memset(&file, 0, sizeof(file));
	ttrace_file_writer_init(&w, obuf_out, &file);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &v, sizeof(v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, meta, meta_len);
	for (uint32_t c = 0; c < NCPU; c++)
		write_cpu(&w, c);
	fa = (struct ttrace_file_aux){ view.first, view.last };
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(fa) + view.len);
	ttrace_file_section_data(&w, &fa, sizeof(fa));
	ttrace_file_section_data(&w, view.data, view.len);
	ttrace_file_section_end(&w);
	if (ttrace_file_write_end(&w) < 0)
		abort();
}

/* ---- running an exporter ------------------------------------------------- */

static char dir[256], trace_path[256];

/* Writes the trace to a temporary file and makes an empty directory
 * name for the export (not created). Returns 0 or -1. */
static int setup(const char *what)
{
	FILE *f;

	build_trace();
	snprintf(trace_path, sizeof(trace_path), "/tmp/ttexport-%d.ttr",
		 (int)getpid());
	snprintf(dir, sizeof(dir), "/tmp/ttexport-%d.%s", (int)getpid(), what);
	f = fopen(trace_path, "wb");
	if (!f || fwrite(file.p, 1, file.len, f) != file.len || fclose(f))
		return -1;
	return 0;
}

static char errtext[1024];	/* what the last export printed on stderr */

/* Runs main (ttuftrace_main or ttctf_main) on the trace into dir, with
 * its standard output in /dev/null and its standard error in errtext.
 * Returns its status. */
static int run_export(int (*main_fn)(int, char **))
{
	char *argv[] = { trace_path, dir, NULL };
	FILE *out = stdout, *err = stderr, *e = tmpfile();
	size_t n;
	int rc;

	fflush(stdout);
	stdout = fopen("/dev/null", "w");
	stderr = e;
	rc = main_fn(2, argv);
	fclose(stdout);
	stdout = out;
	stderr = err;
	rewind(e);
	n = fread(errtext, 1, sizeof(errtext) - 1, e);
	errtext[n] = 0;
	fclose(e);
	return rc;
}

/* Reads dir/name whole into *buf (freed by the caller); returns its
 * length, or -1. */
static long slurp(const char *name, uint8_t **buf)
{
	char path[512];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*buf = malloc(n + 1);
	if (fread(*buf, 1, n, f) != (size_t)n)
		n = -1;
	else
		(*buf)[n] = 0;
	fclose(f);
	return n;
}

/* Removes dir and the files in it, and the trace file. */
static void cleanup(void)
{
	struct dirent *d;
	char path[512];
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			unlink(path);
		}
	if (dp)
		closedir(dp);
	rmdir(dir);
	unlink(trace_path);
}

/* ---- uftrace ------------------------------------------------------------- */

#define UF_BASE		0xffff80100000ULL
#define SYM(i)		(UF_BASE + 16 * (i))
/* The symbols in order of first use: the tasks are written cpu0, boot0,
 * cpu1, cpu2, then the processes 3 and 1 (in order of appearance). */
enum { S_LOST, S_IRQ32, S_RUN_SH, S_KMAIN, S_MEMORY, S_IRQ40, S_IRQ33,
       S_OPEN, S_WRITE, NSYM };
enum { ENT, EXI, LOS, EVT };

/* One expected .dat record: ns, type, depth, address. */
struct rec { uint64_t ns; unsigned type, depth; uint64_t addr; };

/* Checks dir/name holds exactly the n records want. */
static int check_dat(const char *name, const struct rec *want, size_t n)
{
	uint8_t *buf = NULL;
	long len = slurp(name, &buf);

	if (len != (long)(n * 16)) {
		free(buf);
		HT_FAIL("%s: %ld bytes, want %zu records", name, len, n);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t w[2], word;

		memcpy(w, buf + 16 * i, 16);
		word = want[i].type | 5ULL << 3 | (uint64_t)want[i].depth << 6 |
		       want[i].addr << 16;
		if (w[0] != want[i].ns || w[1] != word) {
			free(buf);
			HT_FAIL("%s record %zu: %llu %#llx, want %llu %#llx",
				name, i, (unsigned long long)w[0],
				(unsigned long long)w[1],
				(unsigned long long)want[i].ns,
				(unsigned long long)word);
		}
	}
	free(buf);
	return 0;
}

#define CHECK_DAT(name, want)	check_dat(name, want, sizeof(want) / \
					  sizeof(want[0]))

/* cpu0's task: the records overwritten before the trace as a loss at its
 * start, an irq, the run of sh after the switch (the boot phases are not
 * there); its boot track's task: the phases, each lasting until the
 * next, the last (no shell_ready ends the boot) until the trace's end. */
static int test_uftrace_cpu0(void)
{
	static const struct rec cpu0[] = {
		{ 100, ENT, 0, SYM(S_LOST) }, { 100, LOS, 1, BEFORE_N },
		{ 100, EXI, 0, SYM(S_LOST) },
		{ 200, ENT, 0, SYM(S_IRQ32) }, { 300, EXI, 0, SYM(S_IRQ32) },
		{ 600, ENT, 0, SYM(S_RUN_SH) }, { 800, EXI, 0, SYM(S_RUN_SH) },
	};
	static const struct rec boot0[] = {
		{ 100, ENT, 0, SYM(S_KMAIN) }, { 400, EXI, 0, SYM(S_KMAIN) },
		{ 400, ENT, 0, SYM(S_MEMORY) }, { 900, EXI, 0, SYM(S_MEMORY) },
	};
	int rc;

	HT_CHECK(setup("uf0") == 0);
	rc = run_export(ttuftrace_main) || CHECK_DAT("1000000.dat", cpu0) ||
	     CHECK_DAT("2000000.dat", boot0);
	cleanup();
	return rc;
}

/* Without the leading LOSS run (a file written before runs began at the
 * ring's start) nothing is guessed from STATS, which still say BEFORE_N
 * overwritten: cpu0's task starts at its first event. */
static int test_uftrace_no_guess(void)
{
	/* no lost_records symbol first: the others one place earlier */
	static const struct rec cpu0[] = {
		{ 200, ENT, 0, SYM(S_IRQ32 - 1) },
		{ 300, EXI, 0, SYM(S_IRQ32 - 1) },
		{ 600, ENT, 0, SYM(S_RUN_SH - 1) },
		{ 800, EXI, 0, SYM(S_RUN_SH - 1) },
	};
	int rc;

	leading_run = false;
	rc = setup("nog");
	leading_run = true;
	HT_CHECK(rc == 0);
	rc = run_export(ttuftrace_main) || CHECK_DAT("1000000.dat", cpu0);
	cleanup();
	return rc;
}

/* Each process is a task with its syscalls: pid 3's open, cut by cpu1's
 * loss at the loss's start (350, cpu1's last event before it), never
 * stretched to the event after it (900); its close exit without entry
 * dropped; init's write ends where a loss elsewhere may have ended it:
 * at its switch out (600), as init was not running anywhere; sh's read,
 * entered before the trace, is not shown (no task). */
static int test_uftrace_threads(void)
{
	static const struct rec pid3[] = {
		{ 250, ENT, 0, SYM(S_OPEN) }, { 350, EXI, 0, SYM(S_OPEN) },
	};
	static const struct rec pid1[] = {
		{ 500, ENT, 0, SYM(S_WRITE) }, { 600, EXI, 0, SYM(S_WRITE) },
	};
	uint8_t *b = NULL;
	int rc;

	HT_CHECK(setup("uft") == 0);
	rc = run_export(ttuftrace_main) || CHECK_DAT("3.dat", pid3) ||
	     CHECK_DAT("1.dat", pid1);
	if (!rc && slurp("2.dat", &b) >= 0)
		rc = 1, snprintf(ht_why, sizeof(ht_why), "2.dat: sh has a "
				 "task for a call entered before the trace");
	free(b);
	cleanup();
	return rc;
}

/* cpu1: irq 40, open at the loss, cut at its start; the LOST record of
 * the count inside lost_records at the loss's start; the irq left open
 * closed at the end; cpu2 without records has an empty file. */
static int test_uftrace_cpu1(void)
{
	static const struct rec want[] = {
		{ 350, ENT, 0, SYM(S_IRQ40) }, { 350, EXI, 0, SYM(S_IRQ40) },
		{ 350, ENT, 0, SYM(S_LOST) }, { 350, LOS, 1, LOST_N },
		{ 350, EXI, 0, SYM(S_LOST) }, { 900, ENT, 0, SYM(S_IRQ33) },
		{ 900, EXI, 0, SYM(S_IRQ33) },
	};
	int rc;

	HT_CHECK(setup("uf1") == 0);
	rc = run_export(ttuftrace_main) || CHECK_DAT("1000001.dat", want) ||
	     check_dat("1000002.dat", NULL, 0);
	cleanup();
	return rc;
}

/* The graph tracer's calls on cpu2 (gen_funcs), in process 1: on its
 * task, nested with its syscall's frame, which is named syscall:open
 * so that it is not counted with the kernel function of the same call;
 * each function under its own name; the exit without an entry dropped;
 * the entry outside a process (a kernel task) on cpu2's task, closed at
 * the end. */
static int test_uftrace_funcs(void)
{
	enum { S_LEFT = S_OPEN, S_OPEN2, S_WRITE2, S_TRAP, S_DO_OPEN, S_WALK };
	static const struct rec pid1[] = {
		{ 500, ENT, 0, SYM(S_WRITE2) }, { 600, EXI, 0, SYM(S_WRITE2) },
		{ 1000, ENT, 0, SYM(S_TRAP) }, { 1010, ENT, 1, SYM(S_OPEN2) },
		{ 1020, ENT, 2, SYM(S_DO_OPEN) }, { 1030, ENT, 3, SYM(S_WALK) },
		{ 1040, EXI, 3, SYM(S_WALK) }, { 1050, EXI, 2, SYM(S_DO_OPEN) },
		{ 1060, EXI, 1, SYM(S_OPEN2) }, { 1070, EXI, 0, SYM(S_TRAP) },
	};
	static const struct rec cpu2[] = {
		{ 1090, ENT, 0, SYM(S_LEFT) }, { 1090, EXI, 0, SYM(S_LEFT) },
	};
	static const char sym_tail[] =
		"0000000000000070 T left_open\n0000000000000080 T syscall:open\n"
		"0000000000000090 T syscall:write\n"
		"00000000000000a0 T syscall_trap\n00000000000000b0 T do_open\n"
		"00000000000000c0 T ns_walk\n00000000000000d0 ? __sym_end\n";
	uint8_t *sym = NULL;
	long n;
	int rc;

	with_funcs = true;
	rc = setup("uffn");
	with_funcs = false;
	HT_CHECK(rc == 0);
	rc = run_export(ttuftrace_main) || CHECK_DAT("1.dat", pid1) ||
	     CHECK_DAT("1000002.dat", cpu2);
	n = slurp("ttrace.sym", &sym);
	if (!rc && (n < (long)strlen(sym_tail) ||
		    strcmp((char *)sym + n - strlen(sym_tail), sym_tail)))
		rc = 1, snprintf(ht_why, sizeof(ht_why), "ttrace.sym: '%.400s'",
				 n > 0 ? (char *)sym : "");
	free(sym);
	cleanup();
	return rc;
}

/* dir/name must hold exactly want (len bytes). */
static int check_file(const char *name, const void *want, size_t len)
{
	uint8_t *buf;
	long n = slurp(name, &buf);
	int bad = n != (long)len || memcmp(buf, want, len);

	if (bad)
		snprintf(ht_why, sizeof(ht_why), "%s: got %ld bytes '%.300s'",
			 name, n, n > 0 ? (char *)buf : "");
	if (n >= 0)
		free(buf);
	return bad;
}

static int test_uftrace_files(void)
{
	static const uint8_t head[40] = {
		'F', 't', 'r', 'a', 'c', 'e', '!', 0, 4, 0, 0, 0, 40, 0, 1, 2,
		2, 0, 0, 0, 0, 0, 0, 0, 0x89, 0, 0, 0, 0, 0, 0, 0, 0, 4 };
	static const char sym[] =
		"0000000000000000 T lost_records\n0000000000000010 T irq:32\n"
		"0000000000000020 T run:sh\n0000000000000030 T boot:kmain\n"
		"0000000000000040 T boot:mem_ory\n0000000000000050 T irq:40\n"
		"0000000000000060 T irq:33\n0000000000000070 T syscall:open\n"
		"0000000000000080 T syscall:write\n"
		"0000000000000090 ? __sym_end\n";
	static const char map[] =
		"ffff80100000-ffff80200000 r-xp 00000000 00:00 0 /ttrace\n"
		"ffffffffffff-ffffffffffff rw-p 00000000 00:00 0 [stack]\n";
	static const char task[] =
		"SESS timestamp=0.0 pid=1000000 sid=0 exename=\"cpu0\"\n"
		"TASK timestamp=0.0 tid=1000000 pid=1000000\n"
		"SESS timestamp=0.0 pid=2000000 sid=0 exename=\"boot0\"\n"
		"TASK timestamp=0.0 tid=2000000 pid=2000000\n"
		"SESS timestamp=0.0 pid=1000001 sid=0 exename=\"cpu1\"\n"
		"TASK timestamp=0.0 tid=1000001 pid=1000001\n"
		"SESS timestamp=0.0 pid=1000002 sid=0 exename=\"cpu2\"\n"
		"TASK timestamp=0.0 tid=1000002 pid=1000002\n"
		"SESS timestamp=0.0 pid=3 sid=0 exename=\"pid\"\n"
		"TASK timestamp=0.0 tid=3 pid=3\n"
		"SESS timestamp=0.0 pid=1 sid=0 exename=\"init\"\n"
		"TASK timestamp=0.0 tid=1 pid=1\n";
	uint8_t info[1024];
	int n, rc;

	HT_CHECK(setup("uff") == 0);
	memcpy(info, head, sizeof(head));
	n = snprintf((char *)info + 40, sizeof(info) - 40, "exename:/ttrace\n"
		     "cmdline:ttdecode uftrace %s\ntaskinfo:lines=2\n"
		     "taskinfo:nr_tid=6\ntaskinfo:tids=1000000,2000000,"
		     "1000001,1000002,3,1\n",
		     trace_path);
	rc = run_export(ttuftrace_main) ||
	     check_file("info", info, 40 + n) ||
	     check_file("ttrace.sym", sym, strlen(sym)) ||
	     check_file("sid-0.map", map, strlen(map)) ||
	     check_file("task.txt", task, strlen(task));
	cleanup();
	return rc;
}

/* ---- CTF ----------------------------------------------------------------- */

/* One packet's header and context as written. */
struct __attribute__((packed)) pkt {
	uint32_t magic, stream_id;
	uint64_t begin, end, content, size, discarded;
	uint32_t cpu;
};

/* Checks the packet at *off in buf (len bytes) and moves *off past it. */
static int check_pkt(const uint8_t *buf, long len, long *off, uint64_t begin,
		     uint64_t end, uint64_t discarded, uint32_t cpu)
{
	struct pkt p;

	if (*off + (long)sizeof(p) > len)
		HT_FAIL("packet at %ld: file ends at %ld", *off, len);
	memcpy(&p, buf + *off, sizeof(p));
	if (p.magic != 0xC1FC1FC1 || p.stream_id || p.begin != begin ||
	    p.end != end || p.discarded != discarded || p.cpu != cpu ||
	    p.content != p.size || p.size % 8 || p.size / 8 < sizeof(p) ||
	    *off + (long)(p.size / 8) > len)
		HT_FAIL("packet at %ld: magic %#x stream %u ts %llu-%llu "
			"size %llu/%llu discarded %llu cpu %u", *off, p.magic,
			p.stream_id, (unsigned long long)p.begin,
			(unsigned long long)p.end,
			(unsigned long long)p.content,
			(unsigned long long)p.size,
			(unsigned long long)p.discarded, p.cpu);
	*off += p.size / 8;
	return 0;
}

/* Every stream's packets: cpu0's records overwritten before the trace
 * counted by an empty packet at its first event (after one with a count
 * of 0: readers count what the total grew by); cpu1's split at the loss
 * (its last event before it, 350), an empty packet from there to its
 * first event after it (900) counting it, so a reader names exactly
 * those two events; cpu2's single empty packet. */
static int test_ctf_packets(void)
{
	uint8_t *b0 = NULL, *b1 = NULL, *b2 = NULL;
	long n0, n1, n2, o0 = 0, o1 = 0, o2 = 0;
	int rc;

	HT_CHECK(setup("ctfp") == 0);
	rc = run_export(ttctf_main);
	n0 = slurp("cpu0", &b0);
	n1 = slurp("cpu1", &b1);
	n2 = slurp("cpu2", &b2);
	rc = rc || check_pkt(b0, n0, &o0, 100, 100, 0, 0) ||
	     check_pkt(b0, n0, &o0, 100, 100, BEFORE_N, 0) ||
	     check_pkt(b0, n0, &o0, 100, 800, BEFORE_N, 0) || o0 != n0 ||
	     check_pkt(b1, n1, &o1, 150, 350, 0, 1) ||
	     check_pkt(b1, n1, &o1, 350, 900, LOST_N, 1) ||
	     check_pkt(b1, n1, &o1, 900, 900, LOST_N, 1) || o1 != n1 ||
	     check_pkt(b2, n2, &o2, 0, 0, 0, 2) || o2 != n2 ||
	     n2 != sizeof(struct pkt);
	if (rc && !ht_why[0])
		snprintf(ht_why, sizeof(ht_why), "stream lengths %ld %ld %ld, "
			 "packets end at %ld %ld %ld", n0, n1, n2, o0, o1, o2);
	free(b0);
	free(b1);
	free(b2);
	cleanup();
	return rc;
}

/* The bytes of cpu0's first event (boot_phase) and of its wide event
 * (each argument cut to its type's size). */
static int test_ctf_events(void)
{
	static const uint8_t first[] = {
		EV_BOOT, 0, 100, 0, 0, 0, 0, 0, 0, 0, 'b', 'o', 'o', 't', 0,
		'k', 'm', 'a', 'i', 'n', 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t wide[] = {
		EV_WIDE, 0, 0x20, 3, 0, 0, 0, 0, 0, 0, 'k', 't', ':', '#', '5', 0,
		0xff, 0xfe, 0xff, 1, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0,
		0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0xbc, 0x0a, 0, 0, 0, 0, 0, 0,
		0xfe, 0xff, 0xff, 0xff };
	uint8_t *b = NULL;
	long n;
	int rc;

	HT_CHECK(setup("ctfe") == 0);
	rc = run_export(ttctf_main);
	n = slurp("cpu0", &b);
	if (!rc && (n < (long)(3 * sizeof(struct pkt) + sizeof(first)) ||
		    memcmp(b + 3 * sizeof(struct pkt), first, sizeof(first))))
		rc = 1, snprintf(ht_why, sizeof(ht_why), "first event differs");
	if (!rc && (n < (long)sizeof(wide) ||
		    memcmp(b + n - sizeof(wide), wide, sizeof(wide))))
		rc = 1, snprintf(ht_why, sizeof(ht_why), "wide event differs");
	free(b);
	cleanup();
	return rc;
}

/* The event classes come from the trace's metadata, fields named with a
 * leading underscore (so "event" and "string" are fine), typed by size. */
static int test_ctf_metadata(void)
{
	static const char *const want[] = {
		"/* CTF 1.8 */\n", "freq = 1000000000;",
		"event {\n\tname = \"wide\";\n\tid = 6;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tuint8_t _event;\n"
		"\t\tint16_t _string;\n\t\tuint8_t _struct;\n"
		"\t\tuint64_t _w3;\n\t\tuint64_t _w4;\n\t\tuint64_t _w5;\n"
		"\t\txptr_t _w6;\n\t\tint32_t _w7;\n\t};\n};\n",
		"name = \"syscall_exit\";\n\tid = 2;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tstring _nr;\n\t\tint64_t _ret;\n",
		"uint64_t events_discarded;\n\t\tuint32_t cpu_id;",
	};
	uint8_t *m = NULL;
	int rc;

	HT_CHECK(setup("ctfm") == 0);
	rc = run_export(ttctf_main) || slurp("metadata", &m) < 0;
	for (size_t i = 0; !rc && i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr((char *)m, want[i]))
			rc = 1, snprintf(ht_why, sizeof(ht_why),
					 "metadata lacks '%s'", want[i]);
	if (!rc && strncmp((char *)m, want[0], strlen(want[0])))
		rc = 1, snprintf(ht_why, sizeof(ht_why), "no CTF 1.8 first");
	free(m);
	cleanup();
	return rc;
}

/* A directory holding anything is refused and left as it was. */
static int test_dir_not_empty(void)
{
	char path[512];
	uint8_t *b;
	FILE *f;
	int rc;

	HT_CHECK(setup("full") == 0);
	HT_CHECK(mkdir(dir, 0777) == 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	HT_CHECK((f = fopen(path, "w")) && fclose(f) == 0);
	rc = run_export(ttctf_main) != 1 || run_export(ttuftrace_main) != 1 ||
	     !strstr(errtext, "not empty (holds mine)") ||
	     slurp("metadata", &b) >= 0 || slurp("info", &b) >= 0;
	cleanup();
	if (rc)
		HT_FAIL("an export went into a non-empty directory (%.300s)",
			errtext);
	return 0;
}

/* A corrupt trace: non-zero status, the loader's message naming the
 * offset of the damaged section, nothing created. */
static int test_bad_trace(void)
{
	struct stat st;
	FILE *f;
	int rc;

	HT_CHECK(setup("bad") == 0);
	file.p[file.len / 2] ^= 0x40;
	HT_CHECK((f = fopen(trace_path, "wb")) &&
		 fwrite(file.p, 1, file.len, f) == file.len && fclose(f) == 0);
	rc = run_export(ttctf_main) != 1 || run_export(ttuftrace_main) != 1 ||
	     !strstr(errtext, ": offset ") || !strstr(errtext, "CRC") ||
	     stat(dir, &st) == 0;
	cleanup();
	if (rc)
		HT_FAIL("a corrupt trace was exported (%.300s)", errtext);
	return 0;
}

/* ---- the merge of some event ids (tools/load/ttmerge.c) ----------------- */

/* Whether the merge of only's ids gives the items of the whole merge
 * that are losses or events of those ids, in its order. */
static int check_merge_only(const struct ttload *t,
			    const struct ttmerge_ids *only, uint64_t *events)
{
	struct ttmerge all, some;
	struct ttmerge_item a, b;
	bool more = true;
	int rc = 0;

	HT_CHECK(ttmerge_init(&all, t) == 0);
	HT_CHECK(ttmerge_init_only(&some, t, only) == 0);
	while (!rc && more) {
		while ((more = ttmerge_next(&all, &a)) && !a.loss &&
		       !(only->bits[a.ev->id / 64] >> (a.ev->id % 64) & 1))
			;
		if (more != ttmerge_next(&some, &b))
			rc = -1;
		else if (more && (a.cpu != b.cpu || a.loss != b.loss ||
				  a.entry != b.entry))
			rc = -1;
		else if (more && !a.loss &&
			 (a.ev->timestamp != b.ev->timestamp ||
			  a.ev->id != b.ev->id || a.ev->nwords != b.ev->nwords ||
			  a.ev->ncont_found != b.ev->ncont_found ||
			  memcmp(a.ev->args, b.ev->args,
				 a.ev->nwords * sizeof(a.ev->args[0]))))
			rc = -1;
		*events += more && !a.loss;
	}
	ttmerge_free(&all);
	ttmerge_free(&some);
	return rc;
}

/* Every set of the trace's event ids (its losses, continuations and
 * CPUs included): the same items as the whole merge, filtered. */
static int test_merge_only(void)
{
	struct ttrace_file_error e;
	struct ttload t;
	uint64_t events = 0, n;
	int rc = 0;

	with_funcs = true;
	build_trace();
	with_funcs = false;
	HT_CHECK(ttload_buffer(&t, file.p, file.len, &e) == 0);
	for (uint32_t mask = 0; !rc && mask < 1u << NEV; mask++) {
		struct ttmerge_ids only = { { 0 } };

		for (uint32_t id = 0; id < NEV; id++)
			if (mask >> id & 1)
				ttmerge_ids_add(&only, id);
		ttmerge_ids_add(&only, UINT32_MAX);	/* no event: nothing */
		if (check_merge_only(&t, &only, &events))
			rc = (int)mask + 1;
	}
	n = t.nevents;
	ttload_free(&t);
	if (rc)
		HT_FAIL("the merge of ids %#x differs", (unsigned)rc - 1);
	HT_CHECK(n > 10 && events == (1u << (NEV - 1)) * n);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_uftrace_cpu0, "ttexport_uftrace_cpu0_boot_track_apart" },
	{ test_uftrace_no_guess, "ttexport_uftrace_no_loss_guessed_from_stats" },
	{ test_uftrace_threads, "ttexport_uftrace_process_tasks_cut_at_loss" },
	{ test_uftrace_cpu1, "ttexport_uftrace_cpu1_unpaired_and_loss" },
	{ test_uftrace_files, "ttexport_uftrace_info_task_map_sym" },
	{ test_uftrace_funcs, "ttexport_uftrace_func_graph" },
	{ test_ctf_packets, "ttexport_ctf_packets_and_loss" },
	{ test_ctf_events, "ttexport_ctf_event_bytes" },
	{ test_ctf_metadata, "ttexport_ctf_metadata_from_trace_meta" },
	{ test_dir_not_empty, "ttexport_refuses_non_empty_dir" },
	{ test_bad_trace, "ttexport_corrupt_trace_names_offset" },
	{ test_merge_only, "ttmerge_only_ids_as_the_whole_merge" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
