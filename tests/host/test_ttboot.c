/*
 * Host tests of the boot profile (tools/export/ttboot.c) on hand-built traces.
 *
 * Each trace is made as the kernel makes one: boot_phase and boot_phase_at
 * records written into per-CPU rings through kern/trace/lib/ring.c, phase
 * names into an aux ring, metadata serialised by kern/lib, the whole
 * written as a trace file (one RECORDS section per CPU, optionally a TSC
 * section) and loaded back by tools/load/ttload.c. The clock is 1 GHz, so one
 * tick is one nanosecond. The boot of full_boot() is:
 *
 *	cpu0: entry@100 kmain@120 memory@200 smp@300
 *	      ap_start 1@310 ap_sipi 1@320 ap_online 1@400
 *	      ap_start 2@410 ap_sipi 2@420 ap_online 2@500
 *	      devices@510 init_spawn@600 first_process@650
 *	cpu1: ap_trampoline@330 ap_init@336 ap_tsc_sync@350 ap_ready@390,
 *	      shell_ready@700 (the shell ran there)
 *	cpu2: ap_trampoline@430 ap_init@436 ap_tsc_sync@450 ap_ready@480
 *
 * and each test drops or moves parts of it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htest.h"

#include <trace_ring.h>
#include <ttrace_aux.h>
#include <ttrace_decode.h>
#include <ttrace_file.h>

#include "ttboot.h"
#include "ttload.h"

#define NCPU		3
#define NENT		64
#define AUX_SIZE	4096
#define RUN_HDR		sizeof(struct ttrace_file_run)
#define HT_TRY(x)	do { if (x) return 1; } while (0)

enum { EV_PHASE, EV_AT, EV_IRQ, NEV };

static const struct ttrace_arg_meta a_phase[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE, 0, 0 },
	{ "arg", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_at[] = {
	{ "phase", TTRACE_ARG_STR, TTRACE_AUX_BOOT_PHASE, 0, 0 },
	{ "tsc", TTRACE_ARG_U64, 0, 0, 0 },
	{ "arg", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta a_irq[] = {
	{ "vector", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_event_meta events[NEV] = {
	{ "boot_phase", "%s arg=%#llx", a_phase, EV_PHASE, 0, 1, 2 },
	{ "boot_phase_at", "%s began at tsc=%llu arg=%#llx", a_at, EV_AT, 0,
	  1, 3 },
	{ "irq_enter", "vector=%u", a_irq, EV_IRQ, 1, 1, 1 },
};
static const struct ttrace_group_meta groups[] = {
	{ "boot", 0, 1 }, { "irq", 1, 1 },
};
static const struct ttrace_meta_table table = { events, groups, NEV, 2 };

/* Phase ids as the kernel's enum boot_phase numbers them (any would do:
 * the profile goes by the names in aux). */
static const char *const names[] = {
	"kmain", "memory", "ttrace", "tsc", "acpi", "apic", "ap_start",
	"ap_online", "smp", "devices", "first_process", "shell_ready",
	"entry", "ap_sipi", "ap_trampoline", "ap_init", "ap_tsc_sync",
	"ap_ready", "init_spawn", "<odd & \"name\">",
};
enum { KMAIN, MEMORY, SMP = 8, DEVICES, FIRST_PROCESS, SHELL_READY, ENTRY,
       AP_SIPI, AP_TRAMPOLINE, AP_INIT, AP_TSC_SYNC, AP_READY, INIT_SPAWN,
       ODD, AP_START = 6, AP_ONLINE = 7 };

struct bt {
	struct trace_ring ring[NCPU];
	struct ttrace_entry mem[NCPU][NENT];
	struct ttrace_aux aux;
	_Alignas(8) uint8_t aux_mem[AUX_SIZE];
	_Alignas(8) uint8_t aux_snap[AUX_SIZE];
	uint8_t meta[2048];
	size_t meta_len;
	int64_t offset[NCPU];		/* TSC section, if any is non-zero */
	uint64_t tsc_hz;		/* the version header's */
	struct { uint8_t *p; size_t len, cap; } o;
};

static struct bt bt;

