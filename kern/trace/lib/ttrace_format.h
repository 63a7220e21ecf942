/*
 * ttrace_format.h: the ttrace trace format, shared by the kernel and the host
 * tools (tools/ include this file as is). docs/trace-format.md is the prose
 * version of this header; the two must agree.
 *
 * A trace is three things:
 *  - a version header (struct ttrace_version) describing everything else;
 *  - one ring per CPU of 64-byte entries (struct ttrace_entry), each a
 *    timestamped record of one event with up to 5 argument words, followed by
 *    continuation entries (same struct, cont[] view) for events with more;
 *  - an aux byte ring of variable-length records (struct ttrace_aux_hdr) that
 *    gives names to the numbers in the entries: syscall, process, kthread and
 *    boot-phase names, user marker text and the event metadata blob.
 *
 * Only <stdint.h> and fixed-width types so that any C compiler reads it; the
 * layouts are pinned with static asserts. All multi-byte fields are in the
 * writer's byte order (little endian on x86_64); TTRACE_MAGIC tells a reader
 * whether it must swap.
 *
 * Usage (decoder):
 *	const struct ttrace_entry *e = ...;
 *	if (ttrace_ts_valid(e->timestamp) && !ttrace_ts_is_cont(e->timestamp))
 *		printf("%u on cpu %u\n", TTRACE_TYPE_ID(e->type),
 *		       TTRACE_TYPE_CPU(e->type));
 */
#ifndef TTRACE_FORMAT_H
#define TTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define TTRACE_STATIC_ASSERT(c, m) static_assert(c, m)
#define TTRACE_ALIGN64 alignas(64)
#define TTRACE_ALIGNOF(t) alignof(t)
#else
#define TTRACE_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define TTRACE_ALIGN64 _Alignas(64)
#define TTRACE_ALIGNOF(t) _Alignof(t)
#endif
#define TTRACE_OFFSET_ASSERT(type, field, off)				\
	TTRACE_STATIC_ASSERT(__builtin_offsetof(type, field) == (off),	\
			     #type "." #field " is at offset " #off)

/* Versions of the three parts; a decoder refuses a major it does not know. */
#define TTRACE_HEADER_VERSION	1	/* struct ttrace_version */
#define TTRACE_AUX_VERSION	1	/* aux records and tags */
#define TTRACE_PERCPU_VERSION	3	/* entries, type and context words */
#define TTRACE_PERCPU_VERSION_MIN 2	/* 2: the same without the flags */

/*
 * The first 8 bytes of the version header. Stored in the writer's byte order:
 * a little-endian writer puts the bytes "TTRACE\0\1" in the file. A reader
 * that loads TTRACE_MAGIC_SWAPPED must byte-swap every field.
 */
#define TTRACE_MAGIC		0x0100454341525454ULL
#define TTRACE_MAGIC_SWAPPED	0x5454524143450001ULL

/* ------------------------------------------------------------------------ */
/* Per-CPU ring entries                                                      */
/* ------------------------------------------------------------------------ */

#define TTRACE_ENTRY_SIZE	64	/* == ARCH_CL_SIZE in the kernel */
#define TTRACE_ENTRY_ARGS	5	/* argument words in a first entry */
#define TTRACE_CONT_ARGS	7	/* argument words in a continuation */
#define TTRACE_MAX_CONT		3	/* continuations per event, at most */
#define TTRACE_MAX_ARGS		(TTRACE_ENTRY_ARGS + \
				 TTRACE_MAX_CONT * TTRACE_CONT_ARGS)	/* 26 */

/*
 * Timestamps. All ones: the entry is invalid or being written. Bit 0 set: a
 * continuation entry, whose timestamp is its parent's timestamp | 1 (parent
 * timestamps always have bit 0 clear, so the TSC loses its lowest bit).
 */
#define TTRACE_TS_INVALID	UINT64_MAX
#define TTRACE_TS_CONT		1ULL

static inline int ttrace_ts_valid(uint64_t ts)
{
	return ts != TTRACE_TS_INVALID;
}

static inline int ttrace_ts_is_cont(uint64_t ts)
{
	return (int)(ts & TTRACE_TS_CONT);
}

