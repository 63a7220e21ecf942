# Host tools (tools/*.c): decoders of ttrace trace files. Included by the
# top Makefile after kern/lib/Makefrag (it uses WARN, BUILD and LIB_SRCS);
# each tool adds itself to TOOLS, which `make tools` builds.
#
# They read only the documented file format: the shared headers come from
# kern/include through -idirafter (so the host's own <string.h> wins over
# the kernel's), and the pure kern/lib code they need is compiled in, not
# copied. TOOLS_SAN=1 adds AddressSanitizer/UBSan.
#
#	make tools			build/tools/ttdecode
#	build/tools/ttdecode verify build/trace.ttr

TOOLS_CFLAGS	:= -std=gnu11 -O2 -g $(WARN) -idirafter kern/include
ifeq ($(TOOLS_SAN),1)
TOOLS_CFLAGS	+= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
endif

# What every decoder links: file framing, loader, metadata, aux, decoding.
TOOLS_LIB_SRCS	:= kern/lib/ttrace_file.c kern/lib/ttrace_meta.c \
		   kern/lib/ttrace_aux.c kern/lib/ttrace_decode.c \
		   kern/lib/printfmt.c kern/lib/tsc_sync.c kern/lib/cmdline.c \
		   kern/lib/parse_num.c \
		   tools/ttload.c
TOOLS_HDRS	:= kern/include/ttrace_file.h kern/include/ttrace_format.h \
		   kern/include/ttrace_decode.h kern/include/ttrace_meta.h \
		   kern/include/ttrace_aux.h kern/include/tsc_sync.h \
		   tools/ttload.h tools/ttboot.h

# ttdecode's own files: the command table and one file per command family.
TTDECODE_SRCS	:= tools/ttdecode.c tools/ttmerge.c tools/ttfilter.c \
		   tools/tttext.c tools/ttunwrap.c tools/ttscale.c \
		   tools/ttspan.c tools/ttjson.c tools/ttstats.c
TTDECODE_HDRS	:= tools/ttdecode.h tools/ttmerge.h tools/ttfilter.h \
		   tools/ttspan.h
# the boot profile (docs/boot-profile.md)
TTDECODE_SRCS	+= tools/ttboot.c tools/ttboot_svg.c
# the exporters (docs/exports.md)
TTDECODE_SRCS	+= tools/ttexport.c tools/ttuftrace.c tools/ttctf.c
TOOLS_HDRS	+= tools/ttexport.h

$(BUILD)/tools/ttdecode: $(TTDECODE_SRCS) $(TOOLS_LIB_SRCS) $(TOOLS_HDRS) \
		$(TTDECODE_HDRS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TOOLS_CFLAGS) -Itools -o $@ $(TTDECODE_SRCS) $(TOOLS_LIB_SRCS)

TOOLS += $(BUILD)/tools/ttdecode

# The decoder under ASan/UBSan, which tests/host/test_ttdecode.c runs.
$(BUILD)/host/ttdecode-san: $(TTDECODE_SRCS) $(TOOLS_LIB_SRCS) $(TOOLS_HDRS) \
		$(TTDECODE_HDRS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TOOLS_CFLAGS) -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -Itools \
		-o $@ $(TTDECODE_SRCS) $(TOOLS_LIB_SRCS)
$(BUILD)/host/test_ttdecode: tests/host/test_ttdecode.c $(LIB_SRCS) \
		$(BUILD)/host/ttdecode-san | $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -DTTDECODE_BIN='"$(BUILD)/host/ttdecode-san"' \
		-o $@ $< $(LIB_SRCS)

# The host test of the file format also exercises tools/ttload.c.
$(BUILD)/host/test_ttrace_file: tests/host/test_ttrace_file.c $(LIB_SRCS) \
		tools/ttload.c $(TOOLS_HDRS) | $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -Itools -o $@ $< $(LIB_SRCS) tools/ttload.c

# The boot profile's host test builds traces and computes their profiles.
$(BUILD)/host/test_ttboot: tests/host/test_ttboot.c $(LIB_SRCS) \
		tools/ttload.c tools/ttboot.c tools/ttboot_svg.c $(TOOLS_HDRS) \
		| $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -Itools -o $@ $< $(LIB_SRCS) tools/ttload.c \
		tools/ttboot.c tools/ttboot_svg.c

# The host test of the exporters (docs/exports.md).
EXPORT_SRCS	:= tools/ttload.c tools/ttexport.c tools/ttuftrace.c tools/ttctf.c
$(BUILD)/host/test_ttexport: tests/host/test_ttexport.c $(LIB_SRCS) \
		$(EXPORT_SRCS) $(TOOLS_HDRS) | $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -Itools -o $@ $< $(LIB_SRCS) $(EXPORT_SRCS)

# The host half of `make bench`: the kernel's fast-path code timed on this
# CPU (tools/ttbench.c explains why).
$(BUILD)/tools/ttbench: tools/ttbench.c kern/lib/trace_ring.c \
		kern/lib/ttrace_aux.c kern/include/trace_ring.h \
		kern/include/ttrace_aux.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 $(WARN) -idirafter kern/include -o $@ \
		tools/ttbench.c kern/lib/trace_ring.c kern/lib/ttrace_aux.c

TOOLS += $(BUILD)/tools/ttbench

# The LTTng-UST anchor of `make bench` (Debian's liblttng-ust-dev): the same
# five 64-bit words into a running session, timed on this host.
LTTNG_INC	:= /usr/include/$(shell gcc -print-multiarch)
$(BUILD)/tools/ttlttng: tools/lttng/ttlttng.c tools/lttng/ttlttng_tp.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -Wall -Wextra -I$(LTTNG_INC) -Itools/lttng \
		-o $@ tools/lttng/ttlttng.c -llttng-ust -ldl

# The host half of `make pull` (docs/pull.md): memory dumps of a guest to a
# trace file, through the kernel's own ring reader and image writer.
TTPULL_LIB_SRCS	:= kern/lib/ttrace_pull.c kern/lib/ttrace_image.c \
		   kern/lib/trace_ring.c kern/lib/ttrace_file.c \
		   kern/lib/ttrace_decode.c kern/lib/ttrace_meta.c \
		   kern/lib/ttrace_aux.c kern/lib/printfmt.c
$(BUILD)/tools/ttpull: tools/ttpull.c $(TTPULL_LIB_SRCS) \
		kern/include/ttrace_pull.h kern/include/ttrace_root.h \
		kern/include/ttrace_image.h $(TOOLS_HDRS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TOOLS_CFLAGS) -o $@ tools/ttpull.c $(TTPULL_LIB_SRCS)

TOOLS += $(BUILD)/tools/ttpull

# The pull's host test loads what it writes with tools/ttload.c.
$(BUILD)/host/test_ttrace_pull: tests/host/test_ttrace_pull.c $(LIB_SRCS) \
		tools/ttload.c $(TOOLS_HDRS) | $(GEN)/config.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -Itools -o $@ $< $(LIB_SRCS) tools/ttload.c
