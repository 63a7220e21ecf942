/*
 * insn_mark.h: marker instructions for exact instruction counting under
 * QEMU (plugins/ttinsn.c). A marker is a 7-byte NOP, `nopl DISP32(%rax)`
 * (0f 1f 80 disp32), whose displacement is INSN_MARK_MAGIC << 16 | id; on
 * real hardware and under KVM it does nothing, and under the ttinsn plugin
 * it logs the guest instruction count. Shared by the kernel and user
 * programs; the ids below are what scripts/bench.py reads.
 *
 *	INSN_MARK(INSN_MARK_GETPID_ON);	// start of a measured region
 */
#ifndef ABI_INSN_MARK_H
#define ABI_INSN_MARK_H

#define INSN_MARK_MAGIC	0x7474
#define INSN_MARK_SIZE	7

/* Ids: regions are [id, id + 1): a mark at the start and one at the end. */
enum insn_mark_id {
	INSN_MARK_BOOT = 1,		/* kmain's first line .. shell prompt */
	INSN_MARK_BOOT_END = 2,
	INSN_MARK_SPIN = 3,		/* a time-based spin loop (summed) */
	INSN_MARK_SPIN_END = 4,
	INSN_MARK_EMPTY = 10,		/* kernel bench: empty loop */
	INSN_MARK_ENABLED = 12,		/* enabled tracepoint */
	INSN_MARK_DISABLED = 14,	/* disabled site */
	INSN_MARK_CONT = 16,		/* event with continuations */
	INSN_MARK_AUX = 18,		/* 32-byte aux string */
	INSN_MARK_CALL = 20,		/* call of a function with no site */
	INSN_MARK_CALL_OFF = 22,	/* call of a function, site a NOP */
	INSN_MARK_CALL_GRAPH = 24,	/* the same, function graph on */
	INSN_MARK_PROBE_FILTER = 26,	/* enabled event, a filter probe */
	INSN_MARK_PROBE_COUNT = 28,	/* enabled event, a count probe */
	INSN_MARK_U_EMPTY = 30,		/* user: empty loop */
	INSN_MARK_GETPID_ON = 32,	/* getpid, syscall group on */
	INSN_MARK_GETPID_OFF = 34,	/* getpid, syscall group off */
	INSN_MARK_GETPID_NONE = 36,	/* getpid, no event enabled */
	INSN_MARK_CALL_FPROBE = 48,	/* call of a function, an entry and a
					 * return function probe on it */
	INSN_MARK_IRQSAVE_OFF = 60,	/* irqsave lock pair, irqsoff off */
	INSN_MARK_IRQSAVE_ON = 62,	/* ... irqsoff on */
	INSN_MARK_STACK = 50,		/* a 16-frame stack trace: walk, record */
	INSN_MARK_PROBE_STACK = 52,	/* enabled event, a stacktrace probe */
	INSN_MARK_STREAM = 38,		/* user: ttrace stream of a burst */
	INSN_MARK_WAKEUP = 64,		/* kernel bench: kwakeup of a thread
					 * asleep on another CPU (the
					 * waker's call) */
	INSN_MARK_WAKEUP_SWITCH = 66,	/* not a marker: the plugin's at=
					 * mark on swtch() (scripts/bench.py) */
	INSN_MARK_PROF_SAMPLE = 70,	/* a profile sample, 16 kernel frames */
	INSN_MARK_PROF_USER = 72,	/* ... and 16 user frames */
	INSN_MARK_SCHED_WAKING = 80,	/* the scheduler's records, enabled */
	INSN_MARK_SCHED_WAKEUP = 82,	/* (sched_records.h): sched_waking, */
	INSN_MARK_SCHED_WAKEUP_NEW = 84, /* sched_wakeup, sched_wakeup_new, */
	INSN_MARK_SCHED_SWITCH = 86,	/* sched_switch, */
	INSN_MARK_CPU_IDLE = 88,	/* cpu_idle, */
	INSN_MARK_TASK_NEWTASK = 90,	/* task_newtask, */
	INSN_MARK_SCHED_BLOCKED = 92,	/* sched_blocked_reason */
};

#ifndef __ASSEMBLER__
#define INSN_MARK(id)							\
	__asm__ __volatile__("nopl %c0(%%rax)"				\
			     : : "i"((INSN_MARK_MAGIC << 16) | (id)) : "memory")
#endif

#endif /* ABI_INSN_MARK_H */
