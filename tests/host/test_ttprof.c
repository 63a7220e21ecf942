/*
 * Host tests of the profile model and its exports (tools/profile/) on a
 * synthetic profile, built as tools/profile/ttprof_trace.c builds one from
 * a trace:
 *
 *	spin (pid 3, /bin/spin)	700 samples in _start;main;f1,
 *				300 in _start;main;f2 (70/30)
 *	idle/0			50 samples in idle_loop (kernel)
 *	nap (pid 4)		3 x 50 ms off CPU in
 *				_start;main;g;sleep;syscall_entry;sys_sleep;
 *				schedule, 100 samples on CPU in _start;main;h
 *
 * Each export is read back: folded by parsing its lines, pprof by
 * gunzipping it and walking its protobuf (and by `go tool pprof`, when
 * it is installed), the SVG by counting its frames (and by xmllint, when
 * installed); the ELF reader on a file written here and on bad ones;
 * and traces written here read by ttprof_load(): each on-CPU sample
 * weighs the interval its record carries (ttprof_intervals), an off-CPU
 * time is spent where its thread left, on any CPU (ttprof_offcpu_cpus).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "htest.h"

#include <ttrace_decode.h>
#include <ttrace_file.h>
#include <ttrace_meta.h>

#include "ttprof.h"
#include "ttprof_elf.h"

#define PERIOD	1000000ull		/* 1 ms: 1000 Hz */
#define IDLE0	0x80000000u		/* TTRACE_IDLE_PID(0) */

static char tmpdir[] = "/tmp/test_ttprof.XXXXXX";

/* The stack of names (leaf first) in mapping map. */
static uint32_t stack(struct ttprof *p, uint32_t map, const char *const *n)
{
	uint32_t f[16], k = 0;

	for (; n[k]; k++)
		f[k] = ttprof_frame(p, map, 0x1000 + k, n[k], strlen(n[k]));
	return ttprof_stack(p, f, k);
}

static void add(struct ttprof *p, uint32_t pid, uint32_t st, uint32_t n,
		enum ttprof_kind kind, uint64_t ns)
{
	for (uint32_t i = 0; i < n; i++)
		ttprof_add(p, &(struct ttprof_sample){ .ts = i * PERIOD,
			.ns = ns, .stack = st, .pid = pid, .tid = pid,
			.kind = (uint8_t)kind, .mode = TTPROF_USER });
}

static void synthetic(struct ttprof *p)
{
	static const char *const f1[] = { "f1", "main", "_start", NULL };
	static const char *const f2[] = { "f2", "main", "_start", NULL };
	static const char *const h[] = { "h", "main", "_start", NULL };
	static const char *const idle[] = { "idle_loop", NULL };
	static const char *const g_user[] = { "sleep", "g", "main", "_start",
					      NULL };
	static const char *const g_kern[] = { "schedule", "sys_sleep",
					      "syscall_entry", NULL };
	uint32_t kern, spin, nap, f[8], n = 0;

	ttprof_init(p, PERIOD);
	kern = ttprof_mapping(p, "kernel", 0xffff800000000000ull,
			      0xffff800000100000ull);
	spin = ttprof_mapping(p, "/bin/spin", 0x400000, 0x500000);
	nap = ttprof_mapping(p, "/bin/nap", 0x400000, 0x500000);
	ttprof_set_comm(p, 3, "spin", 4);
	ttprof_set_comm(p, 4, "nap", 3);
	ttprof_set_comm(p, IDLE0, "idle/0", 6);
	add(p, 3, stack(p, spin, f1), 700, TTPROF_ON_CPU, PERIOD);
	add(p, 3, stack(p, spin, f2), 300, TTPROF_ON_CPU, PERIOD);
	add(p, IDLE0, stack(p, kern, idle), 50, TTPROF_ON_CPU, PERIOD);
	add(p, 4, stack(p, nap, h), 100, TTPROF_ON_CPU, PERIOD);
	for (int i = 0; g_kern[i]; i++)
		f[n++] = ttprof_frame(p, kern, 0, g_kern[i], strlen(g_kern[i]));
	for (int i = 0; g_user[i]; i++)
		f[n++] = ttprof_frame(p, nap, 0, g_user[i], strlen(g_user[i]));
	add(p, 4, ttprof_stack(p, f, n), 3, TTPROF_OFF_CPU, 50 * PERIOD);
}

