/*
 * ttuftrace.c: `ttdecode uftrace TRACE DIR`, a trace as a uftrace data
 * directory (docs/exports.md) that uftrace 0.13 replays, reports, graphs,
 * describes (info) and dumps (dump --chrome).
 *
 * It writes the trace's model (ttmodel.h: the pairing every export
 * shares) as it is: each track is a task, so each traced process (tid =
 * its pid) has its syscalls (syscall:NAME, one call from enter to exit)
 * and the kernel functions it ran, each CPU (cpuN) the processes' runs
 * (run:NAME), interrupts (irq:NAME), exceptions and kernel functions
 * outside a process, and each CPU's boot track (bootN) its boot phases
 * (boot:NAME). A track's spans are nested and in start order, so a task
 * is written in one pass with a stack of open frames: a span closes the
 * frames at or below its depth first, each at its span's end.
 * The function names go through a symbol file: each distinct name gets
 * an address 16 bytes after the previous one in a made-up module /ttrace
 * mapped at UF_MAP_START. A declared loss is a LOST record (its count as
 * the address) inside a function lost_records at the loss's start on its
 * CPU's task, where replay shows it ("LOST N records"); uftrace 0.13's
 * dump --chrome writes a bare "," for a LOST record, so its JSON is only
 * valid for a trace without losses (docs/exports.md). Markers, faults and
 * other events are not functions: `ttdecode text` and ctf show them.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"

#define UF_MAP_START	0xffff80100000ULL	/* 48-bit, as uftrace keeps */
#define UF_MAP_MIN	0x100000ULL
#define UF_SYM_STEP	16
#define UF_REC_MAGIC	0x5ULL
#define UF_CPU_TID(cpu)	(1000000 + (cpu))
#define UF_BOOT_TID(cpu) (2000000 + (cpu))
#define UF_MODULE	"ttrace"
#define UF_MAX_NAME	96

enum uf_type { UF_ENTRY, UF_EXIT, UF_LOST, UF_EVENT };

/* An open frame: its span and symbol address. */
struct uf_frame {
	const struct ttmodel_span *span;
	uint64_t addr;
};

/* A task: a track of the model with records (tid, shown name). */
struct uf_task {
	uint32_t tid;
	char name[40];
};

/* The symbols: names[i] is at UF_MAP_START + i * UF_SYM_STEP; slots is
 * an open-addressing index of them (i + 1, 0 = empty), half empty. */
struct uf_syms {
	char **names;
	uint32_t n, cap;
	uint32_t *slots;
	unsigned bits;
};

struct uf_export {
	const struct ttload *t;
	const struct ttmodel *m;
	struct uf_syms syms;
	struct uf_task *tasks;
	uint32_t ntasks;
	FILE *f;			/* the current task's .dat */
	struct uf_frame stack[TTMODEL_MAX_DEPTH]; /* open frames */
	unsigned depth;
	uint64_t records, lost, before;
};

/* ---- symbols ------------------------------------------------------------- */

static uint32_t *uf_slot(struct uf_syms *s, const char *name)
{
	uint32_t mask = (1u << s->bits) - 1, i = hash_str(name, 0, s->bits);

	while (s->slots[i] && strcmp(s->names[s->slots[i] - 1], name))
		i = (i + 1) & mask;
	return &s->slots[i];
}

/* Doubles the index; returns 0 or -1 (out of memory). */
static int uf_grow(struct uf_syms *s)
{
	uint32_t *old = s->slots, oldsize = s->slots ? 1u << s->bits : 0;
	char **names = realloc(s->names, 2 * (s->cap + 8) * sizeof(*names));

	if (!names)
		return -1;
	s->names = names;
	s->cap = 2 * (s->cap + 8);
	s->bits = s->bits ? s->bits + 1 : 5;
	s->slots = calloc(1u << s->bits, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		return -1;
	}
	for (uint32_t i = 0; i < oldsize; i++)
		if (old[i])
			*uf_slot(s, s->names[old[i] - 1]) = old[i];
	free(old);
	return 0;
}

