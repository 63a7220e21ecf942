/*
 * kt.h: what the tracer's ktests share (kern/trace/ktest/).
 */
#ifndef KT_H
#define KT_H

#include <compiler.h>

/* Carries out one ctl command (ttrace_control()); false, the ktest failed
 * saying why, on an error. Process context. */
bool kt_ctl(const char *cmd);

/* One `tracestress load` per CPU (syscalls and marker writes as fast as
 * it can), parentless; returns how many started, their pids in pids[]
 * (room for num_cpus). Then kills them and waits until each has exited.
 * Process context. (kt_patch.c) */
uint32_t kt_load_start(int *pids);
void kt_load_stop(const int *pids, uint32_t n);

#endif /* KT_H */