/* Runs fn's export of the synthetic profile into a string (free it). */
static char *export(ttprof_write_fn fn, const struct ttprof_opts *o)
{
	struct ttprof p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	synthetic(&p);
	if (!f || fn(&p, o, f) < 0)
		abort();
	fclose(f);
	ttprof_free(&p);
	return buf;
}

static const struct ttprof_opts on = { TTPROF_VIEW_ON, -1, ".", ".",
					  "test <&> \"flame\"" };

static int test_interning(void)
{
	struct ttprof p;
	uint32_t a, b, s1, s2, s3;

	synthetic(&p);
	a = ttprof_frame(&p, 1, 0, "main", 4);
	b = ttprof_frame(&p, 1, 5, "main", 4);
	HT_CHECK(a == b);
	HT_CHECK(ttprof_frame(&p, 2, 0, "main", 4) != a);
	s1 = ttprof_stack(&p, (uint32_t[]){ a, b }, 2);
	s2 = ttprof_stack(&p, (uint32_t[]){ a, b }, 2);
	s3 = ttprof_stack(&p, (uint32_t[]){ a }, 1);
	HT_CHECK(s1 == s2 && s1 != s3);
	HT_CHECK(p.nsamples == 1153 && !p.oom);
	ttprof_free(&p);
	return 0;
}

static int test_folded(void)
{
	char *s = export(ttprof_write_folded, &on);

	HT_CHECK(strstr(s, "spin;_start;main;f1 700\n"));
	HT_CHECK(strstr(s, "spin;_start;main;f2 300\n"));
	HT_CHECK(strstr(s, "idle/0;idle_loop 50\n"));
	HT_CHECK(strstr(s, "nap;_start;main;h 100\n"));
	HT_CHECK(!strstr(s, "schedule"));	/* off-CPU: not in this view */
	free(s);
	return 0;
}

static int test_folded_offcpu(void)
{
	struct ttprof_opts o = { TTPROF_VIEW_OFF, -1, ".", ".", NULL };
	char *s = export(ttprof_write_folded, &o);

	HT_CHECK(!strcmp(s, "nap;_start;main;g;sleep;syscall_entry;sys_sleep;"
			 "schedule 150000000\n"));
	free(s);
	o.view = TTPROF_VIEW_WALL;	/* on + off: 100 ms + 150 ms */
	o.pid = 4;
	s = export(ttprof_write_folded, &o);
	HT_CHECK(strstr(s, "nap;_start;main;h 100000000\n"));
	HT_CHECK(strstr(s, "schedule 150000000\n"));
	HT_CHECK(!strstr(s, "spin"));
	free(s);
	return 0;
}

static int test_opts(void)
{
	char a0[] = "T", a1[] = "--wall", a2[] = "--pid", a3[] = "7",
	     a4[] = "OUT", b1[] = "--pid", b2[] = "x", c1[] = "--frob";
	char *argv[] = { a0, a1, a2, a3, a4 }, *bad[] = { a0, b1, b2 },
	     *bad2[] = { a0, c1 };
	struct ttprof_opts o;
	int argc = 5;

	HT_CHECK(ttprof_parse_opts(&argc, argv, &o) == 0);
	HT_CHECK(argc == 2 && argv[1] == a4 && o.view == TTPROF_VIEW_WALL &&
		 o.pid == 7);
	argc = 3;
	HT_CHECK(ttprof_parse_opts(&argc, bad, &o) < 0);
	argc = 2;
	HT_CHECK(ttprof_parse_opts(&argc, bad2, &o) < 0);
	return 0;
}

