/*
 * ttboot: the boot profile of a trace (docs/boot-profile.md), computed
 * from its boot_phase and boot_phase_at records, and printed as a table,
 * as JSON, or drawn as an SVG timeline.
 *
 * Each record marks the start of a phase on the CPU that wrote it; the
 * phase lasts until that CPU's next phase starts (so a CPU's phases are
 * contiguous and add up by construction), and the last one until the
 * CPU's end: the shell prompt (shell_ready) for CPU 0, an AP's ap_ready.
 * Times are TSC ticks on CPU 0's clock since power-on (the TSC counts from
 * reset), so the time before the kernel's entry TSC is the firmware's and
 * the boot loader's phase, "firmware+loader", and each AP's lane opens with
 * "ap_wake", from the SIPI CPU 0 sent it to its trampoline's first TSC.
 *
 * Usage:
 *	struct ttboot p;
 *	if (ttboot_compute(&p, &t, &why) < 0)	// t: a loaded trace
 *		fail(why);
 *	ttboot_print_text(&p, stdout);
 *	ttboot_free(&p);
 */
#ifndef TTBOOT_H
#define TTBOOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ttload.h"

#define TTBOOT_NAME	32		/* a phase name's bytes, NUL included */

struct ttboot_phase {
	uint32_t cpu;
	uint64_t arg;			/* the record's (core id for AP ones) */
	uint64_t start, end;		/* ticks since power-on */
	char name[TTBOOT_NAME];
};

/* One AP's bring-up: the SIPI CPU 0 sent it and its ap_ready. */
struct ttboot_ap {
	bool has_sipi, has_online;
	uint64_t sipi, online;		/* ticks since power-on */
};

struct ttboot {
	uint64_t tsc_hz;
	uint32_t ncpus;
	struct ttboot_phase *phases;	/* by CPU, then start */
	size_t nphases;
	struct ttboot_ap *aps;		/* ncpus of them; [0] is the BSP */
	bool has_entry;			/* the kernel's entry TSC was recorded */
	bool has_first_process, has_prompt;
	uint64_t first_process, prompt;	/* ticks since power-on */
	uint64_t end;			/* the boot's end: the prompt, else the
					   trace's last record */
	uint64_t covered;		/* CPU 0's phases, together */
};

enum ttboot_escape { TTBOOT_JSON, TTBOOT_XML };

int ttboot_compute(struct ttboot *p, const struct ttload *t,
		   const char **why);
void ttboot_free(struct ttboot *p);
void ttboot_print_text(const struct ttboot *p, FILE *f);
void ttboot_print_json(const struct ttboot *p, FILE *f);
void ttboot_print_svg(const struct ttboot *p, FILE *f);
double ttboot_ms(const struct ttboot *p, uint64_t ticks);
void ttboot_put_escaped(FILE *f, const char *s, enum ttboot_escape how);

#endif /* TTBOOT_H */
