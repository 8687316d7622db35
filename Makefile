# dmsg - direct deposit message passing. See README.md.
# Targets: all (default), run, test, check-all, check-ci, check (build only tests),
# check-asan, check-tsan, test-ofi, bench, bench-coll, bench-pvm, bench-oversub, install, uninstall,
# clean, format. PREFIX=/usr/local for
# install. CFLAGS (default -O2 -g) is the user's: the flags the build needs
# are kept apart in DMSG_CFLAGS, so `make CFLAGS='-O0 -g'` works.

VERSION      := 0.1.0
SOVERSION    := 0
PREFIX       ?= /usr/local
CC           ?= cc
# MPICH's wrapper by name: with Open MPI installed too, plain mpicc is Open MPI's.
MPICC        ?= $(shell command -v mpicc.mpich 2>/dev/null || echo mpicc)
BUILD        := build
# OFI=0 builds without the libfabric transport (no libfabric headers needed).
OFI          ?= 1
# SAN=address,undefined or SAN=thread: a sanitizer build (use its own BUILD).
SAN          :=

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
SANFLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all)
CFLAGS   ?= -O2 -g
DMSG_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -pthread $(SANFLAGS)
CPPFLAGS += -Iinclude -I. -DDMSG_WITH_OFI=$(OFI)
LDLIBS   += -pthread -lm -ldl

# Everything under dmsg/ is the library; a transport left out of the build
# takes its files (and the tools and tests that reach into it) along.
NO_OFI    := $(if $(filter 0,$(OFI)),dmsg/transport/ofi/%.c tools/dmsg-ofi-bench.c tools/dmsg-info.c \
             tests/unit/test_ofi_engine.c)
LIB_SRCS  := $(sort $(filter-out $(NO_OFI),$(wildcard dmsg/*/*.c dmsg/transport/*/*.c)))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_A     := $(BUILD)/lib/libdmsg.a
LIB_SO    := $(BUILD)/lib/libdmsg.so.$(VERSION)

