# ttrace: build, boot and test. `make help` lists the targets.
#
# The two commands that matter: `make run` builds everything and boots to the
# console; `make test` builds and runs every test. Missing host packages are
# installed by scripts/deps.sh (as root) the first time either runs.

BUILD		:= build
GEN		:= $(BUILD)/gen
# The debug kernel's build (below): named here, before any rule, because
# make expands a rule's prerequisites as it reads the rule.
DEBUG_BUILD	:= $(BUILD)/debug
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
		   -Ikern/include -Ikern/trace/lib -Iarch/x86_64/include -I$(GEN) \
		   -include $(GEN)/config.h
KLDFLAGS	:= -n -z max-page-size=4096 -z noexecstack -T linker.ld
# CONFIG_UBSAN (docs/debug.md): the compiler's undefined-behaviour checks,
# reported by kern/src/ubsan.c. Left out: object-size (it needs the
# optimiser's view of every object and reports nothing -O2 does not already
# warn of) and null (a null dereference faults, with a better report).
ifeq ($(CONFIG_UBSAN),y)
UBSAN_FLAGS	:= -fsanitize=undefined -fno-sanitize=object-size,null
KCFLAGS		+= $(UBSAN_FLAGS)
endif
# -MD, not -MMD: kern/include comes in through -idirafter (so the host's
# libc headers win), which makes its headers system headers that -MMD
# leaves out of the dependencies.
HOSTCFLAGS	:= -std=gnu11 -g -O1 -fsanitize=address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) \
		   -idirafter kern/include -idirafter kern/trace/lib -I$(GEN) \
		   -Itests/host -pthread -MD -MP

all: $(BUILD)/kernel.bin host-tests-build tools
.PHONY: all
# A recipe that fails half-way (kernel.elf linked but not yet given its
# NOPs, say) leaves no target that looks up to date.
.DELETE_ON_ERROR:

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
# genconfig leaves an unchanged header alone; the touch records that it ran
$(GEN)/config.h: $(KCONFIG_CONFIG) Kconfig | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	$(PY) -m genconfig --header-path $@ Kconfig
	@touch $@
defconfig: | $(DEPS_STAMP)
	$(PY) -m defconfig --kconfig Kconfig configs/defconfig
olddefconfig: | $(DEPS_STAMP)
	$(PY) -m olddefconfig Kconfig
menuconfig: | $(DEPS_STAMP)
	$(PY) -m menuconfig Kconfig
savedefconfig: | $(DEPS_STAMP)
	$(PY) -m savedefconfig --kconfig Kconfig --out configs/defconfig
.PHONY: defconfig olddefconfig menuconfig savedefconfig

# --- generated tracepoints (kern/trace/ttrace.events) -----------------------------
EVENTS_GEN := $(GEN)/ttrace_events.h $(GEN)/ttrace_events.c
# The generator rewrites only files whose text changed; the stamp records
# that it ran, so make does not run it again and again.
$(GEN)/ttrace_events.stamp: kern/trace/ttrace.events tools/gen_events.py \
		kern/trace/lib/ttrace_format.h | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	$(PY) tools/gen_events.py kern/trace/ttrace.events $(GEN)
	@touch $@
$(EVENTS_GEN): $(GEN)/ttrace_events.stamp
	@:
# The metadata blob: that table serialised by kern/trace/lib's serialiser, run
# on the host (tools/ttmetablob.c; its rule is in mk/tools.mk).
$(GEN)/ttrace_meta_blob.c: $(BUILD)/tools/ttmetablob
	$< > $@.tmp
	@mv $@.tmp $@

# The kernel's __user parameters (kern/include/user_args.h), from every
# kernel source; written only when the table changes.
$(GEN)/user_args.stamp: scripts/gen-user-args.py \
		$(shell find kern arch -name '*.[ch]') | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	$(PY) scripts/gen-user-args.py $(GEN)/user_args.c $(filter %.c %.h,$^)
	@touch $@
$(GEN)/user_args.c: $(GEN)/user_args.stamp
	@:

