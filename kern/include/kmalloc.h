/*
 * kmalloc: small kernel allocations in power-of-two size classes (16 bytes
 * to 2 KiB) carved from pages, larger ones straight from the page allocator.
 * Every block is 16-byte aligned. Safe from any context (irqsave lock).
 * CONFIG_KMEM_DEBUG adds redzones, poison and guard pages (kmalloc.c,
 * docs/debug.md); kmem_debug_start_cpu() starts its periodic check on the
 * calling CPU.
 */
#ifndef KMALLOC_H
#define KMALLOC_H

#include <compiler.h>

void *kmalloc(size_t size);
void *kzmalloc(size_t size);
void kfree(void *p);
#ifdef CONFIG_KMEM_DEBUG
void kmem_debug_start_cpu(void);
#else
static inline void kmem_debug_start_cpu(void)
{
}
#endif

#endif /* KMALLOC_H */
