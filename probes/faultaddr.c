/*
 * faultaddr: a probe module (docs/probes.md, "Probe modules") building a
 * log2 histogram of page-fault addresses. It attaches by glob
 * ("page_fault*") and detaches itself in probe_fini.
 */
#include <ttrace_probe.h>
#include <printfmt.h>

static uint64_t buckets[TTRACE_HIST_BUCKETS];

static bool on_fault(void *arg, const struct ttrace_probe_hit *h)
{
	(void)arg;
	if (h->nargs)
		__atomic_fetch_add(&buckets[ttrace_hist_bucket(h->args[0])], 1,
				   __ATOMIC_RELAXED);
	return true;
}

int probe_init(void);
void probe_fini(void);
size_t probe_report(char *buf, size_t size);

int probe_init(void)
{
	int n = ttrace_probe_attach_glob("page_fault*", on_fault, NULL);

	return n < 0 ? n : 0;
}

void probe_fini(void)
{
	ttrace_probe_detach((uint32_t)ttrace_event_id("page_fault"), on_fault,
			    NULL);
}

size_t probe_report(char *buf, size_t size)
{
	size_t n = (size_t)fmt_snprintf(buf, size, "  faults %lu\n",
					ttrace_hist_total(buckets));

	for (unsigned b = 0; b < TTRACE_HIST_BUCKETS; b++)
		if (buckets[b])
			n += (size_t)fmt_snprintf(buf + (n < size ? n : size),
						  n < size ? size - n : 0,
						  "    %#lx %#lx %lu\n",
						  ttrace_hist_bucket_low(b),
						  ttrace_hist_bucket_high(b),
						  buckets[b]);
	return n;
}
