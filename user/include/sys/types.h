/*
 * Scalar types shared by the user headers. User space is LP64, so a long
 * holds any byte count or file offset the kernel hands back.
 */
#ifndef ULIB_SYS_TYPES_H
#define ULIB_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef long ssize_t;
typedef long off_t;

#endif /* ULIB_SYS_TYPES_H */
