/*
 * The panic flight recorder: with `ttrace.dump_on_panic=1` on the command
 * line, panic() writes the whole trace (every CPU's ring, the aux buffer,
 * the metadata) as one trace file (docs/trace-file.md) before the machine
 * stops, so the events leading to the crash can be read on the host.
 *
 * Where it goes: the host channel (/dev/host/out's shared window onto a
 * host file) when there is one; otherwise the serial console, hex
 * encoded between "TTRACE-DUMP-BEGIN" and "TTRACE-DUMP-END" lines, which
 * `ttdecode unwrap LOG OUT` turns back into the file.
 *
 * Panic context: other CPUs are stopped, interrupts are off, and nothing
 * may be allocated or locked, so sections are written straight from the
 * rings and the aux buffer.
 */
#include <ttrace.h>
#include <ttrace_aux.h>
#include <ttrace_file.h>
#include <trace_ring.h>
#include <cmdline.h>
#include <console.h>
#include <init.h>
#include <printk.h>
#include <string.h>
#include <arch/arch.h>

#include "ttrace_internal.h"

#define HEX_LINE	48		/* bytes per console line */
#define DUMP_ENTRIES	1024		/* entries per RECORDS section */

struct serial_out {
	size_t col;			/* bytes on the current line */
};

static int to_host(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	return arch_hostout_write(buf, len) ? 0 : -1;
}

static int to_console(void *arg, const void *buf, uint64_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct serial_out *so = arg;
	const uint8_t *p = buf;

	for (uint64_t i = 0; i < len; i++) {
		if (so->col == 0)
			console_write("TTD ", 4);
		console_putc(hex[p[i] >> 4]);
		console_putc(hex[p[i] & 15]);
		if (++so->col == HEX_LINE) {
			console_putc('\n');
			so->col = 0;
		}
	}
	return 0;
}

/* AUX: the counters, then the bytes from first to last (two pieces when
 * they wrap around the end of the buffer). */
static void write_aux(struct ttrace_file_writer *w, const struct ttrace_aux *a)
{
	struct ttrace_file_aux hdr = { a->first, a->last };
	uint64_t len = a->last - a->first;
	uint64_t off = a->first & a->mask;
	uint64_t part = MIN(len, a->size - off);

	ttrace_file_section_begin(w, TTRACE_FILE_SEC_AUX, 0, sizeof(hdr) + len);
	ttrace_file_section_data(w, &hdr, sizeof(hdr));
	ttrace_file_section_data(w, a->buf + off, part);
	ttrace_file_section_data(w, a->buf, len - part);
	ttrace_file_section_end(w);
}

/* Writes cpu's records as RECORDS and LOSS sections, straight from the
 * ring: the writers are stopped, so a slot in flight stays so: lost. */
static void write_ring(struct ttrace_file_writer *w, uint32_t cpu)
{
	static struct ttrace_entry buf[DUMP_ENTRIES];
	const struct trace_ring *r = ttrace_ring_of(cpu);
	struct trace_ring_cursor cur;
	struct trace_ring_run run;
	uint64_t end = trace_ring_head(r);
	uint32_t k;

	trace_ring_cursor_oldest(r, &cur);
	while ((k = trace_ring_read(r, &cur, end, buf, DUMP_ENTRIES, &run))) {
		struct ttrace_file_run hdr;

		if (k == TRACE_RUN_BUSY)
			trace_ring_give_up(&cur, &run);
		ttrace_file_run_init(&hdr, k == TRACE_RUN_RECORDS, run.first,
				     run.count, run.reason);
		ttrace_file_section_begin(w, hdr.type, cpu, sizeof(hdr) +
			(k == TRACE_RUN_RECORDS ? run.count * sizeof(*buf) : 0));
		ttrace_file_section_data(w, &hdr, sizeof(hdr));
		if (k == TRACE_RUN_RECORDS)
			ttrace_file_section_data(w, buf, run.count * sizeof(*buf));
		ttrace_file_section_end(w);
	}
}

static void write_rings(struct ttrace_file_writer *w)
{
	for (uint32_t c = 0; c < num_cpus; c++) {
		struct trace_ring_stats st;
		struct ttrace_file_stats fs;

		write_ring(w, c);
		trace_ring_stats(ttrace_ring_of(c), &st);
		fs.written = st.written;
		fs.overwritten = st.overwritten;
		fs.dropped = st.dropped;
		ttrace_file_write_section(w, TTRACE_FILE_SEC_STATS, c, &fs, sizeof(fs));
	}
}

static void write_tsc(struct ttrace_file_writer *w)
{
	struct ttrace_file_tsc t[CONFIG_MAX_NUM_CPUS];

	ttrace_file_write_section(w, TTRACE_FILE_SEC_TSC, 0, t,
				  ttrace_tsc_offsets(t));
}

static void write_trace(struct ttrace_file_writer *w, const struct ttrace_aux *a)
{
	struct ttrace_version v;

	ttrace_fill_version_bounds(&v, a->first, a->last);
	ttrace_file_write_header(w);
	ttrace_file_write_section(w, TTRACE_FILE_SEC_VERSION, 0, &v, sizeof(v));
	ttrace_file_write_section(w, TTRACE_FILE_SEC_META, 0, ttrace_meta_blob,
				  ttrace_meta_blob_size);
	write_rings(w);
	write_aux(w, a);
	write_tsc(w);
	ttrace_file_write_end(w);
}

/* Called by panic() once the other CPUs are stopped. */
void ttrace_panic_dump(void)
{
	const struct ttrace_aux *a = ttrace_aux_unlocked();
	struct ttrace_file_writer w;
	struct serial_out so = { 0 };
	uint64_t on = 0;
	bool host = arch_hostout_present();

	if (!cmdline_get_u64(boot_cmdline, "ttrace.dump_on_panic", &on) || !on ||
	    !a)
		return;
	memset(ttrace_armed, 0, TTRACE_NUM_EVENTS);	/* freeze the picture */
	ttrace_patch_sync(TEXT_PATCH_ALONE);	/* the others are stopped */
	printk(KERN_EMERG "ttrace: dumping the trace to the %s\n",
	       host ? "host channel" : "console");
	if (!host)
		console_write("TTRACE-DUMP-BEGIN\n", 18);
	ttrace_file_writer_init(&w, host ? to_host : to_console, &so);
	write_trace(&w, a);
	if (!host)
		console_write("\nTTRACE-DUMP-END\n", 17);
	printk(KERN_EMERG "ttrace: dump %s: %lu bytes, crc32 0x%08x\n",
	       w.error ? "FAILED" : "done", w.offset, w.file_crc);
}
