/*
 * The handlers of GCC's -fsanitize=undefined (CONFIG_UBSAN, docs/debug.md).
 *
 * The compiler puts a check before each operation whose result C leaves
 * undefined (a shift by the width or more, signed overflow, an index past
 * a fixed array, a misaligned access, a bool that is neither 0 nor 1...)
 * and calls __ubsan_handle_KIND(data, operands...) when it fails. data
 * starts with the source location; the layouts below are the compiler's
 * (libsanitizer's ubsan_handlers.h), only the fields read here are named.
 *
 * Every handler prints one line, "UBSAN: KIND in FILE:LINE:COLUMN", the
 * operands where they tell something, and panics: a test that reaches
 * undefined behaviour fails, with the place named. The handlers run in any
 * context, so they only printk; they are built without the sanitizer and
 * without fentry sites (Makefrag), so they cannot call themselves.
 */
#include <printk.h>
#include <compiler.h>
#include <atomic.h>

struct ubsan_loc {
	const char *file;
	uint32_t line;
	uint32_t column;
};

struct ubsan_type {
	uint16_t kind;		/* 0 integer, 1 float, 0xffff unknown */
	uint16_t info;		/* integer: bit 0 signed, bits 1.. log2(bits) */
	char name[];
};

struct ubsan_overflow {			/* add, sub, mul, negate, divrem */
	struct ubsan_loc loc;
	const struct ubsan_type *type;
};

struct ubsan_shift {
	struct ubsan_loc loc;
	const struct ubsan_type *lhs_type;
	const struct ubsan_type *rhs_type;
};

struct ubsan_bounds {
	struct ubsan_loc loc;
	const struct ubsan_type *array_type;
	const struct ubsan_type *index_type;
};

struct ubsan_mismatch {
	struct ubsan_loc loc;
	const struct ubsan_type *type;
	uint8_t log_alignment;
	uint8_t check_kind;
};

struct ubsan_loc_only {			/* unreachable, pointer overflow... */
	struct ubsan_loc loc;
};

struct ubsan_typed {			/* load_invalid_value, vla_bound */
	struct ubsan_loc loc;
	const struct ubsan_type *type;
};

static int ubsan_reporting;

/* Prints the report's first line. UB met while printing a report (in
 * printk, say) panics at once instead of reporting itself again. */
static void ubsan_begin(const struct ubsan_loc *loc, const char *kind)
{
	if (atomic_swap(&ubsan_reporting, 1))
		panic("UBSAN: %s in %s:%u while reporting", kind, loc->file,
		      loc->line);
	printk(KERN_EMERG "UBSAN: %s in %s:%u:%u\n", kind, loc->file,
	       loc->line, loc->column);
}

/* Ends the report: the test that got here fails. */
static __noreturn void ubsan_end(const struct ubsan_loc *loc,
				 const char *kind)
{
	panic("UBSAN: %s in %s:%u", kind, loc->file, loc->line);
}

static bool type_signed(const struct ubsan_type *t)
{
	return t->kind == 0 && (t->info & 1);
}

/* An operand as the compiler passes it: integers of up to 64 bits inline,
 * wider ones (none in this kernel) by pointer. */
static void print_operand(const char *what, const struct ubsan_type *t,
			  uintptr_t v)
{
	if (t->kind != 0 || (1u << (t->info >> 1)) > 64)
		printk(KERN_EMERG "  %s of type %s\n", what, t->name);
	else if (type_signed(t))
		printk(KERN_EMERG "  %s %ld of type %s\n", what, (long)v, t->name);
	else
		printk(KERN_EMERG "  %s %lu of type %s\n", what, v, t->name);
}

/* The handlers of the four binary overflows differ in the sign alone. */
static __noreturn void overflow(struct ubsan_overflow *d, const char *kind,
				uintptr_t a, uintptr_t b)
{
	ubsan_begin(&d->loc, kind);
	print_operand("left", d->type, a);
	print_operand("right", d->type, b);
	ubsan_end(&d->loc, kind);
}

#define UBSAN_HANDLER(name, ...) \
	void __ubsan_handle_##name(__VA_ARGS__); \
	void __ubsan_handle_##name(__VA_ARGS__)

UBSAN_HANDLER(add_overflow, struct ubsan_overflow *d, uintptr_t a, uintptr_t b)
{
	overflow(d, "integer overflow in +", a, b);
}

