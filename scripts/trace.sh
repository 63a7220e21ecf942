#!/bin/sh
# Usage: trace.sh KERNEL.bin INITRAMFS OUT.ttr 'SHELL COMMAND LINE'
# Boots the kernel, clears the trace, runs the command line in the shell,
# saves the trace to the host channel (/dev/host/out), which QEMU writes to
# OUT.ttr, and powers off. Prints the CRC-32 the guest computed and the one
# of the file that landed, which must agree.
set -e
kernel=$1 initramfs=$2 out=$3 cmd=$4
[ -n "$cmd" ] || { echo "usage: make trace CMD='shell command line'" >&2; exit 2; }
rm -f "$out" "$out.log"
printf 'ttrace clear\r%s\rttrace save /dev/host/out\rpoweroff\r' "$cmd" |
	sh "$(dirname "$0")/qemu.sh" --kernel "$kernel" --initrd "$initramfs" \
		--hostout "$out" --timeout 300 > "$out.log" 2>&1 || true
guest=$(sed -n 's/.*ttrace: saved \/dev\/host\/out: \([0-9]*\) bytes, crc32 \(0x[0-9a-f]*\).*/\1 \2/p' "$out.log")
[ -n "$guest" ] || { tail -20 "$out.log"; echo "trace: the guest did not save a trace (log: $out.log)" >&2; exit 1; }
host=$(${PY:-python3} -c 'import sys, zlib; d = open(sys.argv[1], "rb").read(); print(len(d), "0x%08x" % zlib.crc32(d))' "$out")
echo "trace: guest wrote $guest (bytes, crc32)"
echo "trace: host  has   $host"
[ "$guest" = "$host" ] || { echo "trace: MISMATCH" >&2; exit 1; }
echo "trace: $out"
