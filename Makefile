# ipcwatch: top-level build.
#
#   make           build/ipcwatch: needs no kernel tree (the BPF programs
#                  compile against include/vmlinux/<arch>/vmlinux.h)
#   make install   DESTDIR, PREFIX (/usr/local) as usual
#   make deb       build/ipcwatch_<version>_<arch>.deb (dpkg-buildpackage)
#   make ARCH=arm64  the same binary and BPF objects for arm64 (cross)
#   make demo      boot the patched kernel and show ipcwatch on a demo workload
#   make check     every test: host, package, arm64, guest on the patched,
#                  pre-seed and Debian's own kernels
#   make vmtest    guest suites on one kernel: KERNEL=main (default),
#                  preseed or stock
#   make host-check  host tests only (cmocka under ASan/UBSan, checkpatch,
#                  fuzzing, valgrind, ...)
#   make fuzz      the libFuzzer targets, FUZZ_SECONDS (20) each
#   make valgrind  the unit tests once under valgrind
#   make bench     issue 14's benchmarks, one guest run per kernel of
#                  BENCH_KERNELS (bench: the patched kernel without debug
#                  options; stock), BENCH_CYCLES/ROUNDS/OPS/SECTIONS/TIMEOUT;
#                  writes docs/benchmarks.{md,json}; never passes or fails
#                  on time (docs/vmtest.md)
#   make bisect-check  every kernel patch builds on its own (both series)
#
# Build output goes to build/ (build/arm64/ when cross-building); the
# kernels are built, and Debian's are fetched, into a cache outside the
# repository (vmtest/lib.sh).

VERSION    := $(shell head -1 debian/changelog | awk '{print $$2}' | tr -d '()')
KERNEL     ?= main

# ---- target architecture ---------------------------------------------------

HOST_ARCH  := $(shell uname -m)
ARCH       ?= $(HOST_ARCH)
arch_of     = $(if $(filter x86_64 amd64 x86,$(1)),x86,$(if $(filter aarch64 arm64,$(1)),arm64,unknown))
BPF_ARCH   := $(call arch_of,$(ARCH))
ifeq ($(BPF_ARCH),unknown)
$(error ARCH=$(ARCH): ipcwatch builds for x86_64 and arm64)
endif
DEB_ARCH   := $(if $(filter x86,$(BPF_ARCH)),amd64,arm64)
GNU_TRIPLET := $(if $(filter x86,$(BPF_ARCH)),x86_64-linux-gnu,aarch64-linux-gnu)

ifeq ($(BPF_ARCH),$(call arch_of,$(HOST_ARCH)))
BUILD      ?= build
CC         ?= gcc
SYSROOT_FLAGS :=
else
# Cross: gcc-<triplet> and the target's -dev packages unpacked into a
# sysroot in the cache (vmtest/sysroot.sh; nothing is installed).
BUILD      ?= build/$(DEB_ARCH)
CC         := $(GNU_TRIPLET)-gcc
SYSROOT    := $(or $(SYSROOT),$(shell vmtest/sysroot.sh $(DEB_ARCH)))
ifeq ($(SYSROOT),)
$(error no $(DEB_ARCH) sysroot: vmtest/sysroot.sh $(DEB_ARCH) failed)
endif
SYSROOT_FLAGS := --sysroot=$(SYSROOT)
endif

CLANG      ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL    ?= bpftool
VMLINUX_H  := include/vmlinux/$(BPF_ARCH)/vmlinux.h

# ---- flags -------------------------------------------------------------------

# CFLAGS, CPPFLAGS and LDFLAGS from the environment are honoured (the
# Debian package passes its hardening flags through them).
CFLAGS     ?= -O2 -g
CWARN      := -Wall -Wextra -Werror
IPCW_CFLAGS := -std=gnu11 $(CWARN) -Iinclude -Iuser \
	       -DIPCWATCH_VERSION='"$(VERSION)"' $(SYSROOT_FLAGS)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	      -Iinclude/vmlinux/$(BPF_ARCH) -Iinclude -Ibpf -Wall -Werror
IPCWATCH_LIBS := -lbpf -lncursesw -ltinfo -lmicrohttpd -linih -lpthread
STATIC_BPF_LIBS := -lbpf -lelf -lz -lzstd
SANITIZE   := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all

# ---- ipcwatch -------------------------------------------------------------

