#!/bin/bash
# Pack the guest initramfs: busybox-static, the init script, and the
# programs given, under /tests (or /demo with --demo). A dynamically
# linked program brings its shared libraries along, from this machine.
#
#   vmtest/build-initramfs.sh OUT.cpio.gz [--demo DIR] PROGRAM...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
shift
demo=
if [ "${1:-}" = --demo ]; then
	demo=$2
	shift 2
fi
# Static means no program interpreter; scripts are taken as they are.
is_static() {
	[ "$(head -c2 "$1")" = "#!" ] ||
		! readelf -l "$1" 2>/dev/null | grep -q INTERP
}

busybox=$(command -v busybox || true)
[ -n "$busybox" ] && is_static "$busybox" ||
	die "busybox-static is needed: apt-get install busybox-static"

stage=$(mktemp -d)
chmod 755 "$stage"	# the guest root: other users must traverse it
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,tests,demo,etc}
cp "$busybox" "$stage/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done
install -m 755 "$VMTEST_DIR/guest/init" "$stage/init"
# terminal descriptions for ncurses (ipcwatch top), from ncurses-base
for ti in v/vt100 v/vt220 l/linux x/xterm x/xterm-256color s/screen \
	s/screen-256color t/tmux t/tmux-256color; do
	for dir in /lib/terminfo /usr/share/terminfo; do
		if [ -e "$dir/$ti" ]; then
			mkdir -p "$stage/usr/share/terminfo/${ti%/*}"
			cp "$dir/$ti" "$stage/usr/share/terminfo/$ti"
			break
		fi
	done
done
echo 'root:x:0:0:root:/root:/bin/sh' > "$stage/etc/passwd"
echo 'root:x:0:' > "$stage/etc/group"
# The loader and libraries of a dynamic program, at their own paths.
copy_libraries() {
	local lib
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

for prog in "$@"; do
	is_static "$prog" || copy_libraries "$prog"
	install -m 755 "$prog" "$stage/tests/"
done
if [ -n "$demo" ]; then
	cp -r "$demo"/. "$stage/demo/"
	for prog in "$demo"/*; do
		is_static "$prog" || copy_libraries "$prog"
	done
fi
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) |
	gzip -1 > "$out"
