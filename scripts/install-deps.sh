#!/bin/bash
# Install the Debian 12 packages the build and the tests need, if any
# is missing. Runs apt-get as root (through sudo when not root).
set -euo pipefail

packages=(
	# toolchain and kernel build
	gcc make libc6-dev patch perl bc flex bison cpio xz-utils
	libssl-dev libelf-dev dwarves linux-source-6.1 ccache
	# BPF
	clang llvm libbpf-dev bpftool zlib1g-dev libzstd-dev
	# guest
	qemu-system-x86 busybox-static
	# ipcwatch and its tests
	pkg-config libcmocka-dev libinih-dev libmicrohttpd-dev libncurses-dev
	libjson-c-dev
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
