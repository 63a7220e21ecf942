/*
 * ttdecode: the host-side decoder of ttrace trace files (docs/trace-file.md),
 * the files `ttrace save` and `ttrace record` write in the guest.
 *
 *	ttdecode verify TRACE	check everything, print counts, "verify: OK"
 *	ttdecode text TRACE	every event of every CPU in time order, one
 *				line each, as the device's cpuN files print
 *	ttdecode unwrap LOG OUT	recover the trace a panic dumped to the serial
 *				console (hex "TTD" lines between
 *				TTRACE-DUMP-BEGIN and TTRACE-DUMP-END) into OUT
 *
 * The file is read whole into memory and loaded by tools/ttload.c, which
 * checks the framing, CRCs, END and every payload against the version
 * header before anything is used; a bad file ends the program with
 *
 *	ttdecode: TRACE: offset N: what is wrong
 *
 * and status 1. CPUs are merged on CPU 0's clock: the loader subtracts the
 * TSC offsets the file carries (TSC section), and verify warns when one is
 * beyond TSC_SYNC_BOUND_NS. Decoding reuses kern/lib: pairing of continuations and
 * formatting (ttrace_decode.c), metadata (ttrace_meta.c), names from the
 * aux snapshot (ttrace_aux.c), so the host prints exactly what the kernel
 * would.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tsc_sync.h>
#include <ttrace_decode.h>

#include "ttload.h"

#define ull(x)	((unsigned long long)(x))

static const char *aux_tag_names[TTRACE_AUX_NTAGS] = {
	[TTRACE_AUX_SYSCALL_NAME] = "syscall",
	[TTRACE_AUX_PROC_NAME] = "proc",
	[TTRACE_AUX_KTHREAD_NAME] = "kthread",
	[TTRACE_AUX_BOOT_PHASE] = "boot",
	[TTRACE_AUX_EVENT_META] = "meta",
	[TTRACE_AUX_USER_MARKER] = "marker",
	[TTRACE_AUX_IRQ_NAME] = "irq",
	[TTRACE_AUX_KMSG_NAME] = "kmsg",
	[TTRACE_AUX_COUNTER_NAME] = "counter",
};

/* Prints "ttdecode: PATH: offset N: problem". Returns the exit status. */
static int report(const char *path, const struct ttrace_file_error *err)
{
	if (err->offset == TTLOAD_NO_OFFSET)
		fprintf(stderr, "ttdecode: %s: %s\n", path, err->msg);
	else
		fprintf(stderr, "ttdecode: %s: offset %llu: %s\n", path,
			ull(err->offset), err->msg);
	return 1;
}

/* ---- verify -------------------------------------------------------------- */

static void print_version(const struct ttload *t)
{
	const struct ttrace_version *v = &t->version;

	printf("file: %llu bytes, %u sections + END, crc32 %#010x\n",
	       ull(t->size), t->nsections, t->file_crc);
	printf("version: %u cpus, %llu entries/cpu, tsc %llu Hz, %s mode, "
	       "group mask %#llx\n", v->num_cpus, ull(v->entries_per_cpu),
	       ull(v->tsc_hz), v->ring_mode ? "saturate" : "overwrite",
	       ull(v->group_mask));
	printf("meta: %u events, %u groups, %llu bytes\n", t->meta.nevents,
	       t->meta.ngroups, ull(t->meta_len));
	if (t->nunknown)
		printf("skipped %u sections of unknown type\n", t->nunknown);
}

/* Prints the aux record counts. Returns 0, or -1 with err set. */
static int verify_aux(const struct ttload *t, struct ttrace_file_error *err)
{
	struct ttload_aux_check ac;

	if (!t->has_aux) {
		printf("aux: none\n");
		return 0;
	}
	if (ttload_check_aux(t, &ac, err) < 0)
		return -1;
	printf("aux: %llu bytes, %llu records (", ull(t->aux.len),
	       ull(ac.records));
	for (unsigned g = 1; g < TTRACE_AUX_NTAGS; g++)
		printf("%s%s %llu", g > 1 ? ", " : "", aux_tag_names[g],
		       ull(ac.bytag[g]));
	printf("), %llu invalid, %llu unknown tag\n", ull(ac.invalid),
	       ull(ac.unknown_tag));
	return 0;
}

