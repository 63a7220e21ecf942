/*
 * Host tests of ttdecode's commands (tools/ttdecode.c and the files of its
 * command families): text and its filters, json, stats, unwrap, scale,
 * split (a stream of two traces, torn, damaged and foreign), and the
 * refusal of what `verify` refuses, each on a trace built here by
 * hand with the file writer of kern/lib, and each run as the real program
 * (build/host/ttdecode-san, the decoder under ASan/UBSan) in a child
 * process whose output is then read back. JSON is checked by
 * tests/chrome_json_check.py (python3 json: parses, tracks named, slices
 * nested, start times rising per track).
 *
 * Traces use a 1 GHz clock with tsc_boot 1000: a timestamp t is t - 1000
 * ns since boot. Files go to build/test/ttdecode/.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "htest.h"

#include <printfmt.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <ttrace_meta.h>

#ifndef TTDECODE_BIN
#define TTDECODE_BIN	"build/host/ttdecode-san"
#endif
#define DIR		"build/test/ttdecode"
#define TSC_BOOT	1000
#define MAXCPU		4096

enum { E_SYS_ENTER, E_SYS_EXIT, E_IRQ_ENTER, E_IRQ_EXIT, E_SWITCH, E_MARKER,
       E_BOOT, E_TICK, NEV };

static const struct ttrace_arg_meta a_enter[] = {
	{ "nr", TTRACE_ARG_STR, TTRACE_AUX_SYSCALL_NAME, 0, 0 },
	{ "a0", TTRACE_ARG_U64, 0, 0, 0 }, { "a1", TTRACE_ARG_U64, 0, 0, 0 },
	{ "a2", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_exit[] = {
	{ "nr", TTRACE_ARG_STR, TTRACE_AUX_SYSCALL_NAME, 0, 0 },
	{ "ret", TTRACE_ARG_S64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_vec[] = { { "vector", TTRACE_ARG_U32, 0, 0, 0 } };
static const struct ttrace_arg_meta a_switch[] = {
	{ "prev", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "next", TTRACE_ARG_STR, TTRACE_AUX_PROC_NAME, 0, 0 },
	{ "prev_state", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_marker[] = {
	{ "marker", TTRACE_ARG_STR, TTRACE_AUX_USER_MARKER, 0, 0 },
};
static const struct ttrace_arg_meta a_boot[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE, 0, 0 },
	{ "arg", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_tick[] = { { "tick", TTRACE_ARG_U64, 0, 0, 0 } };
static const struct ttrace_event_meta events[NEV] = {
	{ "syscall_enter", "%s(%#llx, %#llx, %#llx)", a_enter, E_SYS_ENTER, 0, 1, 4 },
	{ "syscall_exit", "%s = %lld", a_exit, E_SYS_EXIT, 0, 1, 2 },
	{ "irq_enter", "vector=%u", a_vec, E_IRQ_ENTER, 1, 1, 1 },
	{ "irq_exit", "vector=%u", a_vec, E_IRQ_EXIT, 1, 1, 1 },
	{ "sched_switch", "prev=%s next=%s prev_state=%u", a_switch, E_SWITCH,
	  2, 1, 3 },
	{ "user_marker", "%s", a_marker, E_MARKER, 3, 1, 1 },
	{ "boot_phase", "%s arg=%#llx", a_boot, E_BOOT, 4, 1, 2 },
	{ "timer_tick", "tick=%llu", a_tick, E_TICK, 1, 1, 1 },
};
static const struct ttrace_group_meta groups[] = {
	{ "syscall", 0, 1 }, { "irq", 1, 1 }, { "sched", 2, 1 },
	{ "user", 3, 1 }, { "boot", 4, 1 },
};
static const struct ttrace_meta_table table = { events, groups, NEV, 5 };

/* ---- building traces ----------------------------------------------------- */

struct tcpu {
	struct ttrace_entry *e;		/* records in index order */
	uint64_t n, cap;
	uint64_t next;			/* next logical index */
	uint64_t first;			/* index of e[0] */
	uint64_t loss_at[8], loss_n[8];	/* a LOSS before e[loss_at[k]] */
	uint32_t nloss;
};

static struct tb {
	uint32_t ncpus;
	struct tcpu *cpu;
	uint8_t aux[4096];
	size_t auxlen;
} tb;

static void tb_init(uint32_t ncpus)
{
	for (uint32_t c = 0; c < tb.ncpus; c++)
		free(tb.cpu[c].e);
	free(tb.cpu);
	memset(&tb, 0, sizeof(tb));
	tb.ncpus = ncpus;
	tb.cpu = calloc(ncpus, sizeof(*tb.cpu));
	if (!tb.cpu)
		abort();
}

/* Appends an entry to cpu's records (its seq set to its index). */
static void tb_raw(uint32_t cpu, const struct ttrace_entry *in)
{
	struct ttrace_entry e = *in;

	struct tcpu *c = &tb.cpu[cpu];

	if (c->n == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 16;
		struct ttrace_entry *p = aligned_alloc(64, cap * sizeof(*p));

		if (!p)
			abort();
		if (c->n)
			memcpy(p, c->e, c->n * sizeof(*p));
		free(c->e);
		c->e = p;
		c->cap = cap;
	}
	e.type |= (uint64_t)TTRACE_SEQ_OF(c->next) << TTRACE_TYPE_SEQ_SHIFT;
	c->e[c->n++] = e;
	c->next++;
}

/* An event id at ns since boot on cpu in context (kind, word). */
static void tb_ev(uint32_t cpu, uint64_t ns, unsigned id, unsigned kind,
		  uint64_t ctx, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct ttrace_entry e = { .timestamp = (TSC_BOOT + ns) & ~1ULL };

	e.type = TTRACE_TYPE(id, kind, 0, 0, cpu);
	e.context = ctx;
	e.data[0] = a0;
	e.data[1] = a1;
	e.data[2] = a2;
	tb_raw(cpu, &e);
}

/* count records of cpu lost here (a LOSS section, reason overwritten). */
static void tb_loss(uint32_t cpu, uint64_t count)
{
	struct tcpu *c = &tb.cpu[cpu];

	c->loss_at[c->nloss] = c->n;
	c->loss_n[c->nloss++] = count;
	c->next += count;
}

