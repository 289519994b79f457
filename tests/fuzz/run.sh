#!/bin/bash
# Run each libFuzzer target for a bounded time, seeded, from its corpus.
#
#   tests/fuzz/run.sh BUILD SECONDS TARGET...
#
# The corpus in the repository (tests/fuzz/corpus/TARGET, plus the policy
# files of tests/policy for the parser) is only read: the fuzzer writes
# what it finds into BUILD/fuzz/work/TARGET, and a crashing input into
# BUILD/fuzz/TARGET-crash-*. One TAP line per target, then the plan.
set -uo pipefail
build=$1
seconds=$2
shift 2
n=0
status=0
for t in "$@"; do
	n=$((n + 1))
	bin=$build/fuzz/fuzz_$t
	work=$build/fuzz/work/$t
	log=$build/fuzz/$t.log
	rm -rf "$work" && mkdir -p "$work"
	seeds=(tests/fuzz/corpus/$t)
	[ "$t" = policy_parser ] && seeds+=(tests/policy/good tests/policy/bad)
	"$bin" -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz/$t-" \
		"$work" "${seeds[@]}" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	units=$(ls "$work" | wc -l)
	if [ $rc -eq 0 ] && [ -n "$execs" ] && [ "$execs" -gt 0 ]; then
		echo "ok $n - fuzz.$t: $execs runs in ${seconds} s, $units new inputs, no crash"
	else
		echo "not ok $n - fuzz.$t: exit $rc after ${execs:-0} runs (log $log)"
		grep -m 5 -E 'ERROR|SUMMARY|Test unit written' "$log" | sed 's/^/#   /'
		status=1
	fi
done
echo "1..$n"
exit $status
