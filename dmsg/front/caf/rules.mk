# libcaf_dmsg: gfortran's coarray runtime (-fcoarray=lib) on dmsg, and the
# wrappers dmsg-caf (compile and link) and dmsg-cafrun (start). Included by
# the top-level Makefile; see docs/coarrays.md.
CAF_SRCS := $(wildcard dmsg/front/caf/*.c)
CAF_OBJS := $(CAF_SRCS:%.c=$(BUILD)/obj/%.o)
CAF_LIB  := $(BUILD)/lib/libcaf_dmsg.a
CAF_SO   := $(BUILD)/lib/libcaf_dmsg.so
CAF_BIN  := $(BUILD)/bin/dmsg-caf $(BUILD)/bin/dmsg-cafrun

all: $(CAF_LIB) $(CAF_SO) $(CAF_BIN)

$(CAF_LIB): $(CAF_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(CAF_SO): $(CAF_OBJS) $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcaf_dmsg.so -o $@ $(CAF_OBJS) \
	    -L$(BUILD)/lib -ldmsg $(LDLIBS)

$(BUILD)/bin/dmsg-caf: tools/dmsg-caf.in
	@mkdir -p $(@D)
	sed 's|@LIBDIR@|$(abspath $(BUILD)/lib)|g' $< > $@ && chmod 755 $@

$(BUILD)/bin/dmsg-cafrun: tools/dmsg-cafrun.in
	@mkdir -p $(@D)
	sed 's|@BINDIR@|$(abspath $(BUILD)/bin)|g' $< > $@ && chmod 755 $@
