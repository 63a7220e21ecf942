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
#include <ttrace_image.h>
#include <cmdline.h>
#include <console.h>
#include <init.h>
#include <printk.h>
#include <string.h>
#include <arch/arch.h>

#include "internal.h"

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

/* The whole trace, straight from the rings and aux (the writers are
 * stopped, so a slot in flight stays so: declared lost). */
static void write_trace(struct ttrace *t, struct ttrace_file_writer *w,
			const struct ttrace_aux *a)
{
	static struct ttrace_entry buf[DUMP_ENTRIES];
	struct ttrace_file_tsc tsc[CONFIG_MAX_NUM_CPUS];
	uint32_t meta_size;	/* the version's says it too */
	struct ttrace_image img = {
		.meta = ttrace_meta_blob_now(&meta_size),
		.rings = ttrace_ring_of(t, 0),
		.aux = a,
		.tsc = tsc,
	};

	ttrace_fill_version_bounds(t, &img.version, a->first, a->last);
	ttrace_tsc_offsets(tsc);
	ttrace_image_write(w, &img, buf, DUMP_ENTRIES);
}

/* Called by panic() once the other CPUs are stopped. */
void ttrace_panic_dump(void)
{
	struct ttrace *t = &ttrace_main;
	const struct ttrace_aux *a = ttrace_aux_unlocked(t);
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
	if (host)	/* a drained stream before the dump ends first */
		ttrace_drain_panic_close(to_host);
	else
		console_write("TTRACE-DUMP-BEGIN\n", 18);
	ttrace_file_writer_init(&w, host ? to_host : to_console, &so);
	write_trace(t, &w, a);
	if (!host)
		console_write("\nTTRACE-DUMP-END\n", 17);
	printk(KERN_EMERG "ttrace: dump %s: %lu bytes, crc32c 0x%08x\n",
	       w.error ? "FAILED" : "done", w.offset, w.file_crc);
}
