/*
 * The console: the serial line as the system's terminal, with a cooked
 * line discipline. The UART driver hands received bytes to
 * console_receive() from its interrupt handler, which edits the current
 * line and echoes as the bytes arrive:
 *
 *	printable, tab	appended and echoed
 *	BS, DEL		erase the last character of the line ("\b \b")
 *	CR, LF		end the line (echo a newline); readers may take it
 *	^D		end the input: a read gets the line so far, or 0 (end
 *			of file) at the start of a line
 *	^C		drop the line, print "^C", kill the foreground
 *			process (console_set_fg) if there is one
 *	^T		status (as on BSD): print every CPU and process, with
 *			each sleeper's wait channel and kernel backtrace
 *			(proc_dump); not part of any line
 *
 * Finished lines queue in a 4 KiB ring, so typed-ahead input waits for its
 * reader; /dev/cons reads one line per read (console_read).
 *
 *	char line[128];
 *	long n = console_read(line, sizeof(line));	// "ls\n", 0, -EINTR
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <compiler.h>

/* Output: any context, interrupt handlers and panic included. */
void console_putc(int c);
void console_write(const char *s, size_t n);

/* Copies the next finished line (up to n bytes; the rest stays for the
 * next read) into buf, sleeping until there is one. Returns the count, 0
 * for ^D at the start of a line, or -EINTR if the process was killed
 * while it waited. Process context only. */
long console_read(char *buf, size_t n);

/* Makes pid the process ^C kills; 0 for none. Any context. */
void console_set_fg(int pid);

#endif /* CONSOLE_H */
