# Host tools: decoders of ttrace trace files. Included by the top Makefile
# after the kern/lib lists (it uses WARN, BUILD, LIB_SRCS, HOSTAR and
# hostobj); each tool adds itself to TOOLS, which `make tools` builds.
# The folders by role:
#
#	tools/		the commands' fronts (ttdecode's table and verify,
#			unwrap, scale, split; ttpull, ttbench, ttmetablob)
#	tools/load/	the loader, its CRC-32 folding, the filters, the
#			merge of CPUs and the one model of a trace
#	tools/export/	one file per ttdecode export (text, json, stats,
#			boot, uftrace, ctf), each registering its command
#			(TTDECODE_COMMAND, tools/ttdecode.h), and what they
#			share (ttexport.c)
#	tools/analysis/	the analyses (critpath, wakeup, errno): pure
#			engines over a scheduling model and the graph's
#			returns, and the files of their commands (ttcmd_*.c)
#
# They read only the documented file format: the shared headers come from
# kern/include and kern/trace/lib through -idirafter (so the host's own
# <string.h> wins over the kernel's), and the pure code they need comes from
# build/tools/libklib.a, compiled once, not copied. Objects go under
# build/tools/obj/. TOOLS_SAN=1 adds AddressSanitizer/UBSan.
#
#	make tools			build/tools/ttdecode
#	build/tools/ttdecode verify build/trace.ttr

TOOLS_INC	:= -Itools -Itools/load -Itools/export -Itools/analysis \
		   -Itools/profile
TOOLS_CFLAGS	:= -std=gnu11 -O2 -g $(WARN) -idirafter kern/include \
		   -idirafter kern/trace/lib
ifeq ($(TOOLS_SAN),1)
TOOLS_CFLAGS	+= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
endif

toolobj		= $(patsubst %.c,$(BUILD)/tools/obj/%.o,$(1))
$(BUILD)/tools/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TOOLS_CFLAGS) -MD -MP $(TOOLS_INC) -c -o $@ $<	# -MD: see HOSTCFLAGS
TOOLS_LIB	:= $(BUILD)/tools/libklib.a
$(TOOLS_LIB): $(call toolobj,$(LIB_SRCS))
	@rm -f $@
	$(HOSTAR) rcs $@ $^

# the loader every decoder shares, with its CRC-32 folding
TTLOAD_SRCS	:= tools/load/ttload.c tools/load/ttcrc32.c
# the trace as one stream (CPUs merged) and its model: spans, losses
TTMODEL_SRCS	:= tools/load/ttmerge.c tools/load/ttmodel.c

# ttdecode: the command table and the commands that are not exports, the
# loader's folder, and every file of tools/export/ (an export is one file
# there: its command registers itself, docs/ttdecode.md)
TTDECODE_SRCS	:= tools/ttdecode.c tools/ttunwrap.c tools/ttscale.c \
		   tools/ttsplit.c
