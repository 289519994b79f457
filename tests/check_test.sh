#!/bin/bash
# Host test of scripts/check.sh's counting, on a copy of it whose
# package stage is a fake that prints given TAP: SKIP and TODO count as
# failures (cmocka's forms included), expected failures are summed
# apart, "N passed, N failed" stays the last line. TAP output.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/scripts" "$tmp/repo/tests"
cp "$here/../scripts/check.sh" "$tmp/repo/scripts/"
cat > "$tmp/repo/tests/package_test.sh" << 'EOF'
#!/bin/sh
printf '%b' "$FAKE_TAP"
exit "${FAKE_RC:-0}"
EOF
chmod +x "$tmp/repo/tests/package_test.sh"
n=0
failed=0

# case NAME WANT_EXIT WANT_XFAIL_LINE WANT_LAST_LINE TAP [STAGE_EXIT]
case_() {
	local name=$1 want_rc=$2 want_xfail=$3 want_last=$4 rc out=$tmp/out
	FAKE_TAP=$5 FAKE_RC=${6:-0} CHECK_STAGES=package \
		"$tmp/repo/scripts/check.sh" > "$out" 2>&1
	rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] &&
	   [ "$(tail -n 2 "$out" | head -n 1)" = "$want_xfail" ] &&
	   [ "$(tail -n 1 "$out")" = "$want_last" ]; then
		echo "ok $n - check.sh: $name"
	else
		echo "not ok $n - check.sh: $name"
		echo "#   exit $rc (want $want_rc), want the lines '$want_xfail', '$want_last'"
		sed 's/^/#   /' "$out"
		failed=1
	fi
}

case_ "passes are counted" 0 "0 expected failures" "3 passed, 0 failed" \
	"1..3\nok 1 - a\nok 2 - alerts_skip_segments_without_record\nok 3\n# ok - group\n"
case_ "failures are counted" 1 "0 expected failures" "1 passed, 1 failed" \
	"ok 1 - a\nnot ok 2 - b\n# got 1, want 2\n"
case_ "cmocka 1.1.7 skip is a failure" 1 "0 expected failures" "1 passed, 1 failed" \
	"TAP version 13\n1..2\nok 1 - a\nok 2 # SKIP b\n"
case_ "cmocka 1.1.5 skip is a failure" 1 "0 expected failures" "1 passed, 1 failed" \
	"1..2\nok 1 - a\nnot ok 2 # SKIP b\n"
case_ "TODO is a failure" 1 "0 expected failures" "1 passed, 1 failed" \
	"ok 1 - a\nok 2 - b # TODO later\n"
case_ "a SKIP comment line is a failure" 1 "0 expected failures" "2 passed, 1 failed" \
	"ok 1 - a\nok 2 - b\n# SKIP: c needs tracefs\n"
case_ "expected failures are summed apart" 0 "2 expected failures" "1 passed, 0 failed" \
	"ok 1 - t: a\nxfail 2 - t: b # fails as expected\nxfail 3 - t: c # fails as expected\n"
case_ "a stage failing without a failed check counts once" 1 \
	"0 expected failures" "1 passed, 1 failed" "ok 1 - a\n" 2

CHECK_STAGES="host nonesuch" "$tmp/repo/scripts/check.sh" > "$tmp/out" 2>&1
rc=$?
n=$((n + 1))
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/out")" = 1 ] &&
   grep -qF "unknown stage 'nonesuch'" "$tmp/out"; then
	echo "ok $n - check.sh: an unknown stage is refused"
else
	echo "not ok $n - check.sh: an unknown stage is refused"
	sed 's/^/#   /' "$tmp/out"
	failed=1
fi

echo "1..$n"
exit $failed
