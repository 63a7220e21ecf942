/*
 * ttpull: the host half of `make pull` (docs/pull.md) that turns dumps of a
 * guest's physical memory into a trace file. scripts/pull talks to QEMU
 * and dumps memory; this program knows the layouts:
 *
 *	ttpull regions ROOT	check the root record dumped in file ROOT
 *				and list the regions to dump, one a line:
 *				"INDEX PADDR SIZE KIND CPU" (hex address)
 *	ttpull build ROOT DIR OUT [ROOT2]
 *				read region i from DIR/region-i.bin and write
 *				the trace file OUT; ROOT2, the root record
 *				dumped again after the regions, must be
 *				identical to ROOT
 *
 * The work is kern/trace/lib's: ttrace_root_check() and ttrace_pull_image()
 * rebuild the ring and aux descriptors around the dumps, and
 * ttrace_image_write() writes the file exactly as the kernel's panic dump
 * does, reading the rings with trace_ring_read(): every index lands in a
 * RECORDS run or a declared LOSS run.
 *
 * Exit status: 0; 1 on an error (message on standard error); 3 when the
 * root record was caught being changed (a ring resize under way, or it
 * changed between ROOT and ROOT2): dump again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ttrace_pull.h>

#define ull(x)		((unsigned long long)(x))
#define EXIT_TORN	3
#define SCRATCH		1024	/* entries per RECORDS section */

static int die(const char *what, const char *why)
{
	fprintf(stderr, "ttpull: %s: %s\n", what, why);
	exit(1);
}

/* Reads a whole file into 64-byte aligned memory; sets *size. */
static void *slurp(const char *path, uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;
	void *buf;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0)
		die(path, "cannot read");
	buf = aligned_alloc(64, ((size_t)n + 64) & ~(size_t)63);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path, "cannot read");
	fclose(f);
	*size = (uint64_t)n;
	return buf;
}

/* Loads and checks the root record in path; torn records exit 3. */
static const struct ttrace_root *load_root(const char *path, uint64_t *size)
{
	const struct ttrace_root *root;
	const char *why;
	void *buf = slurp(path, size);
	int rc = ttrace_root_check(buf, *size, &root, &why);

	if (rc == -2) {
		fprintf(stderr, "ttpull: %s: %s\n", path, why);
		exit(EXIT_TORN);
	}
	if (rc < 0)
		die(path, why);
	return root;
}

static int cmd_regions(const char *path)
{
	uint64_t size;
	const struct ttrace_root *root = load_root(path, &size);
	const struct ttrace_root_region *reg = ttrace_root_regions(root);

	for (uint32_t i = 0; i < root->nregions; i++)
		printf("%u %#llx %llu %s %u\n", i, ull(reg[i].paddr),
		       ull(reg[i].size), ttrace_root_kind_name(reg[i].kind),
		       reg[i].cpu);
	return 0;
}

static int file_out(void *arg, const void *buf, uint64_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/* Writes the rebuilt image to out; prints its size and CRC-32. */
static int write_file(const struct ttrace_pull *p, const char *out)
{
	static struct ttrace_entry scratch[SCRATCH];
	struct ttrace_file_writer w;
	FILE *f = fopen(out, "wb");

	if (!f)
		die(out, "cannot create");
	ttrace_file_writer_init(&w, file_out, f);
	if (ttrace_image_write(&w, &p->img, scratch, SCRATCH) < 0 ||
	    fclose(f) != 0) {
		remove(out);
		die(out, "write failed");
	}
	printf("ttpull: %s: %llu bytes, crc32c %#010x, %u cpus, %llu entries "
	       "each, aux %llu bytes\n", out, ull(w.offset), w.file_crc,
	       p->img.version.num_cpus, ull(p->img.version.entries_per_cpu),
	       ull(p->img.version.aux_last - p->img.version.aux_first));
	return 0;
}

static int cmd_build(const char *rootpath, const char *dir, const char *out,
		     const char *root2path)
{
	uint64_t size, size2;
	const struct ttrace_root *root = load_root(rootpath, &size);
	struct ttrace_pull p = { .max_cpus = TTRACE_MAX_CPUS };
	struct ttrace_pull_dump *dumps;
	char path[4096];

	if (root2path) {
		const struct ttrace_root *again = load_root(root2path, &size2);

		if (size2 != size || memcmp(again, root, size)) {
			fprintf(stderr, "ttpull: the root record changed while "
				"the regions were dumped (generation %llu, then "
				"%llu): the trace buffers moved\n",
				ull(root->generation), ull(again->generation));
			exit(EXIT_TORN);
		}
	}
	dumps = calloc(root->nregions + 1, sizeof(*dumps));
	p.rings = calloc(p.max_cpus, sizeof(*p.rings));
	p.cpus = calloc(p.max_cpus, sizeof(*p.cpus));
	p.tsc = calloc(p.max_cpus, sizeof(*p.tsc));
	if (!dumps || !p.rings || !p.cpus || !p.tsc)
		die("ttpull", "out of memory");
	for (uint32_t i = 0; i < root->nregions; i++) {
		snprintf(path, sizeof(path), "%s/region-%u.bin", dir, i);
		dumps[i].data = slurp(path, &dumps[i].size);
	}
	if (ttrace_pull_image(root, dumps, &p) < 0)
		die(rootpath, p.why);
	return write_file(&p, out);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "regions"))
		return cmd_regions(argv[2]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "build"))
		return cmd_build(argv[2], argv[3], argv[4],
				 argc == 6 ? argv[5] : NULL);
	fprintf(stderr, "usage: ttpull regions ROOT\n"
		"       ttpull build ROOT DIR OUT.ttr [ROOT-AGAIN]\n");
	return 2;
}
