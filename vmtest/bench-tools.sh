#!/bin/bash
# Fetch (or find in the cache) the peer tools make bench compares with,
# and print the directory holding them, unpacked as on a Debian system:
#
#   vmtest/bench-tools.sh
#
# bpftrace comes from Debian's own package (apt-get download, with the
# private apt state of lib.sh), with those of its libraries this machine
# lacks (libbpfcc); the rest of its closure, and util-linux's ipcs and
# lsipc, are this machine's. Nothing is installed: the packages are
# unpacked into the cache, and build-initramfs.sh --tool copies the
# programs and their libraries into the bench initramfs only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(bpftrace libbpfcc)
tools=$IPCWATCH_CACHE/bench-tools
mkdir -p "$tools"
exec 8> "$tools/.lock"
flock 8

key=$(printf '%s\n' "${packages[@]}" | sha256sum | cut -c1-16)
out=$tools/$key
if [ -e "$out/.complete" ]; then
	echo "$out"
	exit 0
fi
apt_private amd64
work=$out.work
rm -rf "$work" "$out"
mkdir -p "$work/debs"
log "bench tools: downloading ${packages[*]}"
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}") ||
	die "bench tools: apt-get download ${packages[*]} failed"
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$work/root"
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$work/packages"
done
rm -rf "$work/debs"
[ -x "$work/root/usr/bin/bpftrace" ] || die "bench tools: no usr/bin/bpftrace"
mv "$work" "$out"
touch "$out/.complete"
echo "$out"
