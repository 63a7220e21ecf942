/* TEMPORARY during bring-up: replaced by the real tracer interface. */
#ifndef TTRACE_H
#define TTRACE_H
#define ttrace_spin_contended(l, c) do { (void)(l); (void)(c); } while (0)
#define ttrace_rwlock_contended(l, c, w) do { (void)(l); (void)(c); } while (0)
#define ttrace_exception(...) do {} while (0)
#define ttrace_irq_enter(...) do {} while (0)
#define ttrace_irq_exit(...) do {} while (0)
#define ttrace_ctx_set_irq(...) do {} while (0)
#define ttrace_ctx_set_kernel(...) do {} while (0)
#define ttrace_ctx_set_rkmsg(...) do {} while (0)
#define ttrace_panic_dump() do {} while (0)
#define ttrace_page_alloc(...) do {} while (0)
#define ttrace_page_free(...) do {} while (0)
#define ttrace_init() do {} while (0)
#define ttrace_cleanup() do {} while (0)
#define ttrace_boot_phase(...) do {} while (0)
#define ttrace_timer_tick(...) do {} while (0)
#define ttrace_boot_ap_begin(...) do {} while (0)
#define ttrace_boot_ap_end(...) do {} while (0)
#define ttrace_kmsg_run(...) do {} while (0)
#define ttrace_ipi_send(...) do {} while (0)
#define ttrace_ipi_recv(...) do {} while (0)
#endif