static void bt_init(void)
{
	memset(&bt, 0, sizeof(bt));
	for (int c = 0; c < NCPU; c++)
		trace_ring_init(&bt.ring[c], bt.mem[c], sizeof(bt.mem[c]),
				TRACE_RING_OVERWRITE);
	ttrace_aux_init(&bt.aux, bt.aux_mem, AUX_SIZE);
	bt.tsc_hz = 1000000000ULL;
	bt.meta_len = ttrace_meta_serialise(&table, bt.meta, sizeof(bt.meta));
	for (uint64_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t pos;

		if (ttrace_aux_reserve(&bt.aux, TTRACE_AUX_BOOT_PHASE, 0,
				       strlen(names[i]), &pos) == 0) {
			ttrace_aux_fill(&bt.aux, pos, 1, i, names[i],
					strlen(names[i]));
			ttrace_aux_publish(&bt.aux, pos);
		}
	}
}

/* A boot_phase record of phase on cpu at ts (cpu's own clock). */
static void phase(unsigned cpu, uint64_t ts, uint64_t id, uint64_t arg)
{
	trace_ring_write(&bt.ring[cpu], ts + bt.offset[cpu],
			 TTRACE_TYPE(EV_PHASE, TTRACE_CTX_BOOT, 0, 0, cpu), 0,
			 id, arg, 0, 0, 0);
}

/* A boot_phase_at record written at ts of a phase that began at tsc. */
static void phase_at(unsigned cpu, uint64_t ts, uint64_t id, uint64_t tsc,
		     uint64_t arg)
{
	trace_ring_write(&bt.ring[cpu], ts + bt.offset[cpu],
			 TTRACE_TYPE(EV_AT, TTRACE_CTX_BOOT, 0, 0, cpu), 0,
			 id, tsc + bt.offset[cpu], arg, 0, 0);
}

static void irq(unsigned cpu, uint64_t ts)
{
	trace_ring_write(&bt.ring[cpu], ts + bt.offset[cpu],
			 TTRACE_TYPE(EV_IRQ, TTRACE_CTX_IRQ, 0, 1, cpu), 0,
			 32, 0, 0, 0, 0);
}

static void ap(unsigned cpu, uint64_t base, bool ready)
{
	phase_at(cpu, base + 10, AP_TRAMPOLINE, base, cpu);
	phase_at(cpu, base + 10, AP_INIT, base + 6, cpu);
	phase(cpu, base + 20, AP_TSC_SYNC, cpu);
	if (ready)
		phase(cpu, base + 50 + 10 * (cpu == 1), AP_READY, cpu);
}

/* The boot in the header comment, less what the flags leave out. */
enum { NO_ENTRY = 1, NO_PROMPT = 2, NO_MEMORY = 4, NO_AP2 = 8,
       AP2_NOT_READY = 16 };

static void full_boot(unsigned leave_out)
{
	if (!(leave_out & NO_ENTRY))
		phase_at(0, 150, ENTRY, 100, 0);
	phase_at(0, 150, KMAIN, 120, 0);
	if (!(leave_out & NO_MEMORY))
		phase(0, 200, MEMORY, 0);
	irq(0, 250);
	phase(0, 300, SMP, 0);
	for (unsigned c = 1; c < NCPU; c++) {
		uint64_t t = 310 + 100 * (c - 1);

		if (c == 2 && (leave_out & NO_AP2))
			continue;
		phase(0, t, AP_START, c);
		phase(0, t + 10, AP_SIPI, c);
		ap(c, t + 20, c != 2 || !(leave_out & AP2_NOT_READY));
		phase(0, t + 90, AP_ONLINE, c);
	}
	phase(0, 510, DEVICES, 0);
	phase(0, 600, INIT_SPAWN, 0);
	phase(0, 650, FIRST_PROCESS, 0);
	irq(1, 680);
	if (!(leave_out & NO_PROMPT))
		phase(1, 700, SHELL_READY, 0);
	irq(2, 720);
}

