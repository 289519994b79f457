#!/bin/bash
# A sysroot of Debian's packages for another architecture, unpacked in
# the cache (nothing is installed on this machine), and print its path:
#
#   vmtest/sysroot.sh arm64
#
# It holds what `make ARCH=arm64` links against (the -dev packages of
# ipcwatch's libraries and everything they depend on) and what the arm64
# guest runs (the C library, busybox-static). The cross compiler itself
# is Debian's gcc-aarch64-linux-gnu.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-arm64}
roots=(libbpf-dev libelf-dev zlib1g-dev libzstd-dev libncurses-dev
	libmicrohttpd-dev libinih-dev libjson-c-dev libc6 busybox-static)

base=$IPCWATCH_CACHE/sysroot
mkdir -p "$base"
exec 7> "$base/.lock"
flock 7

# A sysroot is kept by the package versions it was made from; they are
# asked again when the package lists are (daily), and a new sysroot is
# made only when they differ.
apt_private "$arch"
newest=$(ls -1dt "$base/$arch"-*/.complete 2>/dev/null | head -1 || true)
if [ "$apt_updated" = 0 ] && [ -n "$newest" ]; then
	newest=$(dirname "$newest")
	has_roots=1
	for p in "${roots[@]}"; do
		grep -q "^$p=" "$newest/packages" || has_roots=0
	done
	if [ "$has_roots" = 1 ]; then
		echo "$newest"
		exit 0
	fi
fi
# Dependencies, not recommends: a closure of real packages for $arch.
closure=$(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
	--no-pre-depends "${roots[@]}" 2>/dev/null |
	grep -v '^ ' | grep -v '^<' | sort -u |
	grep -Evx 'debconf|debconf-2.0|perl-base|dpkg|tar|install-info|gcc-12-base|libgcc-s1|libcrypt1|sensible-utils|mawk|base-files')
[ -n "$closure" ] || die "sysroot: no packages for $arch"
# shellcheck disable=SC2086
versions=$(apt-cache "${apt_opts[@]}" show --no-all-versions $closure |
	awk '/^Package:/ { p = $2 } /^Version:/ { print p "=" $2 }' | sort -u)
key=$(echo "$versions" | sha256sum | cut -c1-16)
out=$base/$arch-$key
if [ -e "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

work=$out.work
rm -rf "$work" "$out"
mkdir -p "$work/debs" "$work/root"
log "sysroot: downloading $(echo "$closure" | wc -w) $arch packages"
# shellcheck disable=SC2086
(cd "$work/debs" && apt-get "${apt_opts[@]}" download $versions) \
	> "$work/download.log" 2>&1 || {
	tail -5 "$work/download.log" >&2
	die "sysroot: apt-get download failed"
}
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$work/root"
done
echo "$versions" > "$work/root/packages"
# Debian 12 is merged-/usr: /lib is /usr/lib. Links that point to an
# absolute path are made relative, so they resolve inside the sysroot.
for d in lib lib64 bin sbin; do
	if [ -d "$work/root/$d" ] && [ ! -L "$work/root/$d" ]; then
		mkdir -p "$work/root/usr/$d"
		cp -a "$work/root/$d/." "$work/root/usr/$d/"
		rm -rf "${work:?}/root/$d"
	fi
	ln -sfn "usr/$d" "$work/root/$d"
done
find "$work/root" -type l | while read -r link; do
	target=$(readlink "$link")
	case "$target" in
	/*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" \
		"$work/root$target")" "$link" ;;
	esac
done
rm -rf "$work/debs"
mv "$work/root" "$out"
rm -rf "$work"
touch "$out/.complete"
# Keep the two newest sysroots of this architecture.
ls -1dt "$base/$arch"-* 2>/dev/null | grep -v '\.work$' | tail -n +3 |
	xargs -r rm -rf
echo "$out"
