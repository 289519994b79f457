#!/bin/bash
# Host test of vmtest/report.sh, the judge of every guest run: it must
# fail a run for a failed check, an expected suite that is missing,
# silent, short of its plan or past it, a Bail out!, a SKIP or TODO, a
# line that is not TAP, a suite nobody expected, a missing or unexpected
# pre-seed failure, a guest that never finished, or a kernel splat; and
# report expected failures apart. One case per rule. TAP output.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../vmtest/report.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

result() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - report: $1"
	else
		echo "not ok $n - report: $1"
		echo "#   $2"
		sed 's/^/#   /' "$tmp/$n.out"
		failed=1
	fi
}

# check NAME WANT_EXIT WANT_COUNTS RESULTS [WANT_LINE...]
# Judges RESULTS (printf %b) as the run of the suites $SUITES (default
# "s"), with the console $CONSOLE (default a clean boot) and, when set,
# the manifest $MANIFEST. Each WANT_LINE must be a line of the output,
# exactly; $LAST, when set, must be its last line.
check() {
	local name=$1 want_rc=$2 want_counts=$3 dir=$tmp/case$n rc counts
	local line bad='' args
	mkdir -p "$dir"
	printf '%b' "$4" > "$dir/results.tap"
	printf '%b' "${CONSOLE-$boot}" > "$dir/console.log"
	shift 4
	args=(--suites "${SUITES:-s}" t "$dir")
	if [ -n "${MANIFEST:-}" ]; then
		printf '%b' "$MANIFEST" > "$dir/xfail"
		args+=("$dir/xfail")
	fi
	"$report" "${args[@]}" > "$tmp/$((n + 1)).out" 2>&1
	rc=$?
	counts=$(cat "$dir/counts" 2>/dev/null)
	if [ "$rc" != "$want_rc" ] || [ "$counts" != "$want_counts" ]; then
		bad="exit $rc (want $want_rc), counts '$counts' (want '$want_counts')"
	fi
	for line in "$@"; do
		grep -qxF -- "$line" "$tmp/$((n + 1)).out" ||
			bad="${bad:+$bad; }no line '$line'"
	done
	if [ -n "${LAST:-}" ] && [ "$(tail -n 1 "$tmp/$((n + 1)).out")" != "$LAST" ]; then
		bad="${bad:+$bad; }last line is not '$LAST'"
	fi
	result "$name" "$bad"
}

# usage NAME WANT_WORDS ARGS...: bad arguments give one line naming the
# problem and exit status 2
usage() {
	local name=$1 words=$2 rc lines bad=
	shift 2
	"$report" "$@" > "$tmp/$((n + 1)).out" 2>&1
	rc=$?
	lines=$(wc -l < "$tmp/$((n + 1)).out")
	if [ "$rc" != 2 ] || [ "$lines" != 1 ] ||
	   ! grep -qF -- "$words" "$tmp/$((n + 1)).out"; then
		bad="exit $rc (want 2), $lines lines (want 1 saying '$words')"
	fi
	result "$name" "$bad"
}

up='# vmtest: guest 6.1 (x86_64) up, suites: s\n'
s='# suite s\n'
ok2='ok 1 - s.a\nok 2 - s.b\n'
ok2p="${ok2}1..2\n"
done_='# vmtest: done\n'
boot='Linux version 6.1\nsemctl(GETNCNT/GETZCNT) is since 3.16 Single Unix Specification compliant.\n'

# ---- a clean run, its closing line, the counts file
LAST='t: 6 passed, 0 failed' \
check "clean run passes, closing line last" 0 "6 0 0" \
	"$up$s${ok2}# storm: seed 1, 2 s\n1..2\n$done_" \
	"ok 3 - t: suite s complete" "ok 4 - t: nothing outside the suites" \
	"ok 5 - t: guest finished" "ok 6 - t: kernel log clean" \
	"t: 0 expected failures"
dir=$tmp/counts-case
mkdir -p "$dir"
printf '%b' "$up$s$ok2p$done_" > "$dir/results.tap"
"$report" --suites s t "$dir" > /dev/null 2>&1
bad=
grep -qxE '[0-9]+ [0-9]+ [0-9]+' "$dir/counts" 2>/dev/null ||
	bad="counts '$(cat "$dir/counts" 2>/dev/null)'"
result "counts file holds three numbers" "$bad"

# ---- checks
check "failed check fails the run, its diagnostics shown" 1 "5 1 0" \
	"$up${s}ok 1 - s.a\nnot ok 2 - s.b\n#   got 1, want 2\n1..2\n$done_" \
	"not ok 2 - t: s.b" "    #   got 1, want 2"
check "suite killed by init fails the run" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nnot ok - s.suite_exit_status_137\n$done_" \
	"not ok 2 - t: s.suite_exit_status_137" \
	"not ok 3 - t: suite s complete # no plan"
