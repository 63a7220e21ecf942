/*
 * ttdecode boot: the boot profile of a trace (ttboot.h explains the model,
 * docs/boot-profile.md the phases and where each is measured).
 *
 *	ttdecode boot TRACE			the table
 *	ttdecode boot TRACE --json		the same as JSON
 *	ttdecode boot TRACE --svg OUT.svg	and a timeline, a lane per CPU
 *						(tools/export/ttboot_svg.c)
 *
 * The profile is computed in three steps: every boot phase record of every
 * CPU becomes a mark (its name from the aux buffer, its start the record's
 * timestamp or, for boot_phase_at, the TSC it carries, on CPU 0's clock);
 * the marks that only end something (shell_ready, ap_ready) and the
 * milestones are noted; then each CPU's marks, sorted by start, become its
 * phases, each ending where the next starts. Nothing is invented: every
 * boundary is a TSC read in the kernel, or TSC 0 (power-on).
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttboot.h"
#include "ttdecode.h"
#include "ttmodel.h"

#define ull(x)	((unsigned long long)(x))

/* The event ids of boot_phase and boot_phase_at in t's metadata (-1: the
 * trace has no such event). */
struct boot_ids {
	int64_t phase, at;
};

static int64_t event_id(const struct ttload *t, const char *name)
{
	for (uint32_t i = 0; i < t->meta.nevents; i++)
		if (!strcmp(t->meta.events[i].name, name))
			return t->meta.events[i].id;
	return -1;
}

/* Whether ev (an event of CPU cpu) is a whole boot phase record; if so
 * fills m's name, arg and start. */
static bool as_mark(const struct ttload *t, const struct boot_ids *ids,
		    uint32_t cpu, const struct ttrace_event_view *ev,
		    struct ttboot_phase *m)
{
	bool at = ev->id == ids->at;
	const char *s;
	size_t n;

	if ((ev->id != ids->phase && !at) || ev->nwords < (at ? 3u : 2u))
		return false;
	m->cpu = cpu;
	m->arg = ev->args[at ? 2 : 1];
	m->start = ttmodel_boot_start(t, cpu, ev, at);	/* as every export */
	n = ttload_resolve((void *)t, TTRACE_AUX_BOOT_PHASE, ev->args[0],
			   ev->timestamp, &s);
	if (n)
		snprintf(m->name, sizeof(m->name), "%.*s", (int)n, s);
	else
		snprintf(m->name, sizeof(m->name), "phase#%llu",
			 ull(ev->args[0]));
	return true;
}

/* Notes what mark m says beyond being a phase; returns whether it is one
 * (shell_ready and ap_ready end a lane instead). */
static bool note_mark(struct ttboot *p, const struct ttboot_phase *m)
{
	if (!strcmp(m->name, "shell_ready")) {
		if (!p->has_prompt || m->start < p->prompt)
			p->prompt = m->start;
		p->has_prompt = true;
		return false;
	}
	if (!strcmp(m->name, "ap_ready")) {
		p->aps[m->cpu].has_online = true;
		p->aps[m->cpu].online = m->start;
		return false;
	}
	if (!strcmp(m->name, "ap_sipi") && m->arg < p->ncpus) {
		p->aps[m->arg].has_sipi = true;
		p->aps[m->arg].sipi = m->start;
	} else if (!strcmp(m->name, "first_process")) {
		p->has_first_process = true;
		p->first_process = m->start;
	} else if (!strcmp(m->name, "entry") && m->cpu == 0) {
		p->has_entry = true;
	}
	return true;
}

/* Appends a phase that no record starts (firmware+loader, ap_wake). */
static void add_phase(struct ttboot *p, uint32_t cpu, const char *name,
		      uint64_t arg, uint64_t start)
{
	struct ttboot_phase *ph = &p->phases[p->nphases++];

	memset(ph, 0, sizeof(*ph));
	ph->cpu = cpu;
	ph->arg = arg;
	ph->start = start;
	snprintf(ph->name, sizeof(ph->name), "%s", name);
}