EXAMPLES  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
TOOLS     := $(patsubst tools/%.c,$(BUILD)/bin/%,$(filter-out $(NO_OFI),$(wildcard tools/*.c)))
# dmsg-gen is several files (tools/dmsg-gen/gen.h lists them).
GEN_SRCS  := $(wildcard tools/dmsg-gen/*.c)
TOOLS     += $(if $(GEN_SRCS),$(BUILD)/bin/dmsg-gen)
MPI_TOOLS := $(patsubst tools/mpi/%.c,$(BUILD)/bin/%,$(wildcard tools/mpi/*.c))
# OpenSHMEM reference programs (tools/oshmem/*.c), where Open MPI's oshcc exists.
OSHCC     ?= $(shell command -v oshcc 2>/dev/null)
SHMEM_TOOLS := $(if $(OSHCC),$(patsubst tools/oshmem/%.c,$(BUILD)/bin/%,$(wildcard tools/oshmem/*.c)))

UNIT_SRCS  := $(filter-out $(NO_OFI),$(wildcard tests/unit/*.c))
PE_SRCS    := $(wildcard tests/pe/*.c)
INTEG_SRCS := $(wildcard tests/integ/*.c)
SIMPE_SRCS := $(wildcard tests/simpe/*.c)
SIM_SRCS   := $(wildcard tests/sim/*.c)
TESTS      := $(if $(UNIT_SRCS),$(BUILD)/tests/unit) $(if $(PE_SRCS),$(BUILD)/tests/pe_prog) \
              $(if $(INTEG_SRCS),$(BUILD)/tests/integ) $(if $(SIMPE_SRCS),$(BUILD)/tests/sim_prog) \
              $(if $(SIM_SRCS),$(BUILD)/tests/sim)

DEPS_OK := $(BUILD)/.deps-ok

# Object files are kept: as intermediates of the pattern chains make would
# delete them after linking, and the next `make test` would rebuild them all.
.SECONDARY:

.PHONY: all lib tools examples tests run test check-all check-ci test-ofi check check-layers check-asan check-tsan bench \
        bench-coll bench-oversub install uninstall clean format deps
all: lib tools examples
lib: $(LIB_A) $(LIB_SO)
tools: $(TOOLS) $(MPI_TOOLS) $(SHMEM_TOOLS)
examples: $(EXAMPLES)
tests: $(TESTS)

# Building installs nothing: it checks once that the Debian packages are
# there and otherwise names them and stops. `make deps` installs them
# (the README's first step, tools/install-deps.sh: apt-get as root, else sudo).
deps:
	@OFI=$(OFI) sh tools/install-deps.sh
$(DEPS_OK): tools/install-deps.sh
	@OFI=$(OFI) sh tools/install-deps.sh --check
	@mkdir -p $(@D) && touch $@

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DMSG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# PMIx's header (Debian: libpmix-dev) for its types; libpmix itself is opened
# at run time (dmsg/boot/pmix.c). Expanded when the rule runs, after deps.
$(BUILD)/obj/dmsg/boot/pmix.o: CPPFLAGS += $(shell pkg-config --cflags pmix)

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The shared library exports exactly the calls declared in the public headers.
$(BUILD)/libdmsg.map: $(wildcard include/*.h)
	@mkdir -p $(@D)
	{ echo '{ global:'; grep -ohE '\bdmsg_[a-z0-9_]+\(' include/*.h | tr -d '(' | sort -u | \
	  sed 's/$$/;/'; echo 'local: *; };'; } > $@

$(LIB_SO): $(LIB_OBJS) $(BUILD)/libdmsg.map
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libdmsg.so.$(SOVERSION) -Wl,--version-script=$(BUILD)/libdmsg.map \
	    -Wl,--no-undefined -o $@ $(LIB_OBJS) $(LDLIBS)
	ln -sf libdmsg.so.$(VERSION) $(BUILD)/lib/libdmsg.so.$(SOVERSION)
	ln -sf libdmsg.so.$(SOVERSION) $(BUILD)/lib/libdmsg.so

$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/dmsg-gen: $(GEN_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# MPI reference programs (tools/mpi/*.c) are built with MPICH's wrapper.
$(BUILD)/bin/%: tools/mpi/%.c tools/bench_sizes.h tools/bench_coll.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(LDFLAGS) -Iinclude -o $@ $< -lm

$(BUILD)/bin/%: tools/oshmem/%.c tools/bench_coll.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(OSHCC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

$(BUILD)/tests/pe_prog: $(PE_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/integ: $(INTEG_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

$(BUILD)/tests/sim_prog: $(SIMPE_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/sim: $(SIM_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

# The main demo: the transpose example on 4 PEs, verified, with throughput.
run: all
	$(BUILD)/bin/dmsgrun -n 4 $(BUILD)/examples/transpose 1024

# The suite in named, timed steps (tests/run.sh --list): `make test` the quick
# ones (under 10 minutes on a 2-core host when idle), `make check-all` every one:
# also the sanitizer builds, every ofi provider, 16 PEs oversubscribed,
# Slurm and two hosts as network namespaces (about two hours). `make
# check-ci` (CI) is check-all without the whole integration suite over the
# two slowest ofi providers (about 40 minutes more). Steps stop at the first
# failure. With OFI=0 the ofi steps are left out (and said so).
test: all tests
	@OFI=$(OFI) MAKE='$(MAKE)' sh tests/run.sh $(BUILD) quick

check-all: test
	@OFI=$(OFI) MAKE='$(MAKE)' sh tests/run.sh $(BUILD) extra

check-ci: test
	@OFI=$(OFI) MAKE='$(MAKE)' sh tests/run.sh $(BUILD) ci

# The multi-PE integration suite over the ofi transport, once per provider
# (about 2-6 minutes each): `make test` runs its SPMD cases at 3 PEs
# over tcp;ofi_rxm, `make check-all` and `make test-ofi` all of it over
# every provider dmsg supports here.
OFI_PROVIDERS ?= shm 'tcp;ofi_rxm' 'udp;ofi_rxd' sockets
test-ofi: all tests
	sh tests/ofi/integ.sh $(BUILD) $(OFI_PROVIDERS)

check: all tests

# No lower layer includes a higher one (docs/running.md, "Layers").
check-layers:
	sh tests/layers.sh

# The multi-PE integration suite over shm and sim, the simulator's own tests,
# dmsg-gen's end-to-end tests and the kernels' dmsg, postal and RRMSG variants,
# built with AddressSanitizer and UndefinedBehaviorSanitizer (library,
# dmsgrun, the tools, the PE programs, the suites) in their own build
# directory; any finding ends the PE with an error, so the run fails. Not over
# ofi: those runs take minutes and libfabric itself is not instrumented (run
# by hand: DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=... with $(SAN_ENV)).
ASAN_BUILD ?= build-asan
# handle_segv=0 and friends: a PE that crashes must die of its signal, as
# without the sanitizer (the crash tests check dmsgrun's report of it).
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# $(call san_logged,NAME,COMMAND[,LINES]): runs COMMAND with its output in
# $(ASAN_BUILD)/NAME.log; prints its last LINES lines (1), or the last 40 and fails.
comma := ,
san_logged = $(2) >$(ASAN_BUILD)/$(1).log 2>&1 || { tail -40 $(ASAN_BUILD)/$(1).log; exit 1; }; \
	tail -$(or $(3),1) $(ASAN_BUILD)/$(1).log
check-asan: | $(DEPS_OK)
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=address,undefined $(ASAN_BUILD)/bin/dmsgrun \
	    examples $(ASAN_BUILD)/tests/unit $(ASAN_BUILD)/tests/pe_prog $(ASAN_BUILD)/tests/integ \
	    $(ASAN_BUILD)/tests/sim $(ASAN_BUILD)/tests/sim_prog $(ASAN_BUILD)/bin/dmsg-ctm \
	    $(ASAN_BUILD)/bin/dmsg-gen $(ASAN_BUILD)/bin/dmsg-kern $(ASAN_BUILD)/bin/postal-kern
	@echo "== unit tests under ASan+UBSan"
	$(SAN_ENV) $(ASAN_BUILD)/tests/unit --jobs 2
	@echo "== integration suite under ASan+UBSan over shm"
	$(SAN_ENV) DMSG_BUILD=$(ASAN_BUILD) $(ASAN_BUILD)/tests/integ --jobs 1
	@echo "== SPMD cases of the integration suite under ASan+UBSan over sim"
	$(SAN_ENV) DMSG_TRANSPORT=sim DMSG_BUILD=$(ASAN_BUILD) $(ASAN_BUILD)/tests/integ --jobs 1 \
	    --filter 'pe/*'
	@echo "== the simulator's tests under ASan+UBSan"
	@$(call san_logged,sim,$(SAN_ENV) DMSG_BUILD=$(ASAN_BUILD) $(ASAN_BUILD)/tests/sim --jobs 1)
	@echo "== dmsg-gen end to end under ASan+UBSan"
	@$(call san_logged,gen,$(SAN_ENV) CC="$(CC) -fsanitize=address$(comma)undefined" sh tests/gen/run.sh $(ASAN_BUILD))
	@echo "== the kernels' dmsg, postal and RRMSG variants under ASan+UBSan (shm, 2 and 4 PEs)"
	@$(call san_logged,kernels,$(SAN_ENV) sh tools/dmsg-ab --check -B $(ASAN_BUILD) -T 900 -t shm -p 2$(comma)4 \
	    -V dmsg$(comma)postal$(comma)rr -o $(ASAN_BUILD)/ab-check/shm,2)
	@echo "== the PVM and coarray front ends under ASan+UBSan (own tests, PVM's examples)"
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=address,undefined $(ASAN_BUILD)/lib/libdmsg-pvm.a \
	    $(patsubst tests/pvm/%.c,$(ASAN_BUILD)/tests/pvm/%,$(wildcard tests/pvm/*.c)) \
	    $(ASAN_BUILD)/lib/libcaf_dmsg.a $(ASAN_BUILD)/bin/dmsg-caf $(ASAN_BUILD)/bin/dmsg-cafrun
	@$(call san_logged,pvm,$(SAN_ENV) CC="$(CC) -fsanitize=address$(comma)undefined" sh tests/pvm/run.sh $(ASAN_BUILD))
	@# (without leak checks: gfortran 12's code never frees the result array of
	@# STOPPED_IMAGES() that the runtime allocates for it, nor a TEAM_TYPE variable's team)
	@$(call san_logged,caf,$(SAN_ENV) ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:handle_segv=0 CAF_REF=none \
	    DMSG_CAF_FC="gfortran -fsanitize=address$(comma)undefined" sh tests/caf/run.sh $(ASAN_BUILD))

# ThreadSanitizer where it applies: dmsg starts no threads of its own (but
# the simulator's deposit engine, a thread of PE 0 in jobs of more than 16
# PEs, whose partners are other processes) and a PE's calls are one thread's, so tests/tsan/threads.c calls what a threaded
# program may call from several threads at once (the calls that need no PE,
# the copy engine, machine descriptions) with the library built under TSan.
# The Criterion unit tests cannot run under TSan (its runner's fixed-address
# arena); multi-PE races are between processes, where TSan cannot see.
TSAN_BUILD ?= build-tsan
$(BUILD)/tests/tsan_threads: $(BUILD)/obj/tests/tsan/threads.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
check-tsan: | $(DEPS_OK)
	@$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) SAN=thread $(TSAN_BUILD)/tests/tsan_threads
	@echo "== library calls from several threads under TSan"
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/tests/tsan_threads

bench: all
	$(BUILD)/bin/dmsg-bench --all --csv $(BUILD)/bench.csv > $(BUILD)/bench-report.txt; rc=$$?; cat $(BUILD)/bench-report.txt; exit $$rc

# Collectives and atomics at 2-16 PEs, dmsg (shm, ofi) vs MPICH and OSHMEM;
# QUICK=1: 2 and 4 PEs, short budgets (docs/performance.md).
bench-coll: all
	$(BUILD)/bin/dmsg-bench --test coll $(if $(QUICK),--quick) --csv $(BUILD)/bench-coll.csv

# Postal, RRMSG and dmsg against the real PVM 3.4.6 (tools/bench-pvm.sh,
# docs/baselines.md): ROUNDS interleaved rounds (3), LOAD busy loops (0);
# the raw lines go to BUILD/bench-pvm.txt.
.PHONY: bench-pvm
bench-pvm: all
	sh tools/bench-pvm.sh -B $(BUILD) -r $(or $(ROUNDS),3) -L $(or $(LOAD),0) -o $(BUILD)/bench-pvm.txt

# 16 PEs on this host's cores, ofi's providers per round next to the shm
# transport, side by side in one run: figures, never a verdict.
bench-oversub: all tests
	PE_ROUNDS=200 sh tests/ofi/oversub.sh $(BUILD) $(OFI_PROVIDERS)

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libdmsg.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libdmsg.so.$(SOVERSION)
	ln -sf libdmsg.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libdmsg.so
	install -m 755 $(TOOLS) $(MPI_TOOLS) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' dmsg.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' dmsg-static.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg-static.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/dmsg*.h $(DESTDIR)$(PREFIX)/lib/libdmsg.* \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg-static.pc
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(TOOLS) $(MPI_TOOLS)))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

include tools/kernels/kernels.mk
# The front ends (OpenSHMEM, Fortran coarrays, PVM): each folder under
# dmsg/front/ builds its own library beside libdmsg by its own rules.mk.
include $(wildcard dmsg/front/*/rules.mk)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
