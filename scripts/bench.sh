#!/bin/sh
# Usage: bench.sh KERNEL.bin
# Boots the kernel with `bench` on its command line and prints its report.
# Cycle counts mean something only under hardware virtualisation (KVM with
# VMX/SVM) or on bare metal. qemu.sh picks the accelerator (ACCEL=kvm forces
# KVM); where that is TCG, or PVM's emulating KVM, this says the figures
# are meaningless, and the kernel's report says which hypervisor it saw.
set -e
kernel=$1
accel=$(sh "$(dirname "$0")/qemu.sh" --print-accel)
if [ "$(cat /sys/module/kvm_pvm/parameters/pvm_native 2>/dev/null)" = Y ]; then
	echo "bench: this host's KVM is PVM in native mode (nested, no VMX): it"
	echo "bench: emulates guest kernel code instruction by instruction (measured:"
	echo "bench: ~40000 cycles per enabled tracepoint, a 10-minute run), so no"
	echo "bench: accelerator here gives real cycle counts. Using $accel."
fi
if [ "$accel" = tcg ]; then
	echo "bench: TCG: the figures below are meaningless (emulated TSC)"
fi
SMP=${SMP:-2} sh "$(dirname "$0")/qemu.sh" --kernel "$kernel" --cmdline bench \
	--timeout 600 | grep --line-buffered -E "bench|panic|tsc:"
