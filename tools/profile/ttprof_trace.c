/*
 * ttprof_trace.c: a trace's profile records (docs/trace-format.md,
 * section 8) turned into the profile model (ttprof.h).
 *
 *	profile_sample	an on-CPU sample: its kernel chain, then the user
 *			chain of the ustack right after it (same CPU, next
 *			index), weighing its interval: the time since
 *			the CPU's sample before it (the trace clock's
 *			ticks, in ns by the trace's TSC rate)
 *	profile_switch	where a thread left its CPU: remembered per
 *			(tid, time)
 *	profile_offcpu	an off-CPU sample: off_ns in the stack of the
 *			tid's last profile_switch before it, on any CPU
 *			(matched once every CPU's switches are read),
 *			from off_ns before it
 *	user pcs	named by the ELF of the program the process
 *			runs: the path aux names it by (tag proc, ident
 *			TTRACE_EXEC_IDENT(pid), written at its spawn, so
 *			the name outlives the ring's records; the newest
 *			at or before the pc's record, else the oldest);
 *			/bin/NAME is USERDIR/NAME, build/user by default
 *	kernel pcs	named by the trace's symbols (aux tag ksym), or by
 *			the kernel ELF's (build/kernel.elf by default) when
 *			the trace has none
 *	boot phases	a sample inside one of its CPU's boot phases (the
 *			model's boot track, as `ttdecode boot` places them)
 *			gets the phase as its root frame, "[boot] NAME"
 * profile_wakeup is not a cost and is left to the scheduling analyses.
 * Frames: a return address (every pc but the chain's first) is named at
 * pc - 1, the call it returns from, so a call that ends a function is not
 * given to the next one; a pc nothing names is its address.
 */
#include <stdlib.h>
#include <string.h>

#include <ttrace_decode.h>

#include "ttdecode.h"
#include "ttexport.h"
#include "ttmodel.h"
#include "ttprof.h"
#include "ttprof_elf.h"

#define CHAIN		16		/* pcs in a record */
#define CACHE_BITS	12		/* (mapping, pc) -> frame */

enum { A_PID, A_TID, A_MODE, A_INTERVAL, A_FRAMES, A_PC0 }; /* words */
enum { EV_SAMPLE, EV_SWITCH, EV_OFFCPU, EV_USTACK, EV_N };
static const char *const ev_names[EV_N] = {
	"profile_sample", "profile_switch", "profile_offcpu", "ustack" };

/* Where a thread left its CPU (a profile_switch): the stack its next
 * off-CPU time is spent in. */
struct leave {
	uint64_t ts;
	uint32_t tid, stack;
	uint8_t mode;			/* enum ttprof_mode */
};

/* A profile_offcpu, given its switch's stack once every CPU's switches
 * are known (a thread may leave on one CPU and come back on another). */
struct off {
	uint64_t ts, ns;
	uint32_t pid, tid, cpu;
};

struct prog {
	char *path;			/* as the trace names it */
	struct ttprof_elf elf;
	bool have_elf;
	uint32_t mapping;
};

/* The program of a process aux names none for: its pcs are addresses. */
static const struct prog no_prog = { .mapping = TTPROF_NO_MAPPING };

struct rd {
	struct ttprof *p;
	struct ttload *t;
	struct ttmodel m;
	const char *userdir;
	const char *kernel_elf;		/* to load when a kernel pc needs it
					   (the trace names no kernel symbol) */
	struct ttprof_elf kelf;		/* ... loaded */
	bool have_kelf;
	uint32_t ids[EV_N];
	uint32_t kernel, boot;		/* their mappings */
	struct prog *progs;
	uint32_t nprogs;
	const char *last_path;		/* the path prog_of() found last */
	int64_t last_prog;		/* ... its index */
	struct leave *leaves;		/* by (tid, ts) once sorted */
	uint64_t nleaves, leaves_cap;
	struct off *offs;
	uint64_t noffs, offs_cap;
	struct { uint64_t pc; uint32_t mapping, frame; } cache[1u << CACHE_BITS];
	uint64_t orphans;		/* ustacks after no profile record */
	uint64_t no_switch;		/* offcpu with no switch before */
};

/* The frame of pc in mapping map, named by sym (or its address). */
static uint32_t frame_of(struct rd *r, uint32_t map, uint64_t pc,
			 const char *sym, size_t len, uint64_t addr)
{
	char hex[24];

	if (!len) {
		len = (size_t)snprintf(hex, sizeof(hex), "0x%llx", ull(pc));
		sym = hex;
		addr = pc;
	}
	return ttprof_frame(r->p, map, addr, sym, len);
}

