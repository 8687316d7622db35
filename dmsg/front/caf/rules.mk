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

# make install / uninstall (the Makefile's PREFIX and DESTDIR): the library
# beside libdmsg, and the wrappers pointing at the installed copies.
.PHONY: install-caf uninstall-caf
install: install-caf
uninstall: uninstall-caf
install-caf: $(CAF_LIB) $(CAF_SO) tools/dmsg-caf.in tools/dmsg-cafrun.in
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(CAF_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CAF_SO) $(DESTDIR)$(PREFIX)/lib/
	sed 's|@LIBDIR@|$(PREFIX)/lib|g' tools/dmsg-caf.in > $(DESTDIR)$(PREFIX)/bin/dmsg-caf
	sed 's|@BINDIR@|$(PREFIX)/bin|g' tools/dmsg-cafrun.in > $(DESTDIR)$(PREFIX)/bin/dmsg-cafrun
	chmod 755 $(DESTDIR)$(PREFIX)/bin/dmsg-caf $(DESTDIR)$(PREFIX)/bin/dmsg-cafrun
uninstall-caf:
	rm -f $(DESTDIR)$(PREFIX)/lib/libcaf_dmsg.a $(DESTDIR)$(PREFIX)/lib/libcaf_dmsg.so \
	      $(DESTDIR)$(PREFIX)/bin/dmsg-caf $(DESTDIR)$(PREFIX)/bin/dmsg-cafrun

# Fault tests' coarray programs (tests/caf/faults, run by tests/integ's
# orphans suite; not by tests/caf/run.sh): built with the tests where
# gfortran is.
CAF_FAULT_PROGS := $(if $(GFORTRAN),$(patsubst tests/caf/faults/%.f90,$(BUILD)/tests/caf/%, \
                     $(wildcard tests/caf/faults/*.f90)))
tests: $(CAF_FAULT_PROGS)
$(BUILD)/tests/caf/%: tests/caf/faults/%.f90 $(BUILD)/bin/dmsg-caf $(CAF_LIB) $(LIB_A)
	@mkdir -p $(@D)
	cd $(@D) && $(abspath $(BUILD)/bin/dmsg-caf) -O1 -g -o $(@F) $(abspath $<)
