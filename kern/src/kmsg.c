/*
 * Routine kernel messages (see kmsg.h): one FIFO per CPU under an irqsave
 * lock. The IRQ_KMSG IPI only wakes the target; messages run from
 * process_routine_kmsgs(), which the idle loop and the scheduler call, so a
 * message never runs on top of an interrupted kernel path.
 */
#include <kmsg.h>
#include <kmalloc.h>
#include <spinlock.h>
#include <smp.h>
#include <irq.h>
#include <ttrace.h>
#include <arch/arch.h>
#include <arch/trap.h>
#include <abi/errno.h>

static struct {
	struct spinlock lock;
	struct kmsg *head, *tail;
} queues[CONFIG_MAX_NUM_CPUS];

/* Queues m, filled in but for its link, on coreid and wakes that CPU. */
static void queue_msg(uint32_t coreid, struct kmsg *m)
{
	uint64_t flags = spin_lock_irqsave(&queues[coreid].lock);

	m->next = NULL;
	if (queues[coreid].tail)
		queues[coreid].tail->next = m;
	else
		queues[coreid].head = m;
	queues[coreid].tail = m;
	WRITE_ONCE(per_cpu_info[coreid].work.kmsg, 1);
	spin_unlock_irqrestore(&queues[coreid].lock, flags);
	ttrace_ipi_send(coreid, IRQ_KMSG);
	if (coreid != core_id())
		arch_send_ipi(coreid, IRQ_KMSG);
}

/* Queues fn(arg) to run on coreid; returns 0 or -ENOMEM / -EINVAL. */
int send_kernel_message(uint32_t coreid, kmsg_fn_t fn, void *arg)
{
	struct kmsg *m;

	if (coreid >= num_cpus)
		return -EINVAL;
	if ((m = kmalloc(sizeof(*m))) == NULL)
		return -ENOMEM;
	*m = (struct kmsg){ .fn = fn, .arg = arg, .allocated = true };
	queue_msg(coreid, m);
	return 0;
}

/* Queues fn(arg) to run on coreid (< num_cpus) in m, which the caller
 * keeps alive until fn runs (fn may free it). Cannot fail. */
void send_kernel_message_in(uint32_t coreid, struct kmsg *m, kmsg_fn_t fn,
			    void *arg)
{
	*m = (struct kmsg){ .fn = fn, .arg = arg };
	queue_msg(coreid, m);
}

static struct kmsg *dequeue(uint32_t coreid)
{
	uint64_t flags = spin_lock_irqsave(&queues[coreid].lock);
	struct kmsg *m = queues[coreid].head;

	if (m) {
		queues[coreid].head = m->next;
		if (!m->next) {
			queues[coreid].tail = NULL;
			WRITE_ONCE(per_cpu_info[coreid].work.kmsg, 0);
		}
	}
	spin_unlock_irqrestore(&queues[coreid].lock, flags);
	return m;
}

/* Runs every message queued for this CPU, oldest first, in the routine
 * kernel message context. Must not be called from an interrupt handler. */
void process_routine_kmsgs(void)
{
	struct per_cpu_info *pcpui = this_cpu();
	struct kmsg *m;

	while ((m = dequeue(pcpui->coreid))) {
		uint64_t base = pcpui->ttrace_type_base, ctx = pcpui->ttrace_ctx;
		bool allocated = m->allocated;	/* fn may free m */

		ttrace_ctx_set(pcpui, TTRACE_CTX_RKMSG, (uintptr_t)m->fn);
		ttrace_kmsg_run((void *)m->fn);
		m->fn(m->arg);
		pcpui->ttrace_type_base = base;
		pcpui->ttrace_ctx = ctx;
		if (allocated)
			kfree(m);
	}
}

/* True when this CPU has messages waiting (its work.kmsg, set while its
 * queue is not empty). notrace: asked on every return to user mode with
 * work (user_trap_return). */
notrace bool kmsg_pending(void)
{
	return READ_ONCE(this_cpu()->work.kmsg);
}

static void kmsg_ipi(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	ttrace_ipi_recv(IRQ_KMSG);
}

void kmsg_init(void)
{
	for (int i = 0; i < CONFIG_MAX_NUM_CPUS; i++)
		spinlock_init(&queues[i].lock, "kmsg");
	irq_register(IRQ_KMSG, "kmsg IPI", kmsg_ipi, NULL);
}
