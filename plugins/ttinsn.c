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
 * Usage:
 *	qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off \
 *		-plugin build/plugins/ttinsn.so,out=marks.txt ...
 *
 * Debian ships QEMU 7.2 without its plugin header, so the few API types and
 * functions used here are declared below from QEMU's public
 * include/qemu/qemu-plugin.h (plugin API version 1, QEMU 7.2).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

static void on_mark(unsigned int vcpu, void *udata)
{
	fprintf(out, "mark %lu %llu cpu %u\n", (unsigned long)(uintptr_t)udata,
		(unsigned long long)insns, vcpu);
	fflush(out);
}

/* Counts every instruction of tb with an inline add; markers also get a
 * call, registered after the add so the count includes the marker. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int mark = mark_id(insn);

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

/* Arguments: out=FILE (default: stderr). */
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
		}
	}
	if (!info->system_emulation)
		qemu_plugin_outs("ttinsn: counts user-mode emulation too\n");
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
	return 0;
}
