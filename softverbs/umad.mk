# SPDX-License-Identifier: MIT
# softverbs' libibumad.so.3 (a port's own subnet management agent: a
# program's SubnGet(PortInfo) answered in process, sv_umad.c), included by
# Makefile.  Same scheme as libibverbs.so.1: the version nodes and default
# symbols come from the installed rdma-core libibumad (UMAD_LIB) through
# gen_map.sh; unimplemented ones become stubs.  Built only where
# libibumad-dev is installed (its header and library); otherwise skipped
# with a line, and the programs using softverbs find the system's
# libibumad, which finds no port.
#
#   make abi-check-umad           compare the exports with the installed library

UMAD_LIB ?= $(firstword $(wildcard /usr/lib/$(MULTIARCH)/libibumad.so.3 \
	/usr/lib64/libibumad.so.3 /usr/lib/libibumad.so.3 \
	/usr/lib/x86_64-linux-gnu/libibumad.so.3 \
	/usr/lib/aarch64-linux-gnu/libibumad.so.3))
HAVE_UMAD := $(and $(UMAD_LIB),$(wildcard $(RDMA_INC)/infiniband/umad.h))

UMAD_OBJS := $(BUILD)/sv_umad.o
UMAD_SO := $(BUILD)/libibumad.so.3
UMAD_LDFLAGS := $(LDFLAGS) -shared -pthread $(SANFLAGS) \
	-Wl,-soname,libibumad.so.3 -Wl,-z,now $(LDDEFS)

$(BUILD)/sv_umad.o: sv_umad.c sv_knob.h | $(BUILD)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/umad_defined.txt: $(UMAD_OBJS)
	$(Q)nm -g --defined-only $(UMAD_OBJS) | awk 'NF == 3 { print $$3 }' | \
		sort -u > $@

$(BUILD)/libibumad.map $(BUILD)/umad_stubs.c &: $(BUILD)/umad_defined.txt gen_map.sh
	@$(if $(Q),echo "  GEN     $(BUILD)/libibumad.map")
	$(Q)sh gen_map.sh $(UMAD_LIB) $(BUILD)/libibumad.map \
		$(BUILD)/umad_stubs.c $(BUILD)/umad_defined.txt IBUMAD_

$(BUILD)/umad_stubs.o: $(BUILD)/umad_stubs.c
	$(Q)$(CC) $(filter-out -fvisibility=hidden -Wmissing-prototypes \
		-Wstrict-prototypes,$(ALL_CFLAGS)) -c -o $@ $<

$(UMAD_SO): $(UMAD_OBJS) $(BUILD)/umad_stubs.o $(BUILD)/libibumad.map $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(UMAD_LDFLAGS) -Wl,--version-script,$(BUILD)/libibumad.map \
		-o $@ $(UMAD_OBJS) $(BUILD)/umad_stubs.o $(LIB)

ifneq ($(HAVE_UMAD),)
umad: $(UMAD_SO)
	@echo "softverbs: built $(UMAD_SO) (exports of $(UMAD_LIB))"

abi-check-umad: $(UMAD_SO)
	$(Q)objdump -T $(UMAD_LIB) | awk 'NF > 1 && $$(NF-1) ~ /^IBUMAD_/ { print $$(NF-1), $$NF }' | \
		sort > $(BUILD)/abi-umad.want
	$(Q)objdump -T $(UMAD_SO) | awk 'NF > 1 && $$(NF-1) ~ /^IBUMAD_/ { print $$(NF-1), $$NF }' | \
		sort > $(BUILD)/abi-umad.have
	$(Q)diff -u $(BUILD)/abi-umad.want $(BUILD)/abi-umad.have && \
		echo "softverbs: ABI matches $(UMAD_LIB) ($$(wc -l < $(BUILD)/abi-umad.have) symbols)"
	$(Q)readelf -d $(UMAD_SO) | grep -q 'SONAME.*\[libibumad.so.3\]'
else
umad:
	@echo "softverbs: libibumad.so.3 skipped (install libibumad-dev for the PortInfo check's tests)"

abi-check-umad: umad
endif

.PHONY: umad abi-check-umad
