#!/bin/bash
# `make check`: every test, host and guest, then one closing line
# "N passed, N failed" over all of them. Exits non-zero on any failure.
# Each stage prints TAP; a stage that fails without reporting a failed
# check (a build error, say) counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build/check
mkdir -p "$logs"

stages=(
	"host:make -s host-check"
	"package:tests/package_test.sh"
	"vmtest-main:make -s vmtest KERNEL=main"
	"vmtest-preseed:make -s vmtest KERNEL=preseed"
	"vmtest-stock:make -s vmtest KERNEL=stock"
	"arm64:make -s ARCH=arm64 vmtest KERNEL=stock"
)

total_pass=0
total_fail=0
for stage in "${stages[@]}"; do
	name=${stage%%:*}
	cmd=${stage#*:}
	echo "=== $name: $cmd"
	start=$(date +%s)
	$cmd 2>&1 | tee "$logs/$name.log"
	rc=${PIPESTATUS[0]}
	pass=$(grep -cE '^ok [0-9]+ - ' "$logs/$name.log")
	fail=$(grep -cE '^not ok [0-9]+ - ' "$logs/$name.log")
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		echo "not ok - $name: stage failed with exit status $rc"
		fail=1
	fi
	echo "=== $name: $pass passed, $fail failed in $(( $(date +%s) - start ))s"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
done

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