static void tb_name(unsigned tag, uint64_t ident, uint64_t ns, const char *s)
{
	size_t len = strlen(s), rec = TTRACE_AUX_HDR_SIZE + len;
	uint64_t hdr[3] = { TTRACE_AUX_PATH(tag, 0, rec, 1), TSC_BOOT + ns,
			    ident };

	memcpy(tb.aux + tb.auxlen, hdr, sizeof(hdr));
	memcpy(tb.aux + tb.auxlen + sizeof(hdr), s, len);
	tb.auxlen += TTRACE_AUX_ALIGN_UP(rec);
}

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

static void put_run(struct ttrace_file_writer *w, uint32_t cpu, uint32_t type,
		    uint64_t first, uint64_t count, const struct ttrace_entry *e)
{
	struct ttrace_file_run h = { .first = first, .count = count,
				     .type = type,
				     .reason = type == TTRACE_FILE_SEC_LOSS ?
					       TTRACE_LOSS_OVERWRITTEN : 0 };
	uint64_t n = e ? count : 0;

	ttrace_file_section_begin(w, type, cpu, sizeof(h) + n * 64);
	ttrace_file_section_data(w, &h, sizeof(h));
	if (n)
		ttrace_file_section_data(w, e, n * 64);
	ttrace_file_section_end(w);
}

/* cpu's records and losses as RECORDS and LOSS sections. */
static void put_cpu(struct ttrace_file_writer *w, uint32_t cpu)
{
	struct tcpu *c = &tb.cpu[cpu];
	uint64_t i = 0, idx = c->first;

	for (uint32_t k = 0; k <= c->nloss; k++) {
		uint64_t end = k < c->nloss ? c->loss_at[k] : c->n;

		if (end > i)
			put_run(w, cpu, TTRACE_FILE_SEC_RECORDS, idx, end - i,
				&c->e[i]);
		idx += end - i;
		i = end;
		if (k < c->nloss) {
			put_run(w, cpu, TTRACE_FILE_SEC_LOSS, idx, c->loss_n[k],
				NULL);
			idx += c->loss_n[k];
		}
	}
}

/* Writes the trace built so far to DIR/name; returns its path. */
static const char *tb_write(const char *name)
{
	static char path[256];
	static uint8_t meta[8192];
	size_t mlen = ttrace_meta_serialise(&table, meta, sizeof(meta));
	struct ttrace_version v;
	struct ttrace_file_writer w;
	struct ttrace_file_aux a = { 0, tb.auxlen };
	uint64_t most = 2;
	FILE *f;

	for (uint32_t c = 0; c < tb.ncpus; c++)
		while (most < tb.cpu[c].next)
			most *= 2;
	ttrace_version_init(&v);
	v.num_cpus = tb.ncpus;
	v.entries_per_cpu = most;
	v.tsc_hz = 1000000000;
	v.tsc_boot = TSC_BOOT;
	v.aux_size = sizeof(tb.aux);
	v.aux_mask = sizeof(tb.aux) - 1;
	v.aux_last = tb.auxlen;
	v.event_count = NEV;
	v.meta_size = (uint32_t)mlen;
	mkdir("build/test", 0755);
	mkdir(DIR, 0755);
	snprintf(path, sizeof(path), "%s/%s", DIR, name);
	f = fopen(path, "wb");
	if (!f)
		abort();
	ttrace_file_writer_init(&w, file_out, f);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &v, sizeof(v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, meta, mlen);
	for (uint32_t c = 0; c < tb.ncpus; c++)
		put_cpu(&w, c);
	ttrace_file_section_begin(&w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + tb.auxlen);
	ttrace_file_section_data(&w, &a, sizeof(a));
	ttrace_file_section_data(&w, tb.aux, tb.auxlen);
	ttrace_file_section_end(&w);
	if (ttrace_file_write_end(&w) < 0 || fclose(f))
		abort();
	return path;
}

/* ---- running ttdecode ---------------------------------------------------- */

static char out[1 << 23], err[1 << 16];

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t k = f ? fread(buf, 1, n - 1, f) : 0;

	buf[k] = 0;
	if (f)
		fclose(f);
}

/* Runs ttdecode with the arguments (NULL ended); out and err get its
 * output. Returns its exit status (-1: it did not exit normally). */
static int run(const char *arg0, ...)
{
	const char *argv[16] = { TTDECODE_BIN, arg0 };
	va_list ap;
	int n = 2, status;
	pid_t pid;

	va_start(ap, arg0);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen(DIR "/out", "w", stdout) ||
		    !freopen(DIR "/err", "w", stderr))
			_exit(126);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	slurp(DIR "/out", out, sizeof(out));
	slurp(DIR "/err", err, sizeof(err));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The timestamp in microseconds at the start of each line of out rises. */
static bool lines_rise(const char *text, int *lines)
{
	double last = -1e300;

	*lines = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		double v;

		if (strncmp(p, "--", 2)) {
			if (sscanf(p, "%lf", &v) != 1 || v < last)
				return false;
			last = v;
			++*lines;
		}
		if (!strchr(p, '\n'))
			break;
	}
	return true;
}

#define CHECK_RUN(want, ...)						\
	do {								\
		int rc_ = run(__VA_ARGS__, NULL);			\
		if (rc_ != (want))					\
			HT_FAIL("%s:%d: ttdecode exit %d, want %d: %.300s", \
				__FILE__, __LINE__, rc_, want, err);	\
	} while (0)

/* ---- the sample trace ---------------------------------------------------- */

#define SYSC(pid, nr)	TTRACE_CTX_SYSC, TTRACE_CTX_PIDWORD(pid, nr)

/*
 * cpu0: boot phases kmain, memory; sh runs, read (an irq inside), write
 * blocks across a switch to ls (read, a marker) and resumes; an exit with
 * no enter; a read never exits. cpu1: an irq whose exit follows a loss of
 * 5 records. cpu2: nothing.
 */
