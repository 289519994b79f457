#!/bin/bash
# Host test of vmtest/report.sh, the judge of every guest run: it must
# fail a run for a failed check, a missing or unexpected pre-seed
# failure, a guest that never finished, or a kernel splat. TAP output.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../vmtest/report.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# case NAME WANT_EXIT WANT_COUNTS RESULTS CONSOLE [MANIFEST]
case_() {
	local name=$1 want_rc=$2 want_counts=$3 dir=$tmp/$n rc counts
	mkdir -p "$dir"
	printf '%b' "$4" > "$dir/results.tap"
	printf '%b' "$5" > "$dir/console.log"
	if [ -n "${6:-}" ]; then
		printf '%b' "$6" > "$dir/xfail"
		"$report" t "$dir" "$dir/xfail" > "$dir/out" 2>&1
	else
		"$report" t "$dir" > "$dir/out" 2>&1
	fi
	rc=$?
	counts=$(cat "$dir/counts" 2>/dev/null)
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] && [ "$counts" = "$want_counts" ]; then
		echo "ok $n - report: $name"
	else
		echo "not ok $n - report: $name"
		echo "#   exit $rc (want $want_rc), counts '$counts' (want '$want_counts')"
		sed 's/^/#   /' "$dir/out"
		failed=1
	fi
}

ok2='ok 1 - s.a\nok 2 - s.b\n1..2\n'
done_='# vmtest: done\n'
boot='Linux version 6.1\nsemctl(GETNCNT/GETZCNT) is since 3.16 Single Unix Specification compliant.\n'

case_ "clean run passes" 0 "5 0" "$ok2$done_" "$boot"
case_ "failed check fails the run" 1 "4 1" \
	"ok 1 - s.a\nnot ok 2 - s.b\n# got 1, want 2\n$done_" "$boot"
case_ "suite killed by init fails the run" 1 "4 1" \
	"ok 1 - s.a\nnot ok - s.suite_exit_status_137\n$done_" "$boot"
case_ "guest that never finished fails" 1 "4 1" "$ok2" "$boot"
case_ "no checks at all fails" 1 "2 1" "$done_" "$boot"
case_ "WARNING splat fails" 1 "4 1" "$ok2$done_" \
	"$boot""WARNING: CPU: 0 PID: 1 at ipc/shm.c:100 newseg+0x1/0x2\n"
case_ "lockdep report fails" 1 "4 1" "$ok2$done_" \
	"$boot""BUG: sleeping function called from invalid context at mm/slab.h:1\n"
case_ "RCU stall fails" 1 "4 1" "$ok2$done_" \
	"$boot""rcu: INFO: rcu_sched self-detected stall on CPU\n"
case_ "listed failure is expected" 0 "5 0" \
	"ok 1 - s.a\nnot ok 2 - s.b\n$done_" "$boot" "# comment\ns.b\n"
case_ "listed check that passes fails" 1 "4 1" "$ok2$done_" "$boot" "s.b\n"
case_ "listed check never reported fails" 1 "5 1" "$ok2$done_" "$boot" "s.c\n"
case_ "listed failure matches through CR LF" 0 "5 0" \
	"ok 1 - s.a\r\nnot ok 2 - s.b\r\n# vmtest: done\r\n" "$boot" "s.b\n"
case_ "unlisted failure fails" 1 "4 2" \
	"not ok 1 - s.a\nok 2 - s.b\n$done_" "$boot" "s.c\n"

echo "1..$n"
exit $failed
