/*
 * Routine kernel messages (as in Akaros): work sent to a CPU and run there in
 * kernel context, in order, when that CPU is next idle or between tasks.
 *
 *	send_kernel_message(2, flush_fn, arg);	// flush_fn(arg) runs on core 2
 *
 * Sending kmallocs the message, queues it on the target CPU and raises an
 * IPI so a halted CPU wakes to run it. Any context may send, but the message runs
 * later, never inside the sender's call.
 */
#ifndef KMSG_H
#define KMSG_H

#include <compiler.h>

typedef void (*kmsg_fn_t)(void *arg);

int send_kernel_message(uint32_t coreid, kmsg_fn_t fn, void *arg);
void process_routine_kmsgs(void);
bool kmsg_pending(void);
void kmsg_init(void);

#endif /* KMSG_H */
