/*
 * text_patch.h: rewriting 5-byte instructions of kernel text while every
 * CPU runs it (arch/x86_64/src/text_poke.c; docs/function-graph.md).
 *
 * Every patch site holds one of two instructions, and one of the two is
 * always the 5-byte NOP the compiler put there: a tracepoint's NOP <-> jmp
 * to its recording code, a function's NOP <-> call to the graph tracer's
 * trampoline. That is what makes the scheme safe: while a site is in
 * flight it starts with int3, and a CPU that meets it is sent past the
 * site, i.e. runs the NOP, which is one of the two legal states.
 *
 *	struct text_patch p[2] = { { site_a, NOP }, { site_b, JMP } };
 *	text_patch_apply(p, 2, TEXT_PATCH_LIVE);	// sorts p
 *
 * Text is mapped read-only (both at KERN_LOAD and in the direct map); the
 * patcher writes it with CR0.WP cleared on its own CPU, interrupts off, for
 * the length of one pass of stores.
 */
#ifndef TEXT_PATCH_H
#define TEXT_PATCH_H

#include <compiler.h>

#define TEXT_PATCH_LEN	5

/* x86's 5-byte NOP, `nopl 0(%rax,%rax,1)`: what the compiler emits for
 * every patchable site (asm goto sites and function entry sites). */
#define TEXT_NOP5	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 }
#define TEXT_OP_JMP	0xe9
#define TEXT_OP_CALL	0xe8

struct text_patch {
	uintptr_t addr;			/* first byte of the site */
	uint8_t insn[TEXT_PATCH_LEN];	/* what the site must hold */
};

enum text_patch_mode {
	TEXT_PATCH_LIVE,	/* other CPUs may run the text: int3 + syncs */
	TEXT_PATCH_ALONE,	/* no other CPU runs kernel text (boot before
				 * the APs, or panic after stopping them) */
};

struct trapframe;

void text_patch_init(void);
bool text_patch_bp_fixup(struct trapframe *tf);
void text_patch_apply(struct text_patch *p, size_t n,
		      enum text_patch_mode mode);
void text_patch_encode(struct text_patch *p, uintptr_t addr, uint8_t op,
		       uintptr_t target);
bool text_patch_is_nop(uintptr_t addr);

#endif /* TEXT_PATCH_H */
