/*
 * kt.h: what the tracer's ktests share (kern/trace/ktest/).
 */
#ifndef KT_H
#define KT_H

#include <compiler.h>

/* Carries out one ctl command (ttrace_control()); false, the ktest failed
 * saying why, on an error. Process context. */
bool kt_ctl(const char *cmd);

#endif /* KT_H */
