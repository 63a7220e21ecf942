/*
 * The #ttrace ctl file's limits, shared by the kernel (ttrace_ctl.h) and
 * the programs that write commands to it (user/bin/ttrace). The grammar is
 * docs/ttrace-device.md's.
 */
#ifndef ABI_TTRACE_CTL_H
#define ABI_TTRACE_CTL_H

#define TTRACE_CTL_MAX_LEN	256	/* longest command accepted */

#endif /* ABI_TTRACE_CTL_H */