static const char *sample(void)
{
	tb_init(3);
	tb_name(TTRACE_AUX_SYSCALL_NAME, 0, 0, "read");
	tb_name(TTRACE_AUX_SYSCALL_NAME, 1, 0, "write");
	tb_name(TTRACE_AUX_PROC_NAME, 1, 0, "sh");
	tb_name(TTRACE_AUX_PROC_NAME, 3, 0, "ls");
	tb_name(TTRACE_AUX_USER_MARKER, 7, 0, "hello-marker");
	tb_name(TTRACE_AUX_BOOT_PHASE, 1, 0, "kmain");
	tb_name(TTRACE_AUX_BOOT_PHASE, 2, 0, "memory");
	tb_ev(0, 10, E_BOOT, TTRACE_CTX_BOOT, 0, 1, 0, 0);
	tb_ev(0, 20, E_BOOT, TTRACE_CTX_BOOT, 1, 2, 0, 0);
	tb_ev(0, 100, E_SWITCH, TTRACE_CTX_IDLE, 0, 0, 1, 0);
	tb_ev(0, 110, E_SYS_ENTER, SYSC(1, 0), 0, 0, 0);
	tb_ev(0, 120, E_IRQ_ENTER, TTRACE_CTX_IRQ, 32, 32, 0, 0);
	tb_ev(0, 130, E_IRQ_EXIT, TTRACE_CTX_IRQ, 32, 32, 0, 0);
	tb_ev(0, 140, E_SYS_EXIT, SYSC(1, 0), 0, 5, 0);
	tb_ev(0, 150, E_SYS_ENTER, SYSC(1, 1), 1, 0, 0);
	tb_ev(0, 160, E_SWITCH, SYSC(1, 1), 1, 3, 1);
	tb_ev(0, 170, E_SYS_ENTER, SYSC(3, 0), 0, 0, 0);
	tb_ev(0, 180, E_SYS_EXIT, SYSC(3, 0), 0, 0, 0);
	tb_ev(0, 190, E_MARKER, SYSC(3, 1), 7, 0, 0);
	tb_ev(0, 200, E_SWITCH, SYSC(3, 1), 3, 1, 0);
	tb_ev(0, 210, E_SYS_EXIT, SYSC(1, 1), 1, 3, 0);
	tb_ev(0, 220, E_SYS_EXIT, SYSC(1, 0), 0, 0, 0);
	tb_ev(0, 230, E_SYS_ENTER, SYSC(1, 0), 0, 0, 0);
	tb_ev(0, 240, E_TICK, TTRACE_CTX_IRQ, 32, 1, 0, 0);
	tb_ev(1, 50, E_IRQ_ENTER, TTRACE_CTX_IRQ, 33, 33, 0, 0);
	tb_loss(1, 5);
	tb_ev(1, 300, E_IRQ_EXIT, TTRACE_CTX_IRQ, 33, 33, 0, 0);
	tb_ev(1, 310, E_TICK, TTRACE_CTX_IRQ, 32, 2, 0, 0);
	return tb_write("sample.ttr");
}

/* ---- text ---------------------------------------------------------------- */

static int test_text(void)
{
	const char *path = sample();
	const char *loss, *at300;
	int lines;

	CHECK_RUN(0, "verify", path);
	CHECK_RUN(0, "text", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 20);
	HT_CHECK(strstr(out, "0.110 us cpu0 sys:sh[1]:read syscall_enter: "
			"read(0, 0, 0)\n"));
	HT_CHECK(strstr(out, "0.190 us cpu0 sys:ls[3]:write user_marker: "
			"hello-marker\n"));
	loss = strstr(out, "-- cpu1: 5 records lost (overwritten) --\n");
	at300 = strstr(out, "0.300 us cpu1");
	HT_CHECK(loss && at300 && loss < at300 &&
		 loss > strstr(out, "0.240 us cpu0"));
	return 0;
}

static int test_text_filters(void)
{
	const char *path = sample();
	int lines;

	CHECK_RUN(0, "text", "--cpu", "1", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 3 &&
		 count_of(out, " cpu1 ") == 3 && count_of(out, "lost") == 1);
	CHECK_RUN(0, "text", "--event", "syscall_*", path);
	/* a loss may have held matching events: it shows */
	HT_CHECK(lines_rise(out, &lines) && lines == 8 &&
		 count_of(out, " syscall_") == 8 && count_of(out, "lost") == 1);
	CHECK_RUN(0, "text", "--pid", "3", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 4 &&
		 count_of(out, "ls[3]:") == 4);
	CHECK_RUN(0, "text", "--from", "100", "--to", "150", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 6 &&
		 !strncmp(out, "0.100 us", 8) && strstr(out, "0.150 us") &&
		 !strstr(out, "lost"));
	CHECK_RUN(0, "text", "--event", "irq_e*", "--cpu", "0", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 2);
	CHECK_RUN(2, "text", "--cpu", "x", path);
	CHECK_RUN(2, "text", "--bogus", "1", path);
	CHECK_RUN(2, "text", "--from", "5", "--to", "4", path);
	return 0;
}

/* 4096 CPUs (the format's most) of 16 events, their timestamps
 * interleaved: every event comes out in time order. */
static int test_many_cpus(void)
{
	const char *path;
	int lines;

	tb_init(MAXCPU);
	for (uint64_t k = 0; k < 16; k++)
		for (uint32_t c = 0; c < MAXCPU; c++)
			tb_ev(c, 2 * (k * MAXCPU + (c * 7919) % MAXCPU),
			      E_TICK, TTRACE_CTX_IDLE, 0, k, 0, 0);
	path = tb_write("many.ttr");
	CHECK_RUN(0, "text", path);
	HT_CHECK(lines_rise(out, &lines) && lines == 16 * MAXCPU);
	return 0;
}

/* ---- json ---------------------------------------------------------------- */

/* python3 tests/chrome_json_check.py FILE: 0 if it holds. */
static int json_check(const char *file)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "python3 tests/chrome_json_check.py %s "
		 "--syscalls", file);
	return system(cmd);
}

