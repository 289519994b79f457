#!/bin/bash
# Boot a guest kernel with an initramfs in QEMU and collect its output.
#
#   vmtest/boot.sh KERNEL_DIR INITRAMFS OUT_DIR SUITES [PROFILE]
#   vmtest/boot.sh --demo KERNEL_DIR INITRAMFS
#
# KERNEL_DIR holds a bzImage (a kernel built here) or a vmlinuz (Debian's
# own). PROFILE (main, preseed or stock; default main) tells the suites
# which kernel they run on, through ipcwatch.kernel= on the command line,
# and adds what that kernel's run needs: the pre-seed kernel boots with
# the BPF LSM off, so the suites can show enforce refusing to start;
# the bench kernel trusts the TSC (tsc=reliable: no watchdog demoting it
# to a jiffies clock under emulation, so the timings are cycle-exact).
# SUITE_TIMEOUT (seconds, default 600) bounds each suite.
# VM_APPEND is added to the guest's command line: options of the suites
# (ipcwatch.storm_seed=S, ipcwatch.storm_duration=SECONDS, ...).
#
# Test runs write the kernel console to OUT_DIR/console.log and the
# suites' TAP to OUT_DIR/results.tap (second serial port). The demo
# runs on this terminal. TCG unless a short probe boot proves KVM
# works here (IPCWATCH_ACCEL=tcg|kvm|auto overrides).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VM_MEMORY=${VM_MEMORY:-1024}
VM_TIMEOUT=${VM_TIMEOUT:-1500}

demo=0
if [ "${1:-}" = --demo ]; then
	demo=1
	shift
fi
kernel_dir=$1
initramfs=$2
image=$kernel_dir/bzImage
[ -r "$image" ] || image=$kernel_dir/vmlinuz
[ -r "$image" ] || die "no bzImage or vmlinuz in $kernel_dir"
[ -r "$initramfs" ] || die "no initramfs $initramfs"
# An arm64 Image says so at offset 56; its machine has one serial port,
# so the suites' TAP comes on the console, each line marked.
guest_arch=x86_64
[ "$(dd if="$image" bs=1 skip=56 count=4 2>/dev/null | od -An -tx1 | tr -d " ")" = 41524d64 ] &&
	guest_arch=aarch64
if [ "$guest_arch" = aarch64 ]; then
	command -v qemu-system-aarch64 > /dev/null ||
		die "qemu-system-aarch64 missing: apt-get install qemu-system-arm"
	qemu_base=(qemu-system-aarch64 -M virt -cpu cortex-a72 -no-reboot
		-m "$VM_MEMORY" -smp 2 -nic none -display none -monitor none
		-kernel "$image" -initrd "$initramfs")
	cmdline="console=ttyAMA0 panic=-1 oops=panic loglevel=5 ipcwatch.results=console"
else
	command -v qemu-system-x86_64 > /dev/null ||
		die "qemu-system-x86_64 missing: apt-get install qemu-system-x86"
	qemu_base=(qemu-system-x86_64 -no-reboot -m "$VM_MEMORY" -smp 2
		-nic none -display none -monitor none
		-kernel "$image" -initrd "$initramfs")
	cmdline="console=ttyS0 panic=-1 oops=panic"
fi

# A nested KVM guest may hang at boot on these machines: use KVM only
# when a probe boot finishes in time. The verdict is kept per host boot.
accel_args() {
	local mode=${IPCWATCH_ACCEL:-auto} verdict probe
	case "$mode" in
	tcg) return ;;
	kvm) echo "-enable-kvm -cpu host"; return ;;
	auto) ;;
	*) die "IPCWATCH_ACCEL must be tcg, kvm or auto" ;;
	esac
	[ "$guest_arch" = x86_64 ] && [ -w /dev/kvm ] || return 0
	verdict=$IPCWATCH_CACHE/kvm-probe-$(cat /proc/sys/kernel/random/boot_id)
	if [ ! -e "$verdict" ]; then
		probe=$(mktemp -d)
		timeout -k 2 30 "${qemu_base[@]}" -enable-kvm -cpu host \
			-append "$cmdline ipcwatch.suites=" \
			-serial file:"$probe/console" -serial file:"$probe/tap" \
			> /dev/null 2>&1 || true
		if grep -q '^# vmtest: done' "$probe/tap" 2>/dev/null; then
			echo kvm > "$verdict"
		else
			echo tcg > "$verdict"
		fi
		rm -rf "$probe"
		log "KVM probe: $(cat "$verdict")"
	fi
	[ "$(cat "$verdict")" = kvm ] && echo "-enable-kvm -cpu host"
	return 0
}
# shellcheck disable=SC2207
accel=($(accel_args))

if [ "$demo" = 1 ]; then
	# the guest console is this terminal: tell it its type and size
	term_args="ipcwatch.interactive=0"
	if [ -t 0 ] && [ -t 1 ]; then
		read -r rows cols < <(stty size)
		term_args="ipcwatch.interactive=1 ipcwatch.term=${TERM:-vt100}"
		term_args+=" ipcwatch.rows=$rows ipcwatch.cols=$cols"
	fi
	# loglevel=1: kernel messages would scroll the screen under top
	exec "${qemu_base[@]}" "${accel[@]}" \
		-append "$cmdline loglevel=1 ipcwatch.mode=demo $term_args" \
		-serial mon:stdio -serial null
fi

out=$3
suites=$4
profile=${5:-main}
suite_timeout=${SUITE_TIMEOUT:-600}
case "$profile" in
main) ;;
preseed) cmdline+=" lsm=capability" ;;
# Debian's kernel: its own mitigations cost much under emulation and
# are not what is tested
stock) cmdline+=" mitigations=off" ;;
bench) cmdline+=" tsc=reliable" ;;
*) die "unknown profile '$profile' (main, preseed, stock or bench)" ;;
esac
mkdir -p "$out"
rm -f "$out/console.log" "$out/results.tap"
log "booting $(basename "$kernel_dir") (${accel[*]:-TCG}), suites: $suites"
start=$(date +%s)
rc=0
serials=(-serial file:"$out/console.log" -serial file:"$out/results.tap")
[ "$guest_arch" = aarch64 ] && serials=(-serial file:"$out/console.log")
timeout -k 5 "$VM_TIMEOUT" "${qemu_base[@]}" "${accel[@]}" \
	-append "$cmdline ipcwatch.suites=$suites ipcwatch.timeout=$suite_timeout ipcwatch.kernel=$profile${VM_APPEND:+ $VM_APPEND}" \
	"${serials[@]}" < /dev/null > "$out/qemu.log" 2>&1 || rc=$?
if [ "$guest_arch" = aarch64 ]; then
	tr -d '\r' < "$out/console.log" | sed -n 's/^TAP| //p' > "$out/results.tap"
	# the console keeps the kernel's lines only, for the splat check
	tr -d '\r' < "$out/console.log" | grep -v '^TAP| ' > "$out/kernel.log"
	mv "$out/kernel.log" "$out/console.log"
fi
log "guest ran $(( $(date +%s) - start ))s (qemu exit $rc)"
[ "$rc" != 124 ] || log "guest timed out after ${VM_TIMEOUT}s"
exit 0
