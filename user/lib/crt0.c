/*
 * crt0: the process entry point. The kernel starts a program at _start with
 * rdi = argc, rsi = argv and rsp 16-byte aligned (abi/syscall.h). _start is
 * assembly because C code expects rsp to be 8 off alignment on entry; the
 * call supplies that, and passes argc/argv along in the registers they are
 * already in. Linked first into every program, outside libc.a.
 */
#include <err.h>
#include <stdlib.h>

__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"	/* outermost frame, for backtraces */
	"	call libc_start\n"
	"	ud2\n");

int main(int argc, char **argv);
__noreturn void libc_start(int argc, char **argv);

const char *progname = "?";

/* Runs main and exits with its return value. Called only from _start. */
void libc_start(int argc, char **argv)
{
	if (argc > 0 && argv[0])
		progname = argv[0];
	exit(main(argc, argv));
}
