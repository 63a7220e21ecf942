/*
 * The printf engine (the supported syntax is in printfmt.h).
 *
 * Each '%' directive is parsed into a `struct fmt_spec`, then one function
 * per kind of conversion (integer, string, character) lays it out as
 *
 *	[spaces] [sign] [0x prefix] [zeros] body [spaces]
 *
 * pushing characters one at a time into the caller's putch. Nothing is
 * buffered, so any width is fine without a large stack buffer; the only
 * scratch space is the 22 digits of a 64-bit octal number. Counts are kept
 * in size_t and only turned into the int result at the end, so widths near
 * INT_MAX cannot overflow anything.
 *
 * No floating point anywhere: the kernel is built with -mgeneral-regs-only.
 * No locks: the caller serialises its own output.
 */
#include <compiler.h>
#include <printfmt.h>

#define FMT_INT_MAX	__INT_MAX__

/* Where characters go, and how many were produced so far. */
struct fmt_out {
	void (*putch)(int c, void *arg);
	void *arg;
	size_t count;
};

enum fmt_flags {
	FL_LEFT = 1 << 0,	/* '-' */
	FL_ZERO = 1 << 1,	/* '0' */
	FL_PLUS = 1 << 2,	/* '+' */
	FL_SPACE = 1 << 3,	/* ' ' */
	FL_ALT = 1 << 4,	/* '#' */
};

enum fmt_length { LEN_INT, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T, LEN_J };

/* One parsed directive. */
struct fmt_spec {
	unsigned flags;		/* enum fmt_flags */
	int width;		/* 0 when absent */
	int prec;		/* -1 when absent */
	enum fmt_length length;
	char conv;		/* the conversion character */
};

static_assert(sizeof(size_t) == sizeof(ptrdiff_t), "%zd reads a ptrdiff_t");

static void emit(struct fmt_out *o, char c)
{
	o->putch((unsigned char)c, o->arg);
	o->count++;
}

static void emit_repeat(struct fmt_out *o, char c, size_t n)
{
	while (n--)
		emit(o, c);
}

static void emit_range(struct fmt_out *o, const char *s, const char *end)
{
	while (s < end)
		emit(o, *s++);
}

/* Spaces for a right-aligned field of body length len. */
static void pad_before(struct fmt_out *o, const struct fmt_spec *sp,
		       size_t len)
{
	if (!(sp->flags & FL_LEFT) && (size_t)sp->width > len)
		emit_repeat(o, ' ', sp->width - len);
}

/* Spaces for a left-aligned field of body length len. */
static void pad_after(struct fmt_out *o, const struct fmt_spec *sp,
		      size_t len)
{
	if ((sp->flags & FL_LEFT) && (size_t)sp->width > len)
		emit_repeat(o, ' ', sp->width - len);
}

/*
 * Reads a decimal number at *fmt, advancing it. Returns the value, or -1 if
 * it exceeds INT_MAX.
 */