static int test_json(void)
{
	const char *path = sample();

	CHECK_RUN(0, "json", path, DIR "/sample.json");
	HT_CHECK(strstr(out, "2 exits without enter dropped"));
	slurp(DIR "/sample.json", out, sizeof(out));
	HT_CHECK(json_check(DIR "/sample.json") == 0);
	/* read: on sh, on ls, and one never exited (unfinished at the end),
	 * each on its process's track */
	HT_CHECK(count_of(out, "\"name\":\"read\",\"cat\":\"syscall\"") == 3);
	HT_CHECK(strstr(out, "\"name\":\"read\",\"cat\":\"syscall\",\"pid\":"
			"1,\"tid\":1,\"ts\":0.110,\"dur\":0.030,\"args\":"
			"{\"cpu\":0,\"pid\":1,\"process\":\"sh\"}}"));
	HT_CHECK(strstr(out, "\"ts\":0.230,\"dur\":0.010,\"args\":{\"cpu\":0,"
			"\"pid\":1,\"process\":\"sh\",\"unfinished\":true}}"));
	/* write blocked across the switch: one call, enter to exit */
	HT_CHECK(count_of(out, "\"name\":\"write\",\"cat\":\"syscall\"") == 1);
	HT_CHECK(strstr(out, "\"ts\":0.150,\"dur\":0.060,\"args\":{\"cpu\":0,"
			"\"pid\":1,\"process\":\"sh\"}}"));
	HT_CHECK(count_of(out, "\"name\":\"sh\",\"cat\":\"sched\"") == 2);
	HT_CHECK(count_of(out, "\"name\":\"ls\",\"cat\":\"sched\"") == 1);
	/* boot phases on the boot track of their CPU only, each until the
	 * next, the last unfinished at the trace's end (no prompt) */
	HT_CHECK(strstr(out, "\"name\":\"kmain\",\"cat\":\"boot\",\"pid\":0,"
			"\"tid\":3221225472,\"ts\":0.010,\"dur\":0.010"));
	HT_CHECK(strstr(out, "\"name\":\"memory\",\"cat\":\"boot\",\"pid\":0,"
			"\"tid\":3221225472,\"ts\":0.020,\"dur\":0.290,\"args\":{\"cpu\":0,"
			"\"unfinished\":true}}"));
	/* the irq on cpu1 ends at its last timestamp before the loss, and
	 * the loss covers the time from there to the event after it */
	HT_CHECK(strstr(out, "\"cat\":\"irq\",\"pid\":0,\"tid\":2147483649,"
			"\"ts\":0.050,\"dur\":0.000"));
	HT_CHECK(strstr(out, "\"ph\":\"i\",\"name\":\"hello-marker\""));
	HT_CHECK(strstr(out, "\"ph\":\"X\",\"name\":\"5 records lost "
			"(overwritten)\",\"cat\":\"loss\",\"pid\":0,"
			"\"tid\":2147483649,\"ts\":0.050,\"dur\":0.250"));
	/* real pids: no made-up kernel process 1, no pid shifted by 1000 */
	HT_CHECK(!strstr(out, "\"pid\":1001"));
	HT_CHECK(!strstr(out, "\"pid\":1,\"tid\":1,\"ts\":0.000,\"args\":"
			 "{\"name\":\"kernel\"}"));
	HT_CHECK(strstr(out, "\"args\":{\"name\":\"CPU 2\"}"));
	return 0;
}

static int test_json_window(void)
{
	const char *path = sample();

	CHECK_RUN(0, "json", "--from", "155", "--to", "205", path,
		  DIR "/window.json");
	slurp(DIR "/window.json", out, sizeof(out));
	HT_CHECK(json_check(DIR "/window.json") == 0);
	HT_CHECK(!strstr(out, "kmain"));
	/* write (150-210) clipped to the window: 155-205; so is cpu1's loss
	 * (its records fell in 50-300) */
	HT_CHECK(strstr(out, "\"name\":\"write\",\"cat\":\"syscall\",\"pid\":"
			"1,\"tid\":1,\"ts\":0.155,\"dur\":0.050"));
	HT_CHECK(strstr(out, "lost (overwritten)\",\"cat\":\"loss\",\"pid\":0,"
			"\"tid\":2147483649,\"ts\":0.155,\"dur\":0.050"));
	HT_CHECK(strstr(out, "\"name\":\"sh\",\"cat\":\"sched\",\"pid\":0,"
			"\"tid\":2147483648,\"ts\":0.200,\"dur\":0.005"));
	return 0;
}

/* ---- stats --------------------------------------------------------------- */

/* The numbers on the line of out that starts with word. */
static int stat_line(const char *word, const char *fmt, ...)
{
	char key[64];
	va_list ap;
	int n = 0;

	snprintf(key, sizeof(key), "\n%s ", word);
	const char *p = strstr(out, key);

	if (!p)
		return -1;
	va_start(ap, fmt);
	n = vsscanf(p + strlen(key), fmt, ap);
	va_end(ap);
	return n;
}

static int test_stats(void)
{
	const char *path = sample();
	unsigned long long count, sys, events, lost, unfinished;
	double total, mean, p99, max, cpu_us, unfinished_us;

	CHECK_RUN(0, "stats", path);
	HT_CHECK(stat_line("cpu1", "%llu %llu", &events, &lost) == 2 &&
		 events == 3 && lost == 5);
	/* read: 2 completed calls, latencies 30 and 10 ns (count x mean =
	 * total), and apart the third, unfinished at the end after 10 ns */
	HT_CHECK(stat_line("read", "%llu %lf %lf %lf %lf %llu %lf", &count,
			   &total, &mean, &p99, &max, &unfinished,
			   &unfinished_us) == 7);
	HT_CHECK(count == 2 && total == 0.040 && mean == 0.020 &&
		 p99 == 0.030 && max == 0.030 && unfinished == 1 &&
		 unfinished_us == 0.010);
	/* write: entered at 150, blocked, exited at 210 */
	HT_CHECK(stat_line("write", "%llu %lf %lf %lf %lf", &count, &total,
			   &mean, &p99, &max) == 5 && count == 1 && max == 0.060);
	/* sh ran 100-160 and 200-240 (the trace's end) */
	HT_CHECK(stat_line("1       ", "sh %lf %llu", &cpu_us, &sys) == 2 &&
		 cpu_us == 0.100 && sys == 3);
	HT_CHECK(stat_line("irq       ", "%llu #32 %llu", &count, &sys) == 2 &&
		 count == 32 && sys == 1);
	HT_CHECK(strstr(out, "2 exits without enter dropped"));
	return 0;
}

/* ---- the command table ------------------------------------------------- */

/*
 * Every command registers itself (TTDECODE_COMMAND in its own file): the
 * usage lists each once, a bare or unknown command or too few operands
 * give it with status 2, and a registered command runs.
 */
static int test_commands(void)
{
	static const char *const names[] = { "verify", "text", "json",
		"stats", "unwrap", "scale", "split", "boot", "uftrace", "ctf",
		"tracedat", "perfetto", "critpath", "wakeup", "errno",
		"folded", "flamegraph", "pprof" };
	char line[32];

	CHECK_RUN(2, "nosuchcommand");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(line, sizeof(line), " ttdecode %s ", names[i]);
		if (count_of(err, line) != 1)
			HT_FAIL("'%s' %d times in the usage: %.300s", line,
				count_of(err, line), err);
	}
	HT_CHECK(count_of(err, "\n") == sizeof(names) / sizeof(names[0]));
	HT_CHECK(!strncmp(err, "usage: ttdecode ", 16));
	HT_CHECK(run(NULL, NULL) == 2);
	HT_CHECK(count_of(err, " ttdecode ") ==
		 (int)(sizeof(names) / sizeof(names[0])));
	CHECK_RUN(2, "scale", "2", "only-two");
	HT_CHECK(!strncmp(err, "usage: ", 7));
	sample();
	CHECK_RUN(0, "verify", tb_write("commands.ttr"));
	HT_CHECK(strstr(out, "verify: OK"));
	return 0;
}

