#!/bin/bash
# Boot a guest kernel with an initramfs in QEMU and collect its output.
#
#   vmtest/boot.sh KERNEL_DIR INITRAMFS OUT_DIR SUITES [SUITE_TIMEOUT]
#   vmtest/boot.sh --demo KERNEL_DIR INITRAMFS
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
[ -r "$kernel_dir/bzImage" ] || die "no bzImage in $kernel_dir"
[ -r "$initramfs" ] || die "no initramfs $initramfs"
command -v qemu-system-x86_64 > /dev/null ||
	die "qemu-system-x86_64 missing: apt-get install qemu-system-x86"

qemu_base=(qemu-system-x86_64 -no-reboot -m "$VM_MEMORY" -smp 2
	-nic none -display none -monitor none
	-kernel "$kernel_dir/bzImage" -initrd "$initramfs")
cmdline="console=ttyS0 panic=-1 oops=panic"

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
	[ -w /dev/kvm ] || return 0
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
suite_timeout=${5:-600}
mkdir -p "$out"
rm -f "$out/console.log" "$out/results.tap"
log "booting $(basename "$kernel_dir") (${accel[*]:-TCG}), suites: $suites"
start=$(date +%s)
rc=0
timeout -k 5 "$VM_TIMEOUT" "${qemu_base[@]}" "${accel[@]}" \
	-append "$cmdline ipcwatch.suites=$suites ipcwatch.timeout=$suite_timeout" \
	-serial file:"$out/console.log" -serial file:"$out/results.tap" \
	< /dev/null > "$out/qemu.log" 2>&1 || rc=$?
log "guest ran $(( $(date +%s) - start ))s (qemu exit $rc)"
[ "$rc" != 124 ] || log "guest timed out after ${VM_TIMEOUT}s"
exit 0
