#!/bin/bash
# Judge one guest run: the suites' TAP, whether each expected suite ran
# to its plan, whether the guest finished, and whether the kernel log
# shows a splat. Prints one TAP line per check, prefixed with the run's
# label, then "LABEL: N expected failures" and, last,
# "LABEL: N passed, N failed".
#
#   vmtest/report.sh --suites S1,S2,... LABEL OUT_DIR [XFAIL_MANIFEST]
#
# The guest's init writes "# suite S" before each suite and
# "# vmtest: done" at the end. Each expected suite must be there and end
# with a plan 1..N, N > 0, equal to its check lines, numbered 1..N in
# order; "Bail out!", a SKIP or TODO directive (after any '#' of a
# check line, as "# Skipped" too), or a line that is neither TAP nor a
# comment (a blank one included) fails its suite. A suite not expected
# fails.
#
# With a manifest (the pre-seed run), the checks it lists must fail and
# every other check must pass: matched both ways. A listed check that
# fails prints "xfail N - ...": neither a pass nor a failure.
# Writes "PASSED FAILED XFAILED" to OUT_DIR/counts; exits 1 on any
# failure, 2 on bad arguments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: report.sh --suites S1,S2,... LABEL OUT_DIR [XFAIL_MANIFEST]"
bad_usage() { echo "report.sh: $*" >&2; exit 2; }

suites=
have_suites=0
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--suites) [ $# -ge 2 ] || bad_usage "--suites needs a list"
		suites=$2; have_suites=1; shift 2 ;;
	--suites=*) suites=${1#*=}; have_suites=1; shift ;;
	-*) bad_usage "unknown option '$1' ($usage)" ;;
	*) args+=("$1"); shift ;;
	esac
done
[ "$have_suites" = 1 ] || bad_usage "--suites is required ($usage)"
[[ "$suites" =~ ^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$ ]] ||
	bad_usage "bad suite list '$suites': names of [A-Za-z0-9_], comma separated"
