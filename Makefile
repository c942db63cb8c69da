# SPDX-License-Identifier: GPL-2.0-only
# qperf: plain `make` works without configure.  Settings come from
# config.mak.autogen (written by ./configure, optional) and then config.mak
# (yours).  Knobs: NO_RDMA=1, NO_NUMA=1, NO_AUTH=1 (no --secret_file, no
# libcrypto), NO_PMIX=1 (cluster mode only with --rendezvous),
# SANITIZE=address,undefined, V=1, CC=clang, PREFIX, DESTDIR.  `make install`
# puts the binary, both man pages and the systemd unit (its ExecStart set to
# BINDIR) under DESTDIR+PREFIX (/usr/local: ahead of Debian's /usr/bin/qperf,
# 0.4.11, in PATH).

-include config.mak.autogen
-include config.mak

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# systemd reads units from /usr/local/lib/systemd/system as from /usr/lib/...
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install

CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -D_GNU_SOURCE -I. -pthread
ALL_LDFLAGS = $(LDFLAGS)
LIBS = -lm -pthread

ifdef SANITIZE
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

# Optional libraries, found with pkg-config.
# The RDMA tests need both libibverbs and librdmacm (-cm1, rsockets).
ifndef NO_RDMA
ifeq ($(shell $(PKG_CONFIG) --exists libibverbs librdmacm 2>/dev/null && echo y),y)
HAVE_RDMA = 1
endif
endif
# jansson writes --json and --json_stream; it is required.
JANSSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null)
ifeq ($(JANSSON_LIBS),)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(error jansson not found with pkg-config: install libjansson-dev (scripts/install-deps))
endif
endif
ifndef NO_AUTH
ifeq ($(shell $(PKG_CONFIG) --exists libcrypto 2>/dev/null && echo y),y)
HAVE_AUTH = 1
endif
endif
# PMIx: only libpmix-dev's headers; libpmix itself is opened at run time
# (dlopen), never linked.
ifndef NO_PMIX
ifeq ($(shell $(PKG_CONFIG) --exists pmix 2>/dev/null && echo y),y)
HAVE_PMIX = 1
endif
endif
ifndef NO_NUMA
ifeq ($(shell test -f /usr/include/numa.h && echo y),y)
HAVE_NUMA = 1
endif
endif

FEATURES = sockets json
ALL_CFLAGS += $(JANSSON_CFLAGS)
LIBS += $(JANSSON_LIBS)
VERBS_OBJS = transports/verbs.o transports/verbs_node.o transports/verbs_qp.o \
	transports/verbs_data.o \
	transports/verbs_knob.o \
	transports/verbs_fabric.o transports/verbs_counters.o \
	transports/verbs_cm.o \
	transports/rc.o \
	transports/uc.o \
	transports/ud.o \
	transports/xrc.o \
	transports/rsock.o
ifdef HAVE_RDMA
ALL_CFLAGS += -DHAVE_RDMA
LIBS += -lrdmacm -libverbs
FEATURES += rdma
endif
ifdef HAVE_AUTH
ALL_CFLAGS += -DHAVE_AUTH $(shell $(PKG_CONFIG) --cflags libcrypto)
LIBS += $(shell $(PKG_CONFIG) --libs libcrypto)
FEATURES += secret
endif
ifdef HAVE_PMIX
PMIX_CFLAGS := $(patsubst -I%,-isystem %,$(filter-out -I/usr/include,$(shell $(PKG_CONFIG) --cflags-only-I pmix)))
ALL_CFLAGS += -DHAVE_PMIX
LIBS += -ldl
FEATURES += pmix
endif
ifdef HAVE_NUMA
ALL_CFLAGS += -DHAVE_NUMA
LIBS += -lnuma
FEATURES += numa
endif

ifeq ($(V),1)
Q =
QUIET_CC =
QUIET_LINK =
else
Q = @
QUIET_CC = @echo '   CC      ' $@;
QUIET_LINK = @echo '   LINK    ' $@;
endif

# The rooms, bottom up (docs/architecture.md): lib/ includes nothing above
# it; transports/ includes only lib/; output/ and cluster/ sit under the
# engine in core/; qperf.c is main().
LIB_OBJS = lib/sched.o lib/err.o lib/clock.o lib/alloc.o lib/random.o lib/sockcall.o \
	lib/tlv.o lib/counters.o lib/addr.o lib/numa.o lib/hist.o lib/outfile.o lib/text.o
TRANSPORT_OBJS = transports/table.o transports/sock.o transports/sock_io.o transports/sock_cnt.o \
	$(if $(HAVE_RDMA),$(VERBS_OBJS))