static void print_ring(const struct ttload *t, uint32_t c)
{
	const struct ttload_cpu *cpu = &t->cpus[c];
	const struct ttload_ring_check *rc = &cpu->check;

	printf("cpu%u: %llu events (%llu first + %llu continuation entries), "
	       "indices %llu-%llu, %llu reordered", c, ull(rc->firsts),
	       ull(rc->firsts), ull(rc->conts), ull(rc->first_index),
	       ull(rc->end_index), ull(rc->reordered));
	if (rc->before_boot)
		printf(", %llu before boot", ull(rc->before_boot));
	if (cpu->has_stats)
		printf("; written %llu, overwritten %llu, dropped %llu",
		       ull(cpu->stats.written), ull(cpu->stats.overwritten),
		       ull(cpu->stats.dropped));
	printf("\n");
	for (uint64_t i = 0; i < cpu->nlosses; i++)
		printf("cpu%u: lost %llu records [%llu, %llu): %s\n", c,
		       ull(cpu->losses[i].count), ull(cpu->losses[i].first),
		       ull(cpu->losses[i].first + cpu->losses[i].count),
		       ttrace_loss_name(cpu->losses[i].reason));
}

/* The TSC offsets the file carries, and a warning for each CPU whose TSC
 * certainly differs from CPU 0's by more than TSC_SYNC_BOUND_NS. */
static void print_tsc(const struct ttload *t)
{
	uint64_t bound = tsc_sync_ns_to_cycles(TSC_SYNC_BOUND_NS,
					       t->version.tsc_hz);

	if (!t->tsc) {
		printf("tsc: no offsets (CPUs merged by raw TSC)\n");
		return;
	}
	for (uint32_t c = 1; c < t->version.num_cpus; c++) {
		struct tsc_sync_est e = { t->tsc[c].offset,
					  t->tsc[c].uncertainty, 1 };

		printf("tsc: cpu%u offset %lld cycles +- %llu\n", c,
		       (long long)e.offset, ull(e.uncertainty));
		if (tsc_sync_exceeds(&e, bound))
			printf("warning: cpu%u TSC differs from cpu0's by %lld "
			       "cycles (more than %d ns); merged with the "
			       "offset subtracted\n", c, (long long)e.offset,
			       TSC_SYNC_BOUND_NS);
	}
}

static int cmd_verify(const char *path)
{
	struct ttrace_file_error err;
	struct ttload t;
	uint64_t lost = 0, events = 0;

	if (ttload_file(&t, path, &err) < 0)
		return report(path, &err);
	print_version(&t);
	print_tsc(&t);
	if (verify_aux(&t, &err) < 0)
		goto bad;
	for (uint32_t c = 0; c < t.version.num_cpus; c++) {
		if (!t.cpus[c].nruns) {
			printf("cpu%u: no records\n", c);
			continue;
		}
		print_ring(&t, c);
		events += t.cpus[c].check.firsts;
		for (uint32_t r = 0; r < TTRACE_LOSS_NREASONS; r++)
			lost += t.cpus[c].lost[r];
	}
	printf("events: %llu; declared lost: %llu\n", ull(events), ull(lost));
	printf("verify: OK\n");
	ttload_free(&t);
	return 0;
bad:
	fflush(stdout);
	ttload_free(&t);
	return report(path, &err);
}

/* ---- text ---------------------------------------------------------------- */

struct stream {
	struct ttrace_pair_iter it;
	struct ttrace_event_view ev;
	bool have;
	uint64_t nextloss;	/* index into the cpu's losses */
};

/* Prints cpu c's declared losses placed at or before time ts. */
static void print_losses(const struct ttload_cpu *cpu, uint32_t c,
			 struct stream *s, uint64_t ts)
{
	for (; s->nextloss < cpu->nlosses &&
	       cpu->losses[s->nextloss].ts <= ts; s->nextloss++)
		printf("-- cpu%u: %llu records lost (%s) --\n", c,
		       ull(cpu->losses[s->nextloss].count),
		       ttrace_loss_name(cpu->losses[s->nextloss].reason));
}

