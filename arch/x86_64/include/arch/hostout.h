/*
 * The layout of the host channel's window (arch/x86_64/src/hostout.c): the
 * one description of it, which the kernel compiles and scripts/hostout.py
 * reads (it takes the two HOSTOUT_ numbers and the header's fields, in
 * order, from this file) to cut the data out on the host.
 *
 *	offset 0			struct hostout_header
 *	offset HOSTOUT_DATA_OFFSET	the bytes the guest wrote, length of
 *					them (the rest of the window unused)
 *
 * Little-endian, as the guest writes it. Keep each field on a line of its
 * own as "uint64_t name;": hostout.py reads them so.
 */
#ifndef ARCH_HOSTOUT_H
#define ARCH_HOSTOUT_H

#include <stdint.h>

#define HOSTOUT_MAGIC		0x54554f54534f4854ull	/* "THOSTOUT" */
#define HOSTOUT_DATA_OFFSET	4096

struct hostout_header {
	uint64_t magic;		/* HOSTOUT_MAGIC once the guest set it up */
	uint64_t length;	/* data bytes written */
};

#endif /* ARCH_HOSTOUT_H */