if [ ${#args[@]} -lt 2 ] || [ ${#args[@]} -gt 3 ]; then
	bad_usage "$usage"
fi
label=${args[0]}
out=${args[1]}
manifest=${args[2]:-/dev/null}
[ -d "$out" ] || bad_usage "no directory '$out'"
[ -r "$manifest" ] || bad_usage "cannot read manifest '$manifest'"
results=$out/results.tap
console=$out/console.log
touch "$results" "$console"

# Lines of a kernel splat: WARN/BUG (lockdep and might_sleep reports
# included), oopses, panics, RCU stalls, hung tasks, sanitizers.
SPLAT_RE='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace:|rcu: INFO:|detected stall|KASAN:|UBSAN:|blocked for more than|Unable to handle'

awk -v label="$label" -v manifest="$manifest" -v splat_re="$SPLAT_RE" \
	-v console="$console" -v counts="$out/counts" -v suites="$suites" '
# One judged line: ok, not ok, or (an expected failure) xfail.
function judge(verdict, name, note) {
	n++
	if (verdict == "ok") passed++
	else if (verdict == "xfail") xfailed++
	else failed++
	last_bad = verdict == "not ok"
	printf "%s %d - %s: %s%s\n", verdict, n, label, name,
		note == "" ? "" : " # " note
}
# A line of the guest, fit to quote in a note: printable, short.
function quote(s) {
	gsub(/[^ -~]/, "?", s)
	if (length(s) > 60) s = substr(s, 1, 57) "..."
	return "\"" s "\""
}
# Why suite s failed, first cause first.
function fault(s, why) {
	faults[s] = faults[s] == "" ? why : faults[s] "; " why
}
function stray(why) {
	if (strays++ == 0) stray_note = why
}
# A line that is neither TAP nor a comment, in suite s or outside.
function non_tap(s, line) {
	if (s == "") {
		stray("non-TAP line " NR " outside the suites: " quote(line))
		return
	}
	if (nontap[s]++ == 0)
		first_nontap[s] = "line " NR ": " quote(line)
	if (nontap[s] <= 5)
		nontap_lines[s] = nontap_lines[s] "    line " NR ": " \
			quote(line) "\n"
}
# As TAP harnesses read it: SKIP and any word it begins ("Skipped"),
# TODO as a word.
function directive_of(comment,    d) {
	d = toupper(comment)
	sub(/^[ \t]+/, "", d)
	if (d ~ /^SKIP/) return "SKIP"
	if (d ~ /^TODO([^A-Z0-9_]|$)/) return "TODO"
	return ""
}
# The first directive after any unescaped '#' of @text, or "".
function directive_in(text,    i, d) {
	while ((i = index(text, "#")) > 0) {
		if (i == 1 || substr(text, i - 1, 1) != "\\")
			if ((d = directive_of(substr(text, i + 1))) != "")
				return d
		text = substr(text, i + 1)
	}
	return ""
}
BEGIN {
	passed = 0; failed = 0; xfailed = 0
	nexpected = split(suites, expected, ",")
	for (i = 1; i <= nexpected; i++) is_expected[expected[i]] = 1
	while ((getline line < manifest) > 0) {
		sub(/#.*/, "", line); gsub(/[ \t]+/, "", line)
		if (line != "" && !(line in xfail)) {
			xfail[line] = 1
			xfail_order[++nxfail] = line
		}
	}
	cur = ""
}
# the guest writes through a tty: lines end in CR LF
{ sub(/\r+$/, "") }
done {
	stray("line " NR " after the closing marker: " quote($0))
	next
}
/^# vmtest: done$/ { done = 1; next }
/^# suite [A-Za-z0-9_.-]+$/ {
	cur = substr($0, 9)
	if (cur in header)
		fault(cur, "reported twice")
	else if (!(cur in is_expected))
		unknown[++nunknown] = cur
	header[cur] = 1
	lines[cur] += 0
	next
}
# a comment; one that says SKIP or TODO is a skip all the same
/^#/ {
	comment = $0
	sub(/^#/, "", comment)
	d = directive_of(comment)
	if (cur != "") {
		lines[cur]++
		if (d != "" && !dir_seen[cur, d]++)
			fault(cur, d " seen")
	} else if (d != "")
		stray(d " line " NR " before the first suite")
	if (last_bad) print "    " $0
	next
}
/^(not )?ok([ \t]|$)/ {
	pass = substr($0, 1, 2) == "ok"
	rest = $0
	sub(/^(not )?ok/, "", rest)
	number = ""
	if (match(rest, /^[ \t]+[0-9]+/)) {
		number = substr(rest, 1, RLENGTH)
		rest = substr(rest, RLENGTH + 1)
	}
	directive = directive_in(rest)
	comment = ""
	if ((i = index(rest, "#")) > 0) {
		comment = substr(rest, i + 1)
		rest = substr(rest, 1, i - 1)
	}
	sub(/^[ \t]*(-[ \t]+)?/, "", rest)
	sub(/[ \t]+$/, "", rest)
	name = rest
	# cmocka: "ok 3 # SKIP name", the name after the directive word
	if (name == "" && directive != "") {
		name = comment
		sub(/^[ \t]*[^ \t]+[ \t]*/, "", name)
		sub(/[ \t]+$/, "", name)
	}
	# init reports a suite timed out, killed or crashed, unnumbered
	exit_line = !pass && number == "" && cur != "" &&
		(name == cur ".suite_timed_out" ||
		 index(name, cur ".suite_exit_status_") == 1 &&
		 substr(name, length(cur) + 20) ~ /^[0-9]+$/)
	if (cur == "")
		stray("check line " NR " before the first suite")
	else {
		lines[cur]++
		if (!exit_line) {
			checks[cur]++
			if (cur in plan && !after_plan[cur]++)
				fault(cur, "check after the plan (line " NR ")")
			if (number != "" && number + 0 != checks[cur] &&
			    !misnumbered[cur]++)
				fault(cur, "check " number + 0 " where " \
				      checks[cur] " was due (line " NR ")")
		}
	}
	if (name == "")
		name = (cur == "" ? "" : cur ".") "check_" (number + 0)
	if (directive != "") {
		if (cur != "" && !dir_seen[cur, directive]++)
			fault(cur, directive " seen")
		judge("not ok", name, directive ": not a pass")
	} else if (name in xfail) {
		seen_xfail[name] = 1
		if (pass)
			judge("not ok", name, "expected to fail on this kernel, passed")
		else
			judge("xfail", name, "fails as expected on this kernel")
	} else
		judge(pass ? "ok" : "not ok", name, "")
	next
}
/^1\.\.[0-9]+([ \t]*#.*)?$/ {
	if (cur == "") {
		stray("plan line " NR " before the first suite")
		next
	}
	lines[cur]++
	count = $0
	sub(/^1\.\./, "", count)
	sub(/[^0-9].*/, "", count)
	if (cur in plan)
		fault(cur, "two plans")
	plan[cur] = count + 0
	comment = $0
	if (sub(/^[^#]*#/, "", comment) && (d = directive_of(comment)) != "" &&
	    !dir_seen[cur, d]++)
		fault(cur, d " seen")
	next
}
/^Bail out!/ {
	if (cur == "") {
		stray("Bail out! before the first suite")
		next
	}
	lines[cur]++
	fault(cur, "Bail out: " quote($0))
	next
}
/^TAP version [0-9]+$/ { if (cur != "") lines[cur]++; next }
{
	if (cur != "") lines[cur]++
	non_tap(cur, $0)
}
# "suite S complete": S ran to its plan with nothing but TAP.
function judge_suite(s,    why) {
	why = faults[s]
	if (!(s in header))
		why = "missing"
	else if (!(s in is_expected))
		why = "not in the expected suites (" suites ")" \
			(why == "" ? "" : "; " why)
	else {
		if (lines[s] == 0)
			why = "printed nothing" (why == "" ? "" : "; " why)
		else if (!(s in plan))
			why = "no plan" (why == "" ? "" : "; " why)
		else if (plan[s] == 0)
			why = "plan 0" (why == "" ? "" : "; " why)
		else if (plan[s] != checks[s] + 0)
			why = "plan 1.." plan[s] " but " checks[s] + 0 \
				" checks" (why == "" ? "" : "; " why)
		if (nontap[s])
			why = (why == "" ? "" : why "; ") "non-TAP " \
				first_nontap[s] \
				(nontap[s] > 1 ? " and " nontap[s] - 1 " more" : "")
	}
	judge(why == "" ? "ok" : "not ok", "suite " s " complete", why)
	if (nontap[s]) printf "%s", nontap_lines[s]
}
END {
	for (i = 1; i <= nxfail; i++)
		if (!(xfail_order[i] in seen_xfail))
			judge("not ok", xfail_order[i],
			      "expected failure never reported")
	for (i = 1; i <= nexpected; i++)
		judge_suite(expected[i])
	for (i = 1; i <= nunknown; i++)
		judge_suite(unknown[i])
	judge(strays ? "not ok" : "ok", "nothing outside the suites",
		strays ? stray_note (strays > 1 ? " and " strays - 1 " more" : "") : "")
	judge(done ? "ok" : "not ok", "guest finished",
		done ? "" : "guest crashed or timed out")
	splats = 0
	while ((getline line < console) > 0)
		if (line ~ splat_re) {
			sub(/\r$/, "", line)
			if (splats++ < 20) print "    console: " line
		}
	judge(splats == 0 ? "ok" : "not ok", "kernel log clean",
		splats ? splats " splat lines" : "")
	printf "%s: %d expected failures\n", label, xfailed
	printf "%s: %d passed, %d failed\n", label, passed, failed
	print passed, failed, xfailed > counts
	exit (failed > 0)
}' "$results"
