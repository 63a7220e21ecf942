/*
 * A bad probe module for the tests: it calls kthread_create, which the
 * kernel does not export to modules, so loading it must fail with
 * "unknown symbol kthread_create".
 */
#include <sched.h>

int probe_init(void);

int probe_init(void)
{
	return kthread_create("nope", (void (*)(void *))0, 0) ? 0 : -1;
}