/* ---- what verify refuses, every command refuses ---------------------------- */

static int all_refuse(const char *path, const char *want)
{
	static const char *const cmds[] = { "verify", "text", "stats" };

	for (size_t i = 0; i < 3; i++) {
		CHECK_RUN(1, cmds[i], path);
		if (!strstr(err, want) || !strstr(err, ": offset "))
			HT_FAIL("%s: '%.100s' not in: %.300s", cmds[i], want,
				err);
	}
	CHECK_RUN(1, "json", path, DIR "/refused.json");
	HT_CHECK(strstr(err, want));
	return 0;
}

static int test_refuse(void)
{
	struct ttrace_entry e = { .timestamp = TSC_BOOT + 500 };

	sample();
	e.type = TTRACE_TYPE(200, TTRACE_CTX_IDLE, 0, 0, 2);
	tb_raw(2, &e);
	if (all_refuse(tb_write("badid.ttr"), "event id 200 is not in the "
		       "metadata"))
		return 1;
	sample();
	e.type = TTRACE_TYPE(E_TICK, TTRACE_CTX_IDLE, 0, 0, 1);
	tb_raw(2, &e);
	if (all_refuse(tb_write("badcpu.ttr"), "written by cpu 1 but in the "
		       "ring of cpu 2"))
		return 1;
	/* an aux record whose length runs past the snapshot: text used to
	 * print names from the good records before it */
	sample();
	tb_name(TTRACE_AUX_PROC_NAME, 9, 0, "x");
	memset(tb.aux + tb.auxlen - 32 + 4, 0x7f, 4);	/* its length */
	return all_refuse(tb_write("badaux.ttr"), "section AUX: malformed");
}

static int test_damaged(void)
{
	const char *path = sample();
	struct stat st;
	FILE *f;

	HT_CHECK(stat(path, &st) == 0);
	HT_CHECK(truncate(path, st.st_size / 2) == 0);
	if (all_refuse(path, "section"))
		return 1;
	f = fopen(DIR "/garbage.ttr", "wb");
	HT_CHECK(f);
	for (int i = 0; i < 5000; i++)
		putc(i * 7919 >> 3, f);
	fclose(f);
	CHECK_RUN(1, "text", DIR "/garbage.ttr");
	HT_CHECK(strstr(err, "ttdecode: " DIR "/garbage.ttr: offset 0: "));
	CHECK_RUN(1, "text", DIR "/no-such-file");
	return 0;
}

/* ---- unwrap -------------------------------------------------------------- */

/* The sample as a console log: hex lines of line_bytes bytes, every other
 * line upper case, with another CPU's output in between; bad (if set)
 * replaces the third line. */
static const char *console_log(size_t line_bytes, const char *bad)
{
	static char data[1 << 16];
	FILE *in = fopen(sample(), "rb"), *log = fopen(DIR "/console.log", "w");
	size_t n = fread(data, 1, sizeof(data), in);

	fclose(in);
	fprintf(log, "booting\nTTRACE-DUMP-BEGIN\n");
	for (size_t i = 0, line = 0; i < n; i += line_bytes, line++) {
		fprintf(log, line == 1 && bad ? "%s\n" : "TTD ", bad);
		for (size_t k = i; k < n && k < i + line_bytes; k++)
			fprintf(log, line % 2 ? "%02X" : "%02x",
				(unsigned char)data[k]);
		fprintf(log, "\r\n%s", line == 2 ? "cpu1: a message\n" : "");
	}
	fprintf(log, "TTRACE-DUMP-END\n");
	fclose(log);
	return DIR "/console.log";
}

static int test_unwrap(void)
{
	static char a[1 << 16], b[1 << 16];

	/* lines of 3000 hex digits, both cases: fgets(512) used to cut them */
	CHECK_RUN(0, "unwrap", console_log(1500, NULL), DIR "/unwrapped.ttr");
	slurp(sample(), a, sizeof(a));
	slurp(DIR "/unwrapped.ttr", b, sizeof(b));
	HT_CHECK(!memcmp(a, b, sizeof(a)));
	CHECK_RUN(0, "verify", DIR "/unwrapped.ttr");
	CHECK_RUN(1, "unwrap", console_log(40, "TTD 0012zz"), DIR "/u.ttr");
	HT_CHECK(strstr(err, "line 4: not whole hex digit pairs"));
	CHECK_RUN(1, "unwrap", console_log(40, "TTD 001"), DIR "/u.ttr");
	HT_CHECK(strstr(err, "line 4:"));
	return 0;
}

/* ---- scale --------------------------------------------------------------- */

static int test_scale(void)
{
	const char *path = sample();
	int lines;

	CHECK_RUN(0, "scale", "3", path, DIR "/scaled.ttr");
	CHECK_RUN(0, "verify", DIR "/scaled.ttr");
	HT_CHECK(strstr(out, "events: 60; declared lost: 15"));
	CHECK_RUN(0, "text", DIR "/scaled.ttr");
	HT_CHECK(lines_rise(out, &lines) && lines == 60 &&
		 count_of(out, "hello-marker") == 3);
	CHECK_RUN(2, "scale", "0", path, DIR "/scaled.ttr");
	return 0;
}

/* ---- split --------------------------------------------------------------- */

struct bytes {
	uint8_t data[1 << 16];
	size_t len;
};

static struct bytes first, second, piece;

/* Reads the file at path into b (len 0 if there is none). */
static void read_bytes(struct bytes *b, const char *path)
{
	FILE *f = fopen(path, "rb");

	b->len = f ? fread(b->data, 1, sizeof(b->data), f) : 0;
	if (f)
		fclose(f);
}

/* Writes a stream: the n bytes at a, then the m bytes at b. */
static const char *write_stream(const char *name, const struct bytes *a,
				size_t n, const struct bytes *b, size_t m)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", DIR, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a->data, 1, n, f) != n ||
	    fwrite(b->data, 1, m, f) != m || fclose(f))
		abort();
	return path;
}