check "suite timed out fails the run" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nnot ok - s.suite_timed_out\n$done_" \
	"not ok 2 - t: s.suite_timed_out" \
	"not ok 3 - t: suite s complete # no plan"
check "exit status line after the plan is a failure, not non-TAP" 1 "6 1 0" \
	"$up$s${ok2p}not ok - s.suite_exit_status_139\n$done_" \
	"not ok 3 - t: s.suite_exit_status_139" "ok 4 - t: suite s complete"

# ---- the suites: each expected one there, ending with its plan
SUITES=s,u check "missing suite fails" 1 "6 1 0" "$up$s$ok2p$done_" \
	"not ok 4 - t: suite u complete # missing"
check "empty suite fails" 1 "3 1 0" "$up$s$done_" \
	"not ok 1 - t: suite s complete # printed nothing"
check "no plan fails" 1 "5 1 0" "$up$s$ok2$done_" \
	"not ok 3 - t: suite s complete # no plan"
check "short plan fails" 1 "5 1 0" "$up$s${ok2}1..3\n$done_" \
	"not ok 3 - t: suite s complete # plan 1..3 but 2 checks"
check "long plan fails" 1 "5 1 0" "$up$s${ok2}1..1\n$done_" \
	"not ok 3 - t: suite s complete # plan 1..1 but 2 checks"
check "plan 0 fails" 1 "3 1 0" "$up${s}1..0\n$done_" \
	"not ok 1 - t: suite s complete # plan 0"
check "check after the plan fails" 1 "5 1 0" \
	"$up${s}ok 1 - s.a\n1..1\nok 2 - s.b\n$done_" \
	"not ok 3 - t: suite s complete # plan 1..1 but 2 checks; check after the plan (line 5)"
check "two plans fail" 1 "5 1 0" "$up${s}${ok2p}1..2\n$done_" \
	"not ok 3 - t: suite s complete # two plans"
check "suite reported twice fails" 1 "5 1 0" "$up$s$ok2p$s$done_" \
	"not ok 3 - t: suite s complete # reported twice"
check "Bail out! fails" 1 "5 1 0" "$up$s${ok2p}Bail out! no tracefs\n$done_" \
	"not ok 3 - t: suite s complete # Bail out: \"Bail out! no tracefs\""
check "SKIP directive fails" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nok 2 - s.b # SKIP no tracefs\n1..2\n$done_" \
	"not ok 2 - t: s.b # SKIP: not a pass" \
	"not ok 3 - t: suite s complete # SKIP seen"
check "SKIP the cmocka way fails" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nok 2 # skip s.b\n1..2\n$done_" \
	"not ok 2 - t: s.b # SKIP: not a pass"
check "SKIP on a failed check the cmocka way fails" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nnot ok 2 # SKIP s.b\n1..2\n$done_" \
	"not ok 2 - t: s.b # SKIP: not a pass"
check "SKIP after a '#' in the name fails" 1 "4 2 0" \
	"$up${s}ok 1 - s.a #5 # SKIP x\nok 2 - s.b\n1..2\n$done_" \
	"not ok 1 - t: s.a # SKIP: not a pass" \
	"not ok 3 - t: suite s complete # SKIP seen"
check "SKIP comment fails" 1 "5 1 0" \
	"$up$s${ok2}# SKIP: no tracefs here\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # SKIP seen"
check "Skipped comment fails" 1 "5 1 0" \
	"$up$s${ok2}# Skipped: no tracefs here\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # SKIP seen"
check "TODO comment fails" 1 "5 1 0" \
	"$up$s${ok2}# TODO: count the waiters\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # TODO seen"
check "SKIP comment before the first suite fails" 1 "5 1 0" \
	"$up# SKIP: no tracefs\n$s$ok2p$done_" \
	"not ok 4 - t: nothing outside the suites # SKIP line 2 before the first suite"
check "skipped plan with checks fails" 1 "5 1 0" \
	"$up$s${ok2}1..2 # SKIP no tracefs\n$done_" \
	"not ok 3 - t: suite s complete # SKIP seen"
check "skipped plan fails" 1 "3 1 0" "$up${s}1..0 # SKIP no tracefs\n$done_" \
	"not ok 1 - t: suite s complete # plan 0; SKIP seen"
check "TODO directive fails" 1 "4 2 0" \
	"$up${s}ok 1 - s.a\nok 2 - s.b # TODO later\n1..2\n$done_" \
	"not ok 2 - t: s.b # TODO: not a pass" \
	"not ok 3 - t: suite s complete # TODO seen"
check "a comment that is no directive passes" 0 "6 0 0" \
	"$up${s}ok 1 - s.a # took 3 ms\nok 2 - s.b\n1..2\n$done_"