UBSAN_HANDLER(sub_overflow, struct ubsan_overflow *d, uintptr_t a, uintptr_t b)
{
	overflow(d, "integer overflow in -", a, b);
}

UBSAN_HANDLER(mul_overflow, struct ubsan_overflow *d, uintptr_t a, uintptr_t b)
{
	overflow(d, "integer overflow in *", a, b);
}

UBSAN_HANDLER(divrem_overflow, struct ubsan_overflow *d, uintptr_t a,
	      uintptr_t b)
{
	overflow(d, b ? "integer overflow in / or %" : "division by zero", a, b);
}

/* The handlers whose report is one operand. */
static __noreturn void one_operand(struct ubsan_loc *loc, const char *kind,
				   const char *what,
				   const struct ubsan_type *type, uintptr_t v)
{
	ubsan_begin(loc, kind);
	print_operand(what, type, v);
	ubsan_end(loc, kind);
}

UBSAN_HANDLER(negate_overflow, struct ubsan_overflow *d, uintptr_t a)
{
	one_operand(&d->loc, "integer overflow in unary -", "operand",
		    d->type, a);
}

UBSAN_HANDLER(shift_out_of_bounds, struct ubsan_shift *d, uintptr_t a,
	      uintptr_t b)
{
	ubsan_begin(&d->loc, "shift-out-of-bounds");
	print_operand("value", d->lhs_type, a);
	print_operand("shift", d->rhs_type, b);
	ubsan_end(&d->loc, "shift-out-of-bounds");
}

UBSAN_HANDLER(out_of_bounds, struct ubsan_bounds *d, uintptr_t index)
{
	ubsan_begin(&d->loc, "array-index-out-of-bounds");
	print_operand("index", d->index_type, index);
	printk(KERN_EMERG "  into %s\n", d->array_type->name);
	ubsan_end(&d->loc, "array-index-out-of-bounds");
}

UBSAN_HANDLER(type_mismatch_v1, struct ubsan_mismatch *d, uintptr_t ptr)
{
	uintptr_t align = (uintptr_t)1 << d->log_alignment;
	const char *kind = !ptr ? "null pointer use" :
		ptr & (align - 1) ? "misaligned access" :
		"object too small for its type";

	ubsan_begin(&d->loc, kind);
	printk(KERN_EMERG "  address %#lx, type %s, needs %lu-byte "
	       "alignment\n", ptr, d->type->name, align);
	ubsan_end(&d->loc, kind);
}

UBSAN_HANDLER(load_invalid_value, struct ubsan_typed *d, uintptr_t v)
{
	ubsan_begin(&d->loc, "invalid value loaded (bool or enum)");
	printk(KERN_EMERG "  value %#lx of type %s\n", v, d->type->name);
	ubsan_end(&d->loc, "invalid value loaded (bool or enum)");
}

UBSAN_HANDLER(vla_bound_not_positive, struct ubsan_typed *d, uintptr_t bound)
{
	one_operand(&d->loc, "variable-length array bound not positive",
		    "bound", d->type, bound);
}

UBSAN_HANDLER(pointer_overflow, struct ubsan_loc_only *d, uintptr_t base,
	      uintptr_t result)
{
	ubsan_begin(&d->loc, "pointer overflow");
	printk(KERN_EMERG "  pointer %#lx became %#lx\n", base, result);
	ubsan_end(&d->loc, "pointer overflow");
}

/* The handlers that have nothing to add to the place. */
static __noreturn void plain(struct ubsan_loc *loc, const char *kind)
{
	ubsan_begin(loc, kind);
	ubsan_end(loc, kind);
}

UBSAN_HANDLER(builtin_unreachable, struct ubsan_loc_only *d)
{
	plain(&d->loc, "__builtin_unreachable reached");
}

UBSAN_HANDLER(nonnull_arg, struct ubsan_loc_only *d)
{
	plain(&d->loc, "null passed as a nonnull argument");
}

UBSAN_HANDLER(nonnull_return_v1, struct ubsan_loc_only *d,
	      struct ubsan_loc *where)
{
	(void)d;
	plain(where, "null returned from a returns_nonnull function");
}

UBSAN_HANDLER(invalid_builtin, struct ubsan_loc_only *d)
{
	plain(&d->loc, "zero passed to __builtin_ctz or clz");
}