/* PREFIX-i.ttr holds exactly b. */
static bool piece_is(const char *prefix, int i, const struct bytes *b)
{
	char path[256];

	snprintf(path, sizeof(path), "%s-%d.ttr", prefix, i);
	read_bytes(&piece, path);
	return piece.len == b->len && !memcmp(piece.data, b->data, b->len);
}

/* Two traces by hand: the sample, and a one-CPU trace of two markers. */
static void two_traces(void)
{
	read_bytes(&first, sample());
	tb_init(1);
	tb_name(TTRACE_AUX_USER_MARKER, 1, 0, "second-trace");
	tb_ev(0, 10, E_MARKER, TTRACE_CTX_IDLE, 0, 1, 0, 0);
	tb_ev(0, 20, E_MARKER, TTRACE_CTX_IDLE, 0, 1, 0, 0);
	read_bytes(&second, tb_write("second.ttr"));
	if (!first.len || !second.len)
		abort();
}

/* A stream of two whole traces splits into both, byte for byte. */
static int test_split(void)
{
	const char *stream;

	two_traces();
	stream = write_stream("two.stream", &first, first.len, &second,
			      second.len);
	remove(DIR "/piece-2.ttr");
	CHECK_RUN(0, "split", stream, DIR "/piece");
	HT_CHECK(!strcmp(out, "split: 2 traces\n"));
	HT_CHECK(piece_is(DIR "/piece", 0, &first));
	HT_CHECK(piece_is(DIR "/piece", 1, &second));
	HT_CHECK(!piece_is(DIR "/piece", 2, &second) && piece.len == 0);
	CHECK_RUN(0, "verify", DIR "/piece-1.ttr");
	HT_CHECK(strstr(out, "events: 2; declared lost: 0"));
	stream = write_stream("empty.stream", &first, 0, &second, 0);
	CHECK_RUN(0, "split", stream, DIR "/none");
	HT_CHECK(!strcmp(out, "split: 0 traces\n"));
	CHECK_RUN(2, "split", stream);
	return 0;
}

/* A stream torn inside its second trace's END, or with a damaged or
 * foreign second part, fails at that offset in the stream; the whole
 * trace before it is written, nothing after. */
static int test_split_torn(void)
{
	char want[160];
	const char *stream, *at;
	unsigned long long off;
	size_t end;

	two_traces();
	end = first.len + second.len - TTRACE_FILE_END_SIZE;
	stream = write_stream("torn.stream", &first, first.len, &second,
			      second.len - 20);
	remove(DIR "/torn-0.ttr");
	remove(DIR "/torn-1.ttr");
	CHECK_RUN(1, "split", stream, DIR "/torn");
	snprintf(want, sizeof(want), "ttdecode: %s: offset %zu: section END "
		 "length 16 runs past end of file", stream, end);
	HT_CHECK(strstr(err, want));
	snprintf(want, sizeof(want), "ttdecode split: 1 whole traces before "
		 "offset %zu written\n", first.len);
	HT_CHECK(strstr(err, want));
	HT_CHECK(piece_is(DIR "/torn", 0, &first));
	HT_CHECK(!piece_is(DIR "/torn", 1, &second) && piece.len == 0);
	second.data[second.len / 2] ^= 0x40;	/* a payload byte */
	stream = write_stream("bad.stream", &first, first.len, &second,
			      second.len);
	CHECK_RUN(1, "split", stream, DIR "/bad");
	at = strstr(err, ": offset ");
	HT_CHECK(at && sscanf(at, ": offset %llu", &off) == 1 &&
		 off >= first.len && off < first.len + second.len &&
		 strstr(err, "CRC mismatch"));
	memcpy(second.data, "not a trace", 11);
	stream = write_stream("junk.stream", &first, first.len, &second, 30);
	CHECK_RUN(1, "split", stream, DIR "/junk");
	snprintf(want, sizeof(want), "ttdecode: %s: offset %zu: file too "
		 "short for a header", stream, first.len);
	HT_CHECK(strstr(err, want));
	return 0;
}

/* ---- the formatter's printf-free path ------------------------------------ */

/* What printf makes of v for spec (the C type conv_print passes). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int libc_conv(char *buf, size_t n, const char *spec, uint64_t v)
{
	char conv = spec[strlen(spec) - 1];
	bool ll = strstr(spec, "ll"), l = !ll && strchr(spec, 'l'),
	     z = strchr(spec, 'z');

	if (conv == 'd' || conv == 'i')
		return ll ? snprintf(buf, n, spec, (long long)v) :
		       l ? snprintf(buf, n, spec, (long)v) :
		       snprintf(buf, n, spec, (int)v);
	return ll ? snprintf(buf, n, spec, (unsigned long long)v) :
	       l ? snprintf(buf, n, spec, (unsigned long)v) :
	       z ? snprintf(buf, n, spec, (size_t)v) :
	       snprintf(buf, n, spec, (unsigned)v);
}
#pragma GCC diagnostic pop

/* ttrace_format_args with one-conversion formats prints what printf
 * prints, the plain conversions (written without printf) and the others,
 * whole and cut to small buffers. */
static int test_conversions(void)
{
	static const char *const specs[] = {
		"%u", "%d", "%i", "%x", "%#x", "%lu", "%ld", "%lx", "%#lx",
		"%llu", "%lld", "%llx", "%#llx", "%zu", "%zx", "%#zx", "%5u",
		"%-8llx", "%08x", "%hu", "%hhx", "%+d", "%o",
	};
	static const uint64_t vals[] = {
		0, 1, 9, 10, 15, 16, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 12345678901234ULL, (uint64_t)-1, (uint64_t)-42,
		0x8000000000000000ULL,
	};
	struct ttrace_arg_meta arg = { "v", TTRACE_ARG_U64, 0, 0, 0 };
	struct ttrace_event_view ev = { .nwords = 5 };
	char a[64], b[64];

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct ttrace_event_meta m = { "e", specs[i], &arg, 0, 0, 1, 1 };

		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			ev.args[0] = vals[k];
			for (size_t n = 0; n <= sizeof(a); n += n < 6 ? 1 : 58) {
				int x = ttrace_format_args(n ? a : NULL, n, &m, &ev,
							   NULL, NULL);
				int y = libc_conv(n ? b : NULL, n, specs[i], vals[k]);

				if (x != y || (n && strcmp(a, b)))
					HT_FAIL("%s of %#llx in %zu bytes: '%s' "
						"(%d), printf '%s' (%d)", specs[i],
						(unsigned long long)vals[k], n,
						n ? a : "", x, n ? b : "", y);
			}
		}
	}
	return 0;
}

