# User space and the initramfs, included by the top Makefile (which defines
# CC, LD, BUILD, WARN and DEPS_STAMP).
#
# user/Makefrag names the sources: ULIB_SRCS make build/user/libc.a,
# UCRT0_SRC is linked first into every program, and program NAME is built
# from the sources NAME-srcs lists, else user/bin/NAME.c, else user/NAME.c,
# into build/user/NAME. Objects go under build/user/obj/, mirroring the
# source tree (kern/lib/string.c is compiled again here, with the user
# flags).
#
# build/initramfs.cpio, the boot module the kernel mounts at /, holds
# /bin/NAME for every program and user/etc/* as /etc/*; the lead's boot
# image rules pass it to GRUB (or QEMU's -initrd) as the first module.

include user/Makefrag

AR		:= $(CROSS_COMPILE)ar
UBUILD		:= $(BUILD)/user
# -mgeneral-regs-only: the kernel does not save SSE/x87 state per thread.
# -pg -mnop-mcount: a frame in every function, leaves too, for the
# profiler's walk of user stacks (docs/profiling.md): GCC 12 drops the
# frame of a leaf that needs no stack even with -fno-omit-frame-pointer
# and -mno-omit-leaf-frame-pointer, but keeps it in a function that
# calls mcount, here a 5-byte NOP after the prologue.
UCFLAGS		:= -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie \
		   -fno-stack-protector -fno-omit-frame-pointer -pg -mnop-mcount \
		   -fno-asynchronous-unwind-tables -mgeneral-regs-only \
		   $(WARN) -MMD -MP \
		   -Iuser/include -Ikern/include -Ikern/trace/lib
ULDFLAGS	:= -static -z noexecstack -T user/user.ld

uobj		= $(patsubst %.c,$(UBUILD)/obj/%.o,$(1))
uprog_srcs	= $(or $($(1)-srcs),$(firstword $(wildcard user/bin/$(1).c) \
		  user/$(1).c))

ULIB_OBJS	:= $(call uobj,$(ULIB_SRCS))
UCRT0_OBJ	:= $(call uobj,$(UCRT0_SRC))
UPROG_BINS	:= $(addprefix $(UBUILD)/,$(UPROGS))
UETC_FILES	:= $(wildcard user/etc/*)
INITRAMFS	:= $(BUILD)/initramfs.cpio

$(UBUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c -o $@ $<

$(UBUILD)/libc.a: $(ULIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# ttrace sizes its tables of CPUs by the kernel's CONFIG_MAX_NUM_CPUS.
$(call uobj,$(ttrace-srcs)): UCFLAGS += -include $(GEN)/config.h
$(call uobj,$(ttrace-srcs)): $(GEN)/config.h

# One link rule per program: NAME's objects depend on where its sources are.
define UPROG_RULE
$(UBUILD)/$(1): $(UCRT0_OBJ) $(call uobj,$(call uprog_srcs,$(1))) \
		$(UBUILD)/libc.a user/user.ld
	$(LD) $(ULDFLAGS) -o $$@ $(UCRT0_OBJ) \
		$(call uobj,$(call uprog_srcs,$(1))) $(UBUILD)/libc.a
endef
$(foreach p,$(UPROGS),$(eval $(call UPROG_RULE,$(p))))

$(INITRAMFS): $(UPROG_BINS) $(UETC_FILES) $(PROBE_OBJS) $(BAD_PROBES) $(TEST_PROBES) \
		scripts/mkinitramfs.py
	$(PY) scripts/mkinitramfs.py $@ $(PROBE_FILES) \
		$(foreach p,$(UPROG_BINS),bin/$(notdir $(p))=$(p)) \
		$(foreach f,$(UETC_FILES),etc/$(notdir $(f))=$(f))

user: $(UPROG_BINS) $(INITRAMFS)
all: user
.PHONY: user