# --- kernel --------------------------------------------------------------
# Each folder's Makefrag lists what it builds, Kbuild's way (kern/src/Makefrag
# explains): obj-y always, obj-$(CONFIG_FOO) with an option (an unset option
# makes that `obj-`, which nothing reads), subdir-y the folders below,
# notrace-y those built without fentry NOPs, CFLAGS_foo.o one object's flags.
# notrace-dir := y says the folder and every folder below it are built
# without fentry NOPs, but for its trace-y (kern/trace/Makefrag).
# kbuild_dir reads one folder's lists into KERN_OBJS and NOTRACE_OBJS, and
# its host-y (kern/lib/Makefrag, kern/trace/lib/Makefrag) into LIB_SRCS, the
# pure sources the host tests build. $(2) is the notrace-dir of the folder
# above.
KDIRS		:= kern/src arch/x86_64/src kern/drivers/dev kern/trace kern/lib
KERN_OBJS	:=
NOTRACE_OBJS	:=
LIB_SRCS	:=
define kbuild_dir
obj-y :=
obj- :=
notrace-y :=
notrace-dir := $(2)
trace-y :=
subdir-y :=
subdir- :=
host-y :=
include $(1)/Makefrag
notrace-dir.$(1) := $$(notrace-dir)
KERN_OBJS += $$(addprefix $$(BUILD)/kern/$(1)/,$$(obj-y))
NOTRACE_OBJS += $$(addprefix $$(BUILD)/kern/$(1)/,$$(if $$(notrace-dir),\
	$$(filter-out $$(trace-y),$$(obj-y)),$$(notrace-y)))
LIB_SRCS += $$(addprefix $(1)/,$$(host-y:.o=.c))
$$(foreach o,$$(obj-y),$$(if $$(CFLAGS_$$(o)),$$(eval \
	$$(BUILD)/kern/$(1)/$$(o): KCFLAGS += $$(CFLAGS_$$(o)))))
$$(foreach o,$$(obj-y) $$(obj-),$$(eval CFLAGS_$$(o) :=))
$$(foreach d,$$(subdir-y),$$(eval $$(call kbuild_dir,$(1)/$$(d),\
	$$(notrace-dir.$(1)))))
endef
$(foreach d,$(KDIRS),$(eval $(call kbuild_dir,$(d))))
ifeq ($(CONFIG_TTRACE),y)
KERN_OBJS += $(BUILD)/kern/$(GEN)/ttrace_events.o \
	     $(BUILD)/kern/$(GEN)/ttrace_meta_blob.o \
	     $(BUILD)/kern/$(GEN)/user_args.o
endif

# The function-graph tracer (docs/function-graph.md): every function starts
# with a patchable entry listed in __patchable_function_entries, except in
# the notrace-y objects; scripts/fentry_nops.py makes each one 5-byte NOP in
# the linked kernel (the tracer's folder, kern/trace, is all notrace).
# Single functions elsewhere say `notrace` (compiler.h).
# FENTRY=y gives the sites without CONFIG_TTRACE (scripts/bench.py's
# baseline, which tells their cost from the tracer's).
ifneq ($(filter y,$(CONFIG_TTRACE) $(FENTRY)),)
FENTRY_FLAGS := -fpatchable-function-entry=5
endif
$(NOTRACE_OBJS): FENTRY_FLAGS :=

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
	NM=$(NM) $(PY) scripts/fentry_nops.py $@
$(BUILD)/kernel.bin: $(BUILD)/kernel.elf
	$(OBJCOPY) -O binary $< $@

