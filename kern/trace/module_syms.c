/*
 * The symbols a probe module may call (kern/trace/module.c links its
 * undefined symbols against this table and nothing else): the probe API,
 * the pure helpers built-in probes use (field access, keyed tables, log2
 * histograms), formatting, and the few string functions the compiler may
 * emit calls to. A probe allocates in probe_init (process context) if it
 * must; its callbacks must not.
 */
#include "module.h"
#include <ttrace_probe.h>
#include <kmalloc.h>
#include <printfmt.h>
#include <printk.h>
#include <string.h>

#define EXPORT(fn)	{ #fn, (uint64_t)(uintptr_t)(fn) }

static const struct {
	const char *name;
	uint64_t addr;
} exports[] = {
	EXPORT(ttrace_probe_attach),
	EXPORT(ttrace_probe_attach_glob),
	EXPORT(ttrace_probe_detach),
	EXPORT(ttrace_event_id),
	EXPORT(ttrace_field_get),
	EXPORT(ttrace_keytab_bytes),
	EXPORT(ttrace_keytab_init),
	EXPORT(ttrace_keytab_add),
	EXPORT(ttrace_keytab_slot),
	EXPORT(ttrace_hist_bucket),
	EXPORT(ttrace_hist_bucket_low),
	EXPORT(ttrace_hist_bucket_high),
	EXPORT(ttrace_hist_total),
	EXPORT(ttrace_hist_percentile),
	EXPORT(fmt_snprintf),
	EXPORT(printk),
	EXPORT(kzmalloc),
	EXPORT(kfree),
	EXPORT(memset),
	EXPORT(memcpy),
	EXPORT(strcmp),
	EXPORT(strlen),
};

/* The address of exported symbol name, or 0. */
uint64_t module_export(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(exports); i++)
		if (!strcmp(exports[i].name, name))
			return exports[i].addr;
	return 0;
}