# Everything but main() and what needs the BPF skeleton: host-testable.
CORE_SRCS  := user/units.c user/ipc_limits.c user/json_writer.c user/event.c \
	      user/event_format.c user/sysvipc.c user/cli.c user/state.c \
	      user/top_view.c user/policy.c user/metrics.c user/alerts.c \
	      user/reaper.c user/notify.c user/clock.c user/hooks.c \
	      user/policy_pins.c user/trust.c user/printable.c user/ipcns.c \
	      user/cgroup_owner.c user/ns_set.c
APP_SRCS   := user/main.c user/collector.c user/cmd_events.c user/cmd_limits.c \
	      user/cmd_top.c user/policy_bpf.c user/cmd_policy.c user/cmd_enforce.c \
	      user/cmd_probe.c
USER_HDRS  := $(wildcard user/*.h) include/ipcwatch.h include/ipcwatch_policy.h
BPF_HDRS   := $(VMLINUX_H) $(wildcard bpf/*.h) include/ipcwatch.h \
	      include/ipcwatch_policy.h
SKEL       := $(BUILD)/bpf/ipcwatch.skel.h $(BUILD)/bpf/policy.skel.h

# Keep every intermediate file (the BPF objects, the skeletons).
.SECONDARY:

.PHONY: all build-deps install deb deps vmtest host-check unit-tests check demo bench fuzz valgrind \
	bisect-check clean FORCE

all: build-deps $(BUILD)/ipcwatch

deps:
	@scripts/install-deps.sh

# What `make` itself needs, checked (not installed): one line naming
# the missing packages.
build-deps:
	@scripts/install-deps.sh --check build $(DEB_ARCH)

# DWARF is dropped (BTF stays): the objects are embedded in the binary.
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp
	mv $@.tmp $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp
	mv $@.tmp $@

$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) | $(SKEL)
	@mkdir -p $(@D)
	$(CC) $(IPCW_CFLAGS) $(CPPFLAGS) $(CFLAGS) -I$(BUILD)/bpf -c $< -o $@

# The skeletons embed the BPF objects: an edited program rebuilds these.
$(BUILD)/obj/collector.o: $(BUILD)/bpf/ipcwatch.skel.h
$(BUILD)/obj/policy_bpf.o: $(BUILD)/bpf/policy.skel.h

$(BUILD)/ipcwatch: $(patsubst user/%.c,$(BUILD)/obj/%.o,$(CORE_SRCS) $(APP_SRCS))
	$(CC) $(CFLAGS) $(LDFLAGS) $(SYSROOT_FLAGS) -o $@ $^ $(IPCWATCH_LIBS)

PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/ipcwatch
SYSCONFDIR ?= /etc
UNITDIR    ?= /lib/systemd/system

install: $(BUILD)/ipcwatch
	install -D -m 755 $(BUILD)/ipcwatch $(DESTDIR)$(SBINDIR)/ipcwatch
	install -D -m 644 docs/ipcwatch.8 $(DESTDIR)$(MANDIR)/man8/ipcwatch.8
	install -D -m 644 dist/policy.ini $(DESTDIR)$(SYSCONFDIR)/ipcwatch/policy.ini
	install -D -m 644 docs/policy.example.ini \
		$(DESTDIR)$(DOCDIR)/examples/policy.example.ini
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/ipcwatch|$(SBINDIR)/ipcwatch|g' dist/ipcwatch.service \
		> $(DESTDIR)$(UNITDIR)/ipcwatch.service
	chmod 644 $(DESTDIR)$(UNITDIR)/ipcwatch.service

# The package is built from a copy of the source tree (what git tracks or
# would track; nothing it ignores), so the work tree stays clean.
deb:
	@scripts/build-deb.sh $(BUILD)

# ---- host tests -----------------------------------------------------------

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(IPCW_CFLAGS) -O1 -g $(SANITIZE) \
		-DFIXTURES=\"$(CURDIR)/tests/unit/fixtures\" \
		-DMANPAGE=\"$(CURDIR)/docs/ipcwatch.8\" -o $@ $< $(CORE_SRCS) \
		-lcmocka -lbpf -lmicrohttpd -linih -lpthread

# The hook table is checked against the programs of the built objects.
$(BUILD)/unit/test_hooks: $(BUILD)/bpf/ipcwatch.bpf.o $(BUILD)/bpf/policy.bpf.o
$(BUILD)/unit/test_hooks: IPCW_CFLAGS += -DBPF_OBJS=\"$(abspath $(BUILD)/bpf)\"

# The benchmarks' arithmetic is the guest's (vmtest/guest/bench_stats.c).
$(BUILD)/unit/test_bench_stats $(BUILD)/unit-valgrind/test_bench_stats: \
	vmtest/guest/bench_stats.c vmtest/guest/bench_stats.h
$(BUILD)/unit/test_bench_stats $(BUILD)/unit-valgrind/test_bench_stats: \
	IPCW_CFLAGS += -Ivmtest/guest

unit-tests: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do \
		CMOCKA_MESSAGE_OUTPUT=TAP $$t || status=1; \
	done; exit $${status:-0}

# libFuzzer targets over the parsers (tests/fuzz/); `make fuzz` runs each
# for FUZZ_SECONDS from the corpus in the repository, seeded.
FUZZ_TARGETS := policy_parser event_decoder sysvipc_tables proc_text
FUZZ_SECONDS ?= 20
FUZZ_CFLAGS := -std=gnu11 $(CWARN) -Iinclude -Iuser -DIPCWATCH_VERSION='"$(VERSION)"' \
	       -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(CORE_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRCS) -lbpf -lmicrohttpd -linih -lpthread

fuzz: $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The same unit tests, built without sanitizers, once under valgrind.
VALGRIND_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit-valgrind/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/unit-valgrind/%: tests/unit/%.c $(CORE_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(IPCW_CFLAGS) -O1 -g \
		-DFIXTURES=\"$(CURDIR)/tests/unit/fixtures\" \
		-DMANPAGE=\"$(CURDIR)/docs/ipcwatch.8\" -o $@ $< $(CORE_SRCS) \
		-lcmocka -lbpf -lmicrohttpd -linih -lpthread

$(BUILD)/unit-valgrind/test_hooks: $(BUILD)/bpf/ipcwatch.bpf.o $(BUILD)/bpf/policy.bpf.o
$(BUILD)/unit-valgrind/test_hooks: IPCW_CFLAGS += -DBPF_OBJS=\"$(abspath $(BUILD)/bpf)\"

valgrind: $(VALGRIND_TESTS)
	@tests/valgrind.sh $(VALGRIND_TESTS)

host-check: deps
	@$(MAKE) -s unit-tests
	@tests/checkpatch.sh
	@tests/report_test.sh
	@tests/check_test.sh
	@$(MAKE) -s fuzz
	@$(MAKE) -s valgrind

# ---- guest -----------------------------------------------------------------

GUEST_DIR  := vmtest/guest
GUEST_OUT  := $(BUILD)/guest
GUEST_CFLAGS := -std=gnu11 -O2 -g $(CWARN) -static -I$(GUEST_DIR) -I$(GUEST_OUT) -Iinclude \
		$(SYSROOT_FLAGS)
GUEST_COMMON := $(GUEST_DIR)/tap.c $(GUEST_DIR)/ipcutil.c
GUEST_HEADERS := $(wildcard $(GUEST_DIR)/*.h)

# Suites per kernel: the pre-seed kernel has the seed behaviour to show
# and two hooks that differ (kernel-patches/testonly), not the
# tracepoints; Debian's own kernel has no tracepoints and no fault
# injection: only what a stock kernel can do.
SUITES_main    := conformance,tracepoints,ipcwatch_probe,ipcwatch_events,ipcwatch_limits,ipcwatch_top,ipcwatch_enforce,ipcwatch_storm,bench_smoke
SUITES_preseed := conformance,ipcwatch_probe
SUITES_stock   := ipcwatch_probe,ipcwatch_events,ipcwatch_limits,ipcwatch_top,ipcwatch_enforce
XFAIL_main     :=
XFAIL_preseed  := vmtest/preseed.xfail
XFAIL_stock    :=
IPCWATCH_GUEST := $(GUEST_OUT)/ipcwatch_events $(GUEST_OUT)/ipcwatch_limits \
		  $(GUEST_OUT)/ipcwatch_top $(GUEST_OUT)/ipcwatch_enforce \
		  $(GUEST_OUT)/ipcwatch_probe $(GUEST_DIR)/alert_sink \
		  $(GUEST_DIR)/alert_sleeper $(GUEST_DIR)/alert_leaver \
		  $(GUEST_OUT)/alert_probe $(BUILD)/ipcwatch
GUEST_PROGS_main := $(GUEST_OUT)/conformance $(GUEST_OUT)/tracepoints $(IPCWATCH_GUEST) \
		    $(GUEST_OUT)/ipcwatch_storm $(GUEST_OUT)/storm $(GUEST_OUT)/bench_smoke
GUEST_PROGS_preseed := $(GUEST_OUT)/conformance $(GUEST_OUT)/ipcwatch_probe \
		       $(BUILD)/ipcwatch
GUEST_PROGS_stock := $(IPCWATCH_GUEST)

# arm64 runs on Debian's arm64 kernel only, and briefly: emulated, the
# whole events suite would take too long.
ifneq ($(SYSROOT),)
SUITES_stock   := ipcwatch_probe,ipcwatch_limits,ipcwatch_smoke
GUEST_PROGS_stock := $(GUEST_OUT)/ipcwatch_probe $(GUEST_OUT)/ipcwatch_limits \
		     $(GUEST_OUT)/ipcwatch_smoke $(BUILD)/ipcwatch
INITRAMFS_FLAGS := --sysroot $(SYSROOT)
ifneq ($(KERNEL),stock)
$(if $(filter vmtest,$(MAKECMDGOALS)),$(error ARCH=$(ARCH): only KERNEL=stock boots))
endif
endif

ifeq ($(filter $(KERNEL),main preseed stock),)
$(error KERNEL must be main, preseed or stock, not '$(KERNEL)')
endif

# The kernel of a variant: built (main, preseed) or Debian's (stock).
# Asks the cache every time; the file changes only when the kernel does.
$(BUILD)/kernel-stock.path: FORCE
	@mkdir -p $(@D)
	@vmtest/stock-kernel.sh $(DEB_ARCH) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp

$(BUILD)/kernel-%.path: FORCE | deps
	@mkdir -p $(@D)
	@vmtest/build-kernel.sh $* > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp

$(GUEST_OUT)/conformance: $(GUEST_DIR)/conformance.c $(GUEST_COMMON) $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^)

$(GUEST_OUT)/lsm_deny.bpf.o: $(GUEST_DIR)/lsm_deny.bpf.c $(VMLINUX_H)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(GUEST_OUT)/%.skel.h: $(GUEST_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(GUEST_OUT)/tracepoints: $(GUEST_DIR)/tracepoints.c $(GUEST_DIR)/tracefs.c \
		$(GUEST_COMMON) $(GUEST_HEADERS) $(GUEST_OUT)/lsm_deny.skel.h
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) $(STATIC_BPF_LIBS)

$(GUEST_OUT)/ipcwatch_events: $(GUEST_DIR)/ipcwatch_events.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS) $(GUEST_OUT)/lsm_deny.skel.h
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c $(STATIC_BPF_LIBS)

# The storm's workload generator and the enforce suite's --alert-exec
# probe: no json-c, no BPF.
$(GUEST_OUT)/alert_probe: $(GUEST_DIR)/alert_probe.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(GUEST_OUT)/storm: $(GUEST_DIR)/storm.c $(GUEST_DIR)/ipcutil.c $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^)

$(GUEST_OUT)/ipcwatch_%: $(GUEST_DIR)/ipcwatch_%.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c

$(BUILD)/initramfs-$(KERNEL).cpio.gz: $(GUEST_PROGS_$(KERNEL)) vmtest/guest/init vmtest/build-initramfs.sh
	vmtest/build-initramfs.sh $@ $(INITRAMFS_FLAGS) $(GUEST_PROGS_$(KERNEL))

vmtest: $(BUILD)/kernel-$(KERNEL).path $(BUILD)/initramfs-$(KERNEL).cpio.gz
	@vmtest/boot.sh "$$(cat $(BUILD)/kernel-$(KERNEL).path)" \
		$(BUILD)/initramfs-$(KERNEL).cpio.gz $(BUILD)/vmtest-$(KERNEL) \
		$(SUITES_$(KERNEL)) $(KERNEL)
	@vmtest/report.sh --suites $(SUITES_$(KERNEL)) vmtest-$(KERNEL) \
		$(BUILD)/vmtest-$(KERNEL) $(XFAIL_$(KERNEL))

check: deps
	@scripts/check.sh

# Benchmarks report numbers; they never pass or fail on time. One
# harness (vmtest/guest/bench.c), built twice: bench for make bench,
# bench_smoke (tiny sizes, checks only) for the main kernel's suites.
BENCH_SRCS := $(GUEST_DIR)/bench.c $(GUEST_DIR)/bench_stats.c $(GUEST_COMMON)

$(GUEST_OUT)/bench: $(BENCH_SRCS) $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c -lpthread

$(GUEST_OUT)/bench_smoke: $(BENCH_SRCS) $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -DBENCH_SMOKE -o $@ $(filter %.c,$^) -ljson-c -lpthread

# The bench initramfs alone has the peer tools: Debian's bpftrace with
# its libraries (vmtest/bench-tools.sh), util-linux's ipcs and lsipc.
$(BUILD)/initramfs-bench.cpio.gz: $(GUEST_OUT)/bench $(BUILD)/ipcwatch \
		vmtest/guest/init vmtest/build-initramfs.sh vmtest/bench-tools.sh
	tools=$$(vmtest/bench-tools.sh) && \
	vmtest/build-initramfs.sh $@ --tool "$$tools/root:/usr/bin/bpftrace" \
		--tool /usr/bin/ipcs --tool /usr/bin/lsipc \
		$(GUEST_OUT)/bench $(BUILD)/ipcwatch

bisect-check: deps
	@vmtest/bisect-check.sh main
	@vmtest/bisect-check.sh preseed

# make bench: one guest run per kernel of BENCH_KERNELS (the bench
# kernel, then Debian's), each measuring every configuration side by
# side; then scripts/bench-report.sh writes docs/benchmarks.{json,md}.
BENCH_KERNELS  ?= bench stock
BENCH_CYCLES   ?= 3
BENCH_ROUNDS   ?= 5
BENCH_OPS      ?= 100000
BENCH_SECTIONS ?= semop,contended,flood,top,start,enforce
BENCH_TIMEOUT  ?= 1800
BENCH_APPEND   := tsc=reliable ipcwatch.bench_cycles=$(BENCH_CYCLES) \
		  ipcwatch.bench_rounds=$(BENCH_ROUNDS) ipcwatch.bench_ops=$(BENCH_OPS) \
		  ipcwatch.bench_sections=$(BENCH_SECTIONS)

bench: deps $(patsubst %,$(BUILD)/kernel-%.path,$(BENCH_KERNELS)) \
		$(BUILD)/initramfs-bench.cpio.gz
	@for k in $(BENCH_KERNELS); do \
		start=$$(date +%s); \
		SUITE_TIMEOUT=$(BENCH_TIMEOUT) VM_TIMEOUT=$$(($(BENCH_TIMEOUT) + 300)) \
		VM_MEMORY=2048 VM_APPEND="$(BENCH_APPEND)" \
		vmtest/boot.sh "$$(cat $(BUILD)/kernel-$$k.path)" \
			$(BUILD)/initramfs-bench.cpio.gz $(BUILD)/bench-$$k bench \
			$$([ $$k = stock ] && echo stock || echo bench); \
		echo $$(( $$(date +%s) - start )) > $(BUILD)/bench-$$k/seconds; \
		vmtest/report.sh --suites bench bench-$$k $(BUILD)/bench-$$k \
			> $(BUILD)/bench-$$k/report.txt || \
			tail -5 $(BUILD)/bench-$$k/report.txt; \
	done
	@scripts/bench-report.sh --make "$(BENCH_CYCLES) $(BENCH_ROUNDS) $(BENCH_OPS) $(BENCH_SECTIONS)" \
		$(patsubst %,$(BUILD)/bench-%,$(BENCH_KERNELS))

# ---- demo -------------------------------------------------------------------

$(BUILD)/demo/workload: vmtest/demo/workload.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(BUILD)/demo.cpio.gz: $(BUILD)/demo/workload $(BUILD)/ipcwatch vmtest/demo/run.sh \
		vmtest/guest/init vmtest/build-initramfs.sh
	cp vmtest/demo/run.sh $(BUILD)/ipcwatch $(BUILD)/demo/
	vmtest/build-initramfs.sh $@ --demo $(BUILD)/demo

demo: deps $(BUILD)/kernel-main.path $(BUILD)/demo.cpio.gz
	vmtest/boot.sh --demo "$$(cat $(BUILD)/kernel-main.path)" $(BUILD)/demo.cpio.gz

clean:
	rm -rf $(BUILD)