# --- probe modules (docs/probes.md): probes/NAME.c -> /lib/probes/NAME.o ---
# Built with the kernel's flags (-mcmodel=kernel -fno-pic), no debug info;
# the bad ones (tests) are made from a good one by scripts/mkbadprobes.py.
PROBE_OBJS := $(patsubst probes/%.c,$(BUILD)/probes/%.o,$(wildcard probes/*.c))
BAD_PROBES := $(addprefix $(BUILD)/probes/bad/,bad_machine.o bad_trunc.o \
		bad_reloctype.o bad_relocoff.o bad_symvalue.o bad_strtab0.o \
		unknown_sym.o)
$(BUILD)/probes/%.o: probes/%.c $(GEN)/config.h | $(EVENTS_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -g0 -c -o $@ $<
$(BUILD)/probes/bad/unknown_sym.o: tests/probes/unknown_sym.c $(GEN)/config.h | $(EVENTS_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -g0 -c -o $@ $<
$(filter-out %/unknown_sym.o,$(BAD_PROBES)) &: $(BUILD)/probes/syscount.o scripts/mkbadprobes.py
	$(PY) scripts/mkbadprobes.py $< $(BUILD)/probes/bad
# Correct modules with a large .bss (tests/probes/bigbss.c): the module
# address space and page counts under a load and unload loop.
TEST_PROBES := $(BUILD)/probes/test/bss4m.o $(BUILD)/probes/test/bss12m.o
$(BUILD)/probes/test/bss%m.o: tests/probes/bigbss.c $(GEN)/config.h | $(EVENTS_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -g0 -DBSS_MIB=$* -c -o $@ $<
PROBE_FILES := $(foreach p,$(PROBE_OBJS),lib/probes/$(notdir $(p))=$(p)) \
	       $(foreach p,$(BAD_PROBES),lib/probes/bad/$(notdir $(p))=$(p)) \
	       $(foreach p,$(TEST_PROBES),lib/probes/test/$(notdir $(p))=$(p))

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

# --- the host library and host tests ------------------------------------
# The pure files (host-y in kern/lib/Makefrag and kern/trace/lib/Makefrag)
# are compiled once per host flag set into a library: build/host/libklib.a
# with HOSTCFLAGS (ASan, UBSan) for the host tests, build/tools/libklib.a
# with TOOLS_CFLAGS (mk/tools.mk) for the tools; their names differ, as ar
# keeps one member per name. A host test is tests/host/test_NAME.c linked
# with the library, plus the tools/ objects mk/tools.mk names for it; every
# object is compiled once, under build/host/obj/ (mirroring the tree).
HOSTAR		?= ar
hostobj		= $(patsubst %.c,$(BUILD)/host/obj/%.o,$(1))
$(BUILD)/host/obj/%.o: %.c | $(EVENTS_GEN) $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) $(TOOLS_INC) -c -o $@ $<
$(BUILD)/host/libklib.a: $(call hostobj,$(LIB_SRCS))
	@rm -f $@
	$(HOSTAR) rcs $@ $^

HOST_TESTS := $(patsubst tests/host/%.c,$(BUILD)/host/%,$(wildcard tests/host/test_*.c))
$(HOST_TESTS): $(BUILD)/host/%: $(BUILD)/host/obj/tests/host/%.o \
		$(BUILD)/host/libklib.a
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/host/libklib.a \
		$(HOST_LIBS)
host-tests-build: $(HOST_TESTS)
.PHONY: host-tests-build

# --- host tools (rules in mk/tools.mk) -------------------------------------
TOOLS :=
-include mk/tools.mk
tools: $(TOOLS)
.PHONY: tools

# --- fuzzing of the parsers (rules in mk/fuzz.mk) -------------------------
-include mk/fuzz.mk

# --- a trace of a shell command line, saved on the host ------------------
trace: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/trace.ttr "$(CMD)"
	sh scripts/exports.sh $(BUILD)/tools/ttdecode $(BUILD)/trace.ttr
.PHONY: trace

# --- the boot profile: a trace saved at the shell prompt, profiled -------
# docs/boot-profile.md. build/bootprof.ttr, .svg (a timeline) and .json;
# sampled from early boot (ttrace.profile=), bootprof-flame.svg its flame
# graph (time: each sample weighs its interval), each boot phase a root
# (docs/profiling.md).
bootprof: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) CMDLINE=ttrace.profile=997 sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/bootprof.ttr "" boot
	$(BUILD)/tools/ttdecode boot $(BUILD)/bootprof.ttr \
		--svg $(BUILD)/bootprof.svg
	$(BUILD)/tools/ttdecode boot $(BUILD)/bootprof.ttr --json \
		> $(BUILD)/bootprof.json
	$(BUILD)/tools/ttdecode flamegraph $(BUILD)/bootprof.ttr \
		$(BUILD)/bootprof-flame.svg --wall
	@echo "bootprof: $(BUILD)/bootprof.svg $(BUILD)/bootprof.json" \
		"$(BUILD)/bootprof-flame.svg"
.PHONY: bootprof

# --- a sampling profile of a shell command line (docs/profiling.md) -------
# build/profile.ttr and its pictures: profile.folded, profile-flame.svg
# (on-CPU), profile-offcpu.svg, profile-wall.svg, profile.pb.gz (pprof),
# profile.pftrace (Perfetto, the samples as perf samples). PROFILE: what
# ctl `profile on` gets (rate, chains, off-CPU).
PROFILE ?= 997 all offcpu
profile: $(BUILD)/kernel.bin $(INITRAMFS) tools
	PY=$(PY) sh scripts/trace.sh $(BUILD)/kernel.bin $(INITRAMFS) \
		$(BUILD)/profile.ttr "echo profile on $(PROFILE) > \
		/dev/ttrace/ctl; $(CMD); echo profile off > /dev/ttrace/ctl"
	sh scripts/profile.sh $(BUILD)/tools/ttdecode $(BUILD)/profile.ttr
.PHONY: profile

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

# --- the trace drained out of the guest's shared RAM as it runs ---------
# No guest code runs for it (docs/pull.md, "The live drain").
live: $(BUILD)/ttrace.iso $(BUILD)/tools/ttlive $(BUILD)/tools/ttdecode
	SMP=$(SMP) NM=$(NM) $(PY) scripts/live -k $(BUILD)/kernel.elf \
		-m $(BUILD)/live.mem -o $(BUILD)/live.ttr -- \
		--iso $(BUILD)/ttrace.iso --interactive
	$(BUILD)/tools/ttdecode verify $(BUILD)/live.ttr | tail -3
.PHONY: live

# --- benchmark: exact guest instruction counts and host-CPU cycles --------
# scripts/bench.py says what each figure is; docs/benchmarks.md the rest.
$(BUILD)/plugins/ttinsn.so: plugins/ttinsn.c kern/include/abi/insn_mark.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -fPIC -shared $(WARN) -o $@ plugins/ttinsn.c
bench: $(BUILD)/kernel.bin $(INITRAMFS) $(BUILD)/tools/ttbench \
		$(BUILD)/tools/ttlttng $(BUILD)/plugins/ttinsn.so \
		$(BUILD)/tools/ttdecode $(BUILD)/tools/ttlive
	$(PY) scripts/bench.py
.PHONY: bench

# --- soak: every load at once for SOAK seconds, then sysfuzz's long run ----
# (tests/abuse_tests.py; make test runs both shorter)
SOAK		?= 600
soak: $(DEBUG_BUILD)/kernel.bin $(INITRAMFS) tools
	$(PY) tests/abuse_tests.py soak $(SOAK)
.PHONY: soak

# --- the debug kernel: what every test boots (docs/debug.md) ------------
# configs/defconfig with configs/debug.config on top (CONFIG_KMEM_DEBUG,
# CONFIG_UBSAN), built by a second make in build/debug/: only the kernel
# and its ISO; the initramfs, probes and tools are the release build's.
# `make run` and `make bench` boot build/kernel.bin, the release kernel.
$(DEBUG_BUILD).config: configs/defconfig configs/debug.config Kconfig \
		scripts/mergeconfig.py | $(DEPS_STAMP)
	@mkdir -p $(BUILD)
	$(PY) scripts/mergeconfig.py $@ configs/defconfig configs/debug.config
$(DEBUG_BUILD)/kernel.bin: $(DEBUG_BUILD).config FORCE
	+$(MAKE) BUILD=$(DEBUG_BUILD) KCONFIG_CONFIG=$(DEBUG_BUILD).config \
		DEPS_STAMP=$(DEPS_STAMP) $@
$(DEBUG_BUILD)/ttrace.iso: $(DEBUG_BUILD)/kernel.bin $(INITRAMFS) scripts/mkiso.sh
	sh scripts/mkiso.sh $@ $(DEBUG_BUILD)/kernel.bin "$(CMDLINE)" $(INITRAMFS)
debug-kernel: $(DEBUG_BUILD)/kernel.bin
FORCE:
.PHONY: debug-kernel FORCE

# --- tests ---------------------------------------------------------------
test: $(BUILD)/kernel.bin $(DEBUG_BUILD)/ttrace.iso $(INITRAMFS) \
		host-tests-build tools fuzz-build
	$(PY) tests/run_tests.py
.PHONY: test

clean:
	rm -rf $(BUILD)
.PHONY: clean

help:
	@echo "make run        build and boot in QEMU (SMP=$(SMP) MEM=$(MEM), ACCEL=tcg to force TCG)"
	@echo "make test       build and run every test (on the debug kernel, $(DEBUG_BUILD)/kernel.bin: docs/debug.md)"
	@echo "make debug-kernel  build only that kernel"
	@echo "make menuconfig configure (also defconfig, olddefconfig)"
	@echo "make gdb        boot halted under QEMU's gdbstub and attach gdb"
	@echo "make bench      tracer costs: exact guest instructions, host cycles, LTTng and ftrace beside; $(BUILD)/bench.json"
	@echo "make trace CMD='ls -l /bin'  run CMD in the guest, save its trace to $(BUILD)/trace.ttr"
	@echo "make bootprof   boot, save the trace at the shell prompt, print its boot profile ($(BUILD)/bootprof.svg, .json)"
	@echo "make stream CMD='tracestress burst 60000'  stream the trace to $(BUILD)/stream.ttr while CMD runs"
	@echo "make pull       while make run runs (or hangs): its trace out of guest memory to $(BUILD)/pull.ttr"
	@echo "make live       make run, its trace drained out of guest RAM as it runs to $(BUILD)/live.ttr"
	@echo "make soak       every load at once for SOAK=600 s at 4 CPUs, traces verified, pages back; then 100,000 sysfuzz calls"
	@echo "make fuzz       libFuzzer on the parsers for FUZZ=600 s in all (tests/fuzz/)"
	@echo "make clean      remove $(BUILD)/"
.PHONY: help

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
