# SPDX-License-Identifier: MIT
# softverbs' librdmacm.so.1 (rdma_cm and rsockets over softverbs' verbs),
# included by Makefile.  Same scheme as libibverbs.so.1: the version nodes
# and default symbols come from the installed rdma-core librdmacm
# (RDMACM_LIB) through gen_map.sh; unimplemented ones become stubs.
#
#   make abi-check-cm             compare the exports with the installed library

RDMACM_LIB ?= $(firstword $(wildcard /usr/lib/$(MULTIARCH)/librdmacm.so.1 \
	/usr/lib64/librdmacm.so.1 /usr/lib/librdmacm.so.1 \
	/usr/lib/x86_64-linux-gnu/librdmacm.so.1 \
	/usr/lib/aarch64-linux-gnu/librdmacm.so.1))

CM_SRCS := cm_core.c cm_conn.c cm_qp.c cm_addr.c cm_ud.c rsocket.c rsocket_io.c rsocket_dgram.c
CM_OBJS := $(CM_SRCS:%.c=$(BUILD)/%.o)
CM_LIB := $(BUILD)/librdmacm.so.1
CM_LDFLAGS := $(LDFLAGS) -shared -pthread $(SANFLAGS) \
	-Wl,-soname,librdmacm.so.1 -Wl,-z,now $(LDDEFS)

$(CM_OBJS): $(BUILD)/%.o: %.c cm_internal.h rs_internal.h | $(BUILD)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/cm_defined.txt: $(CM_OBJS)
	$(Q)nm -g --defined-only $(CM_OBJS) | awk 'NF == 3 { print $$3 }' | \
		sort -u > $@

$(BUILD)/librdmacm.map $(BUILD)/cm_stubs.c &: $(BUILD)/cm_defined.txt gen_map.sh
	@$(if $(Q),echo "  GEN     $(BUILD)/librdmacm.map")
	$(Q)if [ -z "$(RDMACM_LIB)" ]; then \
		echo "softverbs: installed librdmacm.so.1 not found; install librdmacm1 or set RDMACM_LIB" >&2; \
		exit 1; fi
	$(Q)sh gen_map.sh $(RDMACM_LIB) $(BUILD)/librdmacm.map \
		$(BUILD)/cm_stubs.c $(BUILD)/cm_defined.txt RDMACM_

$(BUILD)/cm_stubs.o: $(BUILD)/cm_stubs.c
	$(Q)$(CC) $(filter-out -fvisibility=hidden -Wmissing-prototypes \
		-Wstrict-prototypes,$(ALL_CFLAGS)) -c -o $@ $<

$(CM_LIB): $(CM_OBJS) $(BUILD)/cm_stubs.o $(BUILD)/librdmacm.map $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CM_LDFLAGS) -Wl,--version-script,$(BUILD)/librdmacm.map \
		-o $@ $(CM_OBJS) $(BUILD)/cm_stubs.o $(LIB)

abi-check-cm: $(CM_LIB)
	$(Q)objdump -T $(RDMACM_LIB) | awk 'NF > 1 && $$(NF-1) ~ /^RDMACM_/ { print $$(NF-1), $$NF }' | \
		sort > $(BUILD)/abi-cm.want
	$(Q)objdump -T $(CM_LIB) | awk 'NF > 1 && $$(NF-1) ~ /^RDMACM_/ { print $$(NF-1), $$NF }' | \
		sort > $(BUILD)/abi-cm.have
	$(Q)diff -u $(BUILD)/abi-cm.want $(BUILD)/abi-cm.have && \
		echo "softverbs: ABI matches $(RDMACM_LIB) ($$(wc -l < $(BUILD)/abi-cm.have) symbols)"
	$(Q)readelf -d $(CM_LIB) | grep -q 'SONAME.*\[librdmacm.so.1\]'
	$(Q)readelf -d $(CM_LIB) | grep -q 'BIND_NOW'
	$(Q)readelf -d $(CM_LIB) | grep -q 'NEEDED.*\[libibverbs.so.1\]'

cm: $(CM_LIB)

.PHONY: cm abi-check-cm