/* Formats ev of table t as a timed line with and without compiled plans,
 * in buffers of each size up to PLANS_AGREE_MAX bytes, each on the heap
 * with exactly that size (so that ASan sees a write past it: a line with
 * a plan is written unchecked when the buffer holds its longest text,
 * some 700 bytes for these formats); fails unless both give the same
 * text and length, whole and cut. */
#define PLANS_AGREE_MAX	1024
static int plans_agree(const struct ttrace_meta_table *t,
		       const struct ttrace_event_view *ev)
{
	struct ttrace_fmt_plan plan;

	ttrace_fmt_plan_init(&plan, &t->events[0]);
	for (size_t n = 0; n <= PLANS_AGREE_MAX; n++) {
		char *a = n ? malloc(n) : NULL, *b = n ? malloc(n) : NULL;
		int x, y;
		bool same;

		if (n && (!a || !b))
			HT_FAIL("out of memory");
		x = ttrace_format_timed_line_plans(a, n, 1000, 0, t, &plan, ev,
						   NULL, NULL);
		y = ttrace_format_timed_line(b, n, 1000, 0, t, ev, NULL, NULL);
		same = x == y && (!n || !strcmp(a, b));
		if (!same)
			HT_FAIL("format '%.40s' in %zu bytes: planned '%.60s' "
				"(%d), parsed '%.60s' (%d)", t->events[0].format, n,
				n ? a : "", x, n ? b : "", y);
		free(a);
		free(b);
	}
	return 0;
}

/* A compiled format (ttrace_fmt_plan) prints what parsing it at each use
 * prints: every conversion kind, %p and %s (no printf) included, a format
 * with more steps than a plan holds, and one that does not check out. */
static int test_plans(void)
{
	static const char *const fmts[] = {
		"v=%u", "v=%d!", "%#x", "%lld %%", "%#llx", "%zu", "%p", "%5u",
		"%-8llx|", "%hu", "%+d", "%o", "a%%b%uc", "%llu %llu %llu %llu "
		"%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		"%s", "<%-6s>", "bad %q",
	};
	static const uint64_t vals[] = {
		0, 1, 15, 0x80000000, 0xffffffff, 12345678901234ULL,
		(uint64_t)-1, (uint64_t)-42,
	};
	struct ttrace_arg_meta args[17];
	struct ttrace_event_view ev = { .timestamp = 123456789, .nwords = 12 };

	for (size_t i = 0; i < 17; i++)
		args[i] = (struct ttrace_arg_meta){ "v", TTRACE_ARG_U64, 0, 0, 0 };
	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		struct ttrace_event_meta m = { "e", "%p", args, 0, 0, 1, 1 };
		char a[32], b[32];

		ev.args[0] = vals[k];	/* %p without printf, as printfmt's */
		ttrace_format_args(a, sizeof(a), &m, &ev, NULL, NULL);
		fmt_snprintf(b, sizeof(b), "%p", (void *)(uintptr_t)vals[k]);
		HT_CHECK(!strcmp(a, b));
	}
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		bool str = strstr(fmts[i], "s") != NULL;
		struct ttrace_arg_meta sarg = { "s", TTRACE_ARG_STR,
						TTRACE_AUX_PROC_NAME, 0, 0 };
		struct ttrace_event_meta m = { "e", fmts[i], str ? &sarg : args,
					       0, 0, 1,
					       i == 13 ? 17 : 1 };
		struct ttrace_meta_table t = { &m, NULL, 1, 0 };

		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			for (size_t w = 0; w < 12; w++)
				ev.args[w] = vals[(k + w) % 8];
			if (plans_agree(&t, &ev))
				return -1;
		}
	}
	return 0;
}

/*
 * A record's timestamp on CPU 0's clock (ttrace_ts_on_cpu0(), the TSC
 * section's rule): the offset rounded down to even, so a continuation stays
 * its parent's | 1; nothing goes below 0 (1 for a continuation); and the
 * order of timestamps is kept, parents and continuations alike.
 */
static int test_ts_on_cpu0(void)
{
	static const struct {
		uint64_t ts;
		int64_t off;
		uint64_t want;
	} cases[] = {
		{ 1000, 0, 1000 }, { 1001, 0, 1001 }, { 1000, 1, 1000 },
		{ 1001, 1, 1001 }, { 1000, 2, 998 }, { 1000, 3, 998 },
		{ 1001, 3, 999 }, { 1000, -1, 1002 }, { 1000, -3, 1004 },
		{ 1001, -3, 1005 }, { 1000, -2, 1002 },
		{ 1000, 1000, 0 }, { 1001, 1000, 1 }, { 1000, 1001, 0 },
		{ 1001, 1001, 1 }, { 1000, 1002, 0 }, { 1001, 1003, 1 },
		{ 0, 5, 0 }, { 1, 5, 1 }, { 2, 3, 0 }, { 4, 3, 2 },
		{ 1000, INT64_MAX, 0 }, { 1001, INT64_MAX, 1 },
		{ 1ULL << 63, INT64_MAX, 2 },
		{ 1000, INT64_MIN, 1000 + (1ULL << 63) },
		{ 1001, INT64_MIN + 1, 1001 + (1ULL << 63) },
	};
	uint64_t x = 88172645463325252ULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = ttrace_ts_on_cpu0(cases[i].ts, cases[i].off);

		if (got != cases[i].want)
			HT_FAIL("ts %llu offset %lld: %llu, want %llu",
				(unsigned long long)cases[i].ts,
				(long long)cases[i].off,
				(unsigned long long)got,
				(unsigned long long)cases[i].want);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t a, b, lo, hi;
		int64_t off;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a = (x >> 24) & ~1ULL;
		b = a + (x & 0xfff);
		off = (int64_t)((x >> 12) & 0x3ffffff) - 0x1000000;
		lo = ttrace_ts_on_cpu0(a, off);
		hi = ttrace_ts_on_cpu0(b, off);
		HT_CHECK(ttrace_ts_on_cpu0(a | 1, off) == (lo | 1));
		HT_CHECK(!(lo & 1) && lo <= hi);
	}
	return 0;
}

/* The time stamp of a text line: microseconds since tsc_boot with three
 * decimals (zero padded), '-' before boot, raw TSC without a clock rate. */
