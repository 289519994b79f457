#!/bin/bash
# Fetch (or find in the cache) Debian's own kernel image for an
# architecture and print the directory holding it:
#
#   vmtest/stock-kernel.sh [amd64|arm64]
#
#   vmlinuz    the kernel as Debian ships it (QEMU boots it as it is)
#   config     its .config
#   btf        its BTF, raw (what /sys/kernel/btf/vmlinux holds)
#   package    "NAME VERSION" of the package it came from
#
# The package is the linux-image-6.1.0-N-ARCH whose version equals the
# installed linux-source-6.1 (IPCWATCH_STOCK_VERSION overrides), so the
# stock kernel and the patched one are the same release; apt-get runs
# with a private state (apt_private in lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-amd64}
case "$arch" in
amd64|arm64) ;;
*) die "stock kernel: unknown architecture '$arch' (amd64 or arm64)" ;;
esac

version=${IPCWATCH_STOCK_VERSION:-$(dpkg-query -W -f='${Version}' \
	linux-source-6.1 2>/dev/null || true)}
[ -n "$version" ] ||
	die "linux-source-6.1 is not installed: set IPCWATCH_STOCK_VERSION"

stock=$IPCWATCH_CACHE/stock
mkdir -p "$stock"
exec 8> "$stock/.lock"
flock 8

# A cached kernel of this version is used without asking the network.
for dir in "$stock/$arch-$version"-*; do
	if [ -e "$dir/.complete" ]; then
		echo "$dir"
		exit 0
	fi
done

apt_private "$arch"
# shellcheck disable=SC2046
pkg=$(apt-cache "${apt_opts[@]}" show $(apt-cache "${apt_opts[@]}" search \
		--names-only "^linux-image-6\.1\.0-[0-9]+-$arch\$" | cut -d' ' -f1) |
	awk -v v="$version" '/^Package:/ { p = $2 }
		/^Version:/ && $2 == v { print p; exit }')
[ -n "$pkg" ] ||
	die "stock kernel: no linux-image-6.1.0-*-$arch of version $version"

out=$stock/$arch-$version-$pkg
work=$out.work
rm -rf "$work" "$out"
mkdir -p "$work"
log "stock kernel: downloading $pkg $version"
(cd "$work" && apt-get "${apt_opts[@]}" download "$pkg=$version") ||
	die "stock kernel: apt-get download $pkg=$version failed"
dpkg-deb -x "$work"/*.deb "$work/root"
cp "$work/root/boot/vmlinuz-"* "$work/vmlinuz"
cp "$work/root/boot/config-"* "$work/config"
"$VMTEST_DIR/../scripts/extract-btf.sh" "$work/vmlinuz" "$work/btf"
echo "$pkg $version" > "$work/package"
rm -rf "$work/root" "$work"/*.deb
mv "$work" "$out"
touch "$out/.complete"
echo "$out"
