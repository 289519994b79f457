#!/bin/bash
# Build (or find in the cache) the guest kernel of a variant and print
# the directory holding its bzImage, vmlinux and .config.
#
#   vmtest/build-kernel.sh main|bench|preseed
#
# bench is main's series with the debug options off (config/bench.config,
# for make bench). The cache key hashes the source tarball, the series
# and its patches, the config fragments, this script and the toolchain,
# so an unchanged kernel is never rebuilt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-main}
patches=$(variant_patches "$variant")
mapfile -t fragments < <(variant_config "$variant")

key=$(
	{
		stat -c '%n %s %Y' "$KERNEL_TARBALL"
		echo "$patches" | sed "s|^$REPO_DIR/||"
		while read -r p; do cat "$p"; done <<< "$patches"
		cat "${fragments[@]}" "$0" "$VMTEST_DIR/lib.sh"
		gcc --version | head -1
		pahole --version
	} | sha256sum | cut -c1-16
)
kernels=$IPCWATCH_CACHE/kernels
out=$kernels/$variant-$key
mkdir -p "$kernels"

exec 9> "$kernels/.lock"
flock 9

if [ -e "$out/.complete" ]; then
	log "kernel $variant-$key is cached"
	echo "$out"
	exit 0
fi

src=$(pristine_tree)
work=$out.work
rm -rf "$work" "$out"
mkdir -p "$work/build"
# Hard links: patch(1) replaces the files it changes, so the pristine
# tree is never written through them.
cp -al "$src" "$work/src"
log "applying $variant series"
while read -r p; do
	patch -d "$work/src" -p1 --batch --forward --quiet < "$p" ||
		die "patch $(basename "$p") does not apply"
done <<< "$patches"

make_kernel() {
	local cc=gcc
	if command -v ccache > /dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR=$IPCWATCH_CACHE CCACHE_NOHASHDIR=1
	fi
	make -C "$work/src" O="$work/build" CC="$cc" HOSTCC="$cc" "$@"
}

log "configuring (tinyconfig + $(basename -a "${fragments[@]}" | paste -sd+))"
make_kernel -s tinyconfig > /dev/null
"$work/src/scripts/kconfig/merge_config.sh" -m -O "$work/build" \
	"$work/build/.config" "${fragments[@]}" > /dev/null
make_kernel -s olddefconfig > /dev/null 2>&1

# Every option of the fragments must have survived olddefconfig, with
# the value of the last fragment that sets it.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		grep -q "^$opt=" "$work/build/.config" && {
			log "config: $opt should be off"; missing=1; } ;;
	CONFIG_*=*) grep -qxF "$line" "$work/build/.config" || {
			log "config: $line did not stick"; missing=1; } ;;
	esac
done < <(cat "${fragments[@]}" | awk -F= '/^CONFIG_/ {
		if (!($1 in v)) order[++n] = $1
		v[$1] = $0 }
	END { for (i = 1; i <= n; i++) print v[order[i]] }')
[ "$missing" = 0 ] || die "config fragments do not apply cleanly"

log "building $variant kernel in $work/build (log: $work/build.log)"
start=$(date +%s)
if ! make_kernel -j"$(nproc)" bzImage > "$work/build.log" 2>&1; then
	tail -40 "$work/build.log" >&2
	die "kernel build failed, see $work/build.log"
fi
log "built in $(( $(date +%s) - start ))s"

mkdir -p "$out"
cp "$work/build/arch/x86/boot/bzImage" "$work/build/vmlinux" \
	"$work/build/.config" "$out/"
cp "$work/build.log" "$out/"
rm -rf "$work"
touch "$out/.complete"

# Keep the two newest kernels of this variant.
ls -1dt "$kernels/$variant"-* 2>/dev/null | grep -v '\.work$' |
	tail -n +3 | xargs -r rm -rf
echo "$out"
