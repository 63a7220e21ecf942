/*
 * Routine kernel messages (as in Akaros): work sent to a CPU and run there in
 * kernel context, in order, when that CPU is next idle or between tasks.
 *
 *	send_kernel_message(2, flush_fn, arg);	// flush_fn(arg) runs on core 2
 *
 * Sending kmallocs the message, queues it on the target CPU and raises an
 * IPI so a halted CPU wakes to run it. Any context may send, but the message runs
 * later, never inside the sender's call. A path that must not fail for
 * want of memory (reaping a dead thread or an orphan) sends a message it
 * owns instead, embedded in the object the message is about:
 *
 *	send_kernel_message_in(0, &p->reap_msg, reap_orphan, p);
 */
#ifndef KMSG_H
#define KMSG_H

#include <compiler.h>

typedef void (*kmsg_fn_t)(void *arg);

struct kmsg {
	struct kmsg *next;
	kmsg_fn_t fn;
	void *arg;
	bool allocated;		/* by send_kernel_message: freed once run */
};

int send_kernel_message(uint32_t coreid, kmsg_fn_t fn, void *arg);
void send_kernel_message_in(uint32_t coreid, struct kmsg *m, kmsg_fn_t fn,
			    void *arg);
void process_routine_kmsgs(void);
bool kmsg_pending(void);
void kmsg_init(void);

#endif /* KMSG_H */
