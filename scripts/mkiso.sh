#!/bin/sh
# Usage: mkiso.sh OUT.iso KERNEL.bin "COMMAND LINE" [MODULE...]
# Builds a GRUB rescue ISO whose single menu entry boots KERNEL.bin with the
# Multiboot (v1) protocol, passing COMMAND LINE, plus any modules.
set -e
out=$1 kernel=$2 cmdline=$3
shift 3
dir=$(dirname "$out")/iso
rm -rf "$dir"
mkdir -p "$dir/boot/grub"
cp "$kernel" "$dir/boot/kernel.bin"
{
	echo 'set timeout=0'
	echo 'set default=0'
	echo 'menuentry "ttrace" {'
	echo "	multiboot /boot/kernel.bin $cmdline"
	for m in "$@"; do
		cp "$m" "$dir/boot/$(basename "$m")"
		echo "	module /boot/$(basename "$m") $(basename "$m")"
	done
	echo '	boot'
	echo '}'
} > "$dir/boot/grub/grub.cfg"
grub-mkrescue -o "$out" "$dir" >/dev/null 2>&1 ||
	{ grub-mkrescue -o "$out" "$dir"; exit 1; }