static int parse_decimal(const char **fmt)
{
	int v = 0;
	const char *s = *fmt;

	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (FMT_INT_MAX - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*fmt = s;
	return v;
}

static const char *parse_flags(const char *fmt, unsigned *flags)
{
	for (*flags = 0;; fmt++) {
		switch (*fmt) {
		case '-': *flags |= FL_LEFT; break;
		case '0': *flags |= FL_ZERO; break;
		case '+': *flags |= FL_PLUS; break;
		case ' ': *flags |= FL_SPACE; break;
		case '#': *flags |= FL_ALT; break;
		default: return fmt;
		}
	}
}

/* Width, '*' included: a negative '*' means '-' flag. Returns -1 on
 * overflow. */
static int parse_width(const char **fmt, struct fmt_spec *sp, va_list *ap)
{
	int w;

	if (**fmt != '*')
		return parse_decimal(fmt);
	(*fmt)++;
	w = va_arg(*ap, int);
	if (w >= 0)
		return w;
	if (w == -FMT_INT_MAX - 1)
		return -1;
	sp->flags |= FL_LEFT;
	return -w;
}

/* Precision after '.', '*' included: a negative '*' means none. Returns -1
 * for none, -2 on overflow. */
static int parse_prec(const char **fmt, va_list *ap)
{
	int p;

	if (**fmt != '.')
		return -1;
	(*fmt)++;
	if (**fmt != '*') {
		p = parse_decimal(fmt);
		return p < 0 ? -2 : p;
	}
	(*fmt)++;
	p = va_arg(*ap, int);
	return p < 0 ? -1 : p;
}

static const char *parse_length(const char *fmt, enum fmt_length *len)
{
	switch (*fmt) {
	case 'h':
		if (fmt[1] == 'h') {
			*len = LEN_HH;
			return fmt + 2;
		}
		*len = LEN_H;
		return fmt + 1;
	case 'l':
		if (fmt[1] == 'l') {
			*len = LEN_LL;
			return fmt + 2;
		}
		*len = LEN_L;
		return fmt + 1;
	case 'z': *len = LEN_Z; return fmt + 1;
	case 't': *len = LEN_T; return fmt + 1;
	case 'j': *len = LEN_J; return fmt + 1;
	default: *len = LEN_INT; return fmt;
	}
}

/*
 * Parses the directive after a '%' into *sp (conv is NUL when the string
 * ends first). Returns the position after it, or NULL on a width or
 * precision over INT_MAX.
 */
static const char *parse_spec(const char *fmt, struct fmt_spec *sp,
			      va_list *ap)
{
	fmt = parse_flags(fmt, &sp->flags);
	sp->width = parse_width(&fmt, sp, ap);
	sp->prec = parse_prec(&fmt, ap);
	if (sp->width < 0 || sp->prec < -1)
		return NULL;
	fmt = parse_length(fmt, &sp->length);
	sp->conv = *fmt;
	return *fmt ? fmt + 1 : fmt;
}

static intmax_t arg_signed(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H: return (short)va_arg(*ap, int);
	case LEN_L: return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_Z: return va_arg(*ap, ptrdiff_t);
	case LEN_T: return va_arg(*ap, ptrdiff_t);
	case LEN_J: return va_arg(*ap, intmax_t);
	default: return va_arg(*ap, int);
	}
}

static uintmax_t arg_unsigned(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H: return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L: return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_Z: return va_arg(*ap, size_t);
	case LEN_T: return va_arg(*ap, size_t);
	case LEN_J: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, unsigned int);
	}
}

/* Writes v in base backwards into buf (24 bytes); returns the digit count. */
static size_t to_digits(char *buf, uintmax_t v, unsigned base, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n = 0;

	do {
		buf[n++] = set[v % base];
		v /= base;
	} while (v);
	return n;
}

static unsigned conv_base(char conv)
{
	switch (conv) {
	case 'o': return 8;
	case 'x': case 'X': case 'p': return 16;
	default: return 10;
	}
}

static const char *int_prefix(const struct fmt_spec *sp, uintmax_t v)
{
	if (sp->conv == 'p')
		return "0x";
	if (!(sp->flags & FL_ALT) || v == 0)
		return "";
	return sp->conv == 'x' ? "0x" : sp->conv == 'X' ? "0X" : "";
}

static size_t prefix_len(const char *prefix)
{
	return prefix[0] ? 2 : 0;
}

/*
 * Lays out an integer of magnitude v with an optional sign character,
 * following the C rules for precision, '#' and '0'.
 */
static void fmt_integer(struct fmt_out *o, const struct fmt_spec *sp,
			uintmax_t v, char sign)
{
	unsigned base = conv_base(sp->conv);
	const char *prefix = int_prefix(sp, v);
	char digits[24];
	size_t nd = to_digits(digits, v, base, sp->conv == 'X');
	size_t zeros, len;

	if (sp->prec == 0 && v == 0)
		nd = 0;
	zeros = (size_t)MAX(sp->prec, 0) > nd ? (size_t)sp->prec - nd : 0;
	/* '#' with %o: the first digit printed must be a zero. */
	if (base == 8 && (sp->flags & FL_ALT) && !zeros && (v || !nd))
		zeros = 1;
	len = !!sign + prefix_len(prefix) + zeros + nd;
	if ((sp->flags & (FL_ZERO | FL_LEFT)) == FL_ZERO && sp->prec < 0 &&
	    (size_t)sp->width > len) {
		zeros += sp->width - len;
		len = sp->width;
	}
	pad_before(o, sp, len);
	if (sign)
		emit(o, sign);
	emit_range(o, prefix, prefix + prefix_len(prefix));
	emit_repeat(o, '0', zeros);
	while (nd)
		emit(o, digits[--nd]);
	pad_after(o, sp, len);
}