static int obuf_out(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	if (bt.o.len + len > bt.o.cap) {
		bt.o.cap = (bt.o.len + len) * 2;
		bt.o.p = realloc(bt.o.p, bt.o.cap);
		if (!bt.o.p)
			abort();
	}
	memcpy(bt.o.p + bt.o.len, buf, len);
	bt.o.len += len;
	return 0;
}

static void write_records(struct ttrace_file_writer *w)
{
	for (uint32_t c = 0; c < NCPU; c++) {
		struct ttrace_file_run h = {
			.first = 0, .count = trace_ring_head(&bt.ring[c]),
			.type = TTRACE_FILE_SEC_RECORDS };

		if (!h.count)
			continue;
		ttrace_file_section_begin(w, h.type, c, RUN_HDR +
					  h.count * TTRACE_ENTRY_SIZE);
		ttrace_file_section_data(w, &h, RUN_HDR);
		ttrace_file_section_data(w, bt.mem[c],
					 h.count * TTRACE_ENTRY_SIZE);
		ttrace_file_section_end(w);
	}
}

static struct ttrace_aux_view aux_view;

static void write_aux(struct ttrace_file_writer *w)
{
	struct ttrace_file_aux a = { aux_view.first, aux_view.last };

	ttrace_file_section_begin(w, TTRACE_FILE_SEC_AUX, 0,
				  sizeof(a) + aux_view.len);
	ttrace_file_section_data(w, &a, sizeof(a));
	ttrace_file_section_data(w, aux_view.data, aux_view.len);
	ttrace_file_section_end(w);
}

static void write_tsc(struct ttrace_file_writer *w)
{
	struct ttrace_file_tsc tsc[NCPU];
	bool any = false;

	for (int c = 0; c < NCPU; c++) {
		tsc[c] = (struct ttrace_file_tsc){ bt.offset[c], c ? 10 : 0 };
		any |= bt.offset[c] != 0;
	}
	if (any)
		ttrace_file_write_section(w, TTRACE_FILE_SEC_TSC, 0, tsc,
					  sizeof(tsc));
}

static void fill_version(struct ttrace_version *v)
{
	ttrace_version_init(v);
	v->num_cpus = NCPU;
	v->entries_per_cpu = NENT;
	v->tsc_hz = bt.tsc_hz;
	v->tsc_boot = 120;
	v->aux_size = AUX_SIZE;
	v->aux_mask = AUX_SIZE - 1;
	v->aux_first = aux_view.first;
	v->aux_last = aux_view.last;
	v->event_count = NEV;
	v->group_mask = 3;
	v->tsc_now = 800;
	v->meta_size = (uint32_t)bt.meta_len;
}

/* Writes the trace (with a TSC section if any offset is set) and loads it
 * into t; returns ttload_buffer's result (0). */
static int bt_load(struct ttload *t)
{
	struct ttrace_file_writer w;
	struct ttrace_file_error err;
	struct ttrace_version v;
	int rc;

	ttrace_aux_snapshot(&bt.aux, NULL, bt.aux_snap, sizeof(bt.aux_snap),
			    &aux_view);
	fill_version(&v);
	ttrace_file_writer_init(&w, obuf_out, NULL);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &v,
				  sizeof(v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, bt.meta,
				  bt.meta_len);
	write_records(&w);
	write_aux(&w);
	write_tsc(&w);
	if (ttrace_file_write_end(&w) < 0)
		abort();
	rc = ttload_buffer(t, bt.o.p, bt.o.len, &err);
	if (rc < 0)
		fprintf(stderr, "load: offset %llu: %s\n",
			(unsigned long long)err.offset, err.msg);
	free(bt.o.p);
	bt.o.p = NULL;
	return rc;
}

/* Builds the boot less leave_out, loads it and computes its profile. */
static int profile(unsigned leave_out, struct ttload *t, struct ttboot *p)
{
	const char *why = "";

	full_boot(leave_out);
	if (bt_load(t) < 0)
		return -1;
	if (ttboot_compute(p, t, &why) < 0) {
		fprintf(stderr, "compute: %s\n", why);
		ttload_free(t);
		return -1;
	}
	return 0;
}

