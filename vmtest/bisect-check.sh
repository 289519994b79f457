#!/bin/bash
# Every patch of a series must build on its own: apply the patches one
# by one on a copy of the pristine tree and build ipc/ after each, with
# W=1 (extra compiler warnings and kernel-doc), and fail on any warning
# the pristine ipc/ does not have. TAP output. A stage of `make check`
# (about 90 s with the kernel objects in ccache, 5 minutes cold).
#
#   vmtest/bisect-check.sh main|preseed
set -uo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-main}
patches=$(variant_patches "$variant")
src=$(pristine_tree)
work=$IPCWATCH_CACHE/bisect-$variant
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"

rm -rf "$work"
mkdir -p "$work/build"
cp -al "$src" "$work/src"
make -s -C "$work/src" O="$work/build" tinyconfig > /dev/null
"$work/src/scripts/kconfig/merge_config.sh" -m -O "$work/build" \
	"$work/build/.config" "$KERNEL_CONFIG_FRAGMENT" > /dev/null
make -s -C "$work/src" O="$work/build" olddefconfig > /dev/null 2>&1
make -s -C "$work/src" O="$work/build" CC="$cc" -j"$(nproc)" prepare \
	> /dev/null 2>&1 || die "make prepare failed"

# Build ipc/ from scratch with W=1; print its warnings without line
# numbers, one each, so that moved code compares equal.
build_ipc() {
	rm -rf "$work/build/ipc"
	make -s -C "$work/src" O="$work/build" CC="$cc" -j"$(nproc)" W=1 \
		ipc/ > "$1" 2>&1 || return 1
	grep -E 'warning:' "$1" | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' |
		sed "s|$work/src/||" | sort -u
}

build_ipc "$work/build-0.log" > "$work/warnings-0" ||
	die "pristine ipc/ does not build: $work/build-0.log"

n=0
failed=0
while read -r p; do
	n=$((n + 1))
	name=$(basename "$p")
	if ! patch -d "$work/src" -p1 --batch --forward --quiet < "$p" ||
	   ! build_ipc "$work/build-$n.log" > "$work/warnings-$n"; then
		echo "not ok $n - $variant: ipc/ builds after $name"
		tail -5 "$work/build-$n.log" | sed 's/^/    # /'
		failed=1
		continue
	fi
	new=$(comm -13 "$work/warnings-0" "$work/warnings-$n")
	if [ -z "$new" ]; then
		echo "ok $n - $variant: ipc/ builds after $name, no new W=1 warning"
	else
		echo "not ok $n - $variant: new W=1 warnings after $name"
		sed 's/^/    # /' <<< "$new"
		failed=1
	fi
done <<< "$patches"
echo "1..$n"
rm -rf "$work"
exit $failed
