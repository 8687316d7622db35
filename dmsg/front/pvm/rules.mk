# The PVM 3 front end (include/pvm3.h): libdmsg-pvm over libdmsg's postal
# layer, and its test programs (tests/pvm/*.c, run by tests/pvm/run.sh).
PVM_SRCS := $(wildcard dmsg/front/pvm/*.c)
PVM_OBJS := $(PVM_SRCS:%.c=$(BUILD)/obj/%.o)
PVM_LIB  := $(BUILD)/lib/libdmsg-pvm.a
PVM_SO   := $(BUILD)/lib/libdmsg-pvm.so.$(VERSION)
PVM_TESTS := $(patsubst tests/pvm/%.c,$(BUILD)/tests/pvm/%,$(wildcard tests/pvm/*.c))

all: $(PVM_LIB) $(PVM_SO)
tests: $(PVM_TESTS)

$(PVM_LIB): $(PVM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The shared library exports PVM's calls only.
$(BUILD)/libdmsg-pvm.map: include/pvm3.h
	@mkdir -p $(@D)
	{ echo '{ global:'; grep -ohE '\bpvm_[a-z0-9_]+\(' include/pvm3.h | tr -d '(' | sort -u | \
	  sed 's/$$/;/'; echo 'local: *; };'; } > $@

$(PVM_SO): $(PVM_OBJS) $(LIB_SO) $(BUILD)/libdmsg-pvm.map
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libdmsg-pvm.so.$(SOVERSION) \
	    -Wl,--version-script=$(BUILD)/libdmsg-pvm.map -Wl,--no-undefined -o $@ $(PVM_OBJS) \
	    -L$(BUILD)/lib -l:libdmsg.so.$(VERSION) $(LDLIBS)
	ln -sf libdmsg-pvm.so.$(VERSION) $(BUILD)/lib/libdmsg-pvm.so.$(SOVERSION)
	ln -sf libdmsg-pvm.so.$(VERSION) $(BUILD)/lib/libdmsg-pvm.so

$(BUILD)/tests/pvm/%: $(BUILD)/obj/tests/pvm/%.o $(PVM_LIB) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(DMSG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# `make install` puts the libraries beside libdmsg (pvm3.h goes with include/*.h).
.PHONY: install-pvm
install: install-pvm
install-pvm: $(PVM_LIB) $(PVM_SO)
	install -d $(DESTDIR)$(PREFIX)/lib
	install -m 644 $(PVM_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(PVM_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libdmsg-pvm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libdmsg-pvm.so.$(SOVERSION)
	ln -sf libdmsg-pvm.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libdmsg-pvm.so
