/*
 * ttrace latency: the timer latency and noise tracers (docs/latency.md)
 * for a while, then their summary, as `rtla timerlat top` and `rtla
 * osnoise top` print theirs.
 *
 *	ttrace latency timerlat [SECONDS [PERIOD_US]]
 *	ttrace latency osnoise [SECONDS [RUNTIME_US [THRESHOLD_NS]]]
 *
 * Resets the tracer's figures, turns it on with the numbers given, waits
 * SECONDS (default 1), turns it off and prints /dev/ttrace/timerlat or
 * osnoise: a row per CPU (count, min, avg, max of the latency; or
 * runtime, noise, the longest gap, the share left to the thread) and for
 * osnoise the noise of each cause. The kernel checks the numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttrace_cmd.h"

#define MAX_SECONDS	3600

/* argv[0] "latency", argv[1] the tracer, then SECONDS and on's numbers.
 * Returns 0, or 2 for operands it does not take. */
int cmd_latency(int argc, char **argv)
{
	const char *tracer = argc > 1 ? argv[1] : "";
	unsigned long secs = 1;
	char cmd[TTRACE_CTL_MAX_LEN + 1], path[32];	/* path: also on's prefix */
	char *end;

	if (strcmp(tracer, "timerlat") && strcmp(tracer, "osnoise"))
		return 2;
	if (argc > 2) {
		secs = strtoul(argv[2], &end, 10);
		if (*end || !secs || secs > MAX_SECONDS)
			die("latency: SECONDS must be 1..3600");
	}
	snprintf(cmd, sizeof(cmd), "latency %s reset", tracer);
	ctl_write(cmd);
	snprintf(path, sizeof(path), "latency %s on", tracer);
	join(cmd, sizeof(cmd), path, argc > 3 ? argc - 3 : 0, argv + 3);
	ctl_write(cmd);
	snprintf(restore, sizeof(restore), "latency %s off", tracer);
	nanosleep(secs * 1000000000ull);
	ctl_write(restore);
	restore[0] = 0;
	snprintf(path, sizeof(path), DEV "/%s", tracer);
	cat_file(path);
	return 0;
}