/* Kernel pc's frame: named by the trace's symbols, else by the kernel
 * ELF's (a trace whose kernel wrote none). */
static uint32_t kernel_frame(struct rd *r, uint64_t pc, uint64_t ts)
{
	const char *s;
	size_t n = ttload_resolve(r->t, TTRACE_AUX_KSYM_NAME, pc, ts, &s);
	const struct ttprof_sym *k;
	const char *why;

	if (r->kernel_elf && !(r->have_kelf = ttprof_elf_load(&r->kelf,
						r->kernel_elf, &why) == 0))
		fprintf(stderr, "ttdecode: note: the trace names no kernel "
			"symbol, and %s: %s (kernel frames are addresses)\n",
			r->kernel_elf, why);
	r->kernel_elf = NULL;	/* tried */
	k = !n && r->have_kelf ? ttprof_elf_find(&r->kelf, pc) : NULL;

	if (k)
		return frame_of(r, r->kernel, pc, k->name, strlen(k->name),
				k->addr);
	return frame_of(r, r->kernel, pc, s, n, pc);
}

static uint32_t user_frame(struct rd *r, const struct prog *g, uint64_t pc)
{
	const struct ttprof_sym *s = g && g->have_elf ?
				     ttprof_elf_find(&g->elf, pc) : NULL;

	return frame_of(r, g ? g->mapping : TTPROF_NO_MAPPING, pc,
			s ? s->name : NULL, s ? strlen(s->name) : 0,
			s ? s->addr : pc);
}

/* The frame of the k-th pc of a chain, of program g (NULL: the kernel's),
 * through the cache; look is the pc to name (pc, or pc - 1 for a return
 * address). */
static uint32_t chain_frame(struct rd *r, const struct prog *g, uint64_t look,
			    uint64_t ts)
{
	uint32_t map = g ? g->mapping : r->kernel;
	uint32_t h = (uint32_t)((look * 0x9e3779b97f4a7c15ull ^ map) >>
				(64 - CACHE_BITS));

	if (r->cache[h].pc != look || r->cache[h].mapping != map ||
	    !r->cache[h].frame) {
		r->cache[h].pc = look;
		r->cache[h].mapping = map;
		r->cache[h].frame = 1 + (g ? user_frame(r, g, look) :
					 kernel_frame(r, look, ts));
	}
	return r->cache[h].frame - 1;
}

/* The program at path (len bytes), its ELF loaded from the user folder:
 * found or added. Returns its index, or -1 when out of memory. */
static int64_t prog(struct rd *r, const char *path, size_t len)
{
	const char *base, *why;
	struct prog *g;
	char file[4096];

	for (uint32_t i = 0; i < r->nprogs; i++)
		if (strlen(r->progs[i].path) == len &&
		    !memcmp(r->progs[i].path, path, len))
			return i;
	g = realloc(r->progs, (r->nprogs + 1) * sizeof(*g));
	if (!g)
		return -1;
	r->progs = g;
	g += r->nprogs;
	memset(g, 0, sizeof(*g));
	if (!(g->path = strndup(path, len)))
		return -1;
	base = strrchr(g->path, '/') ? strrchr(g->path, '/') + 1 : g->path;
	snprintf(file, sizeof(file), "%s/%s", r->userdir, base);
	g->have_elf = ttprof_elf_load(&g->elf, file, &why) == 0;
	if (!g->have_elf)
		fprintf(stderr, "ttdecode: note: %s: %s: %s (its frames are "
			"addresses)\n", g->path, file, why);
	g->mapping = ttprof_mapping(r->p, g->path, g->have_elf &&
			g->elf.nsyms ? g->elf.syms[0].addr : 0, g->have_elf &&
			g->elf.nsyms ? g->elf.syms[g->elf.nsyms - 1].addr : 0);
	return r->nprogs++;
}

/* The program process pid runs at ts (see the top), or NULL: none named,
 * or out of memory (the model says so). */
static const struct prog *prog_of(struct rd *r, uint32_t pid, uint64_t ts)
{
	const char *path;
	size_t len = ttload_resolve(r->t, TTRACE_AUX_PROC_NAME,
				    TTRACE_EXEC_IDENT(pid), ts, &path);

	if (!len)
		return NULL;
	if (path != r->last_path) {	/* the trace's own: a stable pointer */
		r->last_path = path;
		r->last_prog = prog(r, path, len);
	}
	if (r->last_prog < 0) {
		r->p->oom = true;
		return NULL;
	}
	return &r->progs[r->last_prog];
}

