#!/bin/bash
# Each unit test once under valgrind: any error or leak fails it.
#
#   tests/valgrind.sh TEST...
set -uo pipefail
n=0
status=0
for t in "$@"; do
	n=$((n + 1))
	log=$t.valgrind.log
	if CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --log-file="$log" \
		"$t" > "$t.out" 2>&1 && [ ! -s "$log" ]; then
		echo "ok $n - valgrind.$(basename "$t"): no error, no leak"
	else
		echo "not ok $n - valgrind.$(basename "$t") (log $log)"
		head -20 "$log" | sed 's/^/#   /'
		grep -m 5 '^not ok' "$t.out" | sed 's/^/#   /'
		status=1
	fi
done
echo "1..$n"
exit $status
