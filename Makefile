# ipcwatch: top-level build.
#
#   make           the ipcwatch binary (build/ipcwatch, static) and guest programs
#   make demo      boot the patched kernel and show ipcwatch on a demo workload
#   make check     every test: host, guest on the patched kernel, pre-seed run
#   make vmtest    guest suites on the patched kernel; KERNEL=preseed boots the
#                  pre-seed kernel, judged against vmtest/preseed.xfail
#   make host-check  host tests only (cmocka under ASan/UBSan, checkpatch, ...)
#   make bench     CPU cost of ipcwatch top at 32768 segments / 32000 sem sets
#   make bisect-check  every kernel patch builds on its own (both series)
#
# Build output goes to build/; kernels are built and cached outside the
# repository (vmtest/lib.sh). include/vmlinux.h is generated from the
# patched kernel's BTF and never committed.

BUILD      ?= build
KERNEL     ?= main
CC         := gcc
CLANG      ?= clang
BPFTOOL    ?= bpftool
ARCH_INC   := /usr/include/$(shell $(CC) -dumpmachine)

CWARN      := -Wall -Wextra -Werror
CFLAGS_COMMON := -std=gnu11 -O2 -g $(CWARN) -Iinclude -Iuser
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Iinclude -I$(ARCH_INC) \
	      -Wall -Werror
STATIC_BPF_LIBS := -lbpf -lelf -lz -lzstd
CURSES_LIBS := -lncursesw -ltinfo
# libbpf is linked statically, to run with the version it was built
# against; the rest comes from the system (the guest gets copies).
IPCWATCH_LIBS := -Wl,-Bstatic -lbpf -Wl,-Bdynamic -lelf -lz -lzstd \
		 $(CURSES_LIBS) -lmicrohttpd -linih -lpthread
SANITIZE   := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all

# ---- ipcwatch -------------------------------------------------------------

# Everything but main() and what needs the BPF skeleton: host-testable.
CORE_SRCS  := user/units.c user/ipc_limits.c user/json_writer.c user/event.c \
	      user/event_format.c user/sysvipc.c user/cli.c user/state.c \
	      user/top_view.c user/policy.c user/metrics.c user/alerts.c \
	      user/reaper.c user/notify.c user/clock.c
APP_SRCS   := user/main.c user/collector.c user/cmd_events.c user/cmd_limits.c \
	      user/cmd_top.c user/policy_bpf.c user/cmd_policy.c user/cmd_enforce.c
