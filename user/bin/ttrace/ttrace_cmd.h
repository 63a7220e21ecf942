/*
 * ttrace_cmd.h: what the files of the shell's ttrace command share
 * (user/bin/ttrace/, one program): the device's paths and sizes, the
 * helpers that exit with the kernel's error text after undoing what a
 * failed command left behind, the trace-file writer's pieces that save
 * and stream both use, and each subcommand family's entry point.
 *
 *	main.c		the subcommands' table, usage and dispatch;
 *			status, enable, clear, mark, save, probe
 *	util.c		errors, ctl writes, reading device files, metadata
 *	cat.c		ttrace cat: the cpuN texts merged by time
 *	save.c		ttrace save: the trace file (docs/trace-file.md)
 *	record.c	ttrace record, profile and stream: a trace around a command
 *	graph.c		ttrace graph: the function-graph tracer around one
 *	probe.c		ttrace hist, probe, counters (docs/probes.md)
 *	latency.c	ttrace latency: timerlat and osnoise (docs/latency.md)
 *
 * Every helper that says "exits" prints "ttrace: what: why" and exits 1
 * after fail_exit's clean-up: the partial file removed, the group mask
 * put back.
 */
#ifndef TTRACE_CMD_H
#define TTRACE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <compiler.h>
#include <abi/ttrace_ctl.h>	/* TTRACE_CTL_MAX_LEN: longest ctl command */
#include <ttrace_file.h>
#include <ttrace_meta.h>

#define DEV		"/dev/ttrace"
#define CHUNK		(64 * 1024)
#define MAX_CPUS	CONFIG_MAX_NUM_CPUS	/* the kernel's (config.h) */

extern uint8_t chunk[CHUNK];	/* the one I/O buffer: save, stream, cat_file */
extern const char *partial;	/* file being saved: removed on error */
extern char restore[64];	/* ctl command undoing record's or graph's
				   change: written on error */

/* util.c */
__noreturn void die_sys(const char *what);
__noreturn void die(const char *msg);
int open_or_die(const char *path, int flags);
size_t read_full(int fd, void *buf, size_t n, const char *path);
void ctl_write_fd(int fd, const char *cmd);
void ctl_write(const char *cmd);
void join(char *buf, size_t size, const char *prefix, int n, char **words);
void cat_file(const char *path);
void read_version(struct ttrace_version *v);
void meta_load(struct ttrace_meta_table *t, void **mem);
int spawn_cmd(char **argv, char *path, size_t size);

/* save.c: a trace file of the device copied out, its size and CRC-32
 * kept as it goes */
struct copy {
	int fd;
	const char *path;
	uint64_t bytes;
	uint32_t crc;
};

void save(const char *path, const char *file);
void out_open(struct copy *o, const char *path);
size_t copy_some(struct copy *o, int fd, const char *path);
void out_close(struct copy *o);

/* the subcommands: argv[0] is the subcommand's name (getopt's argv) */
int cmd_cat(int argc, char **argv);		/* cat.c */
int cmd_record(int argc, char **argv);		/* record.c */
int cmd_profile(int argc, char **argv);		/* record.c */
int cmd_stream(int argc, char **argv);		/* record.c */
int cmd_graph(int argc, char **argv);		/* graph.c */
int cmd_latency(int argc, char **argv);		/* latency.c */
/* probe.c: argv[0] is hist's first operand */
int cmd_hist(int argc, char **argv);
void probe_load(const char *path);
void probe_unload(const char *name);

#endif /* TTRACE_CMD_H */
