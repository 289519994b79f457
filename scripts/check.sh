#!/bin/bash
# `make check`: every test, host and guest, then "N expected failures"
# and one closing line "N passed, N failed" over all of them. Exits
# non-zero on any failure.
# Each stage prints TAP. A check with a SKIP or TODO directive, or a
# "# SKIP" / "# TODO" line, is a failure: nothing is skipped silently
# (cmocka prints "ok N # SKIP name", before 1.1.6 "not ok N # SKIP name").
# "xfail N - ..." lines (expected failures, vmtest/report.sh) are summed
# apart. A stage that fails without reporting a failed check (a build
# error, say) counts as one failure.
#
# CHECK_STAGES="host vmtest-preseed" runs only those stages (for
# development; a run that skips stages is not `make check`).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
logs=build/check
mkdir -p "$logs"

stages=(
	"host:make -s host-check"
	"package:tests/package_test.sh"
	"kernel-patches:make -s bisect-check"
	"vmtest-main:make -s vmtest KERNEL=main"
	"vmtest-preseed:make -s vmtest KERNEL=preseed"
	"vmtest-stock:make -s vmtest KERNEL=stock"
	"arm64:make -s ARCH=arm64 vmtest KERNEL=stock"
)

if [ -n "${CHECK_STAGES:-}" ]; then
	known=" ${stages[*]%%:*} "
	for want in $CHECK_STAGES; do
		if [[ "$known" != *" $want "* ]]; then
			echo "check.sh: unknown stage '$want' in CHECK_STAGES (stages:$known)" >&2
			exit 2
		fi
	done
fi

# count LOG: "PASSED FAILED XFAILED" of one stage's output
count() {
	awk '
	{
		up = toupper($0)
		skip = up ~ /^(OK|NOT OK)[^#]*#[ \t]*(SKIP|TODO)([^A-Z0-9_]|$)/ ||
		       up ~ /^#[ \t]*(SKIP|TODO)([^A-Z0-9_]|$)/
	}
	/^not ok [0-9]+( |$)/ || skip { failed++; next }
	/^ok [0-9]+( |$)/ { passed++; next }
	/^xfail [0-9]+ - / { xfailed++ }
	END { print passed + 0, failed + 0, xfailed + 0 }' "$1"
}

total_pass=0
total_fail=0
total_xfail=0
for stage in "${stages[@]}"; do
	name=${stage%%:*}
	cmd=${stage#*:}
	if [ -n "${CHECK_STAGES:-}" ] && [[ " $CHECK_STAGES " != *" $name "* ]]; then
		continue
	fi
	echo "=== $name: $cmd"
	start=$(date +%s)
	$cmd 2>&1 | tee "$logs/$name.log"
	rc=${PIPESTATUS[0]}
	read -r pass fail xfail < <(count "$logs/$name.log")
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		echo "not ok - $name: stage failed with exit status $rc"
		fail=1
	fi
	echo "=== $name: $pass passed, $fail failed, $xfail expected failures" \
		"in $(( $(date +%s) - start ))s"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_xfail=$((total_xfail + xfail))
done

echo "$total_xfail expected failures"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