/*
 * The type word (entry offset 8):
 *	bits  0-9   event id (index in the event metadata)
 *	bits 10-15  flags of the context the record was made in (version 3;
 *		    0 in version 2): bit 10 interrupts off, bit 11 need
 *		    resched (the scheduler asks the running thread to yield),
 *		    12-15 reserved, 0
 *	bits 16-19  context kind (enum ttrace_ctx_kind)
 *	bits 20-23  number of continuation entries that follow (0..3)
 *	bits 24-27  interrupt nesting depth, 0 outside interrupts (saturates 15)
 *	bits 28-39  cpu (core id) that wrote the entry
 *	bits 40-63  seq: the entry's logical slot index (the count of slots
 *		    its ring had reserved before it) modulo 2^24, stored by
 *		    the ring writer. A ring holds at most 2^23 entries, so a
 *		    reader tells the record of index i from the one of i - n
 *		    still in the slot (reserved, not yet invalidated), and a
 *		    decoder checks that every record sits at the index its
 *		    file section says (docs/trace-file.md): a record missing
 *		    without a declared loss cannot pass unseen.
 * Continuation entries have no type word: they always directly follow
 * their first entry (one reservation), which vouches for them.
 */
#define TTRACE_TYPE_ID_SHIFT	0
#define TTRACE_TYPE_CTX_SHIFT	16
#define TTRACE_TYPE_NCONT_SHIFT	20
#define TTRACE_TYPE_DEPTH_SHIFT	24
#define TTRACE_TYPE_CPU_SHIFT	28
#define TTRACE_TYPE_SEQ_SHIFT	40

#define TTRACE_TYPE_ID(t)	((uint32_t)((t) & 0x3ff))
#define TTRACE_TYPE_FLAGS(t)	((uint32_t)(t) & TTRACE_TYPE_FLAGS_MASK)
#define TTRACE_TYPE_IRQS_OFF	0x400u	/* interrupts were off */
#define TTRACE_TYPE_NEED_RESCHED 0x800u	/* need_resched was set */
#define TTRACE_TYPE_FLAGS_MASK	0xfc00u
#define TTRACE_TYPE_FLAGS_RESERVED 0xf000u
#define TTRACE_TYPE_CTX(t)	((uint32_t)(((t) >> 16) & 0xf))
#define TTRACE_TYPE_NCONT(t)	((uint32_t)(((t) >> 20) & 0xf))
#define TTRACE_TYPE_DEPTH(t)	((uint32_t)(((t) >> 24) & 0xf))
#define TTRACE_TYPE_CPU(t)	((uint32_t)(((t) >> 28) & 0xfff))
#define TTRACE_TYPE_SEQ(t)	((uint32_t)((t) >> 40))
#define TTRACE_TYPE_SEQ_MASK	0xffffff0000000000ULL
#define TTRACE_SEQ_BITS		24
#define TTRACE_SEQ_OF(idx)	((uint32_t)((idx) & 0xffffff))
#define TTRACE_MAX_CPUS		4096	/* what the cpu field holds */
#define TTRACE_MAX_RING_ENTRIES	(1ULL << 23)

/* Continuation entries needed for nargs argument words (0 if <= 5). */
static inline uint32_t ttrace_ncont(uint32_t nargs)
{
	uint32_t more = nargs > TTRACE_ENTRY_ARGS ? nargs - TTRACE_ENTRY_ARGS : 0;

	return (more + TTRACE_CONT_ARGS - 1) / TTRACE_CONT_ARGS;
}

/* Builds a type word without the seq (the ring adds it) and flags (the
 * writer's context adds them). depth saturates. */
#define TTRACE_TYPE(id, ctx, ncont, depth, cpu)				\
	(((uint64_t)(id) & 0x3ff) |					\
	 ((uint64_t)(ctx) & 0xf) << TTRACE_TYPE_CTX_SHIFT |		\
	 ((uint64_t)(ncont) & 0xf) << TTRACE_TYPE_NCONT_SHIFT |		\
	 ((uint64_t)((depth) > 15 ? 15 : (depth)) << TTRACE_TYPE_DEPTH_SHIFT) | \
	 ((uint64_t)(cpu) & 0xfff) << TTRACE_TYPE_CPU_SHIFT)