/* The address of name, added if new; 0 when out of memory. */
static uint64_t uf_sym(struct uf_syms *s, const char *name)
{
	uint32_t *slot;

	if (2 * (s->n + 1) > (s->slots ? 1u << s->bits : 0) && uf_grow(s) < 0)
		return 0;
	slot = uf_slot(s, name);
	if (!*slot) {
		if (!(s->names[s->n] = strdup(name)))
			return 0;
		*slot = ++s->n;
	}
	return UF_MAP_START + (uint64_t)(*slot - 1) * UF_SYM_STEP;
}

static void uf_syms_free(struct uf_syms *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->slots);
}

/* ---- records ------------------------------------------------------------- */

/* Writes one 16-byte record: time, then type | magic | depth | address. */
static void uf_put(struct uf_export *x, uint64_t ns, enum uf_type type,
		   unsigned depth, uint64_t addr)
{
	uint64_t w[2] = { ns, (uint64_t)type | UF_REC_MAGIC << 3 |
			  (uint64_t)(depth & 0x3ff) << 6 |
			  (addr & 0xffffffffffffULL) << 16 };

	fwrite(w, sizeof(w), 1, x->f);
	x->records++;
}

/* The symbol address of span s's frame: "syscall:NAME", "irq:NAME",
 * "run:NAME" (a process's run), "exception:NAME", "boot:NAME", or a
 * kernel function's own name; 0 when out of memory. */
static uint64_t uf_frame_addr(struct uf_export *x,
			      const struct ttmodel_span *s)
{
	char name[UF_MAX_NAME];
	size_t n = 0;

	if (s->kind != TTMODEL_FUNC)
		n = (size_t)snprintf(name, sizeof(name), "%s:",
				     ttmodel_kinds[s->kind].name);
	ttexport_name(name + n, sizeof(name) - n, x->t,
		      ttmodel_kinds[s->kind].tag, s->ident, s->start,
		      TTEXPORT_IDENT);
	return uf_sym(&x->syms, name);
}

/* Closes the open frames above depth keep, each at its span's end. */
static void uf_close(struct uf_export *x, unsigned keep)
{
	while (x->depth > keep) {
		x->depth--;
		uf_put(x, ttexport_ns(x->t, x->stack[x->depth].span->end),
		       UF_EXIT, x->depth, x->stack[x->depth].addr);
	}
}

/* Span s as an entry at its depth (frames deeper closed first). Returns
 * 0, or -1 when out of memory. */
static int uf_span(struct uf_export *x, const struct ttmodel_span *s)
{
	uint64_t addr = uf_frame_addr(x, s);

	if (!addr)
		return -1;
	uf_close(x, s->depth);
	x->stack[x->depth] = (struct uf_frame){ s, addr };
	uf_put(x, ttexport_ns(x->t, s->start), UF_ENTRY, x->depth++, addr);
	return 0;
}

/* A declared loss: the frames that ended by its start closed, then a
 * LOST record (its count as the address) inside a zero-length function
 * lost_records, since uftrace replay only shows a LOST record within a
 * function. Returns 0 or -1. */
static int uf_lost(struct uf_export *x, const struct ttmodel_loss *l)
{
	uint64_t addr = uf_sym(&x->syms, "lost_records");
	uint64_t ns = ttexport_ns(x->t, l->start);

	if (!addr)
		return -1;
	while (x->depth && x->stack[x->depth - 1].span->end <= l->start)
		uf_close(x, x->depth - 1);
	uf_put(x, ns, UF_ENTRY, x->depth, addr);
	uf_put(x, ns, UF_LOST, x->depth + 1, l->count);
	uf_put(x, ns, UF_EXIT, x->depth, addr);
	x->lost += l->count;
	x->before += l->before_trace ? l->count : 0;
	return 0;
}

/* Writes DIR/<tid>.dat: track k's spans as nested calls, with losses (a
 * CPU's, nloss of them) in time order. Returns 0 or -1. */
