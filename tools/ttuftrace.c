/*
 * ttuftrace.c: `ttdecode uftrace TRACE DIR`, a trace as a uftrace data
 * directory (docs/exports.md) that uftrace 0.13 replays, reports, graphs,
 * describes (info) and dumps (dump --chrome).
 *
 * uftrace shows function calls per task, so each CPU becomes a task named
 * cpuN (pid = tid = 100 * (N + 1), as QEMU's uftrace plugin numbers vCPUs)
 * whose functions are what that CPU ran: boot phases (a phase lasts until
 * the next one or until the CPU leaves the boot context; a boot_phase_at
 * phase starts at its record, since uftrace wants time order: `ttdecode
 * boot` places it at the TSC it carries), syscalls (enter
 * to exit), interrupts (irq_enter to irq_exit) and, with the function-graph
 * tracer on, kernel functions (func_entry to func_exit, named by their aux
 * records of tag func; an exit closes the innermost open call of its
 * function), nested as they happened.
 * The function names go through a symbol file: each distinct name
 * (sys_NAME, irq_NAME, boot_NAME, a kernel function's own) gets an address
 * 16 bytes after the previous one in a made-up module /ttrace mapped at
 * UF_MAP_START.
 *
 * Per CPU a stack of open frames keeps uftrace's depth consistent when the
 * ring lost one end: an exit whose entry is not open is dropped, an exit
 * below the top closes the frames above it, and every open frame is
 * closed at a declared loss and at the end. A loss is a LOST record (its
 * count as the address) inside a function lost_records, where replay
 * shows it ("LOST N records"); uftrace 0.13's dump --chrome writes a bare
 * "," for a LOST record, so its JSON is only valid for a trace without
 * losses (docs/exports.md). A context switch closes every frame (the CPU leaves them),
 * writes sched-out and sched-in events, and reopens the syscall the
 * incoming process sits in (the event's context names it), so a syscall
 * that blocked shows as two calls: up to the switch and after resuming.
 * Events are found by name in the trace's metadata; the rest (markers,
 * faults...) are not functions and are left to `ttdecode text`.
 */
#include <stdlib.h>
#include <string.h>

#include <hash.h>

#include "ttexport.h"

#define UF_MAX_DEPTH	64		/* open frames per CPU, at most */
#define UF_MAP_START	0xffff80100000ULL	/* 48-bit, as uftrace keeps */
#define UF_MAP_MIN	0x100000ULL
#define UF_SYM_STEP	16
#define UF_REC_MAGIC	0x5ULL
#define UF_SCHED_IN	200001		/* uftrace's EVENT_ID_PERF_SCHED_IN */
#define UF_SCHED_OUT	200002
#define UF_PID(cpu)	(100 * ((cpu) + 1))
#define UF_MODULE	"ttrace"
#define UF_MAX_NAME	96

enum uf_type { UF_ENTRY, UF_EXIT, UF_LOST, UF_EVENT };
enum uf_kind { UF_BOOT, UF_SYSCALL, UF_IRQ, UF_FUNC };

