#!/bin/bash
# Judge one guest run: the suites' TAP, whether the guest finished, and
# whether the kernel log shows a splat. Prints one TAP line per check,
# prefixed with the run's label, then "LABEL: N passed, N failed".
#
#   vmtest/report.sh LABEL OUT_DIR [XFAIL_MANIFEST]
#
# With a manifest (the pre-seed run), the checks it lists must fail and
# every other check must pass: matched both ways.
# Writes "PASSED FAILED" to OUT_DIR/counts; exits 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

label=$1
out=$2
manifest=${3:-/dev/null}
results=$out/results.tap
console=$out/console.log
touch "$results" "$console"

# Lines of a kernel splat: WARN/BUG (lockdep and might_sleep reports
# included), oopses, panics, RCU stalls, hung tasks, sanitizers.
SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace:|rcu: INFO:|detected stall|KASAN:|UBSAN:|blocked for more than|Unable to handle'

awk -v label="$label" -v manifest="$manifest" -v splat_re="$SPLAT_RE" \
	-v console="$console" -v counts="$out/counts" '
function report(pass, name, note) {
	n++
	if (pass) passed++; else failed++
	last_bad = !pass
	printf "%sok %d - %s: %s%s\n", pass ? "" : "not ", n, label, name,
		note == "" ? "" : " # " note
}
BEGIN {
	passed = 0; failed = 0
	while ((getline line < manifest) > 0) {
		sub(/#.*/, "", line); gsub(/[ \t]+/, "", line)
		if (line != "") xfail[line] = 1
	}
}
# the guest writes through a tty: lines end in CR LF
{ sub(/\r$/, "") }
/^# vmtest: done/ { done = 1; next }
/^(not )?ok [0-9]* ?- / {
	pass = ($1 == "ok")
	name = $0; sub(/^(not )?ok [0-9]* ?- /, "", name)
	seen[name] = 1; ran++
	if (name in xfail)
		report(!pass, name, pass ? "expected to fail on this kernel, passed" : "fails as expected on this kernel")
	else
		report(pass, name, "")
	next
}
/^#/ { if (last_bad) print "    " $0 }
END {
	for (name in xfail)
		if (!(name in seen))
			report(0, name, "expected failure never reported")
	report(ran > 0, "suites ran checks", ran " checks")
	report(done, "guest finished", done ? "" : "guest crashed or timed out")
	splats = 0
	while ((getline line < console) > 0)
		if (line ~ splat_re) {
			sub(/\r$/, "", line)
			if (splats++ < 20) print "    console: " line
		}
	report(splats == 0, "kernel log clean", splats ? splats " splat lines" : "")
	printf "%s: %d passed, %d failed\n", label, passed, failed
	print passed, failed > counts
	exit (failed > 0)
}' "$results"
