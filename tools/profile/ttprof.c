/*
 * ttprof.c: the profile model's interning (ttprof.h): frames by (mapping,
 * name) and stacks by their frames, each in an open-addressing hash of
 * 1 + index that doubles at half full, so that a 1M-sample trace costs a
 * hash probe or two per frame; and the options every profile command
 * shares.
 */
#include <stdlib.h>
#include <string.h>

#include "ttprof.h"

#define MIN_BITS	10

static uint32_t hash_bytes(uint32_t h, const void *s, size_t n)
{
	const uint8_t *b = s;

	for (size_t i = 0; i < n; i++)	/* FNV-1a */
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* Grows *v (of *cap elements of size) to hold n + 1; false when out of
 * memory (p->oom set). */
static bool grow(struct ttprof *p, void **v, uint64_t *cap, uint64_t n,
		 size_t size)
{
	void *nv;
	uint64_t nc;

	if (n < *cap)
		return true;
	nc = *cap ? *cap * 2 : 256;
	nv = realloc(*v, nc * size);
	if (!nv) {
		p->oom = true;
		return false;
	}
	*v = nv;
	*cap = nc;
	return true;
}

static bool grow32(struct ttprof *p, void **v, uint32_t *cap, uint32_t n,
		   size_t size)
{
	uint64_t c = *cap;
	bool ok = grow(p, v, &c, n, size);

	*cap = (uint32_t)c;
	return ok;
}

static char *copy(struct ttprof *p, const char *s, size_t n)
{
	char *c = malloc(n + 1);

	if (!c) {
		p->oom = true;
		return NULL;
	}
	memcpy(c, s, n);
	c[n] = 0;
	return c;
}

/* The hash table *tab of 2^*bits slots, doubled when n reaches half of
 * it, its entries rehashed by rehash(p, index). */
static bool table_room(struct ttprof *p, uint32_t **tab, uint32_t *bits,
		       uint32_t n, uint32_t (*rehash)(const struct ttprof *,
						      uint32_t))
{
	uint32_t nb = *bits ? *bits + 1 : MIN_BITS, mask = (1u << nb) - 1;
	uint32_t *t;

	if (*bits && n < (1u << *bits) / 2)
		return true;
	t = calloc((size_t)1 << nb, sizeof(*t));
	if (!t) {
		p->oom = true;
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = rehash(p, i) & mask;

		while (t[h])
			h = (h + 1) & mask;
		t[h] = i + 1;
	}
	free(*tab);
	*tab = t;
	*bits = nb;
	return true;
}

void ttprof_init(struct ttprof *p, uint64_t period_ns)
{
	memset(p, 0, sizeof(*p));
	p->period_ns = period_ns;
	ttprof_mapping(p, "[unknown]", 0, 0);	/* TTPROF_NO_MAPPING */
}

void ttprof_free(struct ttprof *p)
{
	for (uint32_t i = 0; i < p->nframes; i++)
		free(p->frames[i].name);
	for (uint32_t i = 0; i < p->nmappings; i++)
		free(p->mappings[i].path);
	for (uint32_t i = 0; i < p->ncomms; i++)
		free(p->comms[i]);
	free(p->samples);
	free(p->frames);
	free(p->stacks);
	free(p->stack_frames);
	free(p->mappings);
	free(p->frame_hash);
	free(p->stack_hash);
	free(p->comms);
	free(p->comm_pids);
	memset(p, 0, sizeof(*p));
}

/* Adds the mapping of path (its symbols at [start, end)); returns its
 * index, TTPROF_NO_MAPPING when out of memory. */
uint32_t ttprof_mapping(struct ttprof *p, const char *path, uint64_t start,
			uint64_t end)
{
	struct ttprof_mapping *m;

	if (p->oom)
		return TTPROF_NO_MAPPING;
	m = realloc(p->mappings, (p->nmappings + 1) * sizeof(*m));
	if (!m) {
		p->oom = true;
		return TTPROF_NO_MAPPING;
	}
	p->mappings = m;
	m += p->nmappings;
	m->path = copy(p, path, strlen(path));
	m->start = start;
	m->end = end;
	return m->path ? p->nmappings++ : TTPROF_NO_MAPPING;
}

static uint32_t frame_key(uint32_t mapping, const char *name, size_t len)
{
	return hash_bytes(hash_bytes(2166136261u, &mapping, sizeof(mapping)),
			  name, len);
}

static uint32_t frame_rehash(const struct ttprof *p, uint32_t i)
{
	const struct ttprof_frame *f = &p->frames[i];

	return frame_key(f->mapping, f->name, f->len);
}

/* The frame of function name (len bytes) at addr in mapping: found or
 * added. Returns its index (0 when out of memory: check p->oom). */
uint32_t ttprof_frame(struct ttprof *p, uint32_t mapping, uint64_t addr,
		      const char *name, size_t len)
{
	uint32_t h, mask, v;
	struct ttprof_frame *f;

	if (p->oom || !table_room(p, &p->frame_hash, &p->frame_bits,
				  p->nframes, frame_rehash))
		return 0;
	mask = (1u << p->frame_bits) - 1;
	for (h = frame_key(mapping, name, len) & mask;
	     (v = p->frame_hash[h]); h = (h + 1) & mask) {
		f = &p->frames[v - 1];
		if (f->mapping == mapping && f->len == len &&
		    !memcmp(f->name, name, len))
			return v - 1;
	}
	if (!grow32(p, (void **)&p->frames, &p->frames_cap, p->nframes,
		    sizeof(*f)))
		return 0;
	f = &p->frames[p->nframes];
	*f = (struct ttprof_frame){ copy(p, name, len), (uint32_t)len,
				    mapping, addr };
	if (!f->name)
		return 0;
	p->frame_hash[h] = ++p->nframes;
	return p->nframes - 1;
}

static uint32_t stack_rehash(const struct ttprof *p, uint32_t i)
{
	return p->stacks[i].hash;
}

/* The stack of frames[0..n) (leaf first): found or added. Returns its
 * index (0 when out of memory: check p->oom). */
uint32_t ttprof_stack(struct ttprof *p, const uint32_t *frames, uint32_t n)
{
	uint32_t h, mask, v, key = hash_bytes(2166136261u, frames,
					       n * sizeof(*frames));
	struct ttprof_stack *s;

	if (p->oom || !table_room(p, &p->stack_hash, &p->stack_bits,
				  p->nstacks, stack_rehash))
		return 0;
	mask = (1u << p->stack_bits) - 1;
	for (h = key & mask; (v = p->stack_hash[h]); h = (h + 1) & mask) {
		s = &p->stacks[v - 1];
		if (s->hash == key && s->n == n && (!n ||
		    !memcmp(&p->stack_frames[s->first], frames,
			    n * sizeof(*frames))))
			return v - 1;
	}
	if (!grow32(p, (void **)&p->stacks, &p->stacks_cap, p->nstacks,
		    sizeof(*s)))
		return 0;
	while (p->nstack_frames + n > p->stack_frames_cap)
		if (!grow(p, (void **)&p->stack_frames, &p->stack_frames_cap,
			  p->stack_frames_cap, sizeof(*frames)))
			return 0;
	if (n)		/* stack_frames is NULL while only empty stacks (a
			   user-mode sample, kernel chains only) are known */
		memcpy(&p->stack_frames[p->nstack_frames], frames,
		       n * sizeof(*frames));
	p->stacks[p->nstacks] = (struct ttprof_stack){ p->nstack_frames, n,
						       key };
	p->nstack_frames += n;
	p->stack_hash[h] = ++p->nstacks;
	return p->nstacks - 1;
}

void ttprof_add(struct ttprof *p, const struct ttprof_sample *s)
{
	if (!p->oom && grow(p, (void **)&p->samples, &p->samples_cap,
			    p->nsamples, sizeof(*s)))
		p->samples[p->nsamples++] = *s;
}

/* Names process pid (the newest name given wins). */
void ttprof_set_comm(struct ttprof *p, uint32_t pid, const char *name,
		     size_t len)
{
	uint32_t i;

	for (i = 0; i < p->ncomms && p->comm_pids[i] != pid; i++)
		;
	if (i == p->ncomms) {
		uint32_t cap = p->comms_cap;

		if (!grow32(p, (void **)&p->comms, &cap, i, sizeof(char *)) ||
		    !grow32(p, (void **)&p->comm_pids, &p->comms_cap, i,
			    sizeof(uint32_t)))
			return;
		p->comms[i] = NULL;
		p->comm_pids[i] = pid;
		p->ncomms++;
	}
	free(p->comms[i]);
	p->comms[i] = copy(p, name, len);
}

/* Process pid's name, or "pid N" in buf. */
const char *ttprof_comm(const struct ttprof *p, uint32_t pid, char *buf,
			size_t size)
{
	for (uint32_t i = 0; i < p->ncomms; i++)
		if (p->comm_pids[i] == pid && p->comms[i])
			return p->comms[i];
	snprintf(buf, size, "pid %u", pid);
	return buf;
}

/* Whether view v counts sample s. */
bool ttprof_counts(const struct ttprof_sample *s, enum ttprof_view v)
{
	return v == TTPROF_VIEW_WALL ||
	       (s->kind == TTPROF_ON_CPU) == (v == TTPROF_VIEW_ON);
}

/* What s weighs in view v: on-CPU, one sample; off-CPU and wall-clock,
 * its nanoseconds. */
uint64_t ttprof_value(const struct ttprof_sample *s, enum ttprof_view v)
{
	return v == TTPROF_VIEW_ON ? 1 : s->ns;
}

/* The unit of ttprof_value() in view v. */
const char *ttprof_view_unit(enum ttprof_view v)
{
	return v == TTPROF_VIEW_ON ? "samples" : "ns";
}

/* Takes [--off-cpu|--wall] [--pid N] [--user DIR] [--kernel ELF] out
 * of argv (*argc operands left, in
 * order). Returns 0, or -1 after saying what is wrong. */
int ttprof_parse_opts(int *argc, char **argv, struct ttprof_opts *o)
{
	int n = 0;

	*o = (struct ttprof_opts){ TTPROF_VIEW_ON, -1, "build/user",
				   "build/kernel.elf", NULL };
	for (int i = 0; i < *argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--off-cpu")) {
			o->view = TTPROF_VIEW_OFF;
		} else if (!strcmp(argv[i], "--wall")) {
			o->view = TTPROF_VIEW_WALL;
		} else if (!strcmp(argv[i], "--pid")) {
			if (i + 1 == *argc || (o->pid = strtoll(argv[i + 1],
						&end, 0)) < 0 || *end ||
			    end == argv[i + 1]) {
				fprintf(stderr, "ttdecode: --pid needs a "
					"process id\n");
				return -1;
			}
			i++;
		} else if (!strcmp(argv[i], "--user") && i + 1 < *argc) {
			o->userdir = argv[++i];
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < *argc) {
			o->kernel = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ttdecode: unknown option %s\n",
				argv[i]);
			return -1;
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	return 0;
}

bool ttprof_wanted(const struct ttprof_sample *s, const struct ttprof_opts *o)
{
	return ttprof_counts(s, o->view) &&
	       (o->pid < 0 || s->pid == (uint64_t)o->pid);
}

static int row_cmp(const void *a, const void *b)
{
	const struct ttprof_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The samples of p that o wants summed per (pid, stack), sorted by
 * (pid, stack): *n rows, or NULL (out of memory, or none: *n == 0). */
struct ttprof_row *ttprof_rows(const struct ttprof *p,
			       const struct ttprof_opts *o, uint64_t *n)
{
	struct ttprof_row *r = malloc((p->nsamples + 1) * sizeof(*r));
	uint64_t k = 0;

	*n = 0;
	if (!r)
		return NULL;
	for (uint64_t i = 0; i < p->nsamples; i++) {
		const struct ttprof_sample *s = &p->samples[i];

		if (ttprof_wanted(s, o))
			r[k++] = (struct ttprof_row){ s->pid, s->stack, 1,
					s->ns, ttprof_value(s, o->view) };
	}
	qsort(r, k, sizeof(*r), row_cmp);
	for (uint64_t i = 0; i < k; i++) {
		if (*n && r[*n - 1].pid == r[i].pid &&
		    r[*n - 1].stack == r[i].stack) {
			r[*n - 1].samples++;
			r[*n - 1].ns += r[i].ns;
			r[*n - 1].value += r[i].value;
		} else {
			r[(*n)++] = r[i];
		}
	}
	return r;
}