struct uf_frame {
	uint64_t addr;
	uint64_t key;			/* syscall nr, vector, phase id or
					 * function address */
	enum uf_kind kind;
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
	struct ttload *t;
	struct uf_syms syms;
	int boot, boot_at, sys_in, sys_out, irq_in, irq_out, sched; /* event ids */
	int func_in, func_out;
	FILE *f;			/* the current CPU's .dat */
	struct uf_frame stack[UF_MAX_DEPTH];
	unsigned depth;
	uint64_t records, dropped, closed, overflow, lost;
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

/* Closes the open frames down to depth keep (keep <= x->depth) at ns. */
static void uf_close(struct uf_export *x, unsigned keep, uint64_t ns)
{
	while (x->depth > keep) {
		x->depth--;
		uf_put(x, ns, UF_EXIT, x->depth, x->stack[x->depth].addr);
	}
}

/* The symbol address of a frame of kind for key, named at time ts. */
static uint64_t uf_frame_addr(struct uf_export *x, enum uf_kind kind,
			      uint64_t key, uint64_t ts)
{
	static const char *const prefix[] = { "boot_", "sys_", "irq_", "" };
	static const unsigned tag[] = { TTRACE_AUX_BOOT_PHASE,
		TTRACE_AUX_SYSCALL_NAME, TTRACE_AUX_IRQ_NAME,
		TTRACE_AUX_FUNC_NAME };
	char name[UF_MAX_NAME];
	size_t n = strlen(prefix[kind]);

	memcpy(name, prefix[kind], n);
	ttexport_name(name + n, sizeof(name) - n, x->t, tag[kind], key, ts,
		      TTEXPORT_IDENT);
	return uf_sym(&x->syms, name);
}

/* Opens a frame of kind for key at ns (event time ts). Returns 0, or -1
 * when out of memory. */
static int uf_open(struct uf_export *x, enum uf_kind kind, uint64_t key,
		   uint64_t ns, uint64_t ts)
{
	uint64_t addr;

	if (x->depth == UF_MAX_DEPTH) {
		x->overflow++;
		return 0;
	}
	if (!(addr = uf_frame_addr(x, kind, key, ts)))
		return -1;
	x->stack[x->depth] = (struct uf_frame){ addr, key, kind };
	uf_put(x, ns, UF_ENTRY, x->depth++, addr);
	return 0;
}

/* Closes the innermost open frame of kind for key, and those above it,
 * at ns; an exit with no such frame open is dropped. */
static void uf_return(struct uf_export *x, enum uf_kind kind, uint64_t key,
		      uint64_t ns)
{
	for (unsigned d = x->depth; d-- > 0;)
		if (x->stack[d].kind == kind && x->stack[d].key == key) {
			x->closed += x->depth - d - 1;
			uf_close(x, d, ns);
			return;
		}
	x->dropped++;
}

/* Closes every frame at ns, counting them as cut short. */
static void uf_close_all(struct uf_export *x, uint64_t ns)
{
	x->closed += x->depth;
	uf_close(x, 0, ns);
}

/* A context switch at ns: frames closed, sched-out, sched-in, and the
 * syscall the incoming process is in reopened. Returns 0 or -1. */
static int uf_switch(struct uf_export *x, const struct ttrace_event_view *ev,
		     uint64_t ns)
{
	uf_close(x, 0, ns);
	uf_put(x, ns, UF_EVENT, 0, UF_SCHED_OUT);
	uf_put(x, ns, UF_EVENT, 0, UF_SCHED_IN);
	if (ev->ctx_kind != TTRACE_CTX_SYSC)
		return 0;
	return uf_open(x, UF_SYSCALL, TTRACE_CTX_LOW(ev->context), ns,
		       ev->timestamp);
}

/* A declared loss of count records at ns: every frame closed, then a
 * LOST record inside a function lost_records, since uftrace replay only
 * shows a LOST record within a function. Returns 0 or -1. */
static int uf_lost(struct uf_export *x, uint64_t count, uint64_t ns)
{
	uint64_t addr = uf_sym(&x->syms, "lost_records");

	if (!addr)
		return -1;
	uf_close_all(x, ns);
	uf_put(x, ns, UF_ENTRY, 0, addr);
	uf_put(x, ns, UF_LOST, 1, count);
	uf_put(x, ns, UF_EXIT, 0, addr);
	x->lost += count;
	return 0;
}

/* Turns one event into records. Returns 0, or -1 when out of memory. */
static int uf_event(struct uf_export *x, const struct ttrace_event_view *ev)
{
	uint64_t ns = ttexport_ns(x->t, ev->timestamp), a0 = ev->args[0];
	int id = (int)ev->id;

	if (x->depth && x->stack[0].kind == UF_BOOT &&
	    ev->ctx_kind != TTRACE_CTX_BOOT && ev->ctx_kind != TTRACE_CTX_IRQ)
		uf_close(x, 0, ns);	/* the CPU has left the boot code */
	if (id == x->boot || id == x->boot_at) {
		uf_close(x, 0, ns);
		return uf_open(x, UF_BOOT, a0, ns, ev->timestamp);
	}
	if (id == x->sys_in)
		return uf_open(x, UF_SYSCALL, a0, ns, ev->timestamp);
	if (id == x->irq_in)
		return uf_open(x, UF_IRQ, a0, ns, ev->timestamp);
	if (id == x->func_in)
		return uf_open(x, UF_FUNC, a0, ns, ev->timestamp);
	if (id == x->sys_out)
		uf_return(x, UF_SYSCALL, a0, ns);
	else if (id == x->irq_out)
		uf_return(x, UF_IRQ, a0, ns);
	else if (id == x->func_out)
		uf_return(x, UF_FUNC, a0, ns);
	else if (id == x->sched)
		return uf_switch(x, ev, ns);
	return 0;
}

/* Writes cpu's records into DIR/<tid>.dat. Returns 0 or -1. */
static int uf_cpu(struct uf_export *x, const char *dir, uint32_t cpu)
{
	struct ttexport_walk w;
	enum ttexport_item k;
	char name[32];
	int rc = 0;

	snprintf(name, sizeof(name), "%u.dat", UF_PID(cpu));
	if (!(x->f = ttexport_create(dir, name)))
		return -1;
	x->depth = 0;
	ttexport_walk_init(&w, x->t, cpu);
	while (rc == 0 && (k = ttexport_walk_next(&w)) != TTEXPORT_END) {
		uint64_t ns = ttexport_ns(x->t, w.ts);

		if (k == TTEXPORT_EVENT) {
			rc = uf_event(x, w.ev);
			continue;
		}
		rc = uf_lost(x, w.loss->count, ns);
	}
	uf_close_all(x, ttexport_ns(x->t, w.ts));
	if (rc < 0)
		fprintf(stderr, "ttdecode: out of memory\n");
	return ttexport_close(x->f, dir, name) < 0 ? -1 : rc;
}

/* ---- the other files ----------------------------------------------------- */

/*
 * info: the 40-byte header (magic, version 4, header size, little endian,
 * 64-bit, TASK_SESSION, the sections below, max stack), then the exename,
 * cmdline and taskinfo sections in bit order. cmd is copied into JSON by
 * `dump --chrome`, so it must hold no quote or backslash.
 */
static int uf_info(const char *dir, uint32_t ncpus, const char *cmd)
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
		"taskinfo:nr_tid=%u\ntaskinfo:tids=", cmd, ncpus);
	for (uint32_t c = 0; c < ncpus; c++)
		fprintf(f, "%s%u", c ? "," : "", UF_PID(c));
	fprintf(f, "\n");
	return ttexport_close(f, dir, "info");
}

