#!/bin/bash
# The Debian 12 packages ipcwatch needs, by group:
#
#   scripts/install-deps.sh [GROUP]          install what is missing
#   scripts/install-deps.sh --check GROUP [ARCH]
#                                            name what is missing, exit 1
#
#   build   `make`: the ipcwatch binary (no kernel tree is needed)
#   all     the default: build, the Debian package, the kernels, QEMU,
#           the tests and the arm64 cross build
#
# Installs with apt-get as root (through sudo when not root).
set -euo pipefail

# the same list as Build-Depends in debian/control
build=(
	gcc make libc6-dev
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
	libinih-dev libmicrohttpd-dev libncurses-dev
)
everything=(
	"${build[@]}"
	# the guest's programs link libbpf statically
	libzstd-dev
	# tests and the Debian package
	libcmocka-dev libjson-c-dev debhelper dpkg-dev lintian
	# fuzzing (libFuzzer is in compiler-rt) and the valgrind pass
	libclang-rt-14-dev valgrind
	# kernel build and the guest
	patch perl bc flex bison cpio xz-utils libssl-dev dwarves
	linux-source-6.1 ccache qemu-system-x86 busybox-static
	# arm64: cross compiler and emulator
	gcc-aarch64-linux-gnu qemu-system-arm
	# make bench: its report (scripts/bench-report.sh)
	jq
)

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
group=${1:-all}
case "$group" in
build) packages=("${build[@]}") ;;
all) packages=("${everything[@]}") ;;
*) echo "install-deps: unknown group '$group' (build or all)" >&2; exit 2 ;;
esac
# a cross build needs the cross compiler; its libraries come from a
# sysroot the build unpacks itself (vmtest/sysroot.sh)
[ "${2:-}" = arm64 ] && [ "$(dpkg --print-architecture 2>/dev/null)" != arm64 ] &&
	packages+=(gcc-aarch64-linux-gnu)

# Not a Debian system: nothing to ask, the build says what it lacks.
command -v dpkg-query > /dev/null || exit 0

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$check" = 1 ]; then
	echo "ipcwatch: missing build dependencies: ${missing[*]} (make deps installs them)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
