# The application kernels of the A/B harness (tools/kernels/, docs/kernels.md).
# Included by the Makefile. One program per library: the kernels are shared
# (kern_*.c), each library supplies its communication (lib_*.c).

KERN_DIR    := tools/kernels
KERN_COMMON := $(filter-out $(KERN_DIR)/lib_%.c,$(wildcard $(KERN_DIR)/*.c))
KERN_HDRS   := $(wildcard $(KERN_DIR)/*.h)
KERN_LIBS   := -lfftw3f -lfftw3 -lmetis -lm
# Open MPI's OpenSHMEM wrapper; the OSHMEM program is skipped where it is missing.
OSHCC       ?= $(shell command -v oshcc 2>/dev/null)
# The postal and RRMSG baselines' program, once their headers are in the tree.
KERN_POSTAL := $(if $(wildcard include/dmsg_postal.h),$(BUILD)/bin/postal-kern)
KERN_PROGS  := $(BUILD)/bin/dmsg-kern $(BUILD)/bin/kern-mpi $(if $(OSHCC),$(BUILD)/bin/kern-shmem) \
               $(KERN_POSTAL)
# The same OpenSHMEM program on dmsg's front end (dmsg/front/shmem/rules.mk).
KERN_PROGS  += $(if $(wildcard include/shmem.h),$(BUILD)/bin/kern-shmem-dmsg)

.PHONY: kernels
all: kernels
kernels: $(KERN_PROGS)

KERN_DMSG_OBJS := $(KERN_COMMON:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/$(KERN_DIR)/lib_dmsg_base.o

$(BUILD)/bin/dmsg-kern: $(KERN_DMSG_OBJS) $(BUILD)/obj/$(KERN_DIR)/lib_dmsg.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KERN_LIBS) $(LDLIBS)

$(BUILD)/bin/postal-kern: $(KERN_DMSG_OBJS) $(BUILD)/obj/$(KERN_DIR)/lib_postal.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KERN_LIBS) $(LDLIBS)

# MPI and OpenSHMEM programs are built with their own wrappers, as users build them.
# What the kernels need stays apart from the user's CFLAGS (default -O2 -g),
# as DMSG_CFLAGS does for the rest: `make CFLAGS=-O0` reaches them too.
KERN_WRAP_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN)
$(BUILD)/bin/kern-mpi: $(KERN_COMMON) $(KERN_DIR)/mpi/lib_mpi.c $(KERN_HDRS) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(MPICC) $(KERN_WRAP_CFLAGS) $(CFLAGS) $(LDFLAGS) -I$(KERN_DIR) -o $@ $(filter %.c,$^) $(KERN_LIBS)

$(BUILD)/bin/kern-shmem: $(KERN_COMMON) $(KERN_DIR)/shmem/lib_shmem.c $(KERN_HDRS) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(OSHCC) $(KERN_WRAP_CFLAGS) $(CFLAGS) $(LDFLAGS) -I$(KERN_DIR) -o $@ $(filter %.c,$^) $(KERN_LIBS)

# The coarray kernels (kern_caf.F90, transpose and SOR): one Fortran source,
# built with dmsg-caf (variant caf-dmsg), with OpenCoarrays' caf over Open
# MPI (variant caf-opencoarrays-ompi, the reference: docs/coarrays.md) and
# over MPICH (variant caf-opencoarrays), each where its compiler is installed.
GFORTRAN      ?= $(shell command -v gfortran 2>/dev/null)
CAF_MPICH     ?= $(shell command -v caf.mpich 2>/dev/null)
CAF_OMPI      ?= $(shell command -v caf.openmpi 2>/dev/null)
KERN_FFLAGS   ?= -O2 -g
KERN_CAF_PROGS := $(if $(GFORTRAN),$(BUILD)/bin/kern-caf-dmsg $(if $(CAF_MPICH),$(BUILD)/bin/kern-caf-oc) \
                    $(if $(CAF_OMPI),$(BUILD)/bin/kern-caf-oc-ompi))
kernels: $(KERN_CAF_PROGS)

$(BUILD)/bin/kern-caf-dmsg: $(KERN_DIR)/kern_caf.F90 $(BUILD)/bin/dmsg-caf $(BUILD)/lib/libcaf_dmsg.a $(LIB_A)
	@mkdir -p $(@D)
	$(BUILD)/bin/dmsg-caf $(KERN_FFLAGS) -o $@ $<

$(BUILD)/bin/kern-caf-oc: $(KERN_DIR)/kern_caf.F90 | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CAF_MPICH) $(KERN_FFLAGS) -DKERN_CAF_OC -o $@ $<

$(BUILD)/bin/kern-caf-oc-ompi: $(KERN_DIR)/kern_caf.F90 | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CAF_OMPI) $(KERN_FFLAGS) -DKERN_CAF_OC -DKERN_CAF_OMPI -o $@ $<

# pvm-real: the kernels' postal variant written with PVM 3's API (lib_pvm.c)
# and linked with the real PVM 3.4.6 (Debian pvm-dev: pvm3.h, libpvm3). Built
# without -Iinclude, so that the system's pvm3.h is the one used; skipped
# where it is missing. tools/dmsg-ab starts and halts the pvmd it runs in.
PVM_REAL_CFLAGS ?=
PVM_REAL_LIBS   ?= -lpvm3
PVM_REAL_OK     := $(shell printf '\043include <pvm3.h>\nint main(void){return pvm_mytid()<0;}\n' | \
                     $(CC) $(PVM_REAL_CFLAGS) -x c -o /dev/null - $(PVM_REAL_LIBS) >/dev/null 2>&1 && echo 1)
KERN_PVM_REAL   := $(if $(PVM_REAL_OK),$(BUILD)/bin/pvm-kern)
kernels: $(KERN_PVM_REAL)

$(BUILD)/bin/pvm-kern: $(KERN_COMMON) $(KERN_DIR)/lib_pvm.c $(KERN_HDRS) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(KERN_WRAP_CFLAGS) $(PVM_REAL_CFLAGS) $(CFLAGS) $(LDFLAGS) -I$(KERN_DIR) -o $@ \
	    $(filter %.c,$^) $(KERN_LIBS) $(PVM_REAL_LIBS)

# tools/bench-pvm.sh's two programs: the ping-pong and the strided exchange on
# the real PVM 3 (pvm-bench, libpvm3) and on postal, RRMSG and deposits
# (postal-bench, libdmsg).
PVM_BENCH := $(BUILD)/bin/postal-bench $(if $(PVM_REAL_OK),$(BUILD)/bin/pvm-bench)
kernels: $(PVM_BENCH)

$(BUILD)/bin/pvm-bench: tools/pvm/pvm-bench.c tools/pvm/bench.h | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(KERN_WRAP_CFLAGS) $(PVM_REAL_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PVM_REAL_LIBS)

$(BUILD)/bin/postal-bench: $(BUILD)/obj/tools/pvm/postal-bench.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# lib_shmem.c unchanged, built with dmsg-oshcc as users build OpenSHMEM programs.
$(BUILD)/bin/kern-shmem-dmsg: $(KERN_COMMON) $(KERN_DIR)/shmem/lib_shmem.c $(KERN_HDRS) $(BUILD)/lib/libdmsg-shmem.a $(LIB_A) \
                              $(BUILD)/bin/dmsg-oshcc
	@mkdir -p $(@D)
	$(BUILD)/bin/dmsg-oshcc $(KERN_WRAP_CFLAGS) $(CFLAGS) $(LDFLAGS) -I$(KERN_DIR) -o $@ \
	    $(filter %.c,$^) $(KERN_LIBS)