OUTPUT_OBJS = output/out.o output/report.o output/report_tab.o output/report_x.o output/report_cnt.o \
	output/report_streams.o output/json.o output/json_cnt.o output/plot.o \
	output/conf_text.o output/sink.o output/capture.o output/report_ival.o
CLUSTER_OBJS = cluster/outlier.o cluster/rank_env.o \
	cluster/pmix_boot.o cluster/cluster_msg.o cluster/cluster.o \
	cluster/cluster_plan.o cluster/cluster_coord.o cluster/cluster_report.o \
	cluster/coord_round.o cluster/cluster_json.o cluster/coord_fig.o \
	cluster/heatmap.o cluster/job_secret.o
ENGINE_OBJS = core/opts.o core/opt_table.o core/opt_err.o core/acl.o core/auth.o \
	core/supervise.o core/param.o core/help.o core/cpu.o core/ctl.o \
	core/server.o core/client.o core/measure.o \
	core/session.o core/session_cnt.o core/streams.o core/interval.o core/fabric.o \
	core/completion.o
CORE_OBJS = $(ENGINE_OBJS) $(OUTPUT_OBJS) $(CLUSTER_OBJS) \
	$(TRANSPORT_OBJS) $(LIB_OBJS)
OBJS = qperf.o $(CORE_OBJS)
UNIT_TESTS = $(patsubst %.c,%,$(wildcard tests/unit/test_*.c))
FUZZERS = $(patsubst %.c,%,$(wildcard tests/fuzz/fuzz_*.c))

all: qperf softverbs
	@echo "qperf built with: $(FEATURES)$(if $(HAVE_RDMA), softverbs)"

qperf: $(OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

libqperf.a: $(CORE_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $(CORE_OBJS)

# Objects are rebuilt when the compiler, flags or features change (a
# NO_RDMA=1 build after a full one must not reuse its objects).
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(LIBS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' >$@

cluster/pmix_boot.o: ALL_CFLAGS += $(PMIX_CFLAGS)

HEADERS = $(wildcard lib/*.h core/*.h output/*.h cluster/*.h transports/*.h)
%.o: %.c $(HEADERS) Makefile .build-flags
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

tests/unit/test_%: tests/unit/test_%.c libqperf.a $(wildcard tests/unit/*.h tests/kit/*.h)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< libqperf.a $(LIBS) -lm

unit: $(UNIT_TESTS)

ifdef HAVE_RDMA
softverbs:
	$(Q)$(MAKE) -C softverbs $(if $(SANITIZE),SANITIZE=$(SANITIZE)) CC="$(CC)"
else
softverbs:
	@echo "softverbs skipped (no rdma-core headers, or NO_RDMA=1)"
endif

# The verbs transports tested on their own, two processes over softverbs
# (tests/rdma/xport.sh; SANITIZE=... runs the ASan build).
ifdef HAVE_RDMA
verbs-test: softverbs
	$(Q)$(MAKE) -C tests/rdma $(if $(SANITIZE),SANITIZE=$(SANITIZE)) CC="$(CC)"
	$(Q)tests/rdma/xport.sh --no-build $(if $(SANITIZE),--asan)
else
verbs-test:
	@echo "verbs-test skipped (no rdma-core headers, or NO_RDMA=1)"
endif

# Two lanes of suites side by side (tests/run.sh -j); TEST_JOBS=1 for one.
TEST_JOBS ?= 2
check: all unit
	$(Q)tests/run.sh -j $(TEST_JOBS)

# The quick tier, for developers between commits (under 3 minutes): the
# unit tests, the docs checks and a loopback smoke of each transport kind.
check-quick: all unit
	$(Q)tests/run.sh unit docs smoke

install: qperf
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 755 qperf $(DESTDIR)$(BINDIR)/qperf
	$(INSTALL) -m 644 docs/qperf.1 $(DESTDIR)$(MANDIR)/man1/qperf.1
	$(INSTALL) -m 644 docs/qperf-guide.7 $(DESTDIR)$(MANDIR)/man7/qperf-guide.7
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/bin/qperf|$(BINDIR)/qperf|g' scripts/qperf.service \
		>$(DESTDIR)$(UNITDIR)/qperf.service
	chmod 644 $(DESTDIR)$(UNITDIR)/qperf.service

clean:
	rm -f qperf libqperf.a .build-flags $(OBJS) $(VERBS_OBJS) $(UNIT_TESTS) $(FUZZERS)
	-$(Q)$(MAKE) -s -C tests/rdma clean
	-$(Q)test ! -f softverbs/Makefile || $(MAKE) -C softverbs clean

.PHONY: all unit check check-quick install clean softverbs verbs-test FORCE