/* %d and %i: the sign comes from the value or the '+' and ' ' flags. */
static void fmt_signed(struct fmt_out *o, const struct fmt_spec *sp,
		       va_list *ap)
{
	intmax_t v = arg_signed(ap, sp->length);
	char sign = 0;

	if (v < 0)
		sign = '-';
	else if (sp->flags & FL_PLUS)
		sign = '+';
	else if (sp->flags & FL_SPACE)
		sign = ' ';
	fmt_integer(o, sp, v < 0 ? -(uintmax_t)v : (uintmax_t)v, sign);
}

/* Length of s, looking at no more than max bytes. */
static size_t bounded_strlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* %s: the precision bounds how much of the string is read, not just shown. */
static void fmt_string(struct fmt_out *o, const struct fmt_spec *sp,
		       const char *s)
{
	size_t len;

	if (!s)
		s = "(null)";
	len = bounded_strlen(s, sp->prec < 0 ? SIZE_MAX : (size_t)sp->prec);
	pad_before(o, sp, len);
	emit_range(o, s, s + len);
	pad_after(o, sp, len);
}

static void fmt_char(struct fmt_out *o, const struct fmt_spec *sp, char c)
{
	pad_before(o, sp, 1);
	emit(o, c);
	pad_after(o, sp, 1);
}

/*
 * Performs one parsed conversion, taking its argument from ap. Returns false
 * if the conversion character is not one we know; nothing is printed then.
 */
static bool fmt_convert(struct fmt_out *o, const struct fmt_spec *sp,
			va_list *ap)
{
	switch (sp->conv) {
	case 'd': case 'i':
		fmt_signed(o, sp, ap);
		return true;
	case 'u': case 'o': case 'x': case 'X':
		fmt_integer(o, sp, arg_unsigned(ap, sp->length), 0);
		return true;
	case 'p':
		fmt_integer(o, sp, (uintptr_t)va_arg(*ap, void *), 0);
		return true;
	case 's':
		fmt_string(o, sp, va_arg(*ap, const char *));
		return true;
	case 'c':
		fmt_char(o, sp, (char)va_arg(*ap, int));
		return true;
	case '%':
		emit(o, '%');
		return true;
	default:
		return false;
	}
}

/*
 * Formats fmt with the arguments in ap, passing each output character to
 * putch(c, arg) in order. Returns the number of characters produced, or -1
 * if a width or precision exceeds INT_MAX (output stops there) or the total
 * does. Reentrant; takes no locks, so putch decides about serialisation.
 */
int fmt_vprintf(void (*putch)(int c, void *arg), void *arg, const char *fmt,
		va_list ap)
{
	struct fmt_out o = { putch, arg, 0 };
	struct fmt_spec sp;
	va_list args;

	/* A copy, so helpers can take a va_list * portably. */
	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;

		if (*fmt != '%') {
			emit(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		if (!fmt)
			break;
		if (!fmt_convert(&o, &sp, &args))
			emit_range(&o, start, fmt);
	}
	va_end(args);
	return fmt && o.count <= FMT_INT_MAX ? (int)o.count : -1;
}

/* An snprintf destination: buf holds size bytes, pos counts every char. */
struct fmt_buf {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_putch(int c, void *arg)
{
	struct fmt_buf *b = arg;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = (char)c;
	b->pos++;
}

/*
 * Formats into buf, writing at most n bytes including a terminating NUL,
 * which is always written when n > 0 (buf may be NULL when n is 0).
 * Returns the length the whole output would have had (C99 semantics), so
 * the result was truncated iff it is >= n; -1 as for fmt_vprintf.
 */
int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct fmt_buf b = { buf, n, 0 };
	int ret = fmt_vprintf(buf_putch, &b, fmt, ap);

	if (n > 0)
		buf[MIN(b.pos, n - 1)] = 0;
	return ret;
}

/* fmt_vsnprintf with the arguments inline. */
int fmt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fmt_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return ret;
}