static int test_timestamps(void)
{
	static const struct {
		uint64_t hz, boot, ts;
		const char *want;
	} cases[] = {
		{ 3, 10, 10, "0.000 us cpu0 boot e: " },
		{ 3, 10, 11, "333333.333 us cpu0 boot e: " },
		{ 3, 10, 9, "-333333.333 us cpu0 boot e: " },
		{ 3, 0, 3000000000ULL,
		  "1000000000000000.000 us cpu0 boot e: " },
		{ 1000000000, 0, 1234567, "1234.567 us cpu0 boot e: " },
		{ 1000000000, 0, 20000123456ULL,	/* past 2^64 / 10^9 */
		  "20000123.456 us cpu0 boot e: " },
		{ 1000000000, 0, 1005, "1.005 us cpu0 boot e: " },
		{ 1000000000, 100, 60, "-0.040 us cpu0 boot e: " },
		{ 0, 5, 77, "77 tsc cpu0 boot e: " },
	};
	struct ttrace_event_meta m = { "e", "", NULL, 0, 0, 1, 0 };
	struct ttrace_meta_table t = { &m, NULL, 1, 0 };
	struct ttrace_fmt_plan plan;
	char line[128];

	ttrace_fmt_plan_init(&plan, &m);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ttrace_event_view ev = { .timestamp = cases[i].ts };

		ttrace_format_timed_line_plans(line, sizeof(line), cases[i].hz,
					       cases[i].boot, &t, &plan, &ev,
					       NULL, NULL);
		if (strcmp(line, cases[i].want))
			HT_FAIL("ts %llu at %llu Hz: '%s', want '%s'",
				(unsigned long long)cases[i].ts,
				(unsigned long long)cases[i].hz, line,
				cases[i].want);
	}
	return 0;
}

/* ttrace_ticks_to_ns() is exactly floor(ticks * 10^9 / hz) wherever that
 * fits in 64 bits, for clocks from 1 Hz to 2^40 Hz and tick counts of
 * every size (most beyond 2^64 / 10^9, where the product overflows). */
static int test_ticks_to_ns(void)
{
	uint64_t x = 88172645463325252ULL;
	int checked = 0;

	for (int i = 0; i < 200000; i++) {
		uint64_t ticks, hz, got;
		unsigned __int128 want;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ticks = x >> (x % 64);
		hz = (x >> 24) % (1ULL << (1 + (x >> 8) % 40)) + 1;
		want = (unsigned __int128)ticks * 1000000000 / hz;
		if (want > UINT64_MAX)
			continue;
		checked++;
		got = ttrace_ticks_to_ns(ticks, hz);
		if (got != (uint64_t)want)
			HT_FAIL("%llu ticks at %llu Hz: %llu ns, want %llu",
				(unsigned long long)ticks,
				(unsigned long long)hz,
				(unsigned long long)got,
				(unsigned long long)want);
	}
	HT_CHECK(checked > 50000);
	return 0;
}

/* A compiled format indents by the argument named "depth" as the parsed
 * one does: each depth, a clamped one, and one whose word is lost. */
static int test_plans_depth(void)
{
	struct ttrace_arg_meta args[2] = {
		{ "addr", TTRACE_ARG_U64, 0, 0, 0 }, { "depth", TTRACE_ARG_U64, 0, 0, 0 },
	};
	struct ttrace_event_meta m = { "func_entry", "%#llx depth=%llu", args,
				       0, 0, 1, 2 };
	struct ttrace_meta_table t = { &m, NULL, 1, 0 };
	static const uint64_t depths[] = { 0, 1, 2, 31, 32, 40, (uint64_t)-1 };
	struct ttrace_event_view ev = { .timestamp = 5, .nwords = 5 };

	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		ev.args[0] = 0x1234;
		ev.args[1] = depths[i];
		ev.nwords = i == 3 ? 1 : 5;
		if (plans_agree(&t, &ev))
			return -1;
	}
	return 0;
}

/* A call chain's frames past its end (str:ksym words that are 0) print
 * as nothing, with the text before them, through a compiled format as
 * through a parsed one (ttrace_fmt_plan's frames). */
static int test_plans_frames(void)
{
	struct ttrace_arg_meta args[3];
	struct ttrace_event_meta m = { "stack", "%s <- %s <- %s", args, 0, 0,
				       1, 3 };
	struct ttrace_meta_table t = { &m, NULL, 1, 0 };
	struct ttrace_event_view ev = { .timestamp = 5, .nwords = 5,
					.args = { 0x1234, 0, 0 } };
	struct ttrace_fmt_plan plan;
	char line[1024];
	int n;

	for (size_t i = 0; i < 3; i++)
		args[i] = (struct ttrace_arg_meta){ "pc", TTRACE_ARG_STR,
						    TTRACE_AUX_KSYM_NAME, 0, 0 };
	ttrace_fmt_plan_init(&plan, &m);
	n = ttrace_format_timed_line_plans(line, sizeof(line), 1000, 0, &t,
					   &plan, &ev, NULL, NULL);
	HT_CHECK(n > 0 && !strcmp(line, "5000.000 us cpu0 boot stack: #4660"));
	if (plans_agree(&t, &ev))
		return -1;
	ev.args[1] = 7;		/* a frame in the middle, the last missing */
	ev.nwords = 2;
	return plans_agree(&t, &ev);
}

static const struct ht_test tests[] = {
	{ test_ts_on_cpu0, "ttdecode_ts_on_cpu0" },
	{ test_conversions, "ttdecode_conversions_match_printf" },
	{ test_plans, "ttdecode_compiled_formats_match_parsed" },
	{ test_plans_depth, "ttdecode_compiled_formats_indent" },
	{ test_plans_frames, "ttdecode_compiled_formats_frames" },
	{ test_timestamps, "ttdecode_timestamps" },
	{ test_ticks_to_ns, "ttdecode_ticks_to_ns" },
	{ test_text, "ttdecode_text" },
	{ test_text_filters, "ttdecode_text_filters" },
	{ test_many_cpus, "ttdecode_many_cpus" },
	{ test_json, "ttdecode_json" },
	{ test_json_window, "ttdecode_json_window" },
	{ test_stats, "ttdecode_stats" },
	{ test_commands, "ttdecode_command_table" },
	{ test_refuse, "ttdecode_refuses_what_verify_refuses" },
	{ test_damaged, "ttdecode_damaged_files" },
	{ test_unwrap, "ttdecode_unwrap" },
	{ test_scale, "ttdecode_scale" },
	{ test_split, "ttdecode_split" },
	{ test_split_torn, "ttdecode_split_torn" },
	{ 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
