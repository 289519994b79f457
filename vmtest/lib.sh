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

# A kernel build must not inherit the settings of the make that runs
# this script (make ARCH=arm64 ... would pass ARCH on).
unset ARCH MAKEFLAGS MFLAGS MAKELEVEL
die() { log "error: $*"; exit 1; }

# The patches of a kernel variant, in order, one path a line: main (the
# ipc tracepoints) and bench (the same series, built for measuring), or
# preseed (pre-2014 behaviour for the conformance suite, then the
# test-only series that changes two hooked functions).
variant_patches() {
	local dir
	case "$1" in
	main|bench) set -- "$REPO_DIR/kernel-patches" ;;
	preseed) set -- "$REPO_DIR/kernel-patches/preseed" \
			"$REPO_DIR/kernel-patches/testonly" ;;
	*) die "unknown kernel variant '$1' (main, bench or preseed)" ;;
	esac
	for dir in "$@"; do
		[ -r "$dir/series" ] || die "no series file in $dir"
		sed "s|^|$dir/|" "$dir/series"
	done
}

# The config fragments of a kernel variant, merged in order on
# tinyconfig, one path a line: the bench kernel is the test kernel less
# its debug options (config/bench.config comes last and wins).
variant_config() {
	echo "$KERNEL_CONFIG_FRAGMENT"
	[ "$1" != bench ] || echo "$VMTEST_DIR/config/bench.config"
}

# Every series of the repository, one directory a line.
all_series_dirs() {
	printf '%s\n' "$REPO_DIR/kernel-patches" \
		"$REPO_DIR/kernel-patches/preseed" \
		"$REPO_DIR/kernel-patches/testonly"
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

# apt-get and apt-cache with a private state directory in the cache, for
# Debian packages of any architecture: the machine's own apt
# configuration is only read, and no foreign architecture is added.
# Sets apt_opts; the package lists are read again after a day, and then
# apt_updated is 1.
apt_private() {
	local arch=$1 state=$IPCWATCH_CACHE/apt-$1
	apt_updated=0
	mkdir -p "$state/lists/partial" "$state/archives/partial"
	[ -e "$state/status" ] || : > "$state/status"
	apt_opts=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
		-o "Dir::State::Lists=$state/lists"
		-o "Dir::State::status=$state/status"
		-o "Dir::Cache=$state" -o "Dir::Cache::archives=$state/archives"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq)
	if [ -z "$(find "$state/lists" -maxdepth 1 -name '*Packages*' \
			-mmin -1440 2>/dev/null | head -1)" ]; then
		log "reading the $arch package lists"
		apt_updated=1
		apt-get "${apt_opts[@]}" update > "$state/update.log" 2>&1 || {
			tail -5 "$state/update.log" >&2
			die "apt-get update ($arch) failed"
		}
	fi
}
