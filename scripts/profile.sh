#!/bin/sh
# Usage: profile.sh TTDECODE TRACE.ttr
# The pictures of a sampling profile (docs/profiling.md, "Reading"), beside
# the trace, and where each went:
#   TRACE.folded        folded stacks (flamegraph.pl, speedscope, ...)
#   TRACE-flame.svg     on-CPU flame graph (a browser: click, Ctrl-F)
#   TRACE-offcpu.svg    off-CPU flame graph: where threads blocked
#   TRACE-wall.svg      wall-clock flame graph: on-CPU and off-CPU
#   TRACE.pb.gz         pprof (go tool pprof -http=: FILE)
#   TRACE.pftrace       Perfetto, the samples as perf samples
# User frames are named from build/user's ELF files (run from the tree).
set -e
ttdecode=$1 trace=$2
base=${trace%.ttr}
[ -f "$trace" ] || { echo "profile.sh: no trace $trace" >&2; exit 2; }
"$ttdecode" folded "$trace" > "$base.folded"
echo "profile: folded stacks   $base.folded ($(wc -l < "$base.folded") stacks)"
"$ttdecode" flamegraph "$trace" "$base-flame.svg"
"$ttdecode" flamegraph "$trace" "$base-offcpu.svg" --off-cpu
"$ttdecode" flamegraph "$trace" "$base-wall.svg" --wall
echo "profile: flame graphs    $base-flame.svg $base-offcpu.svg $base-wall.svg (a browser)"
"$ttdecode" pprof "$trace" "$base.pb.gz"
echo "profile: pprof           $base.pb.gz (go tool pprof -top $base.pb.gz)"
"$ttdecode" perfetto "$trace" "$base.pftrace" > /dev/null
echo "profile: Perfetto        $base.pftrace (ui.perfetto.dev: the CPU track's flame graph)"