static int uf_task(struct uf_export *x, const char *dir, uint32_t tid,
		   const struct ttmodel_track *k,
		   const struct ttmodel_loss *losses, uint64_t nloss)
{
	uint64_t s = 0, l = 0;
	char name[32];
	int rc = 0;

	snprintf(name, sizeof(name), "%u.dat", tid);
	if (!(x->f = ttexport_create(dir, name)))
		return -1;
	x->depth = 0;
	while (rc == 0 && (s < k->nspans || l < nloss))
		if (s < k->nspans && (l == nloss ||
				      k->spans[s].start <= losses[l].start))
			rc = uf_span(x, &k->spans[s++]);
		else
			rc = uf_lost(x, &losses[l++]);
	uf_close(x, 0);
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	return ttexport_close(x->f, dir, name) < 0 ? -1 : rc;
}

/* Adds a task (tid, name) to the list info and task.txt describe. */
static int uf_add_task(struct uf_export *x, uint32_t tid, const char *name)
{
	struct uf_task *p = realloc(x->tasks, (x->ntasks + 1) * sizeof(*p));

	if (!p)
		return -1;
	x->tasks = p;
	p[x->ntasks].tid = tid;
	snprintf(p[x->ntasks].name, sizeof(p->name), "%s", name);
	for (char *c = p[x->ntasks].name; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 ||
		    (unsigned char)*c > 0x7e)
			*c = '_';
	x->ntasks++;
	return 0;
}

/* The task of model track k: a CPU's (with its losses) always, a boot
 * track or a process only when it has spans. Returns 0 or -1. */
static int uf_track(struct uf_export *x, const char *dir,
		    const struct ttmodel_track *k)
{
	const struct ttmodel_cpu *mc = k->kind == TTMODEL_THREAD ? NULL :
				       &x->m->cpus[k->id];
	char name[40];
	uint32_t tid;
	const char *proc;
	size_t len;

	if (k->kind == TTMODEL_CPU) {
		tid = UF_CPU_TID(k->id);
		snprintf(name, sizeof(name), "cpu%u", k->id);
	} else if (k->kind == TTMODEL_BOOTS) {
		tid = UF_BOOT_TID(k->id);
		snprintf(name, sizeof(name), "boot%u", k->id);
	} else {
		tid = k->id;
		len = ttload_resolve((void *)x->t, TTRACE_AUX_PROC_NAME, k->id,
				     k->nspans ? k->spans[0].start : 0, &proc);
		snprintf(name, sizeof(name), "%.*s", (int)(len ? len : 3),
			 len ? proc : "pid");
	}
	if (k->kind != TTMODEL_CPU && !k->nspans)
		return 0;
	if (uf_add_task(x, tid, name) < 0)
		return -1;
	return uf_task(x, dir, tid, k, k->kind == TTMODEL_CPU ? mc->losses :
		       NULL, k->kind == TTMODEL_CPU ? mc->nlosses : 0);
}

/* ---- the other files ----------------------------------------------------- */

/*
 * info: the 40-byte header (magic, version 4, header size, little endian,
 * 64-bit, TASK_SESSION, the sections below, max stack), then the exename,
 * cmdline and taskinfo sections in bit order. cmd is copied into JSON by
 * `dump --chrome`, so it must hold no quote or backslash.
 */
static int uf_info(const char *dir, const struct uf_export *x,
		   const char *cmd)
{
	struct __attribute__((packed)) {
		char magic[8];
		uint32_t version;
		uint16_t header_size;
		uint8_t endian, elf_class;
		uint64_t feat_mask, info_mask;
		uint16_t max_stack;
		uint8_t unused[6];
	} h = { "Ftrace!", 4, 40, 1, 2, 0x2, 0x1 | 0x8 | 0x80, 1024, { 0 } };
	FILE *f = ttexport_create(dir, "info");

	_Static_assert(sizeof(h) == 40, "uftrace info header");
	if (!f)
		return -1;
	fwrite(&h, sizeof(h), 1, f);
	fprintf(f, "exename:/" UF_MODULE "\ncmdline:%s\ntaskinfo:lines=2\n"
		"taskinfo:nr_tid=%u\ntaskinfo:tids=", cmd, x->ntasks);
	for (uint32_t i = 0; i < x->ntasks; i++)
		fprintf(f, "%s%u", i ? "," : "", x->tasks[i].tid);
	fprintf(f, "\n");
	return ttexport_close(f, dir, "info");
}

/* task.txt: per task a session of its name (cpuN, bootN, the process's
 * name) and the task. */