/* task.txt: one session (named cpuN) and one task per CPU. */
static int uf_tasks(const char *dir, uint32_t ncpus)
{
	FILE *f = ttexport_create(dir, "task.txt");

	if (!f)
		return -1;
	for (uint32_t c = 0; c < ncpus; c++)
		fprintf(f, "SESS timestamp=0.0 pid=%u sid=0 exename=\"cpu%u\"\n"
			"TASK timestamp=0.0 tid=%u pid=%u\n", UF_PID(c), c,
			UF_PID(c), UF_PID(c));
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
	uint32_t ncpus = x->t->version.num_cpus;
	char cmd[512];

	x->boot = ttexport_event_id(&x->t->meta, "boot_phase");
	x->boot_at = ttexport_event_id(&x->t->meta, "boot_phase_at");
	x->sys_in = ttexport_event_id(&x->t->meta, "syscall_enter");
	x->sys_out = ttexport_event_id(&x->t->meta, "syscall_exit");
	x->irq_in = ttexport_event_id(&x->t->meta, "irq_enter");
	x->irq_out = ttexport_event_id(&x->t->meta, "irq_exit");
	x->sched = ttexport_event_id(&x->t->meta, "sched_switch");
	x->func_in = ttexport_event_id(&x->t->meta, "func_entry");
	x->func_out = ttexport_event_id(&x->t->meta, "func_exit");
	for (uint32_t c = 0; c < ncpus; c++)
		if (uf_cpu(x, dir, c) < 0)
			return -1;
	uf_cmdline(cmd, sizeof(cmd), path);
	if (uf_info(dir, ncpus, cmd) < 0 || uf_tasks(dir, ncpus) < 0 ||
	    uf_symbols(dir, &x->syms) < 0)
		return -1;
	printf("uftrace: %s: %u tasks (cpu0-%u), %llu records, %u functions; "
	       "%llu exits without an entry dropped, %llu entries closed "
	       "without an exit, %llu too deep; %llu records lost (declared)\n",
	       dir, ncpus, ncpus - 1, (unsigned long long)x->records,
	       x->syms.n, (unsigned long long)x->dropped,
	       (unsigned long long)x->closed, (unsigned long long)x->overflow,
	       (unsigned long long)x->lost);
	return 0;
}

/* ttdecode uftrace TRACE DIR. */
int ttuftrace_main(int argc, char **argv)
{
	struct uf_export x = { 0 };
	struct ttload t;
	int rc;

	(void)argc;
	if (ttload_open(&t, argv[0]))
		return 1;
	x.t = &t;
	rc = ttexport_mkdir(argv[1]) < 0 ? -1 : uf_export(&x, argv[0], argv[1]);
	uf_syms_free(&x.syms);
	ttload_free(&t);
	return rc < 0 ? 1 : 0;
}
