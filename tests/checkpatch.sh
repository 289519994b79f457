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

# checkpatch reports two things of every EM()/EMe() trace header
# (afs.h, sunrpc.h, rxrpc.h and netfs.h upstream all have them): a list
# of EM() entries as a complex macro, and the semicolon of EM() defined
# as TRACE_DEFINE_ENUM(a);. Only reports made wholly of such lines are
# dropped; any other report, of any type, fails the patch.
em_filter() {
	awk '
	function flush() {
		if (block != "" && !(ok && em)) { print block; bad = 1 }
		block = ""; ok = 0; em = 0
	}
	/^(ERROR|WARNING|CHECK):/ {
		flush()
		block = $0
		ok = ($0 ~ /^ERROR:COMPLEX_MACRO:/ ||
		      $0 ~ /^WARNING:TRAILING_SEMICOLON:/)
		next
	}
	/^total: / { flush(); next }
	/^$/ { next }
	block != "" {
		block = block "\n" $0
		if ($0 ~ /^#[0-9]+: FILE: include\/trace\/events\/ipc\.h:/)
			next
		if ($0 ~ /^\+#define [a-z_]+_(reasons|causes)[ \t]*\\$/ ||
		    $0 ~ /^\+[ \t]*EMe?\(IPC_[A-Z_]+,[ \t]*"[a-z_]+"\)[ \t]*\\?$/ ||
		    $0 ~ /^\+#define EMe?\(a, b\)[ \t]*TRACE_DEFINE_ENUM\(a\);$/)
			em = 1
		else
			ok = 0
		next
	}
	{ print; bad = 1 }
	END { flush(); exit bad }'
}

for dir in $(all_series_dirs); do
	rel=${dir#"$REPO_DIR"/}
	diff <(cd "$dir" && ls -1 -- *.patch) "$dir/series" > /dev/null
	tap $? "$rel/series lists every patch in order"
	# [PATCH k/N] in the order of the series, N its length
	total=$(wc -l < "$dir/series")
	k=0 numbered=0
	while read -r p; do
		k=$((k + 1))
		grep -q "^Subject: \[PATCH $k/$total\] " "$dir/$p" ||
			numbered=1
	done < "$dir/series"
	[ "$total" = 1 ] && grep -q '^Subject: \[PATCH\] ' \
		"$dir/$(cat "$dir/series")" && numbered=0
	tap $numbered "$rel: subjects numbered 1..$total as one series"
	while read -r p; do
		out=$(cd "$tree" && { scripts/checkpatch.pl --strict -q \
			--show-types "$dir/$p" 2>&1 || true; } | em_filter)
		rc=$?
		tap $rc "checkpatch --strict $rel/$p"
		[ $rc = 0 ] || sed 's/^/    # /' <<< "$out"
	done < "$dir/series"
done
echo "1..$n"
exit $failed