/* ---- pprof read back ------------------------------------------------- */

struct pbr {
	const uint8_t *p, *end;
};

static bool rd_varint(struct pbr *r, uint64_t *v)
{
	*v = 0;
	for (int s = 0; r->p < r->end && s < 64; s += 7) {
		uint8_t b = *r->p++;

		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The next field of r: its number, and its value (wire type 0) or its
 * bytes (wire type 2, in *sub). False at the end or on a bad field. */
static bool rd_field(struct pbr *r, unsigned *field, uint64_t *v,
		     struct pbr *sub)
{
	uint64_t key, n;

	if (r->p >= r->end || !rd_varint(r, &key))
		return false;
	*field = (unsigned)(key >> 3);
	if ((key & 7) == 0)
		return rd_varint(r, v);
	if ((key & 7) != 2 || !rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	*sub = (struct pbr){ r->p, r->p + n };
	r->p += n;
	return true;
}

#define PP_MAX	64

/* What test_pprof reads: the string table, each function's name, each
 * location's function, and the samples as "leaf;...;root=N". */
struct pp {
	char str[PP_MAX][32];
	uint64_t fname[PP_MAX], lfunc[PP_MAX];
	char sample[PP_MAX][128];
	unsigned nstr, nsample;
};

static void pp_sample(struct pbr r, uint64_t *locs, unsigned *nloc,
		      uint64_t *count)
{
	struct pbr sub;
	unsigned f;
	uint64_t v;

	while (rd_field(&r, &f, &v, &sub))
		if (f == 1)
			while (sub.p < sub.end && *nloc < 16 &&
			       rd_varint(&sub, &locs[*nloc]))
				++*nloc;
		else if (f == 2)
			rd_varint(&sub, count);	/* the first: samples */
}

/* The id (field 1) and the first nested field `inner`'s field 1 (or,
 * with inner 0, field 2) of message r. */
static void pp_pair(struct pbr r, unsigned inner, uint64_t *id, uint64_t *val)
{
	struct pbr sub, s2;
	unsigned f, f2;
	uint64_t v;

	while (rd_field(&r, &f, &v, &sub)) {
		if (f == 1)
			*id = v;
		else if (!inner && f == 2)
			*val = v;
		else if (inner && f == inner)
			while (rd_field(&sub, &f2, &v, &s2))
				if (f2 == 1)
					*val = v;
	}
}

static void pp_read(struct pp *pp, const uint8_t *b, size_t n)
{
	struct pbr r = { b, b + n }, sub;
	uint64_t v, id, val, locs[PP_MAX][16], count[PP_MAX];
	unsigned f, nloc[PP_MAX];

	memset(pp, 0, sizeof(*pp));
	while (rd_field(&r, &f, &v, &sub)) {
		id = val = 0;
		if (f == 6 && pp->nstr < PP_MAX)
			snprintf(pp->str[pp->nstr++], 32, "%.*s",
				 (int)(sub.end - sub.p), sub.p);
		if (f == 5 || f == 4)
			pp_pair(sub, f == 4 ? 4 : 0, &id, &val);
		if (f == 5 && id < PP_MAX)
			pp->fname[id] = val;
		if (f == 4 && id < PP_MAX)
			pp->lfunc[id] = val;
		if (f == 2 && pp->nsample < PP_MAX) {
			nloc[pp->nsample] = 0;
			pp_sample(sub, locs[pp->nsample],
				  &nloc[pp->nsample], &count[pp->nsample]);
			pp->nsample++;
		}
	}
	for (unsigned s = 0; s < pp->nsample; s++) {
		char *o = pp->sample[s];

		for (unsigned k = 0; k < nloc[s]; k++) {
			uint64_t fn = locs[s][k] < PP_MAX ?
				      pp->lfunc[locs[s][k]] : 0;
			uint64_t name = fn < PP_MAX ? pp->fname[fn] : 0;

			o += sprintf(o, "%s;", name < pp->nstr ?
				     pp->str[name] : "?");
		}
		sprintf(o, "=%llu", (unsigned long long)count[s]);
	}
}

/* The gunzipped contents of path into *out (free it); its length. */
static size_t gunzip(const char *path, uint8_t **out)
{
	gzFile z = gzopen(path, "rb");
	size_t len = 0, cap = 1 << 16;
	int n;

	*out = malloc(cap);
	while (z && (n = gzread(z, *out + len, (unsigned)(cap - len))) > 0)
		if ((len += (size_t)n) == cap)
			*out = realloc(*out, cap *= 2);
	if (z)
		gzclose(z);
	return len;
}

static bool has(const struct pp *pp, const char *sample)
{
	for (unsigned i = 0; i < pp->nsample; i++)
		if (!strcmp(pp->sample[i], sample))
			return true;
	return false;
}

/* Runs cmd; its output (free it), or NULL if it failed. */
static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n = f ? fread(buf, 1, (1 << 16) - 1, f) : 0;

	buf[n] = 0;
	if (!f || pclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_file(const char *path, ttprof_write_fn fn,
		      const struct ttprof_opts *o)
{
	struct ttprof p;
	FILE *f = fopen(path, "wb");
	int rc;

	synthetic(&p);
	rc = f ? fn(&p, o, f) : -1;
	if (f && fclose(f))
		rc = -1;
	ttprof_free(&p);
	return rc;
}

static int test_pprof(void)
{
	char path[64], cmd[256], *out;
	uint8_t *b;
	size_t n;
	struct pp pp;

	snprintf(path, sizeof(path), "%s/p.pb.gz", tmpdir);
	HT_CHECK(write_file(path, ttprof_write_pprof, &on) == 0);
	n = gunzip(path, &b);
	HT_CHECK(n > 0);
	pp_read(&pp, b, n);
	free(b);
	HT_CHECK(pp.nsample == 4);	/* the on-CPU (pid, stack)s */
	HT_CHECK(has(&pp, "f1;main;_start;=700"));	/* leaf first */
	HT_CHECK(has(&pp, "f2;main;_start;=300"));
	HT_CHECK(has(&pp, "idle_loop;=50"));
	HT_CHECK(!strcmp(pp.str[0], ""));
	if (system("go version >/dev/null 2>&1")) {
		printf("SKIP [pprof_go] go (golang-go) is not installed\n");
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/go go tool pprof "
		 "-sample_index=samples -top %s 2>&1", tmpdir, tmpdir, path);
	out = run(cmd);
	HT_CHECK(out);
	if (!strstr(out, "700 60.87%") || !strstr(out, "300 26.09%")) {
		fprintf(stderr, "%s", out);
		HT_FAIL("go tool pprof -top: f1 700, f2 300 not found");
	}
	free(out);
	return 0;
}

/* ---- the SVG ----------------------------------------------------------- */

/* The line of s that draws frame name, or NULL. */
static const char *svg_frame(const char *s, const char *name)
{
	char want[64];

	snprintf(want, sizeof(want), "data-n=\"%s\"", name);
	s = strstr(s, want);
	while (s && s[-1] != '\n')
		s--;
	return s;
}

static int test_svg(void)
{
	char *s = export(ttprof_write_svg, &on), path[64], cmd[160];
	const char *f1 = svg_frame(s, "f1"), *all = svg_frame(s, "all");
	int frames = 0;

	for (const char *c = s; (c = strstr(c, "<g class=\"f\"")); c++)
		frames++;
	/* all, 3 processes, idle_loop, _start main f1 f2, _start main h */
	HT_CHECK(frames == 12);
	HT_CHECK(f1 && !strncmp(strstr(f1, "data-w="), "data-w=\"700\"", 12));
	HT_CHECK(all && !strncmp(strstr(all, "data-w="), "data-w=\"1150\"", 13));
	HT_CHECK(strstr(s, "test &lt;&amp;&gt; &quot;flame&quot;"));
	free(s);
	snprintf(path, sizeof(path), "%s/f.svg", tmpdir);
	HT_CHECK(write_file(path, ttprof_write_svg, &on) == 0);
	if (system("xmllint --version >/dev/null 2>&1")) {
		printf("SKIP [svg_xmllint] xmllint is not installed\n");
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	HT_CHECK(system(cmd) == 0);
	return 0;
}

/* ---- the ELF reader ---------------------------------------------------- */

/* A 64-bit ELF file of three symbols: f1 and f2 (functions of 16 bytes at
 * 0x401000 and 0x401010) and an object at 0x401020. */
struct mini_elf {
	Elf64_Ehdr eh;
	Elf64_Sym sym[4];
	char str[16];
	Elf64_Shdr sh[3];
};

static void mini_elf(struct mini_elf *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->eh.e_ident, ELFMAG, SELFMAG);
	e->eh.e_ident[EI_CLASS] = ELFCLASS64;
	e->eh.e_shentsize = sizeof(Elf64_Shdr);
	e->eh.e_shnum = 3;
	e->eh.e_shoff = offsetof(struct mini_elf, sh);
	memcpy(e->str, "\0f1\0f2\0obj", 10);
	e->sym[1] = (Elf64_Sym){ 1, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1,
				 0x401000, 16 };
	e->sym[2] = (Elf64_Sym){ 4, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1,
				 0x401010, 16 };
	e->sym[3] = (Elf64_Sym){ 7, ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), 0,
				 1, 0x401020, 8 };
	e->sh[1] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_link = 2,
		.sh_offset = offsetof(struct mini_elf, sym),
		.sh_size = sizeof(e->sym), .sh_entsize = sizeof(Elf64_Sym) };
	e->sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB,
		.sh_offset = offsetof(struct mini_elf, str),
		.sh_size = sizeof(e->str) };
}

/* Writes n bytes of e to tmpdir/elf and loads it; returns the result. */
static int elf_try(const void *e, size_t n, struct ttprof_elf *out)
{
	char path[64];
	const char *why;
	FILE *f;

	snprintf(path, sizeof(path), "%s/elf", tmpdir);
	f = fopen(path, "wb");
	if (!f || fwrite(e, 1, n, f) != n || fclose(f))
		abort();
	return ttprof_elf_load(out, path, &why);
}

static int test_elf(void)
{
	struct mini_elf e;
	struct ttprof_elf x;
	const struct ttprof_sym *s;

	mini_elf(&e);
	HT_CHECK(elf_try(&e, sizeof(e), &x) == 0);
	HT_CHECK(x.nsyms == 2);		/* the object is not a function */
	HT_CHECK((s = ttprof_elf_find(&x, 0x401005)) && !strcmp(s->name, "f1"));
	HT_CHECK((s = ttprof_elf_find(&x, 0x40101f)) && !strcmp(s->name, "f2"));
	HT_CHECK(!ttprof_elf_find(&x, 0x401020));	/* past f2's size */
	HT_CHECK(!ttprof_elf_find(&x, 0x400fff));
	ttprof_elf_free(&x);
	return 0;
}

static int test_elf_bad(void)
{
	struct mini_elf e;
	struct ttprof_elf x;

	mini_elf(&e);
	HT_CHECK(elf_try(&e, sizeof(e) - 8, &x) < 0);	/* truncated */
	e.sh[1].sh_size = 1u << 30;			/* past the end */
	HT_CHECK(elf_try(&e, sizeof(e), &x) < 0);
	mini_elf(&e);
	e.str[15] = 'x';				/* unterminated */
	HT_CHECK(elf_try(&e, sizeof(e), &x) < 0);
	mini_elf(&e);
	e.sh[1].sh_link = 9;
	HT_CHECK(elf_try(&e, sizeof(e), &x) < 0);
	mini_elf(&e);
	e.eh.e_ident[EI_MAG1] = 'X';
	HT_CHECK(elf_try(&e, sizeof(e), &x) < 0);
	HT_CHECK(elf_try(&e, 3, &x) < 0);
	return 0;
}

/* ---- the model of a trace: written here, read by ttprof_load() -------- */

/* Traces of 2 CPUs, the clock 2 GHz, with profile records of no chains
 * (their first 5 words: what the model reads of them). */
static const struct ttrace_arg_meta tr_sample[] = {
	{ "pid", TTRACE_ARG_U32, 0, 0, 0 }, { "tid", TTRACE_ARG_U32, 0, 0, 0 },
	{ "mode", TTRACE_ARG_U32, 0, 0, 0 }, { "interval", TTRACE_ARG_U64, 0, 0, 0 },
	{ "frames", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta tr_switch[] = {
	{ "pid", TTRACE_ARG_U32, 0, 0, 0 }, { "tid", TTRACE_ARG_U32, 0, 0, 0 },
	{ "mode", TTRACE_ARG_U32, 0, 0, 0 }, { "state", TTRACE_ARG_U32, 0, 0, 0 },
	{ "frames", TTRACE_ARG_U32, 0, 0, 0 },
};
static const struct ttrace_arg_meta tr_offcpu[] = {
	{ "pid", TTRACE_ARG_U32, 0, 0, 0 }, { "tid", TTRACE_ARG_U32, 0, 0, 0 },
	{ "off_ns", TTRACE_ARG_U64, 0, 0, 0 },
};
static const struct ttrace_arg_meta tr_ustack[] = {
	{ "frames", TTRACE_ARG_U32, 0, 0, 0 }, { "pc0", TTRACE_ARG_PTR, 0, 0, 0 },
	{ "pc1", TTRACE_ARG_PTR, 0, 0, 0 },
};
enum { TR_SAMPLE, TR_SWITCH, TR_OFFCPU, TR_USTACK, TR_NEV };
static const struct ttrace_event_meta tr_events[TR_NEV] = {
	{ "profile_sample", "pid=%u tid=%u mode=%u interval=%llu frames=%u",
	  tr_sample, TR_SAMPLE, 0, 1, 5 },
	{ "profile_switch", "pid=%u tid=%u mode=%u state=%u frames=%u",
	  tr_switch, TR_SWITCH, 0, 1, 5 },
	{ "profile_offcpu", "pid=%u tid=%u off=%llu ns", tr_offcpu,
	  TR_OFFCPU, 0, 1, 3 },
	{ "ustack", "frames=%u %p < %p", tr_ustack, TR_USTACK, 0, 1, 3 },
};
static const struct ttrace_group_meta tr_groups[] = { { "profile", 0, 1 } };
static const struct ttrace_meta_table tr_table = { tr_events, tr_groups,
						   TR_NEV, 1 };

#define TR_HZ	2000000000ull		/* 2 ticks a ns */
#define TR_MAX	8			/* records a CPU */

struct tr_rec {
	uint32_t cpu, id;
	uint64_t ts;			/* ticks */
	uint64_t a[5];
};

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* Writes the n records rec (each CPU's in time order) to path. */
static void write_trace(const char *path, const struct tr_rec *rec,
			uint32_t n)
{
	static uint8_t meta[2048], aux[64];
	static struct ttrace_entry e[2][TR_MAX] __aligned(64);
	size_t mlen = ttrace_meta_serialise(&tr_table, meta, sizeof(meta));
	struct ttrace_file_aux a = { 0, 0 };
	struct ttrace_file_writer w;
	struct ttrace_version v;
	uint32_t k[2] = { 0, 0 };
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = rec[i].cpu;

		if (c > 1 || k[c] == TR_MAX)
			abort();
		e[c][k[c]] = (struct ttrace_entry){ .timestamp = rec[i].ts,
			.type = TTRACE_TYPE(rec[i].id, TTRACE_CTX_IRQ, 0, 0,
					    c) | (uint64_t)TTRACE_SEQ_OF(k[c])
				<< TTRACE_TYPE_SEQ_SHIFT, .context = 32 };
		memcpy(e[c][k[c]++].data, rec[i].a, sizeof(rec[i].a));
	}
	ttrace_version_init(&v);
	v.num_cpus = 2;
	v.entries_per_cpu = TR_MAX;
	v.tsc_hz = TR_HZ;
	v.aux_size = sizeof(aux);
	v.aux_mask = sizeof(aux) - 1;
	v.event_count = TR_NEV;
	v.meta_size = (uint32_t)mlen;
	ttrace_file_writer_init(&w, file_out, f);
	ttrace_file_write_header(&w);
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_VERSION, 0, &v,
				  sizeof(v));
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_META, 0, meta, mlen);
	for (uint32_t c = 0; c < 2; c++) {
		struct ttrace_file_run run = {
			.first = 0, .count = k[c],
			.type = TTRACE_FILE_SEC_RECORDS };

		if (!k[c])
			continue;	/* a RECORDS section holds some */
		ttrace_file_section_begin(&w, TTRACE_FILE_SEC_RECORDS, c,
					  sizeof(run) + k[c] * sizeof(e[c][0]));
		ttrace_file_section_data(&w, &run, sizeof(run));
		ttrace_file_section_data(&w, e[c], k[c] * sizeof(e[c][0]));
		ttrace_file_section_end(&w);
	}
	ttrace_file_write_section(&w, TTRACE_FILE_SEC_AUX, 0, &a, sizeof(a));
	if (ttrace_file_write_end(&w) < 0 || fclose(f))
		abort();
}

/* Loads the profile of the n records rec written to tmpdir/name, kernel
 * pcs named by the ELF file kernel (the trace names none). */
static int load_with(struct ttprof *p, const char *name,
		     const struct tr_rec *rec, uint32_t n, const char *kernel)
{
	struct ttprof_opts o = { TTPROF_VIEW_WALL, -1, ".", kernel, NULL };
	char path[64];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	write_trace(path, rec, n);
	return ttprof_load(p, path, &o);
}

static int load(struct ttprof *p, const char *name, const struct tr_rec *rec,
		uint32_t n)
{
	return load_with(p, name, rec, n, "/nonexistent");
}

/*
 * A timer that came late: samples 1, 12 and 2 ms apart (2 GHz ticks)
 * weigh 1, 12 and 2 ms, not a period each; the profile's period is their
 * mean, and the wall view adds them up.
 */
static int test_intervals(void)
{
	static const struct tr_rec s[] = {
		{ 0, TR_SAMPLE, 2000000, { 3, 3, 1, 2000000, 0 } },
		{ 0, TR_SAMPLE, 26000000, { 3, 3, 1, 24000000, 0 } },
		{ 0, TR_SAMPLE, 30000000, { 3, 3, 1, 4000000, 0 } },
	};
	struct ttprof p;
	uint64_t sum = 0;

	HT_CHECK(load(&p, "late.ttr", s, 3) == 0);
	HT_CHECK(p.nsamples == 3);
	for (uint64_t i = 0; i < p.nsamples; i++) {
		const struct ttprof_sample *x = &p.samples[i];

		if (x->ns != s[i].a[3] / 2 || x->ts != s[i].ts / 2 ||
		    x->kind != TTPROF_ON_CPU)
			HT_FAIL("sample %llu: %llu ns at %llu, want %llu at "
				"%llu", (unsigned long long)i,
				(unsigned long long)x->ns,
				(unsigned long long)x->ts,
				(unsigned long long)s[i].a[3] / 2,
				(unsigned long long)s[i].ts / 2);
		sum += ttprof_value(x, TTPROF_VIEW_WALL);
	}
	HT_CHECK(sum == 15000000);
	HT_CHECK(p.period_ns == 5000000);
	ttprof_free(&p);
	return 0;
}

/*
 * A thread that leaves on CPU 1 (in user mode) and comes back on CPU 0:
 * its off-CPU time is spent where it left, whichever CPU's records the
 * model reads first; not in its next switch's (kernel mode, later).
 */
static int test_offcpu_cpus(void)
{
	static const struct tr_rec s[] = {
		{ 0, TR_OFFCPU, 4000000, { 7, 7, 1500000 } },
		{ 1, TR_SWITCH, 1000000, { 7, 7, 1, 1, 0 } },
		{ 1, TR_SWITCH, 6000000, { 7, 7, 0, 1, 0 } },
	};
	struct ttprof p;

	HT_CHECK(load(&p, "cpus.ttr", s, 3) == 0);
	HT_CHECK(p.nsamples == 1);
	HT_CHECK(p.samples[0].kind == TTPROF_OFF_CPU &&
		 p.samples[0].ns == 1500000 && p.samples[0].ts == 500000);
	HT_CHECK(p.stacks[p.samples[0].stack].n == 0);	/* not [unknown] */
	HT_CHECK(p.samples[0].mode == TTPROF_USER);
	ttprof_free(&p);
	return 0;
}

/*
 * A user chain of a process whose program the trace does not name (its
 * aux name gone): its pcs are addresses, not named by the kernel's
 * symbols (the mini ELF as the kernel's names 0x401000-0x40101f f1, f2).
 */
static int test_user_no_program(void)
{
	static const struct tr_rec s[] = {
		{ 0, TR_SAMPLE, 2000000, { 3, 3, 1, 2000000, 0 } },
		{ 0, TR_USTACK, 2000002, { 2, 0x401004, 0x401018 } },
	};
	struct mini_elf e;
	struct ttprof_elf x;
	struct ttprof p;
	char kernel[64];

	mini_elf(&e);
	HT_CHECK(elf_try(&e, sizeof(e), &x) == 0);	/* tmpdir/elf */
	ttprof_elf_free(&x);
	snprintf(kernel, sizeof(kernel), "%s/elf", tmpdir);
	HT_CHECK(load_with(&p, "noprog.ttr", s, 2, kernel) == 0);
	HT_CHECK(p.nsamples == 1 && p.stacks[p.samples[0].stack].n == 2);
	for (uint32_t i = 0; i < 2; i++) {
		const struct ttprof_frame *f = &p.frames[p.stack_frames[
			p.stacks[p.samples[0].stack].first + i]];

		if (f->mapping != TTPROF_NO_MAPPING ||
		    strncmp(f->name, "0x4010", 6))
			HT_FAIL("user frame %u named %.*s (mapping %u), want "
				"an address", i, (int)f->len, f->name,
				f->mapping);
	}
	ttprof_free(&p);
	return 0;
}

static const struct ht_test tests[] = {
	{ test_interning, "ttprof_interning" },
	{ test_folded, "ttprof_folded" },
	{ test_folded_offcpu, "ttprof_folded_offcpu" },
	{ test_opts, "ttprof_opts" },
	{ test_pprof, "ttprof_pprof" },
	{ test_svg, "ttprof_svg" },
	{ test_elf, "ttprof_elf" },
	{ test_elf_bad, "ttprof_elf_bad" },
	{ test_intervals, "ttprof_intervals" },
	{ test_offcpu_cpus, "ttprof_offcpu_cpus" },
	{ test_user_no_program, "ttprof_user_no_program" },
	{ 0 },
};

int main(int argc, char **argv)
{
	char cmd[64];
	int rc;

	if (!mkdtemp(tmpdir))
		return 1;
	rc = ht_main(tests, argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		rc = 1;
	return rc;
}