/*
 * Why a range of a ring's logical indices is missing from what a reader
 * returned (trace_ring_read) or a file holds (LOSS sections,
 * docs/trace-file.md).
 */
enum ttrace_loss_reason {
	TTRACE_LOSS_OVERWRITTEN = 1,	/* lapped by the writer before read */
	TTRACE_LOSS_RACED = 2,		/* lapped while being read */
	TTRACE_LOSS_IN_FLIGHT = 3,	/* still being written; given up */
	TTRACE_LOSS_CLEARED = 4,	/* cleared (clear, mode, bufsize) */
	TTRACE_LOSS_SKIPPED = 5,	/* given up by a reader the writer
					   lapped, to resume ahead of it */
	TTRACE_LOSS_NOT_COPIED = 6,	/* older than a frozen copy's newest
					   slots: still in the ring copied,
					   not kept in the copy */
	TTRACE_LOSS_NREASONS = 7,
};

/*
 * Context kinds (type word bits 16-19) and the matching context word (entry
 * offset 16). A decoder names a context through aux records: it looks up the
 * record with the given tag whose ident equals the number, preferring the
 * newest one written at or before the entry's timestamp (names change, e.g.
 * at exec).
 *
 *  kind            context word                  names (aux tag: ident)
 *  BOOT   0        current boot phase id or 0    BOOT_PHASE: phase id
 *  KTASK  1        kthread id                    KTHREAD_NAME: kthread id
 *  RKMSG  2        address of the message fn     KMSG_NAME: address
 *  SYSC   3        pid << 32 | syscall number    PROC_NAME: pid,
 *                                                SYSCALL_NAME: number
 *  TRAP   4        pid << 32 | trap vector       PROC_NAME: pid
 *  IRQ    5        interrupt/exception vector    IRQ_NAME: vector
 *  IDLE   6        0 (the CPU's idle loop)       -
 * IRQ entries also carry the nesting depth in the type word.
 */
enum ttrace_ctx_kind {
	TTRACE_CTX_BOOT = 0,
	TTRACE_CTX_KTASK = 1,
	TTRACE_CTX_RKMSG = 2,
	TTRACE_CTX_SYSC = 3,
	TTRACE_CTX_TRAP = 4,
	TTRACE_CTX_IRQ = 5,
	TTRACE_CTX_IDLE = 6,
	TTRACE_CTX_NKINDS = 7,
};

#define TTRACE_CTX_PIDWORD(pid, low)	((uint64_t)(uint32_t)(pid) << 32 | \
					 (uint32_t)(low))
#define TTRACE_CTX_PID(c)		((uint32_t)((c) >> 32))
#define TTRACE_CTX_LOW(c)		((uint32_t)(c))

/*
 * One event record: exactly one cache line, 64-byte aligned. A first entry
 * uses type, context and data[]; a continuation entry (timestamp = parent
 * timestamp | 1) carries 7 more argument words in cont[] instead: argument
 * words 5-11 in the first continuation, 12-18 in the second, and so on.
 */
struct ttrace_entry {
	TTRACE_ALIGN64 uint64_t timestamp;	/*  0: TSC; see above */
	union {
		struct {
			uint64_t type;		/*  8: type word */
			uint64_t context;	/* 16: context word */
			uint64_t data[TTRACE_ENTRY_ARGS]; /* 24: words 0-4 */
		};
		uint64_t cont[TTRACE_CONT_ARGS];	/*  8: continuation */
	};
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_entry) == TTRACE_ENTRY_SIZE,
		     "entry is one cache line");
TTRACE_STATIC_ASSERT(TTRACE_ALIGNOF(struct ttrace_entry) == TTRACE_ENTRY_SIZE,
		     "entry is cache-line aligned");
TTRACE_OFFSET_ASSERT(struct ttrace_entry, type, 8);
TTRACE_OFFSET_ASSERT(struct ttrace_entry, context, 16);
TTRACE_OFFSET_ASSERT(struct ttrace_entry, data, 24);
TTRACE_OFFSET_ASSERT(struct ttrace_entry, cont, 8);

/* ------------------------------------------------------------------------ */
/* Aux records                                                               */
/* ------------------------------------------------------------------------ */

