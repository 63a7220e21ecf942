#!/bin/sh
# Boots the kernel in qemu-system-x86_64; the one place QEMU's flags live.
#   qemu.sh --iso FILE | --kernel FILE [--cmdline STR] [--initrd FILE]
#           [--interactive] [--gdb] [--timeout SEC] [--hostout FILE]
#           [--plugin SO,ARGS] [--qmp SOCKET] [--ram-file FILE] [--reboot]
#           [-- EXTRA QEMU ARGS]
# --plugin SO,ARGS: load a TCG plugin (make bench's plugins/ttinsn.so)
# under deterministic TCG: one thread, -icount shift=0,sleep=off, so guest
# instruction counts are identical run to run.
# --hostout FILE: what the guest writes to /dev/host/out lands in FILE
# (through an ivshmem window, cut out when QEMU exits).
# --qmp SOCKET: QEMU's QMP monitor on a unix socket, through which
# scripts/pull (make pull) dumps the trace out of guest memory.
# --ram-file FILE: the guest's RAM in FILE, shared with the host (a
# memory-backend-file with share=on), which tools/ttlive reads while the
# guest runs (make live); FILE is made afresh and left when QEMU exits.
# --reboot: a reset (a panic with ttrace.reboot_on_panic) boots again, memory
# kept, instead of ending QEMU (-no-reboot, the default): the last boot's
# trace test (docs/ttrace-device.md).
#   qemu.sh --print-accel     prints kvm or tcg: what a run would use
# Environment: SMP (default 4), MEM (default 512M), ACCEL=kvm|tcg (default:
# kvm when /dev/kvm is usable, else tcg). ICOUNT=N (make bench's guest-time
# runs): TCG, one thread, -icount shift=N,sleep=off: the guest's clock
# follows its instruction count (2^N ns an instruction), so its timers fire
# on time in guest time however slow or loaded the host is.
# The serial console is stdin/stdout. isa-debug-exit lets the kernel end the
# run with a status; --timeout bounds every non-interactive run.
set -e
SMP=${SMP:-4} MEM=${MEM:-512M}
boot="" print_accel="" hostout="" plugin="" qmp="" ramfile="" cmdline="" initrd="" interactive=0 gdb=0 timeout=""
noreboot=-no-reboot
while [ $# -gt 0 ]; do
	case $1 in
	--iso) boot="-cdrom $2"; shift ;;
	--kernel) boot="-kernel $2"; shift ;;
	--cmdline) cmdline=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--interactive) interactive=1 ;;
	--gdb) gdb=1 ;;
	--timeout) timeout=$2; shift ;;
	--print-accel) print_accel=1 ;;
	--hostout) hostout=$2; shift ;;
	--plugin) plugin=$2; shift ;;
	--qmp) qmp=$2; shift ;;
	--ram-file) ramfile=$2; shift ;;
	--reboot) noreboot="" ;;
	--) shift; break ;;
	*) echo "qemu.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$boot" ] || [ -n "$print_accel" ] || { echo "qemu.sh: need --iso or --kernel" >&2; exit 2; }

# KVM when /dev/kvm is usable. One exception, measured on our CI machines:
# a host whose KVM is PVM in "native" mode (nested, no VMX: kvm_pvm with
# pvm_native=Y) runs a guest's kernel-mode code through an instruction
# emulator, about 25x slower than TCG for this kernel (boot 6.2 s vs 0.09 s),
# so there TCG is the faster choice. ACCEL=kvm forces KVM anyway.
pvm_native() {
	[ "$(cat /sys/module/kvm_pvm/parameters/pvm_native 2>/dev/null)" = Y ]
}
if [ -z "$ACCEL" ]; then
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && ! pvm_native; then
		ACCEL=kvm
	else
		ACCEL=tcg
	fi
fi
if [ -n "$print_accel" ]; then echo "$ACCEL"; exit 0; fi
if [ -n "$plugin" ]; then
	cpu="-accel tcg,thread=single -icount shift=0,sleep=off -cpu max -plugin $plugin"
elif [ -n "$ICOUNT" ]; then
	cpu="-accel tcg,thread=single -icount shift=$ICOUNT,sleep=off -cpu max"
elif [ "$ACCEL" = kvm ]; then
	cpu="-enable-kvm -cpu host,+invtsc"
else
	cpu="-accel tcg,thread=multi -cpu max"
fi
set -- $cpu -smp "$SMP" -m "$MEM" -display none $noreboot \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@"
case $boot in -kernel*) [ -n "$cmdline" ] && set -- "$@" -append "$cmdline" ;; esac
[ -n "$initrd" ] && set -- "$@" -initrd "$initrd"
[ "$gdb" = 1 ] && set -- "$@" -S -gdb tcp::1234
if [ -n "$qmp" ]; then
	rm -f "$qmp"
	set -- "$@" -qmp "unix:$qmp,server=on,wait=off"
fi
if [ -n "$ramfile" ]; then
	rm -f "$ramfile"
	set -- "$@" -object memory-backend-file,id=ttram,size="$MEM",mem-path="$ramfile",share=on \
		-machine memory-backend=ttram
fi
# The host channel (/dev/host/out in the guest): an ivshmem window onto a
# 128 MiB file, cut into $hostout when QEMU exits (scripts/hostout.py).
if [ -n "$hostout" ]; then
	window="$hostout.window"
	rm -f "$window"
	truncate -s 128M "$window"
	set -- "$@" -object memory-backend-file,id=hostout,mem-path="$window",size=128M,share=on \
		-device ivshmem-plain,memdev=hostout
fi
if [ "$interactive" = 1 ]; then
	# ^C goes to the guest; ^A x quits QEMU.
	set -- "$@" -chardev stdio,id=con,mux=on,signal=off -serial chardev:con \
		-mon chardev=con
else
	set -- "$@" -serial stdio -monitor none
fi
run() {
	# shellcheck disable=SC2086
	if [ -n "$timeout" ]; then
		timeout --foreground -k 5 "$timeout" qemu-system-x86_64 $boot "$@"
	else
		qemu-system-x86_64 $boot "$@"
	fi
}
[ -n "$hostout" ] || { run "$@"; exit $?; }
status=0
run "$@" || status=$?
${PY:-python3} "$(dirname "$0")/hostout.py" "$window" "$hostout" || true
rm -f "$window"
exit $status
