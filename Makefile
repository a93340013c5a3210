# hotprof build. GNU Make, no autotools. Every source under a layer's directory (subdirectories
# included) is picked up by find, so adding a file needs no edit here. Layering (DESIGN.md): core <- runtime, analysis, sim <- cli.
#   make            build everything into build/
#   make check      build and run every test (unit + end-to-end); ends with "N passed, N failed"
#   make unit       unit tests only (they link libhotprof_core.a, libhotprof_analysis.a and
#                   libhotprof_rtparts.a: the runtime without init, api and hooks)
#   make bench      run the benchmarks in bench/ (slow)
#   make demo       profile a bundled workload and print a report
#   make install PREFIX=/usr/local   (make uninstall PREFIX=... removes it again; DESTDIR=
#                   stages it: files go under $(DESTDIR)$(PREFIX), hotprof.pc names PREFIX)
#   make SAN=1      build with ASan+UBSan (tests run this way in CI)
CC       ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := $(shell sed -n 's/.*HOTPROF_VERSION "\(.*\)".*/\1/p' include/hotprof/version.h)
B        ?= build
WARN     := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT      ?= -O2 -g
CFLAGS   ?=
BASEFLAGS := -std=gnu11 $(OPT) $(WARN) -fPIC -Iinclude -Isrc -I$(B)/gen
ifeq ($(SAN),1)
BASEFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN     := -fsanitize=address,undefined
endif
ALLCFLAGS := $(BASEFLAGS) $(CFLAGS)

srcs_under = $(sort $(shell find $(1) -name '*.c' 2>/dev/null))
CORE_SRC     := $(call srcs_under,src/core)
RUNTIME_SRC  := $(call srcs_under,src/runtime)
ANALYSIS_SRC := $(call srcs_under,src/analysis)
SIM_SRC      := $(call srcs_under,src/sim)
CLI_SRC      := $(call srcs_under,src/cli)
UNIT_SRC     := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(B)/%.o,$(1))
CORE_OBJ     := $(call obj,$(CORE_SRC))
RUNTIME_OBJ  := $(call obj,$(RUNTIME_SRC))
# The pprof schema is compiled by protoc-c at build time into $(B)/gen (never into git).
PPROF_PROTO  := src/analysis/pprof/profile.proto
PPROF_GEN    := $(B)/gen/analysis/pprof/profile.pb-c
ANALYSIS_OBJ := $(call obj,$(ANALYSIS_SRC)) $(PPROF_GEN).o
SIM_OBJ      := $(call obj,$(SIM_SRC))
CLI_OBJ      := $(call obj,$(CLI_SRC))
UNIT_BIN     := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))

ANALYSIS_LIBS := -ldw -lelf -lz -lcapstone -lprotobuf-c -lzstd
RT_LIBS       := -lpthread -ldl -lm
# The .so only. Capstone (ctl/interp_dec.c) and libunwind (ctl/timer_unwind.c) are dlopen'ed, not
# linked: a program runs in timer mode even where they are missing (say why in those files).
# Shadow mode (ctl/shadow_filter.c) dlopens libseccomp.so.2 the same way (no new link flag for
# `hotprof cc` programs); building needs its header, seccomp.h (Debian libseccomp-dev).
RT_SO_LIBS    :=