/* The boot phase span of cpu at ts, or NULL. *at: where to look from
 * (the walk of one CPU is in time order). */
static const struct ttmodel_span *phase_at(const struct rd *r, uint32_t cpu,
					   uint64_t ts, uint64_t *at)
{
	const struct ttmodel_track *k = &r->m.tracks[r->m.cpus[cpu].boot_track];

	while (*at < k->nspans && k->spans[*at].end <= ts)
		++*at;
	if (*at < k->nspans && k->spans[*at].start <= ts)
		return &k->spans[*at];
	return NULL;
}

/* The stack of record ev (and its ustack us, or NULL): kernel chain,
 * user chain, the boot phase. Returns its index. */
static uint32_t record_stack(struct rd *r, const struct ttrace_event_view *ev,
			     const struct ttrace_event_view *us, uint64_t *at)
{
	uint32_t f[TTPROF_MAX_FRAMES], n = 0;
	uint32_t kn = (uint32_t)ev->args[A_FRAMES];
	const struct ttmodel_span *ph;
	const struct prog *g;

	for (uint32_t k = 0; k < kn && k < CHAIN && ev->args[A_PC0 + k]; k++)
		f[n++] = chain_frame(r, NULL, ev->args[A_PC0 + k] - !!k,
				     ev->timestamp);
	g = us ? prog_of(r, (uint32_t)ev->args[A_PID], ev->timestamp) : NULL;
	for (uint32_t k = 0; us && k < us->args[0] && k < CHAIN &&
	     us->args[1 + k]; k++)	/* no program: addresses, not kernel's */
		f[n++] = chain_frame(r, g ? g : &no_prog, us->args[1 + k] - !!k,
				     0);
	if ((ph = phase_at(r, ev->cpu, ev->timestamp, at))) {
		const char *s;
		size_t len = ttmodel_span_name(&r->m, ph, &s);
		char name[80];

		len = (size_t)snprintf(name, sizeof(name), "[boot] %.*s",
				       (int)len, s ? s : "?");
		f[n++] = ttprof_frame(r->p, r->boot, ph->ident, name,
				      MIN(len, sizeof(name) - 1));
	}
	return ttprof_stack(r->p, f, n);
}

/* An on-CPU sample of ev (its ustack us, or NULL): at its record's time,
 * for the interval before it. */
static void sample(struct rd *r, const struct ttrace_event_view *ev,
		   const struct ttrace_event_view *us, uint64_t *at)
{
	uint64_t hz = r->t->version.tsc_hz, ticks = ev->args[A_INTERVAL];
	int64_t ns = ttmodel_ns(r->t, ev->timestamp);

	ttprof_add(r->p, &(struct ttprof_sample){
		.ts = ns > 0 ? (uint64_t)ns : 0,
		.ns = hz ? ttrace_ticks_to_ns(ticks, hz) : ticks,
		.stack = record_stack(r, ev, us, at),
		.pid = (uint32_t)ev->args[A_PID],
		.tid = (uint32_t)ev->args[A_TID], .cpu = ev->cpu,
		.kind = TTPROF_ON_CPU,
		.mode = ev->args[A_MODE] == 1 ? TTPROF_USER : TTPROF_KERNEL });
}

/* A new element at the end of the array *a of *n (capacity *cap) of size
 * bytes each, or NULL when out of memory (the model says so). */
static void *push(struct rd *r, void *a, uint64_t *n, uint64_t *cap,
		  size_t size)
{
	void **arr = a;

	if (*n == *cap) {
		void *g = realloc(*arr, (*cap * 2 + 16) * size);

		if (!g) {
			r->p->oom = true;
			return NULL;
		}
		*arr = g;
		*cap = *cap * 2 + 16;
	}
	return (char *)*arr + (*n)++ * size;
}

/* Where thread tid left its CPU (ev, its ustack us): the off-CPU time
 * that follows is spent there. */
static void leave(struct rd *r, const struct ttrace_event_view *ev,
		  const struct ttrace_event_view *us, uint64_t *at)
{
	struct leave *l = push(r, &r->leaves, &r->nleaves, &r->leaves_cap,
			       sizeof(*l));

	if (l)
		*l = (struct leave){ ev->timestamp, (uint32_t)ev->args[A_TID],
			record_stack(r, ev, us, at), ev->args[A_MODE] == 1 ?
			TTPROF_USER : TTPROF_KERNEL };
}

