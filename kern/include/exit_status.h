/*
 * exit_status: how the kernel ends a QEMU run, in one place for the kernel
 * and the tests (tests/qemu_run.py reads the QEMU_STATUS_ lines below).
 *
 * arch_poweroff(0) is an ACPI soft-off: QEMU exits with status 0. Any
 * other code goes out through QEMU's isa-debug-exit port, and QEMU exits
 * with (code << 1) | 1: odd, never 0. init's exit status is passed on as
 * the code (so `init=/bin/usertests` failing ends QEMU with 3).
 */
#ifndef EXIT_STATUS_H
#define EXIT_STATUS_H

#define EXIT_CODE_PANIC		1	/* panic(), after the flight recorder */
#define EXIT_CODE_KTESTS_FAILED	2	/* a ktest failed (ktests=) */

/* What QEMU's exit status is for each (the tests compare with these). */
#define QEMU_STATUS_OK			0
#define QEMU_STATUS_PANIC		3	/* (EXIT_CODE_PANIC << 1) | 1 */
#define QEMU_STATUS_KTESTS_FAILED	5

#endif /* EXIT_STATUS_H */
