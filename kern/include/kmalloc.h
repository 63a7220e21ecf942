/*
 * kmalloc: small kernel allocations in power-of-two size classes (16 bytes
 * to 2 KiB) carved from pages, larger ones straight from the page allocator.
 * Every block is 16-byte aligned. Safe from any context (irqsave lock).
 */
#ifndef KMALLOC_H
#define KMALLOC_H

#include <compiler.h>

void *kmalloc(size_t size);
void *kzmalloc(size_t size);
void kfree(void *p);

#endif /* KMALLOC_H */
