# ttrace: build, boot and test. `make help` lists the targets.
#
# The two commands that matter: `make run` builds everything and boots to the
# console; `make test` builds and runs every test. Missing host packages are
# installed by scripts/deps.sh (as root) the first time either runs.

BUILD		:= build
GEN		:= $(BUILD)/gen
CROSS_COMPILE	?=
CC		:= $(CROSS_COMPILE)gcc
LD		:= $(CROSS_COMPILE)ld
OBJCOPY		:= $(CROSS_COMPILE)objcopy
NM		:= $(CROSS_COMPILE)nm
HOSTCC		?= gcc
PY		:= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
SMP		?= 4
MEM		?= 512M
ACCEL		?=
CMDLINE		?=
export SMP MEM ACCEL

KCONFIG_CONFIG	?= .config
export KCONFIG_CONFIG
-include $(KCONFIG_CONFIG)

WARN		:= -Wall -Wextra -Werror -Wmissing-prototypes -Wvla -Wformat=2 \
		   -Wno-address-of-packed-member
KCFLAGS		:= -std=gnu11 -O2 -g -ffreestanding -mno-red-zone -mcmodel=kernel \
		   -fno-pic -fno-pie -fno-omit-frame-pointer -mgeneral-regs-only \
		   -fno-stack-protector -fno-asynchronous-unwind-tables \
		   -fno-common $(WARN) -MMD -MP \
		   -Ikern/include -Iarch/x86_64/include -I$(GEN) \
		   -include $(GEN)/config.h
KLDFLAGS	:= -n -z max-page-size=4096 -z noexecstack -T linker.ld
HOSTCFLAGS	:= -std=gnu11 -g -O1 -fsanitize=address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) \
		   -idirafter kern/include -I$(GEN) -Itests/host -pthread -MMD -MP

all: $(BUILD)/kernel.bin host-tests-build tools
.PHONY: all

# --- host dependencies ---------------------------------------------------
DEPS_STAMP := $(BUILD)/.deps-ok
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(BUILD)
	@sh scripts/deps.sh
	@touch $@
deps: $(DEPS_STAMP)
.PHONY: deps

# --- configuration (Kconfig, via Debian's python3-kconfiglib) ------------
$(KCONFIG_CONFIG): | $(DEPS_STAMP)
	$(PY) -m defconfig --kconfig Kconfig configs/defconfig
$(GEN)/config.h: $(KCONFIG_CONFIG) Kconfig | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	$(PY) -m genconfig --header-path $@ Kconfig
defconfig: | $(DEPS_STAMP)
	$(PY) -m defconfig --kconfig Kconfig configs/defconfig
olddefconfig: | $(DEPS_STAMP)
	$(PY) -m olddefconfig Kconfig
menuconfig: | $(DEPS_STAMP)
	$(PY) -m menuconfig Kconfig
savedefconfig: | $(DEPS_STAMP)
	$(PY) -m savedefconfig --kconfig Kconfig --out configs/defconfig
.PHONY: defconfig olddefconfig menuconfig savedefconfig

# --- generated tracepoints (kern/ttrace.events) -----------------------------
EVENTS_GEN := $(GEN)/ttrace_events.h $(GEN)/ttrace_events.c
# The generator rewrites only files whose text changed; the stamp records
# that it ran, so make does not run it again and again.
$(GEN)/ttrace_events.stamp: kern/ttrace.events tools/gen_events.py | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	$(PY) tools/gen_events.py kern/ttrace.events $(GEN)
	@touch $@
$(EVENTS_GEN): $(GEN)/ttrace_events.stamp
	@:

# --- kernel --------------------------------------------------------------
LIB_SRCS :=
KLIB_ONLY_SRCS :=
include kern/lib/Makefrag

