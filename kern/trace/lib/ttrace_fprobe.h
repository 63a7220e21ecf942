/*
 * ttrace_fprobe.h: the pure half of function probes (kern/trace/lib/
 * fprobe_parse.c): the ctl grammar that defines and deletes them, and the
 * event metadata a probe's definition turns into. Host-tested; the kernel
 * side (kern/trace/fprobe.c) checks the function, takes an event id from
 * the reserved range and arms the function's entry site.
 *
 * ctl commands (docs/probes.md, "Function probes"):
 *	fprobe add NAME FUNC [ARG...]		an event NAME at FUNC's entry
 *	fprobe add NAME FUNC%return [ARG]	... at its return
 *	fprobe del NAME
 *	fprobe del *				every probe (one grace period)
 * ARG is [FIELD=]argN:TYPE at the entry (N 0..5: rdi rsi rdx rcx r8 r9)
 * or [FIELD=]ret:TYPE at the return (default: ret:s64); FIELD (default
 * argN, ret) names the event's argument. TYPE is one of u8 u16 u32 u64
 * s8 s16 s32 s64 ptr bool, str (a NUL-terminated kernel string, copied
 * up to TTRACE_FPROBE_STR_MAX bytes after checking every byte's page is
 * mapped) or ustr (the same from the current process's memory).
 *
 * Usage:
 *	struct ttrace_ctl_cmd cmd;
 *	if (!ttrace_ctl_parse(&cmd, text, len, &meta) &&
 *	    cmd.op == TTRACE_CTL_FPROBE)
 *		...cmd.fprobe...
 *	ttrace_fprobe_meta(&cmd.fprobe, &store, id, group);	store.ev
 */
#ifndef TTRACE_FPROBE_H
#define TTRACE_FPROBE_H

#include <compiler.h>
#include <ttrace_meta.h>

#define TTRACE_FPROBE_NAME_MAX	23	/* an fprobe's and a field's name */
#define TTRACE_FPROBE_FUNC_MAX	TTRACE_META_MAX_NAME
#define TTRACE_FPROBE_MAX_ARGS	6	/* the argument registers */
#define TTRACE_FPROBE_STR_MAX	64	/* bytes of a string, NUL included */
#define TTRACE_FPROBE_RET	0xff	/* reg of the return value */

enum ttrace_fprobe_op { TTRACE_FPROBE_ADD = 1, TTRACE_FPROBE_DEL };
enum ttrace_fprobe_str { TTRACE_FPROBE_NOSTR, TTRACE_FPROBE_KSTR,
			 TTRACE_FPROBE_USTR };

struct ttrace_fprobe_arg {
	char name[TTRACE_FPROBE_NAME_MAX + 1];
	uint8_t type;		/* enum ttrace_arg_type */
	uint8_t str;		/* enum ttrace_fprobe_str (type STR) */
	uint8_t reg;		/* 0..5, or TTRACE_FPROBE_RET */
};

/* One fprobe as ctl described it (DEL: only op and name). */
struct ttrace_fprobe_spec {
	uint32_t op;		/* enum ttrace_fprobe_op */
	char name[TTRACE_FPROBE_NAME_MAX + 1];
	char func[TTRACE_FPROBE_FUNC_MAX + 1];
	bool ret;		/* at the return: args[0] is the value */
	uint8_t nargs;
	struct ttrace_fprobe_arg args[TTRACE_FPROBE_MAX_ARGS];
};

/* The metadata of one fprobe event, and the storage it points into. */
struct ttrace_fprobe_meta {
	struct ttrace_event_meta ev;
	struct ttrace_arg_meta args[TTRACE_FPROBE_MAX_ARGS];
	char name[TTRACE_FPROBE_NAME_MAX + 1];
	char format[TTRACE_META_MAX_FORMAT + 1];
};

struct ttrace_ctl_cmd;

/* The fprobe row's parser (ttrace_ctl.h): tok[0] is "fprobe". Fills
 * cmd->fprobe; returns NULL or ttrace_ctl_err()'s message. Whether FUNC
 * exists and NAME is free is the kernel's to check. */
const char *ttrace_fprobe_parse(struct ttrace_ctl_cmd *cmd, char **tok,
				size_t ntok,
				const struct ttrace_meta_table *meta);

/* Fills m with the metadata of the event spec defines, as id in group:
 * its format names the function and prints every field. m's argument
 * names point into spec, which must live as long as m. */
void ttrace_fprobe_meta(const struct ttrace_fprobe_spec *spec,
			struct ttrace_fprobe_meta *m, uint16_t id,
			uint8_t group);

/* Whether two definitions describe the same event (the same records). */
bool ttrace_fprobe_same(const struct ttrace_fprobe_spec *a,
			const struct ttrace_fprobe_spec *b);

/* The spec as the command that made it ("fprobe add ..."), into s. */
void ttrace_fprobe_text(const struct ttrace_fprobe_spec *spec,
			struct seqbuf *s);

#endif /* TTRACE_FPROBE_H */