/*
 * An aux record starts at an 8-byte aligned offset with this 24-byte header,
 * followed by len - 24 payload bytes (no NUL terminator), then zero padding
 * to the next multiple of 8. Records may wrap around the end of the aux ring.
 *
 * The path word:
 *	bit  0      VALID: 1 once the record is completely written
 *	bits 1-7    reserved, zero
 *	bits 8-15   tag (enum ttrace_aux_tag)
 *	bits 16-31  cpu that wrote the record
 *	bits 32-63  len: header + payload bytes, without the padding
 * A writer first stores the path with VALID clear, fills the rest, and only
 * then sets VALID, so a reader that sees VALID sees the whole record.
 */
struct ttrace_aux_hdr {
	uint64_t path;		/*  0 */
	uint64_t timestamp;	/*  8: TSC when the record was written */
	uint64_t ident;		/* 16: what the record names (see tags) */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_aux_hdr) == 24, "aux header size");
TTRACE_OFFSET_ASSERT(struct ttrace_aux_hdr, timestamp, 8);
TTRACE_OFFSET_ASSERT(struct ttrace_aux_hdr, ident, 16);

#define TTRACE_AUX_VALID	1ULL
#define TTRACE_AUX_HDR_SIZE	24
#define TTRACE_AUX_ALIGN	8
#define TTRACE_AUX_MAX_STRLEN	255	/* names and marker text */
#define TTRACE_AUX_MAX_PAYLOAD	32768	/* any record, e.g. metadata */

#define TTRACE_AUX_PATH(tag, cpu, len, valid)			\
	(((uint64_t)(tag) & 0xff) << 8 |			\
	 ((uint64_t)(cpu) & 0xffff) << 16 |			\
	 ((uint64_t)(len) & 0xffffffff) << 32 |		\
	 ((valid) ? TTRACE_AUX_VALID : 0))
#define TTRACE_AUX_PATH_TAG(p)	((uint32_t)(((p) >> 8) & 0xff))
#define TTRACE_AUX_PATH_CPU(p)	((uint32_t)(((p) >> 16) & 0xffff))
#define TTRACE_AUX_PATH_LEN(p)	((uint32_t)((p) >> 32))
#define TTRACE_AUX_PATH_RESERVED 0xfeULL
#define TTRACE_AUX_ALIGN_UP(n)	(((n) + TTRACE_AUX_ALIGN - 1) & \
				 ~(uint64_t)(TTRACE_AUX_ALIGN - 1))

/*
 * Aux tags, the one list: X(NAME, value, short name) makes the enum
 * member TTRACE_AUX_NAME; the short name is how kern/trace/ttrace.events spells
 * the tag (str:syscall, read by tools/gen_events.py) and how the tools
 * print it (ttrace_aux_tag_name). What ident means is said beside each.
 */
#define TTRACE_AUX_TAGS(X)						\
	X(SYSCALL_NAME, 1, syscall)	/* ident: syscall number */	\
	X(PROC_NAME, 2, proc)		/* ident: pid (TTRACE_IDLE_PID) */ \
	X(KTHREAD_NAME, 3, kthread)	/* ident: kthread id */		\
	X(BOOT_PHASE, 4, boot)		/* ident: boot phase id */	\
	X(EVENT_META, 5, meta)		/* ident: 0; payload: metadata */ \
	X(USER_MARKER, 6, marker)	/* ident: marker id (user_marker) */ \
	X(IRQ_NAME, 7, irq)		/* ident: vector */		\
	X(KMSG_NAME, 8, kmsg)		/* ident: function address */	\
	X(STATE_NAME, 9, state)		/* ident: enum kthread_state */	\
	X(FUNC_NAME, 10, func)		/* ident: function address (graph) */ \
	X(COUNTER_NAME, 11, counter)	/* ident: counter id (counter) */ \
	X(KSYM_NAME, 12, ksym)		/* ident: symbol address (stack) */

