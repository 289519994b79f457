#!/bin/bash
# The real-host path: `make` on a machine without a kernel tree, `make
# deb`, lintian, and the package installed on this machine, used and
# purged. TAP output.
#
# The kernel tree is hidden in a private mount namespace (a tmpfs over
# /usr/src) and the kernel cache is an empty directory, so nothing can
# come from a kernel build. Installing loads nothing: the service is
# installed disabled and not started.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
n=0
failed=0
installed=0

cleanup() {
	[ "$installed" = 1 ] && dpkg --purge ipcwatch > /dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - package: $2"
	else
		echo "not ok $n - package: $2"
		failed=1
	fi
}
diag() { sed 's/^/    # /'; }

version=$(head -1 "$repo/debian/changelog" | awk '{print $2}' | tr -d '()')
arch=$(dpkg --print-architecture)
deb=$tmp/build/ipcwatch_${version}_$arch.deb

# A copy of the source tree, as make deb takes it.
mkdir -p "$tmp/src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 -I{} sh -c '[ -e "{}" ] && printf "%s\0" "{}"' |
	tar --null -T - -cf -) | tar -C "$tmp/src" -xf -

# Both builds run with no kernel tree and an empty kernel cache.
cat > "$tmp/nokernel.sh" <<'EOF'
mount -t tmpfs nokernel /usr/src || exit 125
export IPCWATCH_CACHE=$1/empty-cache
shift
exec "$@"
EOF
nokernel() { unshare -m bash "$tmp/nokernel.sh" "$tmp" "$@"; }

start=$(date +%s.%N)
nokernel make -C "$tmp/src" -j"$(nproc)" > "$tmp/make.log" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
tap $rc "make builds without a kernel tree"
[ $rc = 0 ] || tail -5 "$tmp/make.log" | diag
printf 'make took %.1f s with no kernel tree\n' "$secs" | diag
[ -d "$tmp/empty-cache" ]
tap $(( ! $? )) "make never used the kernel cache"
out=$("$tmp/src/build/ipcwatch" version 2>&1)
[ "$out" = "ipcwatch $version" ]
tap $? "the binary says its version ($out)"
[ ! -e "$tmp/src/include/vmlinux.h" ] &&
	grep -q "Debian's linux-image" "$tmp/src/include/vmlinux/x86/vmlinux.h"
tap $? "the BPF programs compile against Debian's kernel BTF"

listing() { (cd "$tmp/src" && find . -path ./build -prune -o -print | sort); }
before=$(listing)
nokernel make -C "$tmp/src" deb BUILD="$tmp/build" > "$tmp/deb.log" 2>&1
rc=$?
tap $rc "make deb builds ipcwatch_${version}_$arch.deb"
[ $rc = 0 ] || tail -10 "$tmp/deb.log" | diag
[ -s "$deb" ]
tap $? "the package is there"
[ "$(listing)" = "$before" ]
tap $? "make deb leaves the source tree as it was"

lintian --fail-on error "$deb" > "$tmp/lintian.log" 2>&1
rc=$?
tap $rc "lintian reports no error"
grep -E '^[EW]: ' "$tmp/lintian.log" | diag

info=$(dpkg-deb -I "$deb" 2>&1)
grep -Eq '^ Depends: .*libbpf1 \(>= [^)]*\).*libmicrohttpd12' <<< "$info"
tap $? "dependencies computed by dh_shlibdeps"
grep -E '^ (Depends|Installed-Size):' <<< "$info" | diag
[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles)" = \
	/etc/ipcwatch/policy.ini ]
tap $? "/etc/ipcwatch/policy.ini is the conffile"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/sbin/ipcwatch ./usr/share/man/man8/ipcwatch.8.gz \
	./lib/systemd/system/ipcwatch.service \
	./usr/share/doc/ipcwatch/examples/policy.example.ini; do
	grep -qx "$f" <<< "$contents"
	tap $? "ships ${f#./}"
done
printf 'package %s: %s bytes\n' "$(basename "$deb")" "$(stat -c %s "$deb")" | diag

# Installed on this machine: only files are written, nothing is started.
if dpkg-query -W ipcwatch > /dev/null 2>&1; then
	tap 1 "ipcwatch is not installed here before the test (remove it)"
else
	dpkg -i "$deb" > "$tmp/install.log" 2>&1
	rc=$?
	[ $rc = 0 ] && installed=1
	tap $rc "dpkg -i installs it"
	[ $rc = 0 ] || tail -5 "$tmp/install.log" | diag
	out=$(/usr/sbin/ipcwatch version 2>&1)
	[ "$out" = "ipcwatch $version" ]
	tap $? "installed ipcwatch version ($out)"
	/usr/sbin/ipcwatch policy check /etc/ipcwatch/policy.ini \
		> "$tmp/check.log" 2>&1
	rc=$?
	tap $rc "installed ipcwatch policy check /etc/ipcwatch/policy.ini"
	[ $rc = 0 ] || diag < "$tmp/check.log"
	[ ! -e /etc/systemd/system/multi-user.target.wants/ipcwatch.service ]
	tap $? "the service is not enabled on install"
	rc=1
	if [ "$installed" = 1 ]; then
		dpkg --purge ipcwatch > "$tmp/purge.log" 2>&1
		rc=$?
		[ $rc = 0 ] && installed=0
	fi
	tap $rc "dpkg --purge removes it"
	left=$(ls -d /usr/sbin/ipcwatch /etc/ipcwatch \
		/lib/systemd/system/ipcwatch.service 2>/dev/null)
	[ -z "$left" ] && ! dpkg-query -W ipcwatch > /dev/null 2>&1
	tap $? "nothing is left after the purge${left:+: $left}"
fi

echo "1..$n"
exit $failed