/* Collects every CPU's marks into p->phases (room for all of them plus
 * one per CPU); returns the latest record's timestamp. */
static uint64_t collect(struct ttboot *p, const struct ttload *t,
			const struct boot_ids *ids)
{
	struct ttrace_event_view ev;
	struct ttrace_pair_iter it;
	uint64_t last = 0;

	for (uint32_t c = 0; c < p->ncpus; c++) {
		ttrace_pair_init(&it, t->cpus[c].sorted, t->cpus[c].nsorted,
				 &t->meta);
		while (ttrace_pair_next(&it, &ev)) {
			struct ttboot_phase *m = &p->phases[p->nphases];

			if (as_mark(t, ids, c, &ev, m) && note_mark(p, m))
				p->nphases++;
			last = MAX(last, ev.timestamp);
		}
	}
	return last;
}

static int by_cpu_start(const void *a, const void *b)
{
	const struct ttboot_phase *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* Where CPU cpu's last phase ends: the boot's end, or an AP's ap_ready. */
static uint64_t lane_end(const struct ttboot *p, uint32_t cpu)
{
	if (cpu > 0 && p->aps[cpu].has_online && p->aps[cpu].online < p->end)
		return p->aps[cpu].online;
	return p->end;
}

/* Adds the phases before the first record: firmware+loader on CPU 0 (if
 * the entry TSC is known) and each AP's ap_wake (if its SIPI is), then
 * sorts the phases by CPU and start. */
static void add_prefixes(struct ttboot *p)
{
	size_t n = p->nphases;

	qsort(p->phases, n, sizeof(*p->phases), by_cpu_start);
	if (p->has_entry)
		add_phase(p, 0, "firmware+loader", 0, 0);
	for (size_t i = 0; i < n; i++) {
		const struct ttboot_phase *first = &p->phases[i];
		const struct ttboot_ap *ap = &p->aps[first->cpu];

		if (i > 0 && p->phases[i - 1].cpu == first->cpu)
			continue;	/* not its CPU's first phase */
		if (first->cpu > 0 && ap->has_sipi && ap->sipi <= first->start)
			add_phase(p, first->cpu, "ap_wake", first->cpu,
				  ap->sipi);
	}
	qsort(p->phases, p->nphases, sizeof(*p->phases), by_cpu_start);
}

/* Ends each phase where its CPU's next one starts, or at the CPU's end;
 * drops phases that start after that end. p->phases sorted by CPU and
 * start. */
static void close_phases(struct ttboot *p)
{
	size_t out = 0;

	for (size_t i = 0; i < p->nphases; i++) {
		struct ttboot_phase *ph = &p->phases[i];
		uint64_t end = lane_end(p, ph->cpu);

		if (i + 1 < p->nphases && p->phases[i + 1].cpu == ph->cpu)
			end = MIN(end, p->phases[i + 1].start);
		if (ph->start > end)	/* after its CPU's end */
			continue;
		ph->end = end;
		if (ph->cpu == 0)
			p->covered += end - ph->start;
		p->phases[out++] = *ph;
	}
	p->nphases = out;
}

/*
 * Computes the boot profile of the loaded trace t into p (free it with
 * ttboot_free). Returns 0, or -1 with *why set when the trace has no boot
 * phase at all, no TSC frequency, or memory is short.
 */
int ttboot_compute(struct ttboot *p, const struct ttload *t,
		   const char **why)
{
	struct boot_ids ids = { event_id(t, "boot_phase"),
				event_id(t, "boot_phase_at") };
	uint64_t n = 0, last;

	memset(p, 0, sizeof(*p));
	if (!t->version.tsc_hz) {
		*why = "the trace has no TSC frequency (tsc_hz 0): no times";
		return -1;
	}
	p->tsc_hz = t->version.tsc_hz;
	p->ncpus = t->version.num_cpus;
	for (uint32_t c = 0; c < p->ncpus; c++)
		n += t->cpus[c].nsorted;
	p->phases = calloc(n + p->ncpus + 1, sizeof(*p->phases));
	p->aps = calloc(p->ncpus + 1, sizeof(*p->aps));
	if (!p->phases || !p->aps) {
		ttboot_free(p);
		*why = "out of memory";
		return -1;
	}
	last = collect(p, t, &ids);
	if (p->nphases == 0) {
		ttboot_free(p);
		*why = "no boot phase records in the trace";
		return -1;
	}
	p->end = p->has_prompt ? p->prompt : last;
	add_prefixes(p);
	close_phases(p);
	return 0;
}

void ttboot_free(struct ttboot *p)
{
	free(p->phases);
	free(p->aps);
	p->phases = NULL;
	p->aps = NULL;
}

/* ---- output ------------------------------------------------------------- */

static uint64_t ns(const struct ttboot *p, uint64_t ticks)
{
	return ttrace_ticks_to_ns(ticks, p->tsc_hz);
}

/* ticks (since power-on) in milliseconds. */
double ttboot_ms(const struct ttboot *p, uint64_t ticks)
{
	return (double)ns(p, ticks) / 1e6;
}

static double share(const struct ttboot *p, uint64_t ticks)
{
	return p->end ? 100.0 * (double)ticks / (double)p->end : 0.0;
}

/* The table: phases, coverage, AP bring-up, milestones. */
void ttboot_print_text(const struct ttboot *p, FILE *f)
{
	fprintf(f, "boot profile: %u cpus, %.3f ms from power-on to %s\n",
		p->ncpus, ttboot_ms(p, p->end),
		p->has_prompt ? "the shell prompt" :
		"the last record (no shell prompt in the trace)");
	fprintf(f, "cpu phase              arg   start ms    took ms  share\n");
	for (size_t i = 0; i < p->nphases; i++) {
		const struct ttboot_phase *ph = &p->phases[i];

		fprintf(f, "%3u %-16s %5llu %10.3f %10.3f %5.1f%%\n", ph->cpu,
			ph->name, ull(ph->arg), ttboot_ms(p, ph->start),
			ttboot_ms(p, ph->end - ph->start),
			share(p, ph->end - ph->start));
	}
	fprintf(f, "cpu 0's phases cover %.3f of %.3f ms (%.1f%%)%s\n",
		ttboot_ms(p, p->covered), ttboot_ms(p, p->end), share(p, p->covered),
		p->has_entry ? "" : "; no entry TSC: firmware+loader unknown");
	for (uint32_t c = 1; c < p->ncpus; c++) {
		const struct ttboot_ap *ap = &p->aps[c];

		if (ap->has_sipi && ap->has_online)
			fprintf(f, "cpu %u bring-up (SIPI to online): %.3f ms\n",
				c, ttboot_ms(p, ap->online - ap->sipi));
		else
			fprintf(f, "cpu %u bring-up: %s\n", c, ap->has_sipi ?
				"never online" : "no SIPI recorded");
	}
	if (p->has_first_process)
		fprintf(f, "first user process at %.3f ms\n",
			ttboot_ms(p, p->first_process));
	else
		fprintf(f, "first user process: not in the trace\n");
	if (p->has_prompt)
		fprintf(f, "shell prompt at %.3f ms\n", ttboot_ms(p, p->prompt));
	else
		fprintf(f, "shell prompt: not in the trace\n");
}

/* Prints s escaped as the inside of a JSON string or as XML text. */
void ttboot_put_escaped(FILE *f, const char *s, enum ttboot_escape how)
{
	bool json = how == TTBOOT_JSON;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (json && (c == '"' || c == '\\'))
			fprintf(f, "\\%c", c);
		else if (json && c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (!json && (c == '&' || c == '<' || c == '>' || c == '"'))
			fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" :
			      c == '>' ? "&gt;" : "&quot;", f);
		else if (!json && c < 0x20)
			fputc(' ', f);
		else
			fputc(c, f);
	}
}