# The example value-sampling customization modules (examples/value-modules/*.c, include/hotprof/module.h).
VMOD_SRC := $(wildcard examples/value-modules/*.c)
VMOD_SO  := $(patsubst examples/value-modules/%.c,$(B)/lib/modules/%.so,$(VMOD_SRC))

.PHONY: all check unit unit-bins e2e bench demo install uninstall clean
all: $(B)/bin/hotprof $(B)/bin/hotprof-cc $(B)/bin/hotprof-c++ $(B)/lib/hotprof-as/as $(B)/lib/libhotprof_rt.a $(B)/lib/libhotprof_rt.so $(UNIT_BIN) $(B)/man/hotprof.1 $(VMOD_SO) dual-plugin

$(B)/lib/modules/%.so: examples/value-modules/%.c include/hotprof/module.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -Iinclude $< -o $@

# The two-version pass plugin (plugin/, docs/dual.md): C++ against LLVM 14, built only where
# llvm-config-14 exists (Debian llvm-14-dev); everything else builds without it, and
# `hotprof cc --hooks=dual-*` then says the plugin is missing.
LLVM_CONFIG ?= $(shell command -v llvm-config-14 2>/dev/null)
DUAL_PLUGIN := $(B)/lib/hotprof_dual.so
.PHONY: dual-plugin
ifneq ($(LLVM_CONFIG),)
dual-plugin: $(DUAL_PLUGIN)
$(DUAL_PLUGIN): plugin/hotprof_dual.cpp plugin/dual_countreg.cpp plugin/dual_countreg.h plugin/dual_countver.cpp plugin/dual_countver.h plugin/dual_blockra.cpp plugin/dual_blockra.h plugin/dual_hookcall.cpp plugin/dual_hookcall.h plugin/dual_indirect.cpp plugin/dual_indirect.h plugin/dual_loops.cpp plugin/dual_loops.h plugin/dual_options.cpp plugin/dual_options.h plugin/dual_peel.cpp plugin/dual_peel.h plugin/dual_retsites.cpp plugin/dual_retsites.h plugin/dual_wrapper.cpp plugin/dual_wrapper.h
	@mkdir -p $(dir $@)
	clang++ -O2 -fPIC -shared $(subst -I,-isystem ,$(shell $(LLVM_CONFIG) --cxxflags)) -fno-rtti $(WARN) -o $@ $(filter %.cpp,$^)
else
dual-plugin:
	@echo "note: llvm-config-14 not found (install llvm-14-dev): the --hooks=dual-* plugin is not built"
endif

# The runtime is never built with sanitizers: it is linked into profiled programs.
$(B)/src/runtime/%.o: src/runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) -fPIC -Iinclude -Isrc -fvisibility=hidden -ftls-model=initial-exec $(CFLAGS) -MMD -MP -c $< -o $@
$(B)/rtcore/%.o: src/core/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) -fPIC -Iinclude -Isrc -fvisibility=hidden $(CFLAGS) -MMD -MP -c $< -o $@
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -MMD -MP -c $< -o $@

# Generated code: compiled with the warnings but without -Werror (its style is protoc-c's).
$(PPROF_GEN).c: $(PPROF_PROTO)
	@mkdir -p $(B)/gen
	protoc-c --proto_path=src --c_out=$(B)/gen $(PPROF_PROTO)
$(PPROF_GEN).h: $(PPROF_GEN).c ;
$(PPROF_GEN).o: $(PPROF_GEN).c $(PPROF_GEN).h
	$(CC) $(filter-out -Werror,$(ALLCFLAGS)) -c $< -o $@
# Everything that may include the generated header waits for it (the first build has no .d files).
$(call obj,$(ANALYSIS_SRC) $(CLI_SRC)) $(UNIT_BIN): | $(PPROF_GEN).h

RTCORE_OBJ := $(patsubst src/core/%.c,$(B)/rtcore/%.o,$(CORE_SRC))
# Timer mode and its interpreter (src/runtime/ctl/timer*.c, interp*.c) exist only in the preloaded
# libhotprof_rt.so: the static runtime linked into `hotprof cc` programs must not pull in the
# interposed signal and thread functions, the unwinder or Capstone (init.c reaches them weakly).
RT_TIMER_OBJ  := $(filter $(B)/src/runtime/ctl/timer% $(B)/src/runtime/ctl/interp%,$(RUNTIME_OBJ))
RT_STATIC_OBJ := $(filter-out $(RT_TIMER_OBJ),$(RUNTIME_OBJ))
$(B)/lib/libhotprof_core.a: $(CORE_OBJ)
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
$(B)/lib/libhotprof_rt.a: $(RT_STATIC_OBJ) $(RTCORE_OBJ)
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
$(B)/lib/libhotprof_rt.so: $(RUNTIME_OBJ) $(RTCORE_OBJ)
	@mkdir -p $(dir $@); $(CC) -shared -o $@ $^ $(RT_LIBS) $(RT_SO_LIBS)
$(B)/lib/libhotprof_analysis.a: $(ANALYSIS_OBJ) $(SIM_OBJ)
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
# The runtime's parts that link alone, for unit tests: every runtime object but the process
# init (its constructor would start profiling the test), the API and the ABI entry points. A test
# that pulls in thread.o must define hp_rt_ensure_init itself (runtime/init.h).
# Nor the timer's objects: they define libc's pthread_create and signal functions (interposed),
# which would pull the whole runtime into any test that creates a thread.
RTPARTS_OBJ := $(filter-out $(B)/src/runtime/init.o $(B)/src/runtime/api.o $(B)/src/runtime/hooks.o $(filter $(B)/src/runtime/ctl/timer%,$(RUNTIME_OBJ)),$(RUNTIME_OBJ))
$(B)/lib/libhotprof_rtparts.a: $(RTPARTS_OBJ)
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^

$(B)/bin/hotprof: $(CLI_OBJ) $(B)/lib/libhotprof_analysis.a $(B)/lib/libhotprof_core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(B)/lib/libhotprof_analysis.a $(B)/lib/libhotprof_core.a $(ANALYSIS_LIBS) -lncursesw -lm

# Unit tests link the analysis and core libraries and the runtime's parts (libhotprof_rtparts.a:
# only the objects a test references are pulled in).
$(B)/tests/%: tests/unit/%.c $(B)/lib/libhotprof_rtparts.a $(B)/lib/libhotprof_analysis.a $(B)/lib/libhotprof_core.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) $(LDSAN) -Itests/unit -MMD -MP -o $@ $< $(B)/lib/libhotprof_rtparts.a $(B)/lib/libhotprof_analysis.a $(B)/lib/libhotprof_core.a $(ANALYSIS_LIBS) $(RT_LIBS)

# One-word compiler drivers (main.c: argv[0] hotprof-cc / hotprof-c++ is `hotprof cc` / `c++`).
$(B)/bin/hotprof-cc $(B)/bin/hotprof-c++: $(B)/bin/hotprof
	ln -sf hotprof $@
# The assembler front of `hotprof cc --dual-latch=branch` (cli/cmd_as.c): clang runs it as `as`.
$(B)/lib/hotprof-as/as: $(B)/bin/hotprof
	@mkdir -p $(dir $@)
	ln -sf ../../bin/hotprof $@

# The manual pages (build/man/*.1, hotprof-format.5): rendered by the binary from its command and
# option tables (`hotprof help --man`), plus docs/man/*.roff and docs/format.md (gen_man.sh).
$(B)/man/hotprof.1: $(B)/bin/hotprof scripts/gen_man.sh scripts/md2man.awk docs/format.md $(wildcard docs/man/*.roff)
	scripts/gen_man.sh $(B)/bin/hotprof $(B)/man

unit-bins: $(UNIT_BIN)

unit: $(UNIT_BIN)
	@tests/run_unit.sh $(B)/tests

e2e: all
	@tests/run_e2e.sh

# (+: run_all.sh's make of the sanitizer build shares this make's job slots; it ran -j1 without)
check: all
	+@tests/run_all.sh

bench: all
	@bench/run_all.sh

demo: all
	@scripts/demo.sh

# Everything goes under $(DESTDIR)$(PREFIX): the command and its one-word drivers, the runtime,
# the header, the manual pages, hotprof.pc (written here, with PREFIX) and the bash completion.
IDIR := $(DESTDIR)$(PREFIX)
install: all
	install -d $(IDIR)/bin $(IDIR)/lib $(IDIR)/include/hotprof $(IDIR)/share/hotprof
	install -d $(IDIR)/share/man/man1 $(IDIR)/share/man/man5 $(IDIR)/lib/pkgconfig $(IDIR)/share/bash-completion/completions
	install -m 755 $(B)/bin/hotprof $(IDIR)/bin/hotprof
	ln -sf hotprof $(IDIR)/bin/hotprof-cc
	ln -sf hotprof $(IDIR)/bin/hotprof-c++
	install -m 644 $(B)/lib/libhotprof_rt.a $(IDIR)/lib/
	install -m 755 $(B)/lib/libhotprof_rt.so $(IDIR)/lib/
	install -m 644 include/hotprof/*.h $(IDIR)/include/hotprof/
	if [ -f $(DUAL_PLUGIN) ]; then install -m 755 $(DUAL_PLUGIN) $(IDIR)/lib/; fi
	install -d $(IDIR)/lib/hotprof-as
	ln -sf ../../bin/hotprof $(IDIR)/lib/hotprof-as/as
	install -d $(IDIR)/lib/hotprof/modules
	install -m 755 $(VMOD_SO) $(IDIR)/lib/hotprof/modules/
	install -m 644 $(B)/man/*.1 $(IDIR)/share/man/man1/
	install -m 644 $(B)/man/*.5 $(IDIR)/share/man/man5/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' hotprof.pc.in > $(IDIR)/lib/pkgconfig/hotprof.pc
	install -m 644 completions/hotprof.bash $(IDIR)/share/bash-completion/completions/hotprof

# Removes exactly what install put under PREFIX (the manual pages by name: hotprof.1,
# hotprof-*.1, hotprof-format.5) and hotprof's own directories if now empty; shared directories
# (bin, lib, share/man/man1, ...) stay.
uninstall:
	rm -f $(IDIR)/bin/hotprof $(IDIR)/bin/hotprof-cc $(IDIR)/bin/hotprof-c++
	rm -f $(IDIR)/lib/libhotprof_rt.a $(IDIR)/lib/libhotprof_rt.so $(IDIR)/lib/hotprof_dual.so
	rm -f $(IDIR)/lib/hotprof-as/as
	-rmdir $(IDIR)/lib/hotprof-as 2>/dev/null
	rm -f $(addprefix $(IDIR)/include/hotprof/,$(notdir $(wildcard include/hotprof/*.h)))
	rm -f $(IDIR)/share/man/man1/hotprof.1 $(IDIR)/share/man/man1/hotprof-*.1 $(IDIR)/share/man/man5/hotprof-format.5
	rm -f $(IDIR)/lib/pkgconfig/hotprof.pc $(IDIR)/share/bash-completion/completions/hotprof
	rm -f $(addprefix $(IDIR)/lib/hotprof/modules/,$(notdir $(VMOD_SO)))
	-rmdir $(IDIR)/lib/hotprof/modules $(IDIR)/lib/hotprof 2>/dev/null
	-rmdir $(IDIR)/include/hotprof $(IDIR)/share/hotprof 2>/dev/null

clean:
	rm -rf build build-san

-include $(shell find $(B) -name '*.d' 2>/dev/null)
