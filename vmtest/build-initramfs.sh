#!/bin/bash
# Pack the guest initramfs: busybox-static, the init script, and the
# programs given, under /tests (or /demo with --demo). A dynamically
# linked program brings its shared libraries along, from this machine.
#
#   vmtest/build-initramfs.sh OUT.cpio.gz [--sysroot DIR] [--demo DIR]
#                             [--tool [ROOT:]PATH]... PROGRAM...
#
# --sysroot: the programs are of another architecture (vmtest/sysroot.sh);
# busybox and the libraries come from that sysroot, found through the
# programs' own ELF headers (ldd cannot run them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
shift
demo=
sysroot=
if [ "${1:-}" = --sysroot ]; then
	sysroot=$2
	shift 2
fi
if [ "${1:-}" = --demo ]; then
	demo=$2
	shift 2
fi
tools=()
while [ "${1:-}" = --tool ]; do
	tools+=("$2")
	shift 2
done
# Static means no program interpreter; scripts are taken as they are.
is_static() {
	[ "$(head -c2 "$1")" = "#!" ] ||
		! readelf -l "$1" 2>/dev/null | grep -q INTERP
}

host_busybox=$(command -v busybox || true)
[ -n "$host_busybox" ] && is_static "$host_busybox" ||
	die "busybox-static is needed: apt-get install busybox-static"
busybox=${sysroot:+$sysroot/bin/busybox}
busybox=${busybox:-$host_busybox}
[ -r "$busybox" ] || die "no busybox in the sysroot $sysroot"

stage=$(mktemp -d)
chmod 755 "$stage"	# the guest root: other users must traverse it
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,tests,demo,etc}
cp -L "$busybox" "$stage/bin/busybox"
# the applets of the same Debian package, asked of the one that runs here
for applet in $("$host_busybox" --list); do
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
	if [ -n "$sysroot" ]; then
		copy_sysroot_libraries "$1"
		return
	fi
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

# The same from the sysroot: the interpreter, then every DT_NEEDED
# library, recursively, from the multiarch library directories.
copy_sysroot_libraries() {
	local interp needed lib dir found
	interp=$(readelf -l "$1" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$stage$interp" ]; then
		mkdir -p "$stage$(dirname "$interp")"
		cp -L "$sysroot$interp" "$stage$interp"
	fi
	for needed in $(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		found=
		for dir in "$sysroot"/usr/lib/*-linux-gnu "$sysroot"/lib/*-linux-gnu; do
			[ -e "$dir/$needed" ] && { found=$dir; break; }
		done
		[ -n "$found" ] || die "$needed (of $1) is not in the sysroot"
		lib=/lib/$(basename "$found")/$needed
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$found/$needed" "$stage$lib"
		copy_sysroot_libraries "$stage$lib"
	done
}

for prog in "$@"; do
	is_static "$prog" || copy_libraries "$prog"
	install -m 755 "$prog" "$stage/tests/"
done
# copy_tool ROOT PATH: ROOT/PATH at PATH, and its libraries, found in
# ROOT's multiarch directory first; a library of ROOT goes to its path
# within ROOT. Copies dereference and replace, so nothing is written
# through a link.
copy_tool() {
	local root=$1 path=$2 lib dest
	mkdir -p "$stage$(dirname "$path")"
	cp -L --remove-destination "$root$path" "$stage$path"
	chmod 755 "$stage$path"
	for lib in $(LD_LIBRARY_PATH=${root:+$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu} \
			ldd "$root$path" | grep -o '/[^ ]*'); do
		dest=$lib
		[ -n "$root" ] && [ "${lib#"$root"}" != "$lib" ] && dest=${lib#"$root"}
		[ -e "$stage$dest" ] && continue
		mkdir -p "$stage$(dirname "$dest")"
		cp -L --remove-destination "$lib" "$stage$dest"
	done
}
for tool in "${tools[@]}"; do
	case "$tool" in
	*:*) copy_tool "${tool%%:*}" "${tool#*:}" ;;
	*) copy_tool "" "$tool" ;;
	esac
done
if [ -n "$demo" ]; then
	cp -r "$demo"/. "$stage/demo/"
	for prog in "$demo"/*; do
		is_static "$prog" || copy_libraries "$prog"
	done
fi
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 > "$out"