/* Index of the stream whose current event is oldest, or -1 if all done. */
static int64_t oldest(const struct stream *s, uint32_t n)
{
	int64_t best = -1;

	for (uint32_t i = 0; i < n; i++)
		if (s[i].have && (best < 0 ||
				  s[i].ev.timestamp < s[best].ev.timestamp))
			best = i;
	return best;
}

static void print_event(struct ttload *t, const struct ttrace_event_view *ev)
{
	static char line[8192];

	ttrace_format_timed_line(line, sizeof(line), t->version.tsc_hz,
				 t->version.tsc_boot, &t->meta, ev,
				 ttload_resolve, t);
	printf("%s\n", line);
}

static int cmd_text(const char *path)
{
	struct ttrace_file_error err;
	struct ttload t;
	struct stream *s;
	uint32_t n;
	int64_t i;

	if (ttload_file(&t, path, &err) < 0)
		return report(path, &err);
	n = t.version.num_cpus;
	s = calloc(n, sizeof(*s));
	if (!s) {
		ttload_free(&t);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	for (uint32_t c = 0; c < n; c++) {
		ttrace_pair_init(&s[c].it, t.cpus[c].sorted, t.cpus[c].nsorted);
		s[c].have = ttrace_pair_next(&s[c].it, &s[c].ev);
	}
	while ((i = oldest(s, n)) >= 0) {
		print_losses(&t.cpus[i], (uint32_t)i, &s[i], s[i].ev.timestamp);
		print_event(&t, &s[i].ev);
		s[i].have = ttrace_pair_next(&s[i].it, &s[i].ev);
	}
	for (uint32_t c = 0; c < n; c++)
		print_losses(&t.cpus[c], c, &s[c], UINT64_MAX);
	free(s);
	ttload_free(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ttdecode: write error on stdout\n");
		return 1;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes one "TTD <hex>" line into out; returns false on a bad digit. */
static bool unwrap_line(const char *hex, FILE *out)
{
	for (; hex[0] && hex[0] != '\r' && hex[0] != '\n'; hex += 2) {
		int hi = hexval(hex[0]), lo = hex[1] ? hexval(hex[1]) : -1;

		if (hi < 0 || lo < 0)
			return false;
		fputc(hi << 4 | lo, out);
	}
	return true;
}

static int cmd_unwrap(const char *log, const char *outpath)
{
	FILE *in = fopen(log, "r"), *out = NULL;
	char line[512];
	long lineno = 0;
	int state = 0;		/* 0 before BEGIN, 1 inside, 2 after END */

	if (!in || !(out = fopen(outpath, "wb"))) {
		perror(in ? outpath : log);
		return 1;
	}
	while (state < 2 && fgets(line, sizeof(line), in)) {
		lineno++;
		if (state == 0 && strstr(line, "TTRACE-DUMP-BEGIN"))
			state = 1;
		else if (state == 1 && strstr(line, "TTRACE-DUMP-END"))
			state = 2;
		else if (state == 1 && !strncmp(line, "TTD ", 4) &&
			 !unwrap_line(line + 4, out))
			state = 3;
	}
	fclose(in);
	if (fclose(out) || state != 2) {
		fprintf(stderr, "ttdecode: %s: line %ld: %s\n", log, lineno,
			state == 3 ? "bad hex digit" :
			state == 0 ? "no TTRACE-DUMP-BEGIN" : "no TTRACE-DUMP-END");
		return 1;
	}
	return 0;
}

static int run_verify(int argc, char **argv)
{
	(void)argc;
	return cmd_verify(argv[0]);
}

static int run_text(int argc, char **argv)
{
	(void)argc;
	return cmd_text(argv[0]);
}

static int run_unwrap(int argc, char **argv)
{
	(void)argc;
	return cmd_unwrap(argv[0], argv[1]);
}

/* The commands: argv[0] is the command's first operand. One line each. */
static const struct command {
	const char *name;
	int nargs;			/* operands required */
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "verify", 1, run_verify, "verify TRACE" },
	{ "text", 1, run_text, "text TRACE" },
	{ "unwrap", 2, run_unwrap, "unwrap CONSOLE-LOG OUT" },
};

static int usage(void)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "%s ttdecode %s\n", i ? "      " : "usage:",
			commands[i].usage);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			if (argc - 2 < commands[i].nargs)
				return usage();
			return commands[i].run(argc - 2, argv + 2);
		}
	return usage();
}