#define TTRACE_AUX_TAG_ENUM(name, value, str)	TTRACE_AUX_##name = value,
enum ttrace_aux_tag {
	TTRACE_AUX_TAGS(TTRACE_AUX_TAG_ENUM)
	TTRACE_AUX_NTAGS = 13,		/* one more than the last tag */
};
#undef TTRACE_AUX_TAG_ENUM
#define TTRACE_AUX_TAG_ONE(name, value, str)	+ 1
TTRACE_STATIC_ASSERT(TTRACE_AUX_NTAGS == 1 TTRACE_AUX_TAGS(TTRACE_AUX_TAG_ONE),
		     "aux tags are 1 .. TTRACE_AUX_NTAGS - 1");
#undef TTRACE_AUX_TAG_ONE

/* Tag tag's short name ("syscall"), or NULL for a tag no list names. */
static inline const char *ttrace_aux_tag_name(unsigned tag)
{
#define TTRACE_AUX_TAG_NAME(name, value, str)	[value] = #str,
	static const char *const names[TTRACE_AUX_NTAGS] = {
		TTRACE_AUX_TAGS(TTRACE_AUX_TAG_NAME)
	};
#undef TTRACE_AUX_TAG_NAME

	return tag < TTRACE_AUX_NTAGS ? names[tag] : NULL;
}

/* The pid a sched_switch record gives CPU n's idle thread (0 is a kernel
 * thread without a process): above every real pid, named "idle/N" in
 * aux (tag proc) as Linux names its swapper/N. */
#define TTRACE_IDLE_PID(n)	(0x80000000u + (uint32_t)(n))

/* The pid records give the kernel thread without a process whose kthread
 * id is n: above every process's pid, below the idle threads'; named in
 * aux (tag proc) when it is created, as a process is. */
#define TTRACE_KTHREAD_PID(n)	(0x40000000u + (uint32_t)(n))

/* The aux ident (tag proc) that names the file process pid was started
 * from (proc_exec's filename): above every pid's own ident. */
#define TTRACE_EXEC_IDENT(pid)	((uint64_t)1 << 32 | (uint32_t)(pid))


/* ------------------------------------------------------------------------ */
/* Version header                                                            */
/* ------------------------------------------------------------------------ */

enum ttrace_ring_mode_word {
	TTRACE_MODE_OVERWRITE = 0,	/* flight recorder: oldest goes */
	TTRACE_MODE_SATURATE = 1,	/* stop when full, count drops */
};

/*
 * The version header: the first thing a decoder reads. Fixed 128 bytes;
 * fields are appended in reserved space only, with a header_version bump.
 */
struct ttrace_version {
	uint64_t magic;			/*   0: TTRACE_MAGIC */
	uint16_t header_version;	/*   8: TTRACE_HEADER_VERSION */
	uint16_t aux_version;		/*  10: TTRACE_AUX_VERSION */
	uint16_t percpu_version;	/*  12: TTRACE_PERCPU_VERSION */
	uint16_t header_size;		/*  14: sizeof(struct ttrace_version) */
	uint32_t num_cpus;		/*  16: rings in the trace */
	uint32_t entry_size;		/*  20: TTRACE_ENTRY_SIZE */
	uint64_t entries_per_cpu;	/*  24: power of two */
	uint64_t tsc_hz;		/*  32: TSC ticks per second */
	uint64_t tsc_boot;		/*  40: TSC at boot (time origin) */
	uint64_t aux_size;		/*  48: bytes, power of two */
	uint64_t aux_mask;		/*  56: aux_size - 1 */
	uint64_t aux_first;		/*  64: oldest live aux record (counter) */
	uint64_t aux_last;		/*  72: one past the newest (counter) */
	uint32_t event_count;		/*  80: events in the metadata */
	uint32_t ring_mode;		/*  84: enum ttrace_ring_mode_word */
	uint64_t group_mask;		/*  88: enabled groups when written */
	uint64_t tsc_now;		/*  96: TSC when this header was filled */
	uint32_t meta_size;		/* 104: bytes of the metadata blob */
	uint32_t flags;			/* 108: zero */
	uint64_t reserved[2];		/* 112: zero */
};

