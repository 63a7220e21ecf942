/*
 * ttdecode: the host-side decoder of ttrace trace files (docs/trace-file.md),
 * the files `ttrace save` and `ttrace record` write in the guest.
 *
 *	ttdecode verify TRACE	check everything, print counts, "verify: OK"
 *	ttdecode unwrap LOG OUT	recover the trace a panic dumped to the serial
 *				console (hex "TTD" lines between
 *				TTRACE-DUMP-BEGIN and TTRACE-DUMP-END) into OUT
 *				(ttunwrap.c)
 *	ttdecode scale N TRACE OUT  a trace N times bigger, for make bench
 *				(ttscale.c)
 *	ttdecode split STREAM PREFIX  the traces saved back to back in
 *				STREAM into PREFIX-0.ttr, ... (ttsplit.c)
 *	ttdecode EXPORT ...	one file each in tools/export/: text, json,
 *				stats, boot, uftrace, ctf (docs/exports.md)
 *
 * docs/ttdecode.md is the reference. This file holds the dispatch over
 * the commands registered with TTDECODE_COMMAND (ttdecode.h), verify, and
 * what the commands share; the loader, the merge of CPUs by a heap and
 * the one model of a trace every export reads (spans and losses) are in
 * tools/load/.
 *
 * The file is read whole into memory and loaded by tools/load/ttload.c, which
 * checks the framing, CRCs, END and every payload against the version
 * header before anything is used; a bad file ends the program with
 *
 *	ttdecode: TRACE: offset N: what is wrong
 *
 * and status 1. CPUs are merged on CPU 0's clock: the loader subtracts the
 * TSC offsets the file carries (TSC section), and verify warns when one is
 * beyond TSC_SYNC_BOUND_NS. Decoding reuses kern/lib: pairing of continuations and
 * formatting (kern/trace/lib/decode.c), metadata (kern/trace/lib/meta.c), names from the
 * aux snapshot (kern/trace/lib/aux.c), so the host prints exactly what the kernel
 * would.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tsc_sync.h>
#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttload.h"

static int usage(void);

/* "ttdecode CMD: why" and the usage. Returns the exit status (2). */
int ttdecode_usage_error(const char *cmd, const char *why)
{
	fprintf(stderr, "ttdecode %s: %s\n", cmd, why);
	return usage();
}

/*
 * The start of every filtered command: its options (opts) parsed into f,
 * exactly nops operands left (what names them, for the usage), the trace
 * argv[0] loaded into t and f bound to it. Returns 0, or the exit status
 * after saying why (then there is nothing to free).
 */
int ttdecode_open(const char *cmd, int *argc, char **argv,
		  enum ttfilter_opts opts, int nops, const char *what,
		  struct ttfilter *f, struct ttload *t)
{
	const char *why;
	int rc;

	if (ttfilter_parse(f, argc, argv, opts, &why) < 0)
		return ttdecode_usage_error(cmd, why);
	if (*argc != nops)
		return ttdecode_usage_error(cmd, what);
	if ((rc = ttload_open(t, argv[0])))
		return rc;
	if (ttfilter_bind(f, t) < 0) {
		ttdecode_close(f, t);
		fprintf(stderr, "ttdecode: out of memory\n");
		return 1;
	}
	return 0;
}

/* Undoes ttdecode_open(). */
void ttdecode_close(struct ttfilter *f, struct ttload *t)
{
	ttfilter_free(f);
	ttload_free(t);
}

/* Writes out what o's buffer holds, noting a failure. */
void ttout_flush(struct ttout *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = true;
	o->len = 0;
}

/* Flushes f (named what) and reports a write error. Returns 0 or 1. */
int ttdecode_finish_output(FILE *f, const char *what)
{
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "ttdecode: write error on %s\n", what);
		return 1;
	}
	return 0;
}

/* ---- verify -------------------------------------------------------------- */

static void print_version(const struct ttload *t)
{
	const struct ttrace_version *v = &t->version;

	printf("file: %llu bytes, %u sections + END, crc32c %#010x\n",
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

/* Prints the aux record counts the loader found. */
static void verify_aux(const struct ttload *t)
{
	const struct ttload_aux_check ac = t->auxcheck;

	if (!t->has_aux) {
		printf("aux: none\n");
		return;
	}
	printf("aux: %llu bytes, %llu records (", ull(t->aux.len),
	       ull(ac.records));
	for (unsigned g = 1; g < TTRACE_AUX_NTAGS; g++)
		printf("%s%s %llu", g > 1 ? ", " : "", ttrace_aux_tag_name(g),
		       ull(ac.bytag[g]));
	printf("), %llu invalid\n", ull(ac.invalid));
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
	if (cpu->has_filtered)
		printf(", filtered %llu", ull(cpu->stats.filtered));
	if (cpu->has_str_dropped)
		printf(", strings dropped %llu", ull(cpu->stats.str_dropped));
	if (cpu->has_ring)
		printf(" (the ring since index %llu: %llu entries, %s)",
		       ull(cpu->stats.start), ull(cpu->stats.entries),
		       cpu->stats.mode ? "saturate" : "overwrite");
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

static int verify(const char *path)
{
	struct ttload t;
	uint64_t lost = 0, events = 0;
	int rc;

	if ((rc = ttload_open(&t, path)))
		return rc;
	print_version(&t);
	print_tsc(&t);
	verify_aux(&t);
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
}

static int run_verify(int argc, char **argv)
{
	(void)argc;
	return verify(argv[0]);
}

static const struct ttdecode_command cmd_verify = {
	"verify", 1, run_verify, "verify TRACE" };
TTDECODE_COMMAND(cmd_verify);

/* The registered commands (TTDECODE_COMMAND), in link order. */
extern const struct ttdecode_command *const __start_ttdecode_commands[];
extern const struct ttdecode_command *const __stop_ttdecode_commands[];

#define for_each_command(c)						\
	for (const struct ttdecode_command *const *c =			\
	     __start_ttdecode_commands; c < __stop_ttdecode_commands; c++)

static int usage(void)
{
	for_each_command(c)
		fprintf(stderr, "%s ttdecode %s\n",
			c == __start_ttdecode_commands ? "usage:" : "      ",
			(*c)->usage);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	for_each_command(c)
		if (!strcmp(argv[1], (*c)->name)) {
			if (argc - 2 < (*c)->nargs)
				return usage();
			return (*c)->run(argc - 2, argv + 2);
		}
	return usage();
}
