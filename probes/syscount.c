/*
 * syscount: a probe module (docs/probes.md, "Probe modules") counting
 * syscalls per process. probe_init attaches to syscall_enter; probe_fini
 * prints the total and leaves the probe attached on purpose: the loader
 * detaches whatever a module leaves behind. probe_report lists the counts
 * in /dev/ttrace/probes.
 *
 *	$ echo module load /lib/probes/syscount.o > /dev/ttrace/ctl
 *	$ ttrace probe list
 *	module syscount at 0xffffffffc0000000
 *	  pid 3 syscalls 41
 */
#include <ttrace_probe.h>
#include <printfmt.h>
#include <printk.h>

#define PIDS	256

static uint64_t tab_mem[(PIDS + 1) * 2 + (PIDS + 1) / 8 + 1];
static struct ttrace_keytab tab;
static uint64_t total;

static bool on_syscall(void *arg, const struct ttrace_probe_hit *h)
{
	(void)arg;
	ttrace_keytab_add(&tab, (uint64_t)(int64_t)h->pid, 0, 1);
	__atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
	return true;
}

int probe_init(void);
void probe_fini(void);
size_t probe_report(char *buf, size_t size);

int probe_init(void)
{
	int id = ttrace_event_id("syscall_enter");

	if (id < 0)
		return id;
	ttrace_keytab_init(&tab, tab_mem, PIDS, 1);
	return ttrace_probe_attach((uint32_t)id, on_syscall, NULL);
}

void probe_fini(void)
{
	printk("syscount: %lu syscalls counted\n", total);
}

size_t probe_report(char *buf, size_t size)
{
	size_t n = (size_t)fmt_snprintf(buf, size, "  total %lu overflow %lu\n",
					total, tab.overflow);
	const uint64_t *v;
	uint64_t pid;

	for (uint32_t i = 0; i <= tab.cap; i++)
		if (ttrace_keytab_slot(&tab, i, &pid, &v))
			n += (size_t)fmt_snprintf(buf + (n < size ? n : size),
						  n < size ? size - n : 0,
						  "  pid %ld syscalls %lu\n",
						  (int64_t)pid, v[0]);
	return n;
}
