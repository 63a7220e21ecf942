/*
 * errno_text: the words for each error number of abi/errno.h, as that
 * header's comments put them, for the text of a process's last error
 * (sysfile.c writes "open /x: no such file or directory" into errstr).
 *
 *	printk("open: %s\n", errno_text(-r));	// r = -ENOENT
 */
#ifndef ERRNO_TEXT_H
#define ERRNO_TEXT_H

/* Returns the text for error number err (positive), or "unknown error". */
const char *errno_text(long err);

#endif /* ERRNO_TEXT_H */
