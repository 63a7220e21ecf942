/*
 * Symbolised backtraces. ksym_addrs/ksym_names come from the second link
 * pass (scripts/gen-ksyms.sh writes them as assembly into .ksyms): addresses
 * sorted ascending, names as offsets into one string blob. The first link
 * pass sees empty weak tables, so a kernel without symbols still links.
 */
#include <ksyms.h>
#include <printk.h>
#include <proc.h>
#include <smp.h>
#include <arch/mmu.h>

extern const uint64_t ksym_addrs[] __attribute__((weak));
extern const uint32_t ksym_name_offs[] __attribute__((weak));
extern const char ksym_names[] __attribute__((weak));
extern const uint64_t ksym_count __attribute__((weak));

/* Returns the name of the function containing addr and sets *offset, or
 * NULL when addr is outside every known symbol. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset)
{
	if (!&ksym_count || ksym_count == 0 || addr < ksym_addrs[0])
		return NULL;
	size_t lo = 0, hi = ksym_count;	/* invariant: addrs[lo] <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksym_addrs[lo];
	return &ksym_names[ksym_name_offs[lo]];
}

/* The name of symbol i (in address order) with its address in *addr, or
 * NULL past the last. */
const char *ksym_at(uint64_t i, uintptr_t *addr)
{
	if (!&ksym_count || i >= ksym_count)
		return NULL;
	*addr = ksym_addrs[i];
	return &ksym_names[ksym_name_offs[i]];
}

/* Returns the first symbol name for which match(arg, name) holds, or
 * NULL. */
const char *ksym_find(bool (*match)(const char *arg, const char *name),
		      const char *arg)
{
	for (uint64_t i = 0; &ksym_count && i < ksym_count; i++)
		if (match(arg, &ksym_names[ksym_name_offs[i]]))
			return &ksym_names[ksym_name_offs[i]];
	return NULL;
}

/* A frame the walk may read: aligned and with both its words in [lo, hi). */
static bool frame_ok(uintptr_t rbp, uintptr_t lo, uintptr_t hi)
{
	return rbp >= lo && rbp <= hi - 16 && (rbp & 7) == 0;
}

static void print_pc(int depth, uintptr_t pc)
{
	uintptr_t off;
	const char *name = ksym_lookup(pc, &off);

	if (name)
		printk(KERN_EMERG "  #%02d %016lx %s+0x%lx\n", depth, pc, name, off);
	else
		printk(KERN_EMERG "  #%02d %016lx ?\n", depth, pc);
}

/* Walks the frame-pointer chain from rbp (the kernel is built with
 * -fno-omit-frame-pointer) and prints each return address with its symbol,
 * reading only frames inside [lo, hi). A return address the
 * function-graph tracer hooked is shown as the real one, from shadow, the
 * walked thread's shadow stack (NULL: none). Stops at a null or
 * implausible frame, or after 32 frames. */
void backtrace_print_within(uintptr_t rbp, uintptr_t lo, uintptr_t hi,
			    const struct fgraph_shadow *shadow)
{
	for (int depth = 0; depth < 32 && frame_ok(rbp, lo, hi); depth++) {
		const uintptr_t *frame = (const uintptr_t *)rbp;
		uintptr_t pc = fgraph_ret_addr(shadow, &frame[1]);

		if (pc < KERNBASE)
			break;
		print_pc(depth, pc);
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

/* The stack rbp is on as [*lo, *hi): the current thread's or this CPU's
 * boot stack; all kernel memory when it is on neither (the boot CPU's
 * stack in the image, a #DF stack). The walk must not read past a stack's
 * top: the page above may be unmapped (CONFIG_KMEM_DEBUG's guard pages). */
static void stack_bounds(const struct kthread *kt, uintptr_t rbp,
			 uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t top = this_cpu()->stack_top;

	*lo = KERNBASE;
	*hi = UINTPTR_MAX;
	if (kt && kt->kstack && rbp >= kt->kstack &&
	    rbp < kt->kstack + KSTACK_SIZE) {
		*lo = kt->kstack;
		*hi = kt->kstack + KSTACK_SIZE;
	} else if (top && rbp < top && rbp >= top - KSTACK_SIZE) {
		*lo = top - KSTACK_SIZE;
		*hi = top;
	}
}

/* backtrace_print_within() for the stack the caller runs on (a panic's),
 * with its thread's shadow stack, after a heading. */
void backtrace_print(uintptr_t rbp)
{
	const struct kthread *kt = current_kthread();
	uintptr_t lo, hi;

	stack_bounds(kt, rbp, &lo, &hi);
	printk(KERN_EMERG "backtrace:\n");
	backtrace_print_within(rbp, lo, hi, kt ? &kt->fgraph : NULL);
}