static int leave_cmp(const void *a, const void *b)
{
	const struct leave *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* profile_offcpu(pid, tid, off_ns): kept for offcpus(). */
static void offcpu(struct rd *r, const struct ttrace_event_view *ev)
{
	struct off *o = push(r, &r->offs, &r->noffs, &r->offs_cap,
			     sizeof(*o));

	if (o)
		*o = (struct off){ ev->timestamp, ev->args[2],
			(uint32_t)ev->args[0], (uint32_t)ev->args[1], ev->cpu };
}

/* Every off-CPU time: off_ns up to its record, in the stack of its
 * thread's last switch before it, on whichever CPU. */
static void offcpus(struct rd *r)
{
	if (r->nleaves)		/* leaves may be NULL: none */
		qsort(r->leaves, r->nleaves, sizeof(*r->leaves), leave_cmp);
	for (uint64_t i = 0; i < r->noffs; i++) {
		const struct off *o = &r->offs[i];
		int64_t ns = ttmodel_ns(r->t, o->ts);
		uint64_t lo = 0, hi = r->nleaves;
		const struct leave *l;
		uint32_t stack;

		while (lo < hi) {	/* lo: the first leave after it */
			uint64_t mid = lo + (hi - lo) / 2;

			if (leave_cmp(&r->leaves[mid], &(struct leave){
					.ts = o->ts, .tid = o->tid }) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		l = lo && r->leaves[lo - 1].tid == o->tid ?
		    &r->leaves[lo - 1] : NULL;
		if (l) {
			stack = l->stack;
		} else {
			uint32_t f = ttprof_frame(r->p, TTPROF_NO_MAPPING, 0,
						  "[unknown]", 9);

			stack = ttprof_stack(r->p, &f, 1);
			r->no_switch++;
		}
		ns = ns > (int64_t)o->ns ? ns - (int64_t)o->ns : 0;
		ttprof_add(r->p, &(struct ttprof_sample){
			.ts = (uint64_t)ns, .ns = o->ns, .stack = stack,
			.pid = o->pid, .tid = o->tid, .cpu = o->cpu,
			.kind = TTPROF_OFF_CPU,
			.mode = l ? l->mode : TTPROF_KERNEL });
	}
}

/* CPU c's profile records in time order. */
static void cpu_records(struct rd *r, uint32_t c)
{
	const struct ttload_cpu *lc = &r->t->cpus[c];
	struct ttrace_event_view ev, next;
	struct ttrace_pair_iter it;
	uint64_t at = 0;
	bool have;

	ttrace_pair_init(&it, lc->sorted, lc->nsorted, &r->t->meta);
	have = ttrace_pair_next(&it, &next);
	while (have) {
		bool us;

		ev = next;
		have = ttrace_pair_next(&it, &next);
		if (ev.id == r->ids[EV_SAMPLE] || ev.id == r->ids[EV_SWITCH]) {
			us = have && next.id == r->ids[EV_USTACK];
			(ev.id == r->ids[EV_SAMPLE] ? sample : leave)(r, &ev,
						us ? &next : NULL, &at);
			if (us)
				have = ttrace_pair_next(&it, &next);
		} else if (ev.id == r->ids[EV_USTACK]) {
			r->orphans++;
		} else if (ev.id == r->ids[EV_OFFCPU]) {
			offcpu(r, &ev);
		}
	}
}

/* Names every process the samples have: the trace's name of it (aux tag
 * proc) at its first sample, else its program's path. */
static void comms(struct rd *r)
{
	struct ttprof *p = r->p;
	uint32_t last = UINT32_MAX;
	char buf[32];

	for (uint64_t i = 0; i < p->nsamples; i++) {
		const struct ttprof_sample *s = &p->samples[i];
		const struct prog *g;
		const char *name;
		size_t n;

		if (s->pid == last || ttprof_comm(p, s->pid, buf, sizeof(buf))
		    != buf)
			continue;
		last = s->pid;
		n = ttload_resolve(r->t, TTRACE_AUX_PROC_NAME, s->pid, 0, &name);
		if (!n && (g = prog_of(r, s->pid, UINT64_MAX)))
			name = g->path, n = strlen(name);
		if (!n)
			name = s->pid ? buf : "kthread", n = strlen(name);
		ttprof_set_comm(p, s->pid, name, n);
	}
}

/* The model's period: the mean interval of its on-CPU samples (each
 * weighs its own; pprof's period says what one stood for on average). */
static uint64_t mean_period(const struct ttprof *p)
{
	uint64_t n = 0, ns = 0;

	for (uint64_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].kind == TTPROF_ON_CPU) {
			n++;
			ns += p->samples[i].ns;
		}
	return n ? ns / n : 0;
}

static void rd_free(struct rd *r)
{
	for (uint32_t i = 0; i < r->nprogs; i++) {
		free(r->progs[i].path);
		ttprof_elf_free(&r->progs[i].elf);
	}
	free(r->progs);
	free(r->leaves);
	free(r->offs);
	ttprof_elf_free(&r->kelf);
	ttmodel_free(&r->m);
	free(r);
}

/* Fills p (ttprof_init'ed) with the profile of loaded trace t, user
 * programs' ELF files from o->userdir, kernel symbols from the trace or
 * else o->kernel's. Returns 0, or -1 when out of memory. */
int ttprof_from_trace(struct ttprof *p, struct ttload *t,
		      const struct ttprof_opts *o)
{
	struct rd *r = calloc(1, sizeof(*r));
	int rc = -1;

	if (!r)
		return -1;
	r->p = p;
	r->t = t;
	r->userdir = o->userdir;
	r->kernel_elf = t->nksyms ? NULL : o->kernel;
	for (int i = 0; i < EV_N; i++)
		r->ids[i] = (uint32_t)ttexport_event_id(&t->meta, ev_names[i]);
	r->kernel = ttprof_mapping(p, "kernel", t->nksyms ? t->ksyms[0].ident
				   : 0, t->nksyms ? t->ksyms[t->nksyms - 1]
				   .ident : 0);
	r->boot = ttprof_mapping(p, "[boot]", 0, 0);
	if (ttmodel_build(&r->m, t) < 0)
		goto out;
	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		cpu_records(r, c);
	offcpus(r);
	comms(r);
	p->period_ns = mean_period(p);
	for (uint32_t c = 0; c < t->version.num_cpus; c++)
		for (uint32_t k = 0; k < TTRACE_LOSS_NREASONS; k++)
			p->dropped += t->cpus[c].lost[k];
	if (r->orphans || r->no_switch)
		fprintf(stderr, "ttdecode: note: %llu ustack records after no "
			"profile record, %llu off-CPU times with no switch "
			"stack (\"[unknown]\")\n", ull(r->orphans),
			ull(r->no_switch));
	rc = p->oom ? -1 : 0;
out:
	rd_free(r);
	return rc;
}

/* ttprof_init()s p and fills it with the profile of the trace at path
 * (o->userdir's ELF files), saying what the trace lost. Returns 0, or the
 * exit status after saying why not (p then holds nothing). */
int ttprof_load(struct ttprof *p, const char *path, const struct ttprof_opts *o)
{
	struct ttload t;
	int rc = ttload_open(&t, path);

	if (rc)
		return rc;
	ttprof_init(p, 0);
	if (ttprof_from_trace(p, &t, o) < 0) {
		fprintf(stderr, "ttdecode: out of memory\n");
		ttprof_free(p);
		rc = 1;
	} else if (p->dropped) {
		fprintf(stderr, "ttdecode: note: %s lost %llu records: the "
			"profile misses the samples among them\n", path,
			ull(p->dropped));
	}
	ttload_free(&t);
	return rc;
}

/* A profile command's run: argv is TRACE, OUT when nout is 1, and the
 * options; loads the trace's profile and writes it with fn to OUT (or
 * stdout). Returns the exit status. */
int ttprof_command(int argc, char **argv, int nout, const char *usage,
		   ttprof_write_fn fn)
{
	struct ttprof_opts o;
	struct ttprof p;
	FILE *f = stdout;
	int rc;

	if (ttprof_parse_opts(&argc, argv, &o) < 0 || argc != 1 + nout) {
		fprintf(stderr, "usage: ttdecode %s\n", usage);
		return 2;
	}
	o.trace = argv[0];
	if ((rc = ttprof_load(&p, argv[0], &o)))
		return rc;
	if (nout && !(f = fopen(argv[1], "wb"))) {
		perror(argv[1]);
		ttprof_free(&p);
		return 1;
	}
	rc = fn(&p, &o, f);
	if ((nout ? fclose(f) : fflush(f) || ferror(f)) || rc < 0) {
		fprintf(stderr, "ttdecode: %s: out of memory or write failed\n",
			nout ? argv[1] : "stdout");
		rc = -1;
	}
	ttprof_free(&p);
	return rc < 0;
}
