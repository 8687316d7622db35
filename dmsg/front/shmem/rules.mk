# The OpenSHMEM front end (dmsg/front/shmem/, include/shmem.h, docs/openshmem.md):
# libdmsg-shmem beside libdmsg, the wrappers dmsg-oshcc and dmsg-oshrun, and
# a pkg-config file. Included by the Makefile.

SHMEM_SRCS := $(wildcard dmsg/front/shmem/*.c)
SHMEM_OBJS := $(SHMEM_SRCS:%.c=$(BUILD)/obj/%.o)
SHMEM_LIB  := $(BUILD)/lib/libdmsg-shmem.a
SHMEM_SO   := $(BUILD)/lib/libdmsg-shmem.so
SHMEM_BIN  := $(BUILD)/bin/dmsg-oshcc $(BUILD)/bin/dmsg-oshrun
SHMEM_PC   := $(BUILD)/lib/pkgconfig/dmsg-shmem.pc
# The test programs of tests/shmem/, built with dmsg-oshcc as users build theirs.
SHMEM_TEST_SRCS := $(wildcard tests/shmem/*.c)
SHMEM_TESTS := $(SHMEM_TEST_SRCS:tests/shmem/%.c=$(BUILD)/tests/shmem/%)

.PHONY: shmem install-shmem
all: shmem
tests: $(SHMEM_TESTS) $(BUILD)/bin/dmsg-oshrun
shmem: $(SHMEM_LIB) $(SHMEM_SO) $(SHMEM_BIN) $(SHMEM_PC)

$(SHMEM_LIB): $(SHMEM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# Self-contained: the front end and libdmsg, exporting only shmem_ names.
$(BUILD)/libdmsg-shmem.map: $(SHMEM_SRCS)
	@mkdir -p $(@D)
	printf '{ global: shmem_*; dmsg_shmem_team_world; dmsg_shmem_team_shared; dmsg_shmem_ctx_default; dmsg_shmem_generic_bad; local: *; };\n' > $@

$(SHMEM_SO): $(SHMEM_OBJS) $(LIB_OBJS) $(BUILD)/libdmsg-shmem.map
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libdmsg-shmem.so \
	    -Wl,--version-script=$(BUILD)/libdmsg-shmem.map -Wl,--no-undefined -o $@ \
	    $(SHMEM_OBJS) $(LIB_OBJS) $(LDLIBS)

# The wrappers name this build's headers and libraries (install rewrites them).
$(BUILD)/bin/dmsg-oshcc: tools/dmsg-oshcc.in
	@mkdir -p $(@D)
	sed -e 's|@INCDIR@|$(CURDIR)/include|g' -e 's|@LIBS@|$(CURDIR)/$(SHMEM_LIB) $(CURDIR)/$(LIB_A)|g' \
	    -e 's|@SANFLAGS@|$(SANFLAGS)|g' $< > $@ && chmod 755 $@

$(BUILD)/bin/dmsg-oshrun: tools/dmsg-oshrun.in
	@mkdir -p $(@D)
	sed -e 's|@BINDIR@|$(CURDIR)/$(BUILD)/bin|g' $< > $@ && chmod 755 $@

$(SHMEM_PC): tools/dmsg-shmem.pc.in
	@mkdir -p $(@D)
	sed -e 's|@INCDIR@|$(CURDIR)/include|g' -e 's|@LIBDIR@|$(CURDIR)/$(BUILD)/lib|g' \
	    -e 's|@VERSION@|$(VERSION)|g' $< > $@

$(BUILD)/tests/shmem/%: tests/shmem/%.c tests/shmem/shtest.h tests/launcher_rank.h $(SHMEM_LIB) $(LIB_A) $(BUILD)/bin/dmsg-oshcc
	@mkdir -p $(@D)
	$(BUILD)/bin/dmsg-oshcc -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $<

install: install-shmem
install-shmem: shmem
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(SHMEM_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHMEM_SO) $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@INCDIR@|$(PREFIX)/include|g' -e 's|@LIBS@|$(PREFIX)/lib/libdmsg-shmem.a $(PREFIX)/lib/libdmsg.a|g' \
	    -e 's|@SANFLAGS@||g' tools/dmsg-oshcc.in > $(DESTDIR)$(PREFIX)/bin/dmsg-oshcc
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' tools/dmsg-oshrun.in > $(DESTDIR)$(PREFIX)/bin/dmsg-oshrun
	chmod 755 $(DESTDIR)$(PREFIX)/bin/dmsg-oshcc $(DESTDIR)$(PREFIX)/bin/dmsg-oshrun
	sed -e 's|@INCDIR@|$(PREFIX)/include|g' -e 's|@LIBDIR@|$(PREFIX)/lib|g' \
	    -e 's|@VERSION@|$(VERSION)|g' tools/dmsg-shmem.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg-shmem.pc

uninstall: uninstall-shmem
.PHONY: uninstall-shmem
uninstall-shmem:
	rm -f $(DESTDIR)$(PREFIX)/lib/libdmsg-shmem.a $(DESTDIR)$(PREFIX)/lib/libdmsg-shmem.so \
	      $(DESTDIR)$(PREFIX)/bin/dmsg-oshcc $(DESTDIR)$(PREFIX)/bin/dmsg-oshrun \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/dmsg-shmem.pc $(DESTDIR)$(PREFIX)/include/shmem.h
