#!/bin/sh
# Usage: exports.sh TTDECODE TRACE.ttr
# Exports a saved trace beside it for the viewers people know
# (docs/exports.md) and says where each went:
#   TRACE.json      Chrome Trace Event JSON (Perfetto UI), if this
#                   ttdecode has the json command
#   TRACE.uftrace/  a uftrace data directory (uftrace replay -d DIR)
#   TRACE.ctf/      a CTF 1.8 trace (babeltrace2 DIR)
#   TRACE.dat       a trace-cmd trace.dat (trace-cmd report -i FILE,
#                   kernelshark FILE)
#   TRACE.pftrace   Perfetto's native protobuf trace (ui.perfetto.dev)
# The directories are made afresh (ttdecode refuses a non-empty one).
set -e
ttdecode=$1 trace=$2
base=${trace%.ttr}
[ -f "$trace" ] || { echo "exports.sh: no trace $trace" >&2; exit 2; }
# json belongs to another command family: skip it only when this ttdecode
# does not know the command (it answers with its usage, status 2)
status=0
"$ttdecode" json "$trace" "$base.json" > "$base.json.log" 2>&1 || status=$?
if [ $status -eq 0 ]; then
	echo "trace: Perfetto/Chrome JSON  $base.json      (ui.perfetto.dev)"
elif [ $status -ne 2 ] || ! grep -q '^usage:' "$base.json.log"; then
	cat "$base.json.log" >&2
	exit 1
fi
rm -f "$base.json.log"
rm -rf "$base.uftrace" "$base.ctf"
"$ttdecode" uftrace "$trace" "$base.uftrace" > /dev/null
echo "trace: uftrace               $base.uftrace/  (uftrace replay -d $base.uftrace)"
"$ttdecode" ctf "$trace" "$base.ctf" > /dev/null
echo "trace: CTF                   $base.ctf/      (babeltrace2 $base.ctf)"
# ---- trace-cmd (ttdecode tracedat)
"$ttdecode" tracedat "$trace" "$base.dat" > /dev/null
echo "trace: trace-cmd             $base.dat       (trace-cmd report -i $base.dat; kernelshark $base.dat)"
# ---- end trace-cmd
# ttdecode perfetto (issue 20): Perfetto's native protobuf trace
"$ttdecode" perfetto "$trace" "$base.pftrace" > /dev/null
echo "trace: Perfetto protobuf     $base.pftrace  (ui.perfetto.dev, or trace_processor_shell $base.pftrace)"
