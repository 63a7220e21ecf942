/*
 * poweroff: stop the machine; under QEMU, QEMU exits with STATUS.
 *
 *	poweroff [STATUS]	default 0
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	poweroff(argc > 1 ? atoi(argv[1]) : 0);
}
