#!/bin/bash
# Every patch of a series must build on its own: apply the patches one
# by one on a copy of the pristine tree and build ipc/ after each. TAP
# output. Not part of `make check` (about 5 minutes cold).
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

n=0
failed=0
while read -r p; do
	n=$((n + 1))
	if patch -d "$work/src" -p1 --batch --forward --quiet < "$p" &&
	   make -s -C "$work/src" O="$work/build" CC="$cc" -j"$(nproc)" \
		KCFLAGS=-Werror ipc/ > "$work/build-$n.log" 2>&1; then
		echo "ok $n - $variant: ipc/ builds after $(basename "$p")"
	else
		echo "not ok $n - $variant: ipc/ builds after $(basename "$p")"
		tail -5 "$work/build-$n.log" | sed 's/^/    # /'
		failed=1
	fi
done <<< "$patches"
echo "1..$n"
rm -rf "$work"
exit $failed
