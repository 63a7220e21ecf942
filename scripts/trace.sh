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
# Prints the CRC-32 the guest computed and the one of the file that landed,
# which must agree.
set -e
kernel=$1 initramfs=$2 out=$3 cmd=$4 mode=${5:-save}
[ -n "$cmd" ] || [ "$mode" = boot ] || { echo "usage: make $mode CMD='command'" >&2; exit 2; }
rm -f "$out" "$out.log"
case $mode in
save)	printf 'ttrace clear\r%s\rttrace save /dev/host/out\rpoweroff\r' "$cmd" ;;
stream)	printf 'ttrace stream -o /dev/host/out -- %s\rpoweroff\r' "$cmd" ;;
boot)	printf 'ttrace save /dev/host/out\rpoweroff\r' ;;
*)	echo "trace.sh: mode save, stream or boot" >&2; exit 2 ;;
esac |
	sh "$(dirname "$0")/qemu.sh" --kernel "$kernel" --initrd "$initramfs" \
		--hostout "$out" --timeout 300 > "$out.log" 2>&1 || true
guest=$(sed -n 's/.*ttrace: saved \/dev\/host\/out: \([0-9]*\) bytes, crc32 \(0x[0-9a-f]*\).*/\1 \2/p' "$out.log")
[ -n "$guest" ] || { tail -20 "$out.log"; echo "trace: the guest did not save a trace (log: $out.log)" >&2; exit 1; }
host=$(${PY:-python3} -c 'import sys, zlib; d = open(sys.argv[1], "rb").read(); print(len(d), "0x%08x" % zlib.crc32(d))' "$out")
echo "trace: guest wrote $guest (bytes, crc32)"
echo "trace: host  has   $host"
[ "$guest" = "$host" ] || { echo "trace: MISMATCH" >&2; exit 1; }
echo "trace: $out"
