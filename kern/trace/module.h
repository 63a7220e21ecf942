/*
 * module.h: loadable probe modules (kern/trace/module.c, docs/probes.md).
 * A module is a relocatable object that defines
 *
 *	int probe_init(void);		// attach probes; 0 or an error
 *	void probe_fini(void);		// optional: before its probes go
 *	size_t probe_report(char *buf, size_t size);	// optional: results
 *
 * and calls only what module_syms.c exports.
 */
#ifndef MODULE_H
#define MODULE_H

#include <compiler.h>

#define MODULE_NAME_MAX	23

const char *module_control(bool remove, const char *word);
struct seqbuf;
void module_text(struct seqbuf *s);
uint64_t module_export(const char *name);

#endif /* MODULE_H */
