/*
 * Fuzz target: every exporter of ttdecode fed fuzzed but valid traces.
 * The input is resealed (reseal.c: CRCs and END recomputed) and loaded as
 * ttdecode loads a file; when the loader accepts it, ttdecode's own
 * command dispatcher (tools/ttdecode.c's main, included below under
 * another name) runs verify, text, stats, json, uftrace, ctf, tracedat,
 * perfetto, the profile's, the analyses (critpath, wakeup, errno: any
 * status, no crash) and boot on it, as `ttdecode CMD ...` would, into a
 * private temporary directory.
 * Every command but boot (which needs boot phases) must succeed on a
 * trace the loader accepted, and what they write must be valid: the JSON
 * of `json` and of `boot --json` is parsed by a strict checker (RFC 8259,
 * UTF-8 strings), the Perfetto trace a sequence of well-formed packets
 * (their fields and the messages nested in them), uftrace's files its
 * magic and whole, time-ordered records, CTF's streams whole packets; the
 * SVG must be whole. Traces of more than MAX_CPUS CPUs are skipped:
 * uftrace and CTF write a file per CPU.
 */
#define _GNU_SOURCE	/* nftw's FTW_DEPTH */
#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"

int ttdecode_main(int argc, char **argv);
#define main ttdecode_main
#include "ttdecode.c"	/* tools/: the real command table, as the CLI */
#undef main

#define MAX_CPUS	16
#define JSON_DEPTH	64

static char dir[64];		/* the private directory: mkdtemp */
static int saved_stdout;	/* the real one, while a command's is a file */

/* ---- a strict JSON checker ----------------------------------------------- */

struct js {
	const unsigned char *p, *end;
	int depth;
};

