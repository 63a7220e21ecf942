/*
 * ttinsn: a QEMU TCG plugin that counts guest instructions exactly, for
 * `make bench`. Every executed guest instruction adds one to a counter (an
 * inline add, so no call per instruction); the guest brackets what it
 * measures with marker instructions (INSN_MARK() in
 * kern/include/abi/insn_mark.h: a 7-byte NOP whose displacement carries
 * 0x7474 and a 16-bit mark id), and each marker executed appends
 * "mark ID COUNT" to the output file, COUNT being the instructions
 * executed by all vCPUs before it. The difference of two marks is exact
 * and, with `-icount shift=0,sleep=off -accel tcg,thread=single`,
 * identical run to run.
 *
 * Across CPUs (vcpus=on): the line also carries every vCPU's own count,
 * "vcpus C0 C1 ...", so a region that starts on one CPU and ends on
 * another (a wakeup: the waker's call, then the woken CPU's switch) is
 * the sum of per-vCPU differences, free of what the other CPUs ran
 * meanwhile. With thread=single one vCPU runs at a time and switches only
 * between translation blocks: a callback at each block's start charges
 * the global count since the last switch to the vCPU that ran. A mark
 * may also be an address (at=ID:ADDR, up to MAX_AT of them): the
 * instruction at guest virtual address ADDR logs mark ID, so a kernel
 * function is a mark without a marker in its code.
 *
 * Usage:
 *	qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off \
 *		-plugin build/plugins/ttinsn.so,out=marks.txt[,vcpus=on][,at=ID:ADDR] ...
 *
 * Debian ships QEMU 7.2 without its plugin header, so the few API types and
 * functions used here are declared below from QEMU's public
 * include/qemu/qemu-plugin.h (plugin API version 1, QEMU 7.2).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kern/include/abi/insn_mark.h"

/* --- from qemu-plugin.h, QEMU 7.2 (QEMU_PLUGIN_VERSION 1) --- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
/* --- end of the API declarations --- */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv);

static uint64_t insns;		/* every vCPU's: thread=single keeps it exact */
static FILE *out;

#define MAX_VCPUS	64
#define MAX_AT		8
static bool per_vcpu;			/* vcpus=on */
static uint64_t vcpu_insns[MAX_VCPUS];	/* each vCPU's, up to ran_since */
static unsigned int running;		/* the vCPU that runs now */
static uint64_t ran_since;		/* insns when it started running */
static unsigned int n_vcpus = 1;
static struct {
	uint64_t vaddr;
	int id;
} at[MAX_AT];				/* at=ID:ADDR */
static unsigned int n_at;

/* The mark id if insn is a marker (see insn_mark.h), else -1. */
static int mark_id(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != INSN_MARK_SIZE ||
	    b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 ||
	    b[5] != (INSN_MARK_MAGIC & 0xff) || b[6] != INSN_MARK_MAGIC >> 8)
		return -1;
	return b[3] | b[4] << 8;
}

/* A block starts on vcpu: the instructions since the last switch were
 * the previous vCPU's. */
static void on_block(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu == running)
		return;
	vcpu_insns[running] += insns - ran_since;
	ran_since = insns;
	running = vcpu < MAX_VCPUS ? vcpu : MAX_VCPUS - 1;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	fprintf(out, "mark %lu %llu cpu %u", (unsigned long)(uintptr_t)udata,
		(unsigned long long)insns, vcpu);
	if (per_vcpu) {
		fprintf(out, " vcpus");
		for (unsigned int i = 0; i < n_vcpus; i++)
			fprintf(out, " %llu", (unsigned long long)(vcpu_insns[i] +
				(i == running ? insns - ran_since : 0)));
	}
	fputc('\n', out);
	fflush(out);
}

/* The mark id of insn's address (at=), else -1. */
static int at_id(const struct qemu_plugin_insn *insn)
{
	uint64_t vaddr = qemu_plugin_insn_vaddr(insn);

	for (unsigned int i = 0; i < n_at; i++)
		if (at[i].vaddr == vaddr)
			return at[i].id;
	return -1;
}

/* Counts every instruction of tb with an inline add; markers also get a
 * call, registered after the add so the count includes the marker. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (per_vcpu)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int mark = mark_id(insn);

		if (mark < 0 && n_at)
			mark = at_id(insn);

		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
		if (mark >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)mark);
	}
}

static void on_exit_(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	fprintf(out, "total %llu\n", (unsigned long long)insns);
	fclose(out);
}

/* ID:ADDR (decimal id, hex or decimal address) into at[]; false if it
 * is not one or at[] is full. */
static bool parse_at(const char *arg)
{
	char *end;
	unsigned long id = strtoul(arg, &end, 10);

	if (end == arg || *end != ':' || id > 0xffff || n_at == MAX_AT)
		return false;
	arg = end + 1;
	at[n_at].vaddr = strtoull(arg, &end, 0);
	if (end == arg || *end)
		return false;
	at[n_at++].id = (int)id;
	return true;
}

/* Arguments: out=FILE (default: stderr), vcpus=on, at=ID:ADDR. */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	out = stderr;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "w");
			if (!out) {
				qemu_plugin_outs("ttinsn: cannot open out=\n");
				return -1;
			}
		} else if (!strcmp(argv[i], "vcpus=on")) {
			per_vcpu = true;
		} else if (!strncmp(argv[i], "at=", 3)) {
			if (!parse_at(argv[i] + 3)) {
				qemu_plugin_outs("ttinsn: at=ID:ADDR, at most 8\n");
				return -1;
			}
		} else {
			qemu_plugin_outs("ttinsn: unknown argument\n");
			return -1;
		}
	}
	if (info->system_emulation && info->system.smp_vcpus > 0)
		n_vcpus = info->system.smp_vcpus < MAX_VCPUS ?
			  (unsigned int)info->system.smp_vcpus : MAX_VCPUS;
	if (!info->system_emulation)
		qemu_plugin_outs("ttinsn: counts user-mode emulation too\n");
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
	return 0;
}
