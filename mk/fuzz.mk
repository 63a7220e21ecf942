# The fuzz targets (tests/fuzz/, docs/reliability.md), included by the top
# Makefile after mk/tools.mk (it uses WARN, GEN, HOSTCC, HOSTCFLAGS and
# TOOLS_LIB_SRCS). Each target tests/fuzz/fuzz_NAME.c is built twice:
#
#	build/fuzz/NAME			libFuzzer (clang-14 -fsanitize=fuzzer,
#					address,undefined), run by `make fuzz`
#	build/host/test_fuzz_NAME	gcc ASan/UBSan with tests/fuzz/replay.c:
#					replays the seed corpus and every kept
#					crash in `make test`
#
#	make fuzz			600 s split over the targets
#	make fuzz FUZZ=60 FUZZ_TARGETS='ctl sh'

FUZZ		?= 600
FUZZ_TARGETS	?=
FUZZ_CC		:= clang-14
FUZZ_CFLAGS	:= -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) \
		   -idirafter kern/include -idirafter kern/trace/lib -I$(GEN) \
		   -Itests/fuzz $(TOOLS_INC) -Iuser

# What each target links besides its own file: the parser under test.
FUZZ_META_SRCS	:= kern/trace/lib/meta.c kern/trace/lib/meta_parse.c \
		   kern/trace/lib/meta_write.c
FUZZ_SRCS_ttload	:= tests/fuzz/reseal.c kern/trace/lib/file.c $(FUZZ_META_SRCS) \
			   kern/trace/lib/aux.c kern/trace/lib/decode.c \
			   kern/lib/printfmt.c kern/lib/tsc_sync.c \
			   kern/lib/cmdline.c kern/lib/parse_num.c \
			   kern/lib/seqbuf.c $(TTLOAD_SRCS)
# ctl and probe: the one ctl table, whose probe rows parse in
# ttrace_probe_spec.c, and its fprobe row in fprobe_parse.c
FUZZ_SRCS_ctl		:= kern/trace/lib/ctl_parse.c kern/trace/lib/probe_parse.c \
			   kern/trace/lib/fprobe_parse.c \
			   kern/lib/parse_num.c $(FUZZ_META_SRCS) \
			   kern/lib/printfmt.c kern/lib/seqbuf.c \
			   $(GEN)/ttrace_events.c
FUZZ_SRCS_probe		:= $(FUZZ_SRCS_ctl)
# the exporters through ttdecode's own command table: fuzz_export.c
# includes tools/ttdecode.c (its main renamed), so every ttdecode source
# but that one, and the host library's code (LIB_SRCS)
FUZZ_SRCS_export	:= tests/fuzz/reseal.c \
			   $(filter-out tools/ttdecode.c,$(TTDECODE_SRCS)) \
			   $(LIB_SRCS)
FUZZ_DEPS_export	:= tools/ttdecode.c
FUZZ_LIBS_export	:= $(TTDECODE_LIBS)
FUZZ_SRCS_cmdline	:= kern/lib/cmdline.c kern/lib/parse_num.c
FUZZ_SRCS_elf		:= kern/lib/elf_check.c
FUZZ_SRCS_cpio		:= kern/lib/cpio_newc.c
FUZZ_SRCS_sh		:= user/sh_parse.c
FUZZ_SRCS_module	:= kern/trace/lib/module_elf.c kern/lib/printfmt.c
FUZZ_NAMES		:= ttload export ctl probe cmdline elf cpio sh module

define FUZZ_RULES
$(BUILD)/fuzz/$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/fuzz.h \
		$(FUZZ_SRCS_$(1)) $(FUZZ_DEPS_$(1)) | $(EVENTS_GEN) $(GEN)/config.h \
		$(DEPS_STAMP)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $$@ $$< $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1))
$(BUILD)/host/test_fuzz_$(1): tests/fuzz/replay.c tests/fuzz/fuzz_$(1).c \
		tests/fuzz/fuzz.h $(FUZZ_SRCS_$(1)) $(FUZZ_DEPS_$(1)) | \
		$(EVENTS_GEN) $(GEN)/config.h
	@mkdir -p $$(dir $$@)
	$(HOSTCC) $(HOSTCFLAGS) -Itests/fuzz $(TOOLS_INC) -Iuser \
		-DFUZZ_TARGET='"$(1)"' -o $$@ tests/fuzz/replay.c \
		tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_NAMES),$(eval $(call FUZZ_RULES,$(t))))

FUZZ_BINS	:= $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES))
host-tests-build: $(addprefix $(BUILD)/host/test_fuzz_,$(FUZZ_NAMES))

fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	$(PY) scripts/fuzz.py --seconds $(FUZZ) $(FUZZ_TARGETS)
.PHONY: fuzz fuzz-build
