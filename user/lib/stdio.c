/*
 * stdio: printf and friends over file descriptors (see stdio.h for the
 * model). The formatting itself is the kernel's fmt_vprintf, which hands
 * each output character to a putc callback; this file supplies two:
 *
 *   stdout_putc	appends to the stdout buffer, writing it out at '\n'
 *			(line buffering, the default) or when full;
 *   sink_putc		collects one call's output for another fd in a
 *			small buffer on the stack, written when full and at
 *			the end of the call, so one fprintf is usually one
 *			write().
 */
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <printfmt.h>

#define STDOUT_BUF	4096
#define SINK_BUF	256

static char stdout_buf[STDOUT_BUF];
static size_t stdout_len;
static int stdout_failed;	/* a stdout write failed; fflush reports it */
static int stdout_mode = _IOLBF;

struct sink {
	int fd;
	int failed;
	size_t len;
	char buf[SINK_BUF];
};

/* Writes out the stdout buffer. A vanished reader (EPIPE) ends the process
 * (write_all); other failures drop the text and set stdout_failed. */
static void stdout_drain(void)
{
	if (stdout_len == 0)
		return;
	if (write_all(stdout, stdout_buf, stdout_len) < 0)
		stdout_failed = 1;
	stdout_len = 0;
}

int fflush(int fd)
{
	int failed;

	if (fd != stdout)
		return 0;
	stdout_drain();
	failed = stdout_failed;
	stdout_failed = 0;
	return failed ? EOF : 0;
}

int setbuffering(int fd, int mode)
{
	if (fd != stdout || (mode != _IOLBF && mode != _IOFBF)) {
		errno = EINVAL;
		return -1;
	}
	stdout_drain();
	stdout_mode = mode;
	return 0;
}

/* fmt_vprintf callback for stdout: append, written out as stdout_mode
 * says. */
static void stdout_putc(int c, void *arg)
{
	(void)arg;
	stdout_buf[stdout_len++] = (char)c;
	if ((c == '\n' && stdout_mode == _IOLBF) ||
	    stdout_len == sizeof(stdout_buf))
		stdout_drain();
}

/* Writes out what the sink holds, remembering a failure. */
static void sink_drain(struct sink *s)
{
	if (s->len > 0 && write_all(s->fd, s->buf, s->len) < 0)
		s->failed = 1;
	s->len = 0;
}

/* fmt_vprintf callback for any fd but stdout. */
static void sink_putc(int c, void *arg)
{
	struct sink *s = arg;

	s->buf[s->len++] = (char)c;
	if (s->len == sizeof(s->buf))
		sink_drain(s);
}

int vfprintf(int fd, const char *fmt, va_list ap)
{
	struct sink s = { .fd = fd };
	int n;

	if (fd == stdout) {
		n = fmt_vprintf(stdout_putc, NULL, fmt, ap);
		return stdout_failed ? -1 : n;
	}
	stdout_drain();		/* keep earlier stdout text first */
	n = fmt_vprintf(sink_putc, &s, fmt, ap);
	sink_drain(&s);
	return s.failed ? -1 : n;
}

int fprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	return fmt_vsnprintf(buf, n, fmt, ap);
}

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = fmt_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return len;
}

int putchar(int c)
{
	stdout_putc(c, NULL);
	return stdout_failed ? EOF : (unsigned char)c;
}

int puts(const char *s)
{
	return printf("%s\n", s) < 0 ? EOF : 0;
}
