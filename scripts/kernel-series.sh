#!/bin/bash
# Edit the kernel series as git commits, and write it back as patches
# numbered as one series.
#
#   scripts/kernel-series.sh tree DIR [SERIES]    a git tree of the files
#       the series touches: pristine, then one commit per patch of SERIES
#       (a directory with a series file; kernel-patches by default)
#   scripts/kernel-series.sh export DIR [SERIES]  git format-patch of DIR's
#       commits back into SERIES, and its series file
#
# Only the touched files are in DIR (the rest of the kernel tree is not
# needed to rebase or reword); vmtest/bisect-check.sh then builds each
# step of the exported series.
set -euo pipefail
. "$(dirname "$0")/../vmtest/lib.sh"

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 tree|export DIR"
series=${3:-$REPO_DIR/kernel-patches}
[ -r "$series/series" ] || die "no series file in $series"

case "$cmd" in
tree)
	[ ! -e "$dir" ] || die "$dir exists"
	src=$(pristine_tree)
	mkdir -p "$dir"
	# files the series changes that the release already has
	sed "s|^|$series/|" "$series/series" | xargs grep -h '^--- a/' |
		cut -c7- | sort -u |
	while read -r f; do
		[ -e "$src/$f" ] || continue	# made by an earlier patch
		mkdir -p "$dir/$(dirname "$f")"
		cp "$src/$f" "$dir/$f"
	done
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" -c user.name=base -c user.email=base@invalid \
		commit -qm "linux-source-6.1 as released"
	git -C "$dir" tag base
	# shellcheck disable=SC2046
	git -C "$dir" am -q $(sed "s|^|$series/|" "$series/series")
	git -C "$dir" log --oneline base..HEAD
	;;
export)
	git -C "$dir" rev-parse -q --verify base > /dev/null ||
		die "$dir is not a tree made by '$0 tree'"
	sed "s|^|$series/|" "$series/series" | xargs rm -f
	git -C "$dir" format-patch --zero-commit -o "$series" base..HEAD |
		xargs -n1 basename > "$series/series"
	cat "$series/series"
	;;
*)
	die "unknown command '$cmd' (tree or export)"
	;;
esac