TTRACE_STATIC_ASSERT(sizeof(struct ttrace_version) == 128, "version size");
TTRACE_OFFSET_ASSERT(struct ttrace_version, header_version, 8);
TTRACE_OFFSET_ASSERT(struct ttrace_version, aux_version, 10);
TTRACE_OFFSET_ASSERT(struct ttrace_version, percpu_version, 12);
TTRACE_OFFSET_ASSERT(struct ttrace_version, header_size, 14);
TTRACE_OFFSET_ASSERT(struct ttrace_version, num_cpus, 16);
TTRACE_OFFSET_ASSERT(struct ttrace_version, entry_size, 20);
TTRACE_OFFSET_ASSERT(struct ttrace_version, entries_per_cpu, 24);
TTRACE_OFFSET_ASSERT(struct ttrace_version, tsc_hz, 32);
TTRACE_OFFSET_ASSERT(struct ttrace_version, tsc_boot, 40);
TTRACE_OFFSET_ASSERT(struct ttrace_version, aux_size, 48);
TTRACE_OFFSET_ASSERT(struct ttrace_version, aux_mask, 56);
TTRACE_OFFSET_ASSERT(struct ttrace_version, aux_first, 64);
TTRACE_OFFSET_ASSERT(struct ttrace_version, aux_last, 72);
TTRACE_OFFSET_ASSERT(struct ttrace_version, event_count, 80);
TTRACE_OFFSET_ASSERT(struct ttrace_version, ring_mode, 84);
TTRACE_OFFSET_ASSERT(struct ttrace_version, group_mask, 88);
TTRACE_OFFSET_ASSERT(struct ttrace_version, tsc_now, 96);
TTRACE_OFFSET_ASSERT(struct ttrace_version, meta_size, 104);
TTRACE_OFFSET_ASSERT(struct ttrace_version, flags, 108);
TTRACE_OFFSET_ASSERT(struct ttrace_version, reserved, 112);

/* ------------------------------------------------------------------------ */
/* Event metadata blob (see docs/trace-format.md, "Event metadata blob")    */
/* ------------------------------------------------------------------------ */

/*
 * Little endian, byte packed (read it byte by byte, never by casting):
 *	 0 u32 magic TTRACE_META_MAGIC ("TTEM")
 *	 4 u16 version TTRACE_META_VERSION
 *	 6 u16 header size (16)
 *	 8 u32 total size, including the trailing checksum
 *	12 u16 number of groups
 *	14 u16 number of events
 *	16 groups: u8 bit, u8 flags, str8 name
 *	   events: u16 id, u8 group bit, u8 flags, u8 nargs, str8 name,
 *		   nargs x (u8 type, u8 aux tag, u8 offset, u8 size,
 *		   str8 name), str16 format (version 1: no offset and
 *		   size, argument i is word i)
 *	   u32 FNV-1a of every byte before it
 * str8 is u8 len, len bytes, a zero byte; str16 the same with a u16 len.
 */
#define TTRACE_META_MAGIC	0x4d455454U	/* "TTEM" little endian */
#define TTRACE_META_VERSION	2	/* 1: no argument offsets, still read */
#define TTRACE_META_HDR_SIZE	16
#define TTRACE_META_MAX_EVENTS	1024	/* the type word's 10 id bits */
#define TTRACE_META_MAX_GROUPS	64
#define TTRACE_META_MAX_NAME	63	/* event, group and argument names */
#define TTRACE_META_MAX_FORMAT	255

/* Argument types (u8 in the blob). */
enum ttrace_arg_type {
	TTRACE_ARG_U8 = 1,
	TTRACE_ARG_U16 = 2,
	TTRACE_ARG_U32 = 3,
	TTRACE_ARG_U64 = 4,
	TTRACE_ARG_S8 = 5,
	TTRACE_ARG_S16 = 6,
	TTRACE_ARG_S32 = 7,
	TTRACE_ARG_S64 = 8,
	TTRACE_ARG_PTR = 9,
	TTRACE_ARG_BOOL = 10,
	TTRACE_ARG_STR = 11,	/* aux reference: ident for the arg's tag */
	TTRACE_ARG_NTYPES = 12,
};

/* Whether an argument of type is signed (S8..S64 are consecutive). */
static inline int ttrace_arg_signed(uint8_t type)
{
	return type >= TTRACE_ARG_S8 && type <= TTRACE_ARG_S64;
}

#define TTRACE_EVF_DEFAULT_ON	0x01	/* event and group flags */

#endif /* TTRACE_FORMAT_H */
