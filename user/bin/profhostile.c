/*
 * profhostile: user stacks no profiler may trust (docs/profiling.md;
 * tests/seams_prof30k.py samples it). Each phase spins ROUNDS rounds in
 * a function of its own with rbp set to:
 *
 *	hostile_garbage		an odd number (misaligned)
 *	hostile_kernel		a kernel address (the direct map)
 *	hostile_loop		a frame that links to itself, its return
 *				address a user pc
 *	hostile_unmapped	a user address nothing maps
 *	hostile_kernel_pc	a frame whose return address is a kernel one
 *
 * The spin touches no memory through rbp and calls nothing, so the
 * program is unharmed; a sample's user walk must end at once (the loop:
 * after its one good frame), fault nothing, and take no kernel address
 * for a user pc. Prints "profhostile: done".
 *
 *	profhostile [ROUNDS]	(default 20000000)
 */
#include <stdio.h>
#include <stdlib.h>

/* Spins rounds times with rbp = fp, then puts rbp back: inline, so a
 * sample's pc is in the phase's own function. */
static __attribute__((always_inline)) inline void spin_with_rbp(
	unsigned long fp, unsigned long rounds)
{
	__asm__ volatile("push %%rbp\n\t"
			 "mov %0, %%rbp\n\t"
			 "1: dec %1\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp"
			 : "+r"(fp), "+r"(rounds) : : "cc", "memory");
}

/* Each phase a function of its own, so a sample's pc names it. */
#define PHASE(name, fp)							\
	static __attribute__((noinline)) void name(unsigned long rounds)	\
	{								\
		spin_with_rbp(fp, rounds);				\
	}

/* A frame that links to itself and returns to a user pc, and one whose
 * return address is a kernel address. */
static unsigned long loop_frame[2] __attribute__((aligned(16)));
static unsigned long kpc_frame[2] __attribute__((aligned(16)));

PHASE(hostile_garbage, 0x123457)
PHASE(hostile_kernel, 0xffff800000100000ul)
PHASE(hostile_loop, (unsigned long)loop_frame)
PHASE(hostile_unmapped, 0x00007f0000000000ul)
PHASE(hostile_kernel_pc, (unsigned long)kpc_frame)

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) :
				20000000ul;

	loop_frame[0] = (unsigned long)loop_frame;
	loop_frame[1] = (unsigned long)main;
	kpc_frame[0] = 0;
	kpc_frame[1] = 0xffffffff80100000ul;
	hostile_garbage(rounds);
	hostile_kernel(rounds);
	hostile_loop(rounds);
	hostile_unmapped(rounds);
	hostile_kernel_pc(rounds);
	printf("profhostile: done\n");
	return 0;
}
