#!/bin/sh
# Usage: trace.sh KERNEL.bin INITRAMFS OUT.ttr 'COMMAND' [save|stream]
# Boots the kernel and gets a trace of COMMAND to the host channel
# (/dev/host/out), which QEMU writes to OUT.ttr, then powers off:
#   save (make trace): clears the trace, runs COMMAND (a shell command
#        line), saves the trace;
#   stream (make stream): `ttrace stream -- COMMAND` (a program and its
#        arguments), draining the rings into the file while it runs;
#   boot (make bootprof): saves the trace as it is at the shell prompt,
#        the boot's records included (COMMAND unused).
# CMDLINE (environment): the kernel command line, if any.
# Prints the CRC-32 the guest computed and the one of the file that landed,
# which must agree, for each trace the guest saved (COMMAND may save its
# own, as `ttrace graph` does: those land in OUT-0.ttr, ...; OUT is the
# last save).
set -e
kernel=$1 initramfs=$2 out=$3 cmd=$4 mode=${5:-save}
[ -n "$cmd" ] || [ "$mode" = boot ] || { echo "usage: make $mode CMD='command'" >&2; exit 2; }
rm -f "$out" "$out.log" "${out%.ttr}"-[0-9]*.ttr
case $mode in
save)	printf 'ttrace clear\r%s\rttrace save /dev/host/out\rpoweroff\r' "$cmd" ;;
stream)	printf 'ttrace stream -o /dev/host/out -- %s\rpoweroff\r' "$cmd" ;;
boot)	printf 'ttrace save /dev/host/out\rpoweroff\r' ;;
*)	echo "trace.sh: mode save, stream or boot" >&2; exit 2 ;;
esac |
	sh "$(dirname "$0")/qemu.sh" --kernel "$kernel" --initrd "$initramfs" \
		--hostout "$out" --timeout 300 ${CMDLINE:+--cmdline} \
		${CMDLINE:+"$CMDLINE"} > "$out.log" 2>&1 || true
# every save the guest made to the host channel, in order: CMD may save
# its own (ttrace graph, ttrace record -o /dev/host/out) before ours
guest=$(sed -n 's/.*ttrace: saved \/dev\/host\/out: \([0-9]*\) bytes, crc32c \(0x[0-9a-f]*\).*/\1 \2/p' "$out.log")
[ -n "$guest" ] || { tail -20 "$out.log"; echo "trace: the guest did not save a trace (log: $out.log)" >&2; exit 1; }
# The host file holds the saves back to back (docs/trace-file.md): each
# must have landed whole. The last (ours, or stream's) stays in OUT, the
# earlier ones CMD made go to OUT-0.ttr, OUT-1.ttr, ...
echo "$guest" | ${PY:-python3} -c '
import sys
sys.path.insert(0, sys.argv[2])
from crc32c import crc32c
out = sys.argv[1]
data = open(out, "rb").read()
saves = [l.split() for l in sys.stdin.read().split("\n") if l.strip()]
pos, pieces = 0, []
for size, crc in saves:
    piece = data[pos:pos + int(size)]
    print("trace: guest wrote %s %s, host has %d 0x%08x (bytes, crc32c)" % (
        size, crc, len(piece), crc32c(piece)))
    if len(piece) != int(size) or crc32c(piece) != int(crc, 16):
        sys.exit("trace: MISMATCH")
    pieces.append(piece)
    pos += int(size)
if pos != len(data):
    sys.exit("trace: MISMATCH: %d bytes after the last save" % (len(data) - pos))
for i, piece in enumerate(pieces[:-1]):
    name = "%s-%d.ttr" % (out[:-4] if out.endswith(".ttr") else out, i)
    open(name, "wb").write(piece)
    print("trace: a trace COMMAND saved itself: %s" % name)
open(out, "wb").write(pieces[-1])
' "$out" "$(dirname "$0")"
echo "trace: $out"