/* The phase of cpu named name (the first), or NULL. */
static const struct ttboot_phase *find(const struct ttboot *p, uint32_t cpu,
				       const char *name)
{
	for (size_t i = 0; i < p->nphases; i++)
		if (p->phases[i].cpu == cpu && !strcmp(p->phases[i].name, name))
			return &p->phases[i];
	return NULL;
}

/* Each CPU's phases are in time order and contiguous; CPU 0's start at
 * first0 and add up to p->covered. */
static int check_contiguous(const struct ttboot *p, uint64_t first0)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < p->nphases; i++) {
		const struct ttboot_phase *a = &p->phases[i];

		HT_CHECK(a->start <= a->end);
		if (i + 1 < p->nphases && p->phases[i + 1].cpu == a->cpu)
			HT_CHECK(a->end == p->phases[i + 1].start);
		if (i > 0 && p->phases[i - 1].cpu == a->cpu)
			continue;
		if (a->cpu == 0)
			HT_CHECK(a->start == first0);
	}
	for (size_t i = 0; i < p->nphases; i++)
		if (p->phases[i].cpu == 0)
			sum += p->phases[i].end - p->phases[i].start;
	HT_CHECK(sum == p->covered);
	return 0;
}

static int test_full(void)
{
	static const char *const cpu0[] = {
		"firmware+loader", "entry", "kmain", "memory", "smp",
		"ap_start", "ap_sipi", "ap_online", "ap_start", "ap_sipi",
		"ap_online", "devices", "init_spawn", "first_process",
	};
	static const char *const cpu1[] = {
		"ap_wake", "ap_trampoline", "ap_init", "ap_tsc_sync",
	};
	struct ttload t;
	struct ttboot p;
	size_t n0 = sizeof(cpu0) / sizeof(cpu0[0]), n1 = 4;

	bt_init();
	HT_CHECK(profile(0, &t, &p) == 0);
	HT_CHECK(p.has_entry && p.has_prompt && p.has_first_process);
	HT_CHECK(p.end == 700 && p.prompt == 700 && p.first_process == 650);
	HT_CHECK(p.covered == 700);
	HT_CHECK(p.nphases == n0 + 2 * n1);
	for (size_t i = 0; i < n0; i++)
		HT_CHECK(p.phases[i].cpu == 0 &&
			 !strcmp(p.phases[i].name, cpu0[i]));
	for (size_t i = 0; i < n1; i++)
		HT_CHECK(p.phases[n0 + i].cpu == 1 &&
			 !strcmp(p.phases[n0 + i].name, cpu1[i]));
	HT_TRY(check_contiguous(&p, 0));
	HT_CHECK(find(&p, 0, "firmware+loader")->end == 100);
	HT_CHECK(find(&p, 0, "entry")->end == 120);
	HT_CHECK(find(&p, 0, "first_process")->end == 700);
	HT_CHECK(find(&p, 1, "ap_wake")->start == 320);
	HT_CHECK(find(&p, 1, "ap_wake")->end == 330);
	HT_CHECK(find(&p, 1, "ap_init")->start == 336);
	HT_CHECK(find(&p, 1, "ap_tsc_sync")->end == 390);
	HT_CHECK(find(&p, 2, "ap_tsc_sync")->end == 480);
	HT_CHECK(p.aps[1].has_sipi && p.aps[1].has_online);
	HT_CHECK(p.aps[1].online - p.aps[1].sipi == 70);
	HT_CHECK(p.aps[2].online - p.aps[2].sipi == 60);
	ttboot_free(&p);
	ttload_free(&t);
	return 0;
}

/* Without the entry TSC there is no firmware+loader phase: CPU 0's phases
 * start at kmain and the time before it is not covered. */
static int test_no_entry(void)
{
	struct ttload t;
	struct ttboot p;

	bt_init();
	HT_CHECK(profile(NO_ENTRY, &t, &p) == 0);
	HT_CHECK(!p.has_entry && !find(&p, 0, "firmware+loader"));
	HT_CHECK(!strcmp(p.phases[0].name, "kmain"));
	HT_CHECK(p.end == 700 && p.covered == 580);
	HT_TRY(check_contiguous(&p, 120));
	ttboot_free(&p);
	ttload_free(&t);
	return 0;
}

