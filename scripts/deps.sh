#!/bin/sh
# Checks that the host tools the build and tests need are present, and
# installs the missing Debian packages when run as root. As a normal user it
# prints the exact command to run instead. `make` runs this whenever its
# stamp file is missing, so a fresh clone needs nothing installed by hand.
set -e

missing=""
need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || missing="$missing $2"
}
need qemu-system-x86_64 qemu-system-x86
need grub-mkrescue grub-common
need xorriso xorriso
need mformat mtools
need gcc gcc
need ld binutils
need make make
need uftrace uftrace
need babeltrace2 babeltrace2
need trace-cmd trace-cmd				# ttdecode tracedat's reader
need gdb gdb
need lttng lttng-tools				# make bench's LTTng anchor
need clang-14 clang-14				# make fuzz: libFuzzer targets
need go golang-go				# go tool pprof reads ttdecode pprof
[ -e /usr/include/zlib.h ] || missing="$missing zlib1g-dev"	# pprof's gzip
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
	>/dev/null 2>&1 || missing="$missing libclang-rt-14-dev"
[ -e "/usr/include/$(gcc -print-multiarch 2>/dev/null)/lttng/tracepoint.h" ] ||
	missing="$missing liblttng-ust-dev"
[ -e /usr/include/traceevent/kbuffer.h ] ||	# tests/host/kbuffer_read
	missing="$missing libtraceevent-dev"
[ -d /usr/lib/grub/i386-pc ] || missing="$missing grub-pc-bin"
/usr/bin/python3 -c 'import kconfiglib' >/dev/null 2>&1 ||
	missing="$missing python3 python3-kconfiglib"

[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "deps: missing packages:$missing"
	echo "deps: run: sudo apt-get install -y$missing"
	exit 1
fi
