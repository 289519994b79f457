# shellcheck shell=bash
# Settings shared by the vmtest scripts. Sourced, never run.

VMTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$VMTEST_DIR")

# Everything big lives outside the repository: the kernel source, its
# builds and the cached kernels.
IPCWATCH_CACHE=${IPCWATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ipcwatch}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KERNEL_CONFIG_FRAGMENT=$VMTEST_DIR/config/ipcwatch.config

log() { printf 'vmtest: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Patch directory of a kernel variant: main (the ipc tracepoints) or
# preseed (pre-2014 behaviour, for the conformance suite).
variant_patch_dir() {
	case "$1" in
	main) echo "$REPO_DIR/kernel-patches" ;;
	preseed) echo "$REPO_DIR/kernel-patches/preseed" ;;
	*) die "unknown kernel variant '$1' (main or preseed)" ;;
	esac
}

# The pristine source tree, extracted once per tarball.
pristine_tree() {
	local tar_id dir
	[ -r "$KERNEL_TARBALL" ] ||
		die "$KERNEL_TARBALL missing: apt-get install linux-source-6.1"
	tar_id=$(stat -c '%s-%Y' "$KERNEL_TARBALL")
	dir=$IPCWATCH_CACHE/src/$tar_id
	if [ ! -e "$dir/.extracted" ]; then
		log "extracting $KERNEL_TARBALL into $dir"
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" -xf "$KERNEL_TARBALL"
		touch "$dir/.extracted"
	fi
	echo "$dir/$(basename "$KERNEL_TARBALL" .tar.xz)"
}