/* A phase missing: its predecessor runs on to the next one. No prompt:
 * the boot ends at the trace's last record, and no prompt time. */
static int test_missing_phases(void)
{
	struct ttload t;
	struct ttboot p;

	bt_init();
	HT_CHECK(profile(NO_MEMORY | NO_PROMPT, &t, &p) == 0);
	HT_CHECK(!find(&p, 0, "memory"));
	HT_CHECK(find(&p, 0, "kmain")->end == 300);
	HT_CHECK(!p.has_prompt && p.has_first_process);
	HT_CHECK(p.end == 720 && p.covered == 720);
	HT_CHECK(find(&p, 0, "first_process")->end == 720);
	HT_TRY(check_contiguous(&p, 0));
	ttboot_free(&p);
	ttload_free(&t);
	return 0;
}

/* An AP never started has no SIPI, no phases; one that never came online
 * has no bring-up latency and its last phase runs to the boot's end. */
static int test_missing_aps(void)
{
	struct ttload t;
	struct ttboot p;

	bt_init();
	HT_CHECK(profile(NO_AP2, &t, &p) == 0);
	HT_CHECK(!p.aps[2].has_sipi && !p.aps[2].has_online);
	HT_CHECK(!find(&p, 2, "ap_wake") && !find(&p, 2, "ap_init"));
	HT_CHECK(p.aps[1].has_sipi && p.aps[1].has_online);
	HT_TRY(check_contiguous(&p, 0));
	ttboot_free(&p);
	ttload_free(&t);

	bt_init();
	HT_CHECK(profile(AP2_NOT_READY, &t, &p) == 0);
	HT_CHECK(p.aps[2].has_sipi && !p.aps[2].has_online);
	HT_CHECK(find(&p, 2, "ap_tsc_sync")->end == 700);
	HT_TRY(check_contiguous(&p, 0));
	ttboot_free(&p);
	ttload_free(&t);
	return 0;
}

/* APs whose TSCs are off CPU 0's by the TSC section's offsets: their
 * boot_phase_at TSCs are moved onto CPU 0's clock like their records. */
static int test_tsc_offsets(void)
{
	struct ttload t;
	struct ttboot p;

	bt_init();
	bt.offset[1] = 5000;
	bt.offset[2] = -40;
	HT_CHECK(profile(0, &t, &p) == 0);
	HT_CHECK(find(&p, 1, "ap_wake")->end == 330);
	HT_CHECK(find(&p, 1, "ap_init")->start == 336);
	HT_CHECK(find(&p, 2, "ap_trampoline")->start == 430);
	HT_CHECK(p.aps[1].online - p.aps[1].sipi == 70);
	HT_CHECK(p.aps[2].online - p.aps[2].sipi == 60);
	HT_CHECK(p.prompt == 700 && p.covered == 700);
	HT_TRY(check_contiguous(&p, 0));
	ttboot_free(&p);
	ttload_free(&t);
	return 0;
}

/* A trace without a single boot phase has no profile: an error. */
static int test_no_phases(void)
{
	const char *why = NULL;
	struct ttload t;
	struct ttboot p;

	bt_init();
	irq(0, 200);
	irq(1, 300);
	HT_CHECK(bt_load(&t) == 0);
	HT_CHECK(ttboot_compute(&p, &t, &why) < 0);
	HT_CHECK(why && strstr(why, "no boot phase"));
	ttload_free(&t);
	return 0;
}

/* A trace without a TSC frequency has no times: an error, not a crash. */
static int test_no_tsc_hz(void)
{
	const char *why = NULL;
	struct ttload t;
	struct ttboot p;

	bt_init();
	bt.tsc_hz = 0;
	full_boot(0);
	HT_CHECK(bt_load(&t) == 0);
	HT_CHECK(ttboot_compute(&p, &t, &why) < 0);
	HT_CHECK(why && strstr(why, "tsc_hz 0"));
	ttload_free(&t);
	return 0;
}