static int uf_tasks(const char *dir, const struct uf_export *x)
{
	FILE *f = ttexport_create(dir, "task.txt");

	if (!f)
		return -1;
	for (uint32_t i = 0; i < x->ntasks; i++)
		fprintf(f, "SESS timestamp=0.0 pid=%u sid=0 exename=\"%s\"\n"
			"TASK timestamp=0.0 tid=%u pid=%u\n", x->tasks[i].tid,
			x->tasks[i].name, x->tasks[i].tid, x->tasks[i].tid);
	return ttexport_close(f, dir, "task.txt");
}

/* sid-0.map (the module, and the [stack] line uftrace needs) and the
 * module's symbols, ended by the terminator 0.13 wants. */
static int uf_symbols(const char *dir, const struct uf_syms *s)
{
	uint64_t size = (uint64_t)(s->n + 1) * UF_SYM_STEP;
	FILE *f = ttexport_create(dir, "sid-0.map");

	if (!f)
		return -1;
	if (size < UF_MAP_MIN)
		size = UF_MAP_MIN;
	fprintf(f, "%llx-%llx r-xp 00000000 00:00 0 /" UF_MODULE "\n"
		"ffffffffffff-ffffffffffff rw-p 00000000 00:00 0 [stack]\n",
		(unsigned long long)UF_MAP_START,
		(unsigned long long)(UF_MAP_START + size));
	if (ttexport_close(f, dir, "sid-0.map") < 0 ||
	    !(f = ttexport_create(dir, UF_MODULE ".sym")))
		return -1;
	for (uint32_t i = 0; i < s->n; i++)
		fprintf(f, "%016llx T %s\n",
			(unsigned long long)i * UF_SYM_STEP, s->names[i]);
	fprintf(f, "%016llx ? __sym_end\n",
		(unsigned long long)s->n * UF_SYM_STEP);
	return ttexport_close(f, dir, UF_MODULE ".sym");
}

/* "ttdecode uftrace PATH" with quotes and backslashes made '_'. */
static void uf_cmdline(char *buf, size_t size, const char *path)
{
	snprintf(buf, size, "ttdecode uftrace %s", path);
	for (char *p = buf; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			*p = '_';
}

static int uf_export(struct uf_export *x, const char *path, const char *dir)
{
	const struct ttmodel *m = x->m;
	char cmd[512];

	for (uint32_t i = 0; i < m->ntracks; i++)
		if (uf_track(x, dir, &m->tracks[i]) < 0)
			return -1;
	uf_cmdline(cmd, sizeof(cmd), path);
	if (uf_info(dir, x, cmd) < 0 || uf_tasks(dir, x) < 0 ||
	    uf_symbols(dir, &x->syms) < 0)
		return -1;
	printf("uftrace: %s: %u tasks, %llu records, %u functions; %llu "
	       "exits without an entry dropped, %llu calls clipped, %llu "
	       "unfinished, %llu too deep; %llu records lost (declared), %llu "
	       "of them before the trace (overwritten or not copied)\n", dir, x->ntasks,
	       (unsigned long long)x->records, x->syms.n,
	       (unsigned long long)m->counts.unmatched_exits,
	       (unsigned long long)m->counts.clipped,
	       (unsigned long long)m->counts.unfinished,
	       (unsigned long long)m->counts.too_deep,
	       (unsigned long long)x->lost, (unsigned long long)x->before);
	return 0;
}

/* uf_export() of t into dir, its symbols and tasks freed after. */
static int uf_run(struct ttload *t, const struct ttmodel *m,
		  const char *path, const char *dir)
{
	struct uf_export x = { .t = t, .m = m };
	int rc = uf_export(&x, path, dir);

	uf_syms_free(&x.syms);
	free(x.tasks);
	return rc;
}

/* ttdecode uftrace TRACE DIR. */
int ttuftrace_main(int argc, char **argv)
{
	(void)argc;
	return ttexport_main(argv, true, uf_run);
}

static const struct ttdecode_command cmd_uftrace = {
	"uftrace", 2, ttuftrace_main, "uftrace TRACE DIR" };
TTDECODE_COMMAND(cmd_uftrace);