KERN_SRCS := $(wildcard kern/src/*.c arch/x86_64/src/*.c kern/drivers/dev/*.c) \
	     $(LIB_SRCS) $(KLIB_ONLY_SRCS) $(GEN)/ttrace_events.c
ifeq ($(CONFIG_KTESTS),y)
KERN_SRCS += $(wildcard kern/src/ktest/*.c)
endif
ifneq ($(CONFIG_TTRACE),y)
KERN_SRCS := $(filter-out kern/src/ttrace%.c kern/src/ktest/kt_ttrace.c \
	       kern/src/ktest/kt_patch.c \
	       kern/src/bench.c kern/drivers/dev/devttrace.c \
	       kern/lib/trace_ring.c kern/lib/ttrace_%.c \
	       arch/x86_64/src/text_poke.c \
	       $(GEN)/ttrace_events.c,$(KERN_SRCS))
endif
KERN_ASMS := $(wildcard arch/x86_64/src/*.S)
ifneq ($(CONFIG_TTRACE),y)
KERN_ASMS := $(filter-out arch/x86_64/src/ttrace_fgraph.S,$(KERN_ASMS))
endif
KERN_OBJS := $(patsubst %.c,$(BUILD)/kern/%.o,$(KERN_SRCS)) \
	     $(patsubst %.S,$(BUILD)/kern/%.o,$(KERN_ASMS))

# The benchmark counts instructions per operation in tight loops: no
# alignment padding after a tracepoint (it would be counted as its own).
$(BUILD)/kern/kern/src/bench.o: KCFLAGS += -falign-jumps=1 -falign-labels=1 -falign-loops=1

# The function-graph tracer (docs/function-graph.md): every function starts
# with a 5-byte NOP listed in __mcount_loc, except in the files the tracer,
# the text patcher and the early CPU and TSC set-up use, which must never be
# traced (so tracing cannot recurse). Single functions elsewhere say
# `notrace` (compiler.h).
ifeq ($(CONFIG_TTRACE),y)
FENTRY_FLAGS := -pg -mfentry -mnop-mcount -mrecord-mcount
endif
NOTRACE_SRCS := $(filter kern/src/ttrace%.c kern/lib/trace_ring.c \
		kern/lib/ttrace_%.c kern/lib/string.c \
		arch/x86_64/src/text_poke.c arch/x86_64/src/cpu.c \
		arch/x86_64/src/tsc_offset.c,$(KERN_SRCS))
$(patsubst %.c,$(BUILD)/kern/%.o,$(NOTRACE_SRCS)): FENTRY_FLAGS :=

$(BUILD)/kern/%.o: %.c $(GEN)/config.h | $(EVENTS_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) $(FENTRY_FLAGS) -c -o $@ $<
$(BUILD)/kern/$(GEN)/%.o: $(GEN)/%.c $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c -o $@ $<
$(BUILD)/kern/%.o: %.S $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -D__ASSEMBLER__ -c -o $@ $<

# Two link passes: the second adds the symbol table for backtraces, placed
# after all text so no function moves.
$(BUILD)/kernel.pass1.elf: $(KERN_OBJS) linker.ld
	$(LD) $(KLDFLAGS) -o $@ $(KERN_OBJS)
$(BUILD)/ksyms.S: $(BUILD)/kernel.pass1.elf scripts/gen-ksyms.sh
	NM=$(NM) sh scripts/gen-ksyms.sh $< > $@
$(BUILD)/ksyms.o: $(BUILD)/ksyms.S
	$(CC) -c -o $@ $<
$(BUILD)/kernel.elf: $(KERN_OBJS) $(BUILD)/ksyms.o linker.ld
	$(LD) $(KLDFLAGS) -o $@ $(KERN_OBJS) $(BUILD)/ksyms.o
	@$(NM) $(BUILD)/kernel.pass1.elf | grep -i ' t ' | sort > $(BUILD)/syms1
	@$(NM) $@ | grep -i ' t ' | sort > $(BUILD)/syms2
	@cmp -s $(BUILD)/syms1 $(BUILD)/syms2 || \
		{ echo "ksyms: text moved between link passes"; exit 1; }
$(BUILD)/kernel.bin: $(BUILD)/kernel.elf
	$(OBJCOPY) -O binary $< $@

# --- user space and the initramfs (rules in mk/user.mk) -------------------
-include mk/user.mk

# --- boot image ----------------------------------------------------------
$(BUILD)/ttrace.iso: $(BUILD)/kernel.bin $(INITRAMFS) scripts/mkiso.sh
	sh scripts/mkiso.sh $@ $(BUILD)/kernel.bin "$(CMDLINE)" $(INITRAMFS)

iso: $(BUILD)/ttrace.iso
run: $(BUILD)/ttrace.iso
	sh scripts/qemu.sh --iso $(BUILD)/ttrace.iso --interactive \
		--qmp $(BUILD)/qemu-mon.sock
gdb: $(BUILD)/kernel.bin $(INITRAMFS)
	sh scripts/qemu.sh --kernel $(BUILD)/kernel.bin --cmdline "$(CMDLINE)" \
		--initrd $(INITRAMFS) --gdb & \
	sleep 1; gdb -q -x scripts/gdbinit $(BUILD)/kernel.elf
.PHONY: iso run gdb

# --- host tests ----------------------------------------------------------
HOST_TESTS := $(patsubst tests/host/%.c,$(BUILD)/host/%,$(wildcard tests/host/test_*.c))
$(BUILD)/host/%: tests/host/%.c $(LIB_SRCS) $(EVENTS_GEN) | $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< $(LIB_SRCS)
host-tests-build: $(HOST_TESTS)
.PHONY: host-tests-build

# --- host tools (rules in mk/tools.mk) -------------------------------------
TOOLS :=
-include mk/tools.mk
tools: $(TOOLS)
.PHONY: tools

# --- a trace of a shell command line, saved on the host ------------------
trace: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/trace.ttr "$(CMD)"
	sh scripts/exports.sh $(BUILD)/tools/ttdecode $(BUILD)/trace.ttr
.PHONY: trace

# --- the boot profile: a trace saved at the shell prompt, profiled -------
# docs/boot-profile.md. build/bootprof.ttr, .svg (a timeline) and .json.
bootprof: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/bootprof.ttr "" boot
	$(BUILD)/tools/ttdecode boot $(BUILD)/bootprof.ttr \
		--svg $(BUILD)/bootprof.svg
	$(BUILD)/tools/ttdecode boot $(BUILD)/bootprof.ttr --json \
		> $(BUILD)/bootprof.json
	@echo "bootprof: $(BUILD)/bootprof.svg $(BUILD)/bootprof.json"
.PHONY: bootprof

# --- a trace streamed to the host while a program runs -------------------
stream: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/stream.ttr "$(CMD)" stream
	$(BUILD)/tools/ttdecode verify $(BUILD)/stream.ttr | tail -3
.PHONY: stream

# --- the trace out of a running or hung guest (`make run` elsewhere) -------
# Reads guest memory through QEMU's QMP socket: no guest code runs.
pull: $(BUILD)/tools/ttpull $(BUILD)/tools/ttdecode
	NM=$(NM) $(PY) scripts/pull -o $(BUILD)/pull.ttr
	$(BUILD)/tools/ttdecode verify $(BUILD)/pull.ttr | tail -3
.PHONY: pull

# --- benchmark: exact guest instruction counts and host-CPU cycles --------
# scripts/bench.py says what each figure is; docs/benchmarks.md the rest.
$(BUILD)/plugins/ttinsn.so: plugins/ttinsn.c kern/include/abi/insn_mark.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -fPIC -shared $(WARN) -o $@ plugins/ttinsn.c
bench: $(BUILD)/kernel.bin $(INITRAMFS) $(BUILD)/tools/ttbench \
		$(BUILD)/tools/ttlttng $(BUILD)/plugins/ttinsn.so \
		$(BUILD)/tools/ttdecode
	$(PY) scripts/bench.py
.PHONY: bench

# --- tests ---------------------------------------------------------------
test: $(BUILD)/kernel.bin $(BUILD)/ttrace.iso $(INITRAMFS) host-tests-build tools
	$(PY) tests/run_tests.py
.PHONY: test

clean:
	rm -rf $(BUILD)
.PHONY: clean

help:
	@echo "make run        build and boot in QEMU (SMP=$(SMP) MEM=$(MEM), ACCEL=tcg to force TCG)"
	@echo "make test       build and run every test"
	@echo "make menuconfig configure (also defconfig, olddefconfig)"
	@echo "make gdb        boot halted under QEMU's gdbstub and attach gdb"
	@echo "make bench      tracer costs: exact guest instructions, host cycles, LTTng and ftrace beside; $(BUILD)/bench.json"
	@echo "make trace CMD='ls -l /bin'  run CMD in the guest, save its trace to $(BUILD)/trace.ttr"
	@echo "make bootprof   boot, save the trace at the shell prompt, print its boot profile ($(BUILD)/bootprof.svg, .json)"
	@echo "make stream CMD='tracestress burst 60000'  stream the trace to $(BUILD)/stream.ttr while CMD runs"
	@echo "make pull       while make run runs (or hangs): its trace out of guest memory to $(BUILD)/pull.ttr"
	@echo "make clean      remove $(BUILD)/"
.PHONY: help

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
