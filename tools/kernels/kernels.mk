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

# lib_shmem.c unchanged, built with dmsg-oshcc as users build OpenSHMEM programs.
$(BUILD)/bin/kern-shmem-dmsg: $(KERN_COMMON) $(KERN_DIR)/shmem/lib_shmem.c $(KERN_HDRS) $(BUILD)/lib/libdmsg-shmem.a $(LIB_A) \
                              $(BUILD)/bin/dmsg-oshcc
	@mkdir -p $(@D)
	$(BUILD)/bin/dmsg-oshcc $(KERN_WRAP_CFLAGS) $(CFLAGS) $(LDFLAGS) -I$(KERN_DIR) -o $@ \
	    $(filter %.c,$^) $(KERN_LIBS)
