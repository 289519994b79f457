#!/bin/bash
# `make deb`: build the Debian package from a copy of the source tree
# (the files git tracks or would track, as they are in the work tree;
# nothing it ignores, such as build/), so the work tree stays clean:
#
#   scripts/build-deb.sh BUILD_DIR
#
# Leaves BUILD_DIR/ipcwatch_<version>_<arch>.deb and its .buildinfo and
# .changes beside it, and prints the .deb's path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$repo/build}")

version=$(head -1 "$repo/debian/changelog" | awk '{print $2}' | tr -d '()')
arch=$(dpkg --print-architecture)
work=$build/deb
rm -rf "$work"
mkdir -p "$work/ipcwatch-$version"
cd "$repo"
if git rev-parse --git-dir > /dev/null 2>&1; then
	# files deleted in the work tree but still tracked are left out
	while IFS= read -r -d '' f; do
		if [ -e "$f" ]; then printf '%s\0' "$f"; fi
	done < <(git ls-files -z --cached --others --exclude-standard) |
		tar --null -T - -cf - | tar -C "$work/ipcwatch-$version" -xf -
else
	tar --exclude=./build -cf - . | tar -C "$work/ipcwatch-$version" -xf -
fi
cd "$work/ipcwatch-$version"
# The package's own build must not inherit the caller's make settings:
# BUILD=... would point its `make clean` at this very directory.
unset BUILD ARCH MAKEFLAGS MFLAGS MAKELEVEL
# -b: binary only; -us -uc: unsigned (a local build)
dpkg-buildpackage -b -us -uc > "$work/build.log" 2>&1 || {
	tail -30 "$work/build.log" >&2
	echo "make deb: dpkg-buildpackage failed, see $work/build.log" >&2
	exit 1
}
deb=ipcwatch_${version}_$arch.deb
cp "$work/$deb" "$work"/ipcwatch_"${version}"_"$arch".buildinfo \
	"$work"/ipcwatch_"${version}"_"$arch".changes "$build/"
echo "$build/$deb"