/* Prints p with fn into a string (free it). */
static char *print(void (*fn)(const struct ttboot *, FILE *),
		   const struct ttboot *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fn(p, f);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* JSON and SVG carry every phase, names escaped for each. */
static int test_output(void)
{
	struct ttload t;
	struct ttboot p;
	char *json, *svg, *text;
	int bad;

	bt_init();
	phase(0, 690, ODD, 0);
	HT_CHECK(profile(0, &t, &p) == 0);
	json = print(ttboot_print_json, &p);
	svg = print(ttboot_print_svg, &p);
	text = print(ttboot_print_text, &p);
	bad = !strstr(json, "\"boot_ns\": 700,") ||
	      !strstr(json, "\"bringup_ns\": 70}") ||
	      !strstr(json, "\"shell_prompt_ns\": 700") ||
	      !strstr(json, "\"name\": \"<odd & \\\"name\\\">\"") ||
	      count(json, "\"start_ns\"") != p.nphases ||
	      !strstr(svg, "&lt;odd &amp; &quot;name&quot;&gt;") ||
	      strstr(svg, "<odd") ||
	      count(svg, "<rect ") != p.nphases + 1 ||
	      !strstr(text, "cpu 2 bring-up (SIPI to online): 0.000 ms") ||
	      !strstr(text, "shell prompt at 0.001 ms");
	if (bad)
		fprintf(stderr, "%s\n%s\n%s\n", json, svg, text);
	free(json);
	free(svg);
	free(text);
	ttboot_free(&p);
	ttload_free(&t);
	HT_CHECK(!bad);
	return 0;
}

/* The milestone labels of svg (red text, right-aligned at x): their x, y
 * and length in characters; returns how many (at most max). */
static size_t mark_labels(const char *svg, double *x, double *y, size_t *len,
			  size_t max)
{
	const char *tag = "fill=\"#c00\" text-anchor=\"end\">";
	size_t n = 0;

	for (const char *s = svg; n < max && (s = strstr(s, "<text x=\""));
	     s++) {
		const char *t = strstr(s, tag), *end;

		if (!t || strchr(s, '>') < t ||
		    sscanf(s, "<text x=\"%lf\" y=\"%lf\"", &x[n], &y[n]) != 2)
			continue;
		end = strstr(t, "</text>");
		len[n++] = (size_t)(end - (t + strlen(tag)));
	}
	return n;
}

/* The first-process and prompt labels never print over each other (nor
 * over the title): 2.7 ms apart at the end of a 300 ms boot they are
 * staggered; far apart they share the row next to the axis. */
static int test_svg_labels(void)
{
	static const uint64_t first[] = { 297300000, 100000000 };

	for (size_t k = 0; k < ARRAY_SIZE(first); k++) {
		struct ttboot p = { .tsc_hz = 1000000000, .ncpus = 1,
				    .has_first_process = true,
				    .first_process = first[k],
				    .has_prompt = true, .prompt = 300000000,
				    .end = 300000000 };
		char *svg = print(ttboot_print_svg, &p);
		double x[4], y[4];
		size_t len[4], n = mark_labels(svg, x, y, len, 4);
		/* 6 px a character bounds font-size 10's sans-serif */
		bool apart = x[1] - 6.0 * (double)len[1] > x[0] ||
			     x[0] - 6.0 * (double)len[0] > x[1];
		int bad = n != 2 || (!apart && fabs(y[0] - y[1]) < 10) ||
			  y[0] < 24 || y[1] < 24 || (k == 1 && y[0] != y[1]);

		if (bad)
			fprintf(stderr, "%s\n", svg);
		free(svg);
		HT_CHECK(!bad);
	}
	return 0;
}

static const struct ht_test tests[] = {
	{ test_full, "ttboot_full" },
	{ test_no_entry, "ttboot_no_entry" },
	{ test_missing_phases, "ttboot_missing_phases" },
	{ test_missing_aps, "ttboot_missing_aps" },
	{ test_tsc_offsets, "ttboot_tsc_offsets" },
	{ test_no_phases, "ttboot_no_phases" },
	{ test_no_tsc_hz, "ttboot_no_tsc_hz" },
	{ test_output, "ttboot_output" },
	{ test_svg_labels, "ttboot_svg_labels" },
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
