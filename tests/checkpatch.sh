#!/bin/bash
# Every kernel patch must be clean under the tree's checkpatch.pl
# --strict, and every series must list exactly the patches beside it.
# TAP output.
set -uo pipefail
. "$(dirname "$0")/../vmtest/lib.sh"

tree=$(pristine_tree)
n=0
failed=0
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}

for dir in $(all_series_dirs); do
	rel=${dir#"$REPO_DIR"/}
	diff <(cd "$dir" && ls -1 -- *.patch) "$dir/series" > /dev/null
	tap $? "$rel/series lists every patch in order"
	while read -r p; do
		out=$(cd "$tree" && scripts/checkpatch.pl --strict -q \
			"$dir/$p" 2>&1)
		rc=$?
		tap $rc "checkpatch --strict $rel/$p"
		[ $rc = 0 ] || sed 's/^/    # /' <<< "$out"
	done < "$dir/series"
done
echo "1..$n"
exit $failed