static void js_ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool js_lit(struct js *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static bool js_digits(struct js *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool js_number(struct js *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!js_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.' && (j->p++, !js_digits(j)))
		return false;
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		return js_digits(j);
	}
	return true;
}

/* One UTF-8 sequence at j->p (not ASCII): well formed, shortest form, no
 * surrogate. */
static bool js_utf8(struct js *j)
{
	unsigned c = *j->p, n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	uint32_t cp = c & (0x3f >> n);

	if (c < 0xc2 || c > 0xf4 || (size_t)(j->end - j->p) <= n)
		return false;
	for (unsigned i = 1; i <= n; i++) {
		if ((j->p[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (j->p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		return false;
	j->p += n + 1;
	return true;
}

static bool js_string(struct js *j)
{
	if (j->p >= j->end || *j->p++ != '"')
		return false;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			return false;
		if (*j->p >= 0x80) {
			if (!js_utf8(j))
				return false;
			continue;
		}
		if (*j->p++ != '\\')
			continue;
		if (j->p >= j->end)
			return false;
		if (*j->p == 'u') {
			for (int i = 1; i <= 4; i++)
				if (j->p + i >= j->end || !isxdigit(j->p[i]))
					return false;
			j->p += 5;
		} else if (!strchr("\"\\/bfnrt", *j->p++)) {
			return false;
		}
	}
	return j->p++ < j->end;
}

static bool js_value(struct js *j);

/* An object or array at j->p ('{' or '['). */
static bool js_container(struct js *j)
{
	bool object = *j->p++ == '{';
	char close = object ? '}' : ']';

	if (++j->depth > JSON_DEPTH)
		return false;
	js_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		if (object) {
			js_ws(j);
			if (!js_string(j))
				return false;
			js_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!js_value(j))
			return false;
		js_ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == close)
			break;
		if (*j->p++ != ',')
			return false;
	}
	j->p++;
	j->depth--;
	return true;
}

static bool js_value(struct js *j)
{
	js_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
	case '[':
		return js_container(j);
	case '"':
		return js_string(j);
	case 't':
		return js_lit(j, "true");
	case 'f':
		return js_lit(j, "false");
	case 'n':
		return js_lit(j, "null");
	default:
		return js_number(j);
	}
}

/* Whether the len bytes at s are one JSON text. */
static bool json_valid(const char *s, size_t len)
{
	struct js j = { (const unsigned char *)s,
			(const unsigned char *)s + len, 0 };

	if (!js_value(&j))
		return false;
	js_ws(&j);
	return j.p == j.end;
}

/* ---- running the commands ------------------------------------------------ */

/* The files of one run, in dir. */
static char in[96], out[96], json[96], svg[96], uf[96], ctf[96], dat[96],
	    pft[96];

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void rm_dir(void)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Makes the private directory (removed at exit) and names its files. */
static void paths_init(void)
{
	if (!mkdtemp(strcpy(dir, "/tmp/fuzz_export.XXXXXX")) ||
	    (saved_stdout = dup(1)) < 0)
		abort();
	atexit(rm_dir);
	snprintf(in, sizeof(in), "%s/in.ttr", dir);
	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	snprintf(svg, sizeof(svg), "%s/boot.svg", dir);
	snprintf(uf, sizeof(uf), "%s/uftrace", dir);
	snprintf(ctf, sizeof(ctf), "%s/ctf", dir);
	snprintf(dat, sizeof(dat), "%s/out.dat", dir);
	snprintf(pft, sizeof(pft), "%s/out.pftrace", dir);
}

/* The whole file at path (NUL-terminated; free it), its size in *len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		abort();
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

/* `ttdecode ARGS...` with stdout into the file out; returns its status. */
static int run(const char *const *args)
{
	char *argv[8];
	int argc = 0, rc, fd;

	argv[argc++] = "ttdecode";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    dup2(fd, 1) < 0)
		abort();
	close(fd);
	rc = ttdecode_main(argc, argv);
	fflush(stdout);
	dup2(saved_stdout, 1);
	return rc;
}

/* Aborts unless the file at path is one valid JSON text. */
static void check_json(const char *path)
{
	size_t len;
	char *s = slurp(path, &len);

	if (!json_valid(s, len)) {
		fprintf(stderr, "fuzz_export: %s is not valid JSON\n", path);
		abort();
	}
	free(s);
}

/* The fields of the protobuf message [p, end), each with a known wire
 * type (varint, 64-bit, length-delimited in bounds, 32-bit); depth > 0
 * also walks the length-delimited fields' contents as messages (every
 * one `perfetto` writes at a packet's top level is). */
static bool pb_valid(const uint8_t *p, const uint8_t *end, int depth)
{
	while (p < end) {
		uint64_t key = 0, n = 0;
		int sh = 0;

		do {
			if (p == end || sh > 63)
				return false;
			key |= (uint64_t)(*p & 0x7f) << sh, sh += 7;
		} while (*p++ & 0x80);
		if (key >> 3 == 0)
			return false;
		switch (key & 7) {
		case 0:
			for (sh = 0; p < end && *p & 0x80 && sh < 63; sh += 7)
				p++;
			if (p++ == end)
				return false;
			break;
		case 1:
		case 5:
			if ((size_t)(end - p) < ((key & 7) == 1 ? 8u : 4u))
				return false;
			p += (key & 7) == 1 ? 8 : 4;
			break;
		case 2:
			sh = 0;
			do {
				if (p == end || sh > 63)
					return false;
				n |= (uint64_t)(*p & 0x7f) << sh, sh += 7;
			} while (*p++ & 0x80);
			if (n > (uint64_t)(end - p) ||
			    (depth && !pb_valid(p, p + n, depth - 1)))
				return false;
			p += n;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Aborts unless the uftrace directory's info has uftrace's magic and
 * every task's NAME.dat is whole 16-byte records carrying uftrace's
 * record magic, in time order. */
static int check_uftrace_file(const char *p, const struct stat *st,
			      int flag, struct FTW *ftw)
{
	size_t len, n = strlen(p);
	uint64_t last = 0, w[2];
	char *s;

	(void)st;
	(void)ftw;
	if (flag != FTW_F)
		return 0;
	s = slurp(p, &len);
	if (n >= 5 && !strcmp(p + n - 5, "/info")) {
		if (len < 40 || memcmp(s, "Ftrace!", 8))
			abort();
	} else if (n >= 4 && !strcmp(p + n - 4, ".dat")) {
		if (len % sizeof(w))
			abort();
		for (size_t i = 0; i < len; i += sizeof(w)) {
			memcpy(w, s + i, sizeof(w));
			if (((w[1] >> 3) & 7) != 5 || w[0] < last)
				abort();
			last = w[0];
		}
	}
	free(s);
	return 0;
}

/* Aborts unless the CTF directory's metadata is CTF 1.8's and every
 * stream (cpuN) is whole packets: each starts with the magic, and its
 * packet_size (bits, a whole number of bytes, at least its header and
 * context) ends exactly where the next begins or the file does. */
static int check_ctf_file(const char *p, const struct stat *st, int flag,
			  struct FTW *ftw)
{
	size_t len, off = 0;
	uint64_t content, size;
	uint32_t magic;
	char *s;

	(void)st;
	if (flag != FTW_F)
		return 0;
	s = slurp(p, &len);
	if (!strcmp(p + ftw->base, "metadata")) {
		if (len < 13 || memcmp(s, "/* CTF 1.8 */", 13))
			abort();
		free(s);
		return 0;
	}
	while (off < len) {
		if (len - off < 52)
			abort();
		memcpy(&magic, s + off, 4);
		memcpy(&content, s + off + 24, 8);
		memcpy(&size, s + off + 32, 8);
		if (magic != 0xC1FC1FC1u || size % 8 || size < 52 * 8 ||
		    content > size || size / 8 > len - off)
			abort();
		off += size / 8;
	}
	free(s);
	return 0;
}

/* Aborts unless the file at path is a sequence of Trace.packet (field
 * 1) messages whose fields are well formed. */
static void check_pftrace(const char *path)
{
	size_t len;
	uint8_t *s = (uint8_t *)slurp(path, &len);

	if (!len || s[0] != 0x0a || !pb_valid(s, s + len, 2)) {
		fprintf(stderr, "fuzz_export: %s is not a Perfetto trace\n",
			path);
		abort();
	}
	free(s);
}

/* Aborts unless the file at path ends an SVG document. */
static void check_svg(const char *path)
{
	size_t len;
	char *s = slurp(path, &len);

	if (len < 7 || strcmp(s + len - 7, "</svg>\n"))
		abort();
	free(s);
}

/* Every exporter on the trace in in, which the loader accepted. */
static void export_all(void)
{
	if (run((const char *[]){ "verify", in, NULL }) ||
	    run((const char *[]){ "text", in, NULL }) ||
	    run((const char *[]){ "stats", in, NULL }) ||
	    run((const char *[]){ "json", in, json, NULL }))
		abort();
	check_json(json);
	if (run((const char *[]){ "uftrace", in, uf, NULL }) ||
	    run((const char *[]){ "ctf", in, ctf, NULL }) ||
	    run((const char *[]){ "tracedat", in, dat, NULL }))
		abort();
	nftw(uf, check_uftrace_file, 8, FTW_PHYS);
	nftw(ctf, check_ctf_file, 8, FTW_PHYS);
	nftw(uf, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	nftw(ctf, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	if (run((const char *[]){ "perfetto", in, pft, NULL }))
		abort();
	check_pftrace(pft);
	/* the profile's (a trace without samples has an empty profile) */
	if (run((const char *[]){ "folded", in, "--wall", NULL }) ||
	    run((const char *[]){ "flamegraph", in, svg, "--wall", NULL }) ||
	    run((const char *[]){ "pprof", in, dat, "--wall", NULL }))
		abort();
	check_svg(svg);
	/* the analyses: a trace may lack the pid or the boot mark asked
	 * for (a refusal), never make one crash or read out of bounds */
	run((const char *[]){ "critpath", "--pid", "1", in, NULL });
	run((const char *[]){ "critpath", "--boot", in, NULL });
	run((const char *[]){ "wakeup", in, NULL });
	run((const char *[]){ "errno", in, NULL });
	if (run((const char *[]){ "boot", in, "--json", "--svg", svg, NULL }))
		return;
	check_json(out);
	check_svg(svg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ttrace_file_error err;
	struct ttload t;
	uint8_t *copy;
	FILE *f;
	bool ok;

	if (!dir[0])
		paths_init();
	if (size < TTRACE_FILE_HDR_SIZE || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	reseal(copy, size);
	ok = ttload_buffer(&t, copy, size, &err) == 0;
	if (ok) {
		ok = t.version.num_cpus <= MAX_CPUS;
		ttload_free(&t);
	}
	if (ok && (!(f = fopen(in, "wb")) || fwrite(copy, 1, size, f) != size ||
		   fclose(f)))
		abort();
	free(copy);
	if (ok)
		export_all();
	return 0;
}