/* "key": ns or null. */
static void json_opt(const struct ttboot *p, FILE *f, const char *key,
		     bool have, uint64_t ticks)
{
	if (have)
		fprintf(f, "\"%s\": %llu", key, ull(ns(p, ticks)));
	else
		fprintf(f, "\"%s\": null", key);
}

static void json_aps(const struct ttboot *p, FILE *f)
{
	fprintf(f, "  \"aps\": [");
	for (uint32_t c = 1; c < p->ncpus; c++) {
		const struct ttboot_ap *ap = &p->aps[c];

		fprintf(f, "%s\n    {\"cpu\": %u, ", c > 1 ? "," : "", c);
		json_opt(p, f, "sipi_ns", ap->has_sipi, ap->sipi);
		fprintf(f, ", ");
		json_opt(p, f, "online_ns", ap->has_online, ap->online);
		fprintf(f, ", ");
		json_opt(p, f, "bringup_ns", ap->has_sipi && ap->has_online,
			 ap->online - ap->sipi);
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n", p->ncpus > 1 ? "\n  " : "");
}

/* The profile as one JSON object (docs/boot-profile.md lists its keys). */
void ttboot_print_json(const struct ttboot *p, FILE *f)
{
	fprintf(f, "{\n  \"cpus\": %u,\n  \"tsc_hz\": %llu,\n  \"boot_ns\": %llu,"
		"\n  \"covered_ns\": %llu,\n  \"has_entry_tsc\": %s,\n  ",
		p->ncpus, ull(p->tsc_hz), ull(ns(p, p->end)),
		ull(ns(p, p->covered)), p->has_entry ? "true" : "false");
	json_opt(p, f, "first_process_ns", p->has_first_process,
		 p->first_process);
	fprintf(f, ",\n  ");
	json_opt(p, f, "shell_prompt_ns", p->has_prompt, p->prompt);
	fprintf(f, ",\n");
	json_aps(p, f);
	fprintf(f, "  \"phases\": [");
	for (size_t i = 0; i < p->nphases; i++) {
		const struct ttboot_phase *ph = &p->phases[i];

		fprintf(f, "%s\n    {\"cpu\": %u, \"name\": \"", i ? "," : "",
			ph->cpu);
		ttboot_put_escaped(f, ph->name, TTBOOT_JSON);
		/* the duration from the rounded ends, so that start plus
		 * duration is the next phase's start to the nanosecond */
		fprintf(f, "\", \"arg\": %llu, \"start_ns\": %llu, "
			"\"duration_ns\": %llu, \"share\": %.4f}", ull(ph->arg),
			ull(ns(p, ph->start)),
			ull(ns(p, ph->end) - ns(p, ph->start)),
			share(p, ph->end - ph->start) / 100.0);
	}
	fprintf(f, "\n  ]\n}\n");
}

/* ---- the command ------------------------------------------------------------ */

/* Writes the SVG to path; returns 0 or 1 (the exit status). */
static int write_svg(const struct ttboot *p, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return 1;
	}
	ttboot_print_svg(p, f);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "ttdecode: write error on %s\n", path);
		return 1;
	}
	return 0;
}

/* ttdecode boot TRACE [--json] [--svg OUT.svg]; returns the exit status. */
static int ttboot_run(int argc, char **argv)
{
	const char *svg = NULL, *why;
	bool json = false;
	struct ttload t;
	struct ttboot p;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--svg") && i + 1 < argc)
			svg = argv[++i];
		else {
			fprintf(stderr, "usage: ttdecode boot TRACE [--json] "
				"[--svg OUT.svg]\n");
			return 2;
		}
	}
	if (ttload_open(&t, argv[0]))
		return 1;
	if (ttboot_compute(&p, &t, &why) < 0) {
		fprintf(stderr, "ttdecode: %s: %s\n", argv[0], why);
		ttload_free(&t);
		return 1;
	}
	if (json)
		ttboot_print_json(&p, stdout);
	else
		ttboot_print_text(&p, stdout);
	if (svg)
		rc = write_svg(&p, svg);
	ttboot_free(&p);
	ttload_free(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ttdecode: write error on stdout\n");
		return 1;
	}
	return rc;
}

static const struct ttdecode_command cmd_boot = {
	"boot", 1, ttboot_run, "boot TRACE [--json] [--svg OUT.svg]" };
TTDECODE_COMMAND(cmd_boot);
