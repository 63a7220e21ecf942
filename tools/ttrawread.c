/*
 * ttrawread.c: reads Linux ring-buffer pages (what /dev/ttrace/per_cpu/
 * cpuN/trace_pipe_raw gives, kern/trace/lib/ttrace_ftpage.h) with Debian's
 * libtraceevent, as a tool that knows nothing of ttrace would: the pages
 * through the kbuffer API, each record's type through the event formats
 * given (the tree's events/GROUP/EVENT/format files, concatenated), each
 * record printed through its print fmt. It shares no code with the kernel
 * side on purpose: it is the check that the pages and the formats are
 * Linux's.
 *
 *	ttrawread FORMATS RAW [CPU]
 *
 * prints one line per record, "TS NAME: INFO" (a sched_switch's fields
 * read by name then too, tep_get_field_raw/_val: "switch PREV_COMM
 * PREV_PID PREV_STATE NEXT_COMM NEXT_PID"), then
 *	records N undecoded U missed M pages P
 *	count NAME N			(per event, sorted by name)
 * and exits 1 when a record did not decode (an unknown type, a size the
 * format does not cover, a print that failed), 2 on a usage or file error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-seq.h>

#define PAGE		4096
#define MAX_EVENTS	512

struct count {
	const char *name;
	unsigned long n;
};

static struct count counts[MAX_EVENTS];
static int ncounts;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *b = realloc(buf, cap = (cap + 65536) * 2);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
	} while (k);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Parses every "name: ..." format in text into tep. Returns how many. */
static int parse_formats(struct tep_handle *tep, char *text, size_t len)
{
	char *p = text, *end = text + len;
	int n = 0;

	while (p < end) {
		char *next = strstr(p + 1, "\nname: ");
		size_t size = next ? (size_t)(next + 1 - p) : (size_t)(end - p);

		if (!strncmp(p, "name: ", 6)) {
			if (tep_parse_event(tep, p, size, "ttrace")) {
				fprintf(stderr, "ttrawread: a format does not "
					"parse: %.60s\n", p);
				return -1;
			}
			n++;
		}
		p += size;
	}
	return n;
}

static void count(const char *name)
{
	int i;

	for (i = 0; i < ncounts && strcmp(counts[i].name, name); i++)
		;
	if (i == ncounts) {
		if (ncounts == MAX_EVENTS)
			return;
		counts[ncounts++].name = name;
	}
	counts[i].n++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct count *)a)->name,
		      ((const struct count *)b)->name);
}

/* Whether every fixed field of ev lies within the record's size bytes. */
static int fits(const struct tep_event *ev, int size)
{
	for (const struct tep_format_field *f = ev->format.fields; f;
	     f = f->next)
		if (f->offset + f->size > size)
			return 0;
	return 1;
}

/* A char[] field of rec named name, by name, into buf (size bytes, NUL
 * terminated); false when it has none. */
static int field_str(struct tep_event *ev, struct tep_record *rec,
		     const char *name, char *buf, size_t size)
{
	int len = 0;
	const char *p = tep_get_field_raw(NULL, ev, name, rec, &len, 0);

	if (!p || len <= 0)
		return 0;
	snprintf(buf, size, "%.*s", (int)strnlen(p, (size_t)len), p);
	return 1;
}

/* A sched_switch's fields, each by name, as a "switch ..." line; false
 * when one is missing. */
static int switch_fields(struct tep_event *ev, struct tep_record *rec)
{
	char prev[32], next[32];
	unsigned long long prev_pid, prev_state, next_pid;

	if (!field_str(ev, rec, "prev_comm", prev, sizeof(prev)) ||
	    !field_str(ev, rec, "next_comm", next, sizeof(next)) ||
	    tep_get_field_val(NULL, ev, "prev_pid", rec, &prev_pid, 0) ||
	    tep_get_field_val(NULL, ev, "prev_state", rec, &prev_state, 0) ||
	    tep_get_field_val(NULL, ev, "next_pid", rec, &next_pid, 0))
		return 0;
	printf("switch %s %llu %llu %s %llu\n", prev, prev_pid, prev_state,
	       next, next_pid);
	return 1;
}

/* One record: printed, counted; false when it does not decode. */
static int record(struct tep_handle *tep, void *data, int size,
		  unsigned long long ts, int cpu)
{
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data,
				  .size = size };
	struct tep_event *ev;
	struct trace_seq s;
	int ok;

	ev = tep_find_event(tep, tep_data_type(tep, &rec));
	if (!ev) {
		printf("%llu ?: type %d\n", ts, tep_data_type(tep, &rec));
		return 0;
	}
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s: %s", TEP_PRINT_NAME,
			TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	ok = s.state == TRACE_SEQ__GOOD && !strstr(s.buffer, "FAILED") &&
	     fits(ev, size);
	printf("%llu %s\n", ts, s.buffer);
	trace_seq_destroy(&s);
	if (ok && !strcmp(ev->name, "sched_switch"))
		ok = switch_fields(ev, &rec);
	if (ok)
		count(ev->name);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long nrec = 0, bad = 0, missed = 0, pages = 0;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	char *formats, *raw;
	size_t flen, rlen;
	int cpu = argc > 3 ? atoi(argv[3]) : 0;

	if (argc < 3) {
		fprintf(stderr, "usage: ttrawread FORMATS RAW [CPU]\n");
		return 2;
	}
	formats = slurp(argv[1], &flen);
	raw = slurp(argv[2], &rlen);
	if (!formats || !raw) {
		fprintf(stderr, "ttrawread: %s\n", strerror(errno));
		return 2;
	}
	if (rlen % PAGE) {
		fprintf(stderr, "ttrawread: %zu bytes: not whole pages\n", rlen);
		return 2;
	}
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, PAGE);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (parse_formats(tep, formats, flen) <= 0) {
		fprintf(stderr, "ttrawread: no format parsed\n");
		return 2;
	}
	kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	for (size_t off = 0; off < rlen; off += PAGE, pages++) {
		unsigned long long ts;
		void *data;

		if (kbuffer_load_subbuffer(kbuf, raw + off)) {
			fprintf(stderr, "ttrawread: page %zu does not load\n",
				off / PAGE);
			return 1;
		}
		if (kbuffer_missed_events(kbuf) > 0)
			missed += (unsigned long)kbuffer_missed_events(kbuf);
		while ((data = kbuffer_read_event(kbuf, &ts))) {
			nrec++;
			bad += !record(tep, data, kbuffer_event_size(kbuf), ts,
				       cpu);
			kbuffer_next_event(kbuf, NULL);
		}
	}
	printf("records %lu undecoded %lu missed %lu pages %lu\n", nrec, bad,
	       missed, pages);
	qsort(counts, (size_t)ncounts, sizeof(counts[0]), by_name);
	for (int i = 0; i < ncounts; i++)
		printf("count %s %lu\n", counts[i].name, counts[i].n);
	kbuffer_free(kbuf);
	tep_free(tep);
	free(formats);
	free(raw);
	return bad ? 1 : 0;
}