check "plan first fails" 1 "5 1 0" "$up${s}1..2\n$ok2$done_" \
	"not ok 3 - t: suite s complete # check after the plan (line 4)"
check "checks out of number fail" 1 "5 1 0" \
	"$up${s}ok 1 - s.a\nok 1 - s.b\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # check 1 where 2 was due (line 4)"
check "non-TAP line fails, quoted" 1 "5 1 0" \
	"$up${s}ok 1 - s.a\nipcutil: shmget: No space left on device\nok 2 - s.b\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # non-TAP line 4: \"ipcutil: shmget: No space left on device\"" \
	"    line 4: \"ipcutil: shmget: No space left on device\""
check "indented line is non-TAP" 1 "5 1 0" \
	"$up${s}ok 1 - s.a\n  got 1, want 2\nok 2 - s.b\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # non-TAP line 4: \"  got 1, want 2\""
check "blank line fails" 1 "5 1 0" "$up${s}ok 1 - s.a\n\nok 2 - s.b\n1..2\n$done_" \
	"not ok 3 - t: suite s complete # non-TAP line 4: \"\""
check "arm64 TAP| line left unstripped is non-TAP" 1 "5 1 0" \
	"$up$s${ok2}TAP| 1..2\n$done_" \
	"not ok 3 - t: suite s complete # no plan; non-TAP line 5: \"TAP| 1..2\""
check "unknown suite fails" 1 "7 1 0" \
	"$up$s$ok2p# suite x\nok 1 - x.a\n1..1\n$done_" \
	"not ok 5 - t: suite x complete # not in the expected suites (s)"
check "output before the first suite fails" 1 "5 1 0" \
	"${up}garbage\n$s$ok2p$done_" \
	"not ok 4 - t: nothing outside the suites # non-TAP line 2 outside the suites: \"garbage\""
check "output after the closing marker fails" 1 "5 1 0" \
	"$up$s$ok2p${done_}ok 3 - s.c\n" \
	"not ok 4 - t: nothing outside the suites # line 7 after the closing marker: \"ok 3 - s.c\""

# ---- the guest, the kernel log
check "guest that never finished fails" 1 "5 1 0" "$up$s$ok2p" \
	"not ok 5 - t: guest finished # guest crashed or timed out"
check "no output at all fails" 1 "2 2 0" ""
CONSOLE="$boot""WARNING: CPU: 0 PID: 1 at ipc/shm.c:100 newseg+0x1/0x2\n" \
check "WARNING splat fails" 1 "5 1 0" "$up$s$ok2p$done_" \
	"    console: WARNING: CPU: 0 PID: 1 at ipc/shm.c:100 newseg+0x1/0x2"
CONSOLE="$boot""BUG: sleeping function called from invalid context at mm/slab.h:1\n" \
check "lockdep report fails" 1 "5 1 0" "$up$s$ok2p$done_" \
	"not ok 6 - t: kernel log clean # 1 splat lines"
CONSOLE="$boot""rcu: INFO: rcu_sched self-detected stall on CPU\n" \
check "RCU stall fails" 1 "5 1 0" "$up$s$ok2p$done_"

# ---- expected failures (the pre-seed manifest)
MANIFEST="# comment\ns.b\n" LAST="t: 5 passed, 0 failed" \
check "listed failure is reported apart" 0 "5 0 1" \
	"$up${s}ok 1 - s.a\nnot ok 2 - s.b\n1..2\n$done_" \
	"xfail 2 - t: s.b # fails as expected on this kernel" \
	"t: 1 expected failures"
MANIFEST="s.b\n" check "listed check that passes fails" 1 "5 1 0" "$up$s$ok2p$done_" \
	"not ok 2 - t: s.b # expected to fail on this kernel, passed"
MANIFEST="s.c\n" check "listed check never reported fails" 1 "6 1 0" "$up$s$ok2p$done_" \
	"not ok 3 - t: s.c # expected failure never reported"
MANIFEST="s.c\n" check "unlisted failure fails" 1 "5 2 0" \
	"$up${s}not ok 1 - s.a\nok 2 - s.b\n1..2\n$done_"
MANIFEST="s.b\n" check "CR LF lines are judged the same" 0 "5 0 1" \
	"# vmtest: guest up\r\n# suite s\r\nok 1 - s.a\r\nnot ok 2 - s.b\r\n1..2\r\n# vmtest: done\r\n" \
	"xfail 2 - t: s.b # fails as expected on this kernel"

# ---- bad arguments
usage "no --suites is refused" "--suites is required" t "$tmp"
usage "a bad suite list is refused" "bad suite list" --suites "s,,u" t "$tmp"
usage "an unreadable manifest is refused" "cannot read manifest" \
	--suites s t "$tmp" "$tmp/none.xfail"

echo "1..$n"
exit $failed