USER_HDRS  := $(wildcard user/*.h) include/ipcwatch.h include/ipcwatch_policy.h
VMLINUX_H  := include/vmlinux.h
SKEL       := $(BUILD)/bpf/ipcwatch.skel.h $(BUILD)/bpf/policy.skel.h

# ---- guest test programs --------------------------------------------------

GUEST_DIR  := vmtest/guest
GUEST_OUT  := $(BUILD)/guest
GUEST_CFLAGS := -std=gnu11 -O2 -g $(CWARN) -static -I$(GUEST_DIR) -I$(GUEST_OUT)
GUEST_COMMON := $(GUEST_DIR)/tap.c $(GUEST_DIR)/ipcutil.c
GUEST_HEADERS := $(wildcard $(GUEST_DIR)/*.h)

# Suites per kernel variant; the pre-seed kernel only has the seed
# behaviour to show, not the tracepoints.
SUITES_main    := conformance,tracepoints,ipcwatch_events,ipcwatch_limits,ipcwatch_top,ipcwatch_enforce
SUITES_preseed := conformance
XFAIL_main     :=
XFAIL_preseed  := vmtest/preseed.xfail
GUEST_PROGS_main := $(GUEST_OUT)/conformance $(GUEST_OUT)/tracepoints \
		    $(GUEST_OUT)/ipcwatch_events $(GUEST_OUT)/ipcwatch_limits \
		    $(GUEST_OUT)/ipcwatch_top $(GUEST_OUT)/ipcwatch_enforce \
		    $(GUEST_DIR)/alert_sink $(BUILD)/ipcwatch
GUEST_PROGS_preseed := $(GUEST_OUT)/conformance

ifeq ($(filter $(KERNEL),main preseed),)
$(error KERNEL must be main or preseed, not '$(KERNEL)')
endif

.PHONY: all deps vmtest host-check unit-tests check demo bench bisect-check clean FORCE

all: $(BUILD)/ipcwatch $(GUEST_PROGS_main)

deps:
	@scripts/install-deps.sh

# Asks the cache every time; the file changes only when the kernel does.
$(BUILD)/kernel-%.path: FORCE | deps
	@mkdir -p $(@D)
	@vmtest/build-kernel.sh $* > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@
	@rm -f $@.tmp

$(VMLINUX_H): $(BUILD)/kernel-main.path
	$(BPFTOOL) btf dump file "$$(cat $<)/vmlinux" format c > $@.tmp
	mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H) include/ipcwatch.h \
		include/ipcwatch_policy.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) | $(SKEL)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -I$(BUILD)/bpf -c $< -o $@

$(BUILD)/ipcwatch: $(patsubst user/%.c,$(BUILD)/obj/%.o,$(CORE_SRCS) $(APP_SRCS))
	$(CC) -o $@ $^ $(IPCWATCH_LIBS)

# ---- host tests -----------------------------------------------------------

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -O1 $(SANITIZE) -DFIXTURES=\"$(CURDIR)/tests/unit/fixtures\" \
		-o $@ $< $(CORE_SRCS) -lcmocka -lmicrohttpd -linih -lpthread

unit-tests: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do \
		CMOCKA_MESSAGE_OUTPUT=TAP $$t || status=1; \
	done; exit $${status:-0}

host-check: deps
	@$(MAKE) -s unit-tests
	@tests/checkpatch.sh
	@tests/report_test.sh

# ---- guest -----------------------------------------------------------------

$(GUEST_OUT)/conformance: $(GUEST_DIR)/conformance.c $(GUEST_COMMON) $(GUEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^)

$(GUEST_OUT)/lsm_deny.bpf.o: $(GUEST_DIR)/lsm_deny.bpf.c
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

$(GUEST_OUT)/ipcwatch_limits: $(GUEST_DIR)/ipcwatch_limits.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c

$(GUEST_OUT)/ipcwatch_enforce: $(GUEST_DIR)/ipcwatch_enforce.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c

$(GUEST_OUT)/ipcwatch_top: $(GUEST_DIR)/ipcwatch_top.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c

$(BUILD)/initramfs-$(KERNEL).cpio.gz: $(GUEST_PROGS_$(KERNEL)) vmtest/guest/init vmtest/build-initramfs.sh
	vmtest/build-initramfs.sh $@ $(GUEST_PROGS_$(KERNEL))

vmtest: $(BUILD)/kernel-$(KERNEL).path $(BUILD)/initramfs-$(KERNEL).cpio.gz
	@vmtest/boot.sh "$$(cat $(BUILD)/kernel-$(KERNEL).path)" \
		$(BUILD)/initramfs-$(KERNEL).cpio.gz $(BUILD)/vmtest-$(KERNEL) \
		$(SUITES_$(KERNEL))
	@vmtest/report.sh vmtest-$(KERNEL) $(BUILD)/vmtest-$(KERNEL) $(XFAIL_$(KERNEL))

check: deps
	@scripts/check.sh

# Benchmarks report numbers; they never pass or fail on time.
$(GUEST_OUT)/bench_top: $(GUEST_DIR)/bench_top.c $(GUEST_DIR)/runner.c \
		$(GUEST_COMMON) $(GUEST_HEADERS)
	$(CC) $(GUEST_CFLAGS) -o $@ $(filter %.c,$^) -ljson-c

$(BUILD)/initramfs-bench.cpio.gz: $(GUEST_OUT)/bench_top $(BUILD)/ipcwatch \
		vmtest/guest/init vmtest/build-initramfs.sh
	vmtest/build-initramfs.sh $@ $(GUEST_OUT)/bench_top $(BUILD)/ipcwatch

bisect-check: deps
	@vmtest/bisect-check.sh main
	@vmtest/bisect-check.sh preseed

bench: $(BUILD)/kernel-main.path $(BUILD)/initramfs-bench.cpio.gz
	@vmtest/boot.sh "$$(cat $<)" $(BUILD)/initramfs-bench.cpio.gz \
		$(BUILD)/bench bench_top
	@grep '^# bench:' $(BUILD)/bench/results.tap | sed 's/^# //'
	@vmtest/report.sh bench $(BUILD)/bench > /dev/null

# ---- demo -------------------------------------------------------------------

$(BUILD)/demo/workload: vmtest/demo/workload.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(BUILD)/demo.cpio.gz: $(BUILD)/demo/workload $(BUILD)/ipcwatch vmtest/demo/run.sh \
		vmtest/guest/init vmtest/build-initramfs.sh
	cp vmtest/demo/run.sh $(BUILD)/ipcwatch $(BUILD)/demo/
	vmtest/build-initramfs.sh $@ --demo $(BUILD)/demo

demo: $(BUILD)/kernel-main.path $(BUILD)/demo.cpio.gz
	vmtest/boot.sh --demo "$$(cat $(BUILD)/kernel-main.path)" $(BUILD)/demo.cpio.gz

clean:
	rm -rf $(BUILD) $(VMLINUX_H)