TTDECODE_SRCS	+= $(TTLOAD_SRCS) $(TTMODEL_SRCS) tools/load/ttfilter.c
TTDECODE_SRCS	+= $(sort $(wildcard tools/export/*.c))
# the analyses (docs/analysis.md): engines and commands, the same way
TTANALYSIS_SRCS	:= tools/analysis/ttsched.c tools/analysis/ttcrit.c \
		   tools/analysis/tterrno.c
TTDECODE_SRCS	+= $(sort $(wildcard tools/analysis/*.c))
# the sampling profile's model and its exports (docs/profiling.md); pprof's
# gzip is zlib's
TTDECODE_SRCS	+= $(sort $(wildcard tools/profile/*.c))
TTDECODE_LIBS	:= -lz

# Linked statically (not under the sanitizers, which cannot be): a run of
# `ttdecode text` on a 10k-record trace takes a few milliseconds, and the
# dynamic loader's start (mapping libc, its relocations) was 0.2 ms of them.
TTDECODE_LDFLAGS := $(if $(filter 1,$(TOOLS_SAN)),,-static)
$(BUILD)/tools/ttdecode: $(call toolobj,$(TTDECODE_SRCS)) $(TOOLS_LIB)
	$(HOSTCC) $(TOOLS_CFLAGS) $(TTDECODE_LDFLAGS) -o $@ $^ $(TTDECODE_LIBS)

TOOLS += $(BUILD)/tools/ttdecode

# The build's metadata blob writer (tools/ttmetablob.c): the generated event
# table, serialised and checked by kern/trace/lib's metadata code.
$(call toolobj,tools/ttmetablob.c $(GEN)/ttrace_events.c): \
	TOOLS_CFLAGS += -I$(GEN)
$(call toolobj,tools/ttmetablob.c $(GEN)/ttrace_events.c): | $(EVENTS_GEN)
$(BUILD)/tools/ttmetablob: $(call toolobj,tools/ttmetablob.c \
		$(GEN)/ttrace_events.c) $(TOOLS_LIB)
	$(HOSTCC) $(TOOLS_CFLAGS) -o $@ $^
$(call hostobj,tests/host/test_ttrace_events.c): $(GEN)/ttrace_meta_blob.c

# The decoder under ASan/UBSan, which tests/host/test_ttdecode.c runs: the
# host tests' objects and library.
$(BUILD)/host/ttdecode-san: $(call hostobj,$(TTDECODE_SRCS)) \
		$(BUILD)/host/libklib.a
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $^ $(TTDECODE_LIBS)
$(BUILD)/host/test_ttdecode: $(BUILD)/host/ttdecode-san
$(call hostobj,tests/host/test_ttdecode.c): \
	HOSTCFLAGS += -DTTDECODE_BIN='"$(BUILD)/host/ttdecode-san"'

# Host tests that link tools/ objects besides the library: the file format's
# test also exercises the loader, the boot profile's builds traces and
# computes their profiles, the exporters' (docs/exports.md) and the pull's
# load what they write.
$(BUILD)/host/test_ttrace_file: $(call hostobj,$(TTLOAD_SRCS))
$(BUILD)/host/test_ttboot: $(call hostobj,$(TTLOAD_SRCS) $(TTMODEL_SRCS) \
		tools/export/ttboot.c tools/export/ttboot_svg.c)
$(BUILD)/host/test_ttexport: $(call hostobj,$(TTLOAD_SRCS) $(TTMODEL_SRCS) \
		tools/export/ttexport.c tools/export/ttuftrace.c \
		tools/export/ttctf.c)
$(BUILD)/host/test_ttrace_pull: $(call hostobj,$(TTLOAD_SRCS))
$(BUILD)/host/test_critpath: $(call hostobj,$(TTANALYSIS_SRCS))
$(BUILD)/host/test_ttrace_lastboot: $(call hostobj,$(TTLOAD_SRCS))

# The host half of `make bench`: the kernel's fast-path code timed on this
# CPU (tools/ttbench.c explains why). Its own copies of the two files it
# times (and what they call: the reader's CRC), with fixed flags: its
# figures must not depend on TOOLS_SAN.
TTBENCH_SRCS	:= tools/ttbench.c kern/trace/lib/ring.c kern/trace/lib/aux.c \
		   kern/trace/lib/file.c kern/lib/printfmt.c
$(BUILD)/tools/ttbench: $(TTBENCH_SRCS) kern/trace/lib/trace_ring.h \
		kern/trace/lib/ttrace_aux.h kern/trace/lib/crc32c.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 $(WARN) -idirafter kern/include \
		-idirafter kern/trace/lib -o $@ $(TTBENCH_SRCS)

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
$(BUILD)/tools/ttpull: $(call toolobj,tools/ttpull.c) $(TOOLS_LIB)
	$(HOSTCC) $(TOOLS_CFLAGS) -o $@ $^

TOOLS += $(BUILD)/tools/ttpull

# The live drain (`make live`, docs/pull.md): a running guest's rings read
# out of its RAM, shared by QEMU as a file, by the kernel's own reader.
TTLIVE_SRCS	:= tools/live.c
$(BUILD)/tools/ttlive: $(call toolobj,tools/ttlive.c $(TTLIVE_SRCS)) \
		$(TOOLS_LIB)
	$(HOSTCC) $(TOOLS_CFLAGS) -o $@ $^
$(BUILD)/host/test_ttrace_live: $(call hostobj,$(TTLIVE_SRCS) $(TTLOAD_SRCS))

TOOLS += $(BUILD)/tools/ttlive

# ttrawread (tools/ttrawread.c): Linux ring-buffer pages (trace_pipe_raw)
# read with Debian's libtraceevent (libtraceevent-dev, scripts/deps.sh),
# which tests/host/test_ttrace_ftpage.c and tests/seams_tracefs31b.py run.
$(call toolobj,tools/ttrawread.c): TOOLS_CFLAGS += -I/usr/include/traceevent
$(BUILD)/tools/ttrawread: $(call toolobj,tools/ttrawread.c)
	$(HOSTCC) $(TOOLS_CFLAGS) -o $@ $^ -ltraceevent
TOOLS += $(BUILD)/tools/ttrawread
$(BUILD)/host/test_ttrace_ftpage: $(BUILD)/tools/ttrawread
$(call hostobj,tests/host/test_ttrace_ftpage.c): \
	HOSTCFLAGS += -DTTRAWREAD_BIN='"$(BUILD)/tools/ttrawread"'
# The profile's host tests (tests/host/test_ttprof.c): the model and its
# exports, with zlib to read pprof's gzip back.
$(BUILD)/host/test_ttprof: $(call hostobj,$(TTLOAD_SRCS) $(TTMODEL_SRCS) \
		tools/export/ttexport.c tools/export/ttboot.c \
		tools/export/ttboot_svg.c $(wildcard tools/profile/*.c))
$(BUILD)/host/test_ttprof: HOST_LIBS := -lz
