#!/bin/bash
# Turn the raw results of make bench into docs/benchmarks.json (every
# number the guests printed) and docs/benchmarks.md (a table per kernel,
# each target of issue 14 met or missed, the command and the machine).
#
#   scripts/bench-report.sh [--make "CYCLES ROUNDS OPS SECTIONS"] [--out DIR] RUN_DIR...
#
# RUN_DIR is build/bench-KERNEL: results.tap (the "# result {...}" lines
# of vmtest/guest/bench.c), seconds (the guest run's wall time) and
# report.txt (vmtest/report.sh's verdict). docs/benchmarks.notes.md, when
# present, is appended: the analysis, written by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

params="3 5 100000 semop,contended,flood,top,start,enforce"
out=docs
while [ $# -gt 0 ]; do
	case "$1" in
	--make) params=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--make PARAMS] [--out DIR] RUN_DIR..." >&2; exit 2; }
command -v jq > /dev/null || { echo "bench-report: jq is needed" >&2; exit 1; }
read -r cycles rounds ops sections <<< "$params"

kernels=()
for dir in "$@"; do
	[ -r "$dir/results.tap" ] || { echo "bench-report: no $dir/results.tap" >&2; exit 1; }
	label=$(basename "$dir")
	label=${label#bench-}
	seconds=$(cat "$dir/seconds" 2>/dev/null || echo null)
	verdict=$(tail -1 "$dir/report.txt" 2>/dev/null || echo "")
	done_mark=false
	tr -d '\r' < "$dir/results.tap" | grep -q '^# vmtest: done' && done_mark=true
	# the step the harness announced last: where a guest that hung was
	last_step=$(tr -d '\r' < "$dir/results.tap" | sed -n 's/^# attachload: //p' | tail -1)
	steps=$(tr -d '\r' < "$dir/results.tap" | grep -c '^# attachload: ' || true)
	kernels+=("$(tr -d '\r' < "$dir/results.tap" | sed -n 's/^# result //p' |
		jq -s --arg lab "$label" --argjson seconds "$seconds" \
			--arg verdict "$verdict" --argjson finished "$done_mark" \
			--arg last_step "$last_step" --argjson steps "$steps" \
			'{"label": $lab, run_seconds: $seconds, verdict: $verdict,
			  guest_finished: $finished, last_attachload_step: $last_step, attachload_steps: $steps,
			  machine: (map(select(.section == "machine"))[0] // {}),
			  results: map(select(.section != "machine"))}')")
done

qemu=$(qemu-system-x86_64 --version | head -1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
printf '%s\n' "${kernels[@]}" | jq -s \
	--arg cmd "make bench BENCH_CYCLES=$cycles BENCH_ROUNDS=$rounds BENCH_OPS=$ops BENCH_SECTIONS=$sections" \
	--arg cpu "$cpu" --argjson cores "$(nproc)" --arg qemu "$qemu" \
	--arg date "$(date -u -r "$1/results.tap" +%Y-%m-%dT%H:%MZ)" \
	'{command: $cmd, date: $date,
	  host: {cpu_model: $cpu, cores: $cores, qemu: $qemu,
		 accel: "TCG (2 vCPUs)"},
	  kernels: .}' > "$out/benchmarks.json"

jq -r -f /dev/stdin "$out/benchmarks.json" > "$out/benchmarks.md" <<'JQ'
def r0: if . == null then "-" else (. | round | tostring) end;
def r2: if . == null then "-" else ((. * 100 | round) / 100 | tostring) end;
def r3: if . == null then "-" else ((. * 1000 | round) / 1000 | tostring) end;
def pct: if . == null then "-" else (((. - 1) * 1000 | round) / 10 | tostring) + "%" end;
def range(f): "\(.[f].median | r3) (\(.[f].min | r3)-\(.[f].max | r3))";
def nsrange: "\(.ns.median | r0) (\(.ns.min | r0)-\(.ns.max | r0))";
def verdict(ok): if ok then "**met**" else "**missed**" end;

def semop_table:
  [.results[] | select(.section == "semop")] as $s
  | if ($s | length) == 0 then "" else
  "### semop(): ns per operation and ratio to the same cycle's untraced baseline\n\n" +
  "ns: median over the cycles of each cycle's median round (min-max over the cycles); " +
  "ratio: median of the per-cycle ratios (min-max). Contended: ns per round trip " +
  "(two tasks, each sleeps and is woken once per trip).\n\n" +
  "| workload | arm | ns | ratio | overhead | attached |\n|---|---|---|---|---|---|\n" +
  ([$s[] | if .attached then
      "| \(.name) | \(.arm) | \(nsrange) | \(range("ratio")) | \(.ratio.median | pct) | yes |"
    else
      "| \(.name) | \(.arm) | - | - | - | did not attach: \(.why) |"
    end] | join("\n")) + "\n\n" end;

def semop_targets:
  [.results[] | select(.section == "semop")] as $s
  | def arm(w; a): ([$s[] | select(.name == w and .arm == a and .attached)][0]);
  ["fast_1thread", "fast_2threads"] as $ws
  | [ $ws[] as $w
      | (arm($w; "events_tracepoint")) as $tp
      | (arm($w; "events_fentry")) as $fe
      | (arm($w; "bpftrace_kfunc")) as $kf
      | (if $tp then
          "- tracepoint mode on the fast path (\($w)) within 2% of the baseline: " +
          verdict($tp.ratio.median - 1 <= 0.02) +
          " (ratio \($tp.ratio.median | r3), overhead \($tp.ratio.median | pct))"
        else empty end),
        (if $fe and $kf then
          "- fentry mode (\($w)) at most half of bpftrace kfunc's overhead: " +
          verdict(($kf.ratio.median - 1) > 0 and
                  ($fe.ratio.median - 1) <= 0.5 * ($kf.ratio.median - 1)) +
          " (fentry \($fe.ratio.median | pct), kfunc \($kf.ratio.median | pct))"
        elif $fe then
          "- fentry mode (\($w)): overhead \($fe.ratio.median | pct); no bpftrace kfunc figure to compare"
        else empty end) ]
  | join("\n");

def flood_table:
  [.results[] | select(.section == "flood")] as $f
  | [.results[] | select(.section == "flood_summary")][0] as $sum
  | if ($f | length) == 0 then "" else
  "### shmget() + IPC_RMID flood (ring buffer 1 MiB, the default, unless said)\n\n" +
  "An iteration is a shmget() and its IPC_RMID: \(($f[0].events_per_iteration // 0)) events (shm_create, shmctl, shm_destroy). Rates paced per millisecond; unpaced is as fast as one task can.\n\n" +
  "| target iterations/s | buffer | mode | produced/s | delivered/s | lost | delivered + lost = produced |\n|---|---|---|---|---|---|---|\n" +
  ([$f[] | "| \(if .target_iterations_per_s == 0 then "unpaced" else (.target_iterations_per_s | r0) end) | \(.buffer // "1M") | \(.mode) | \(.produced_per_s | r0) | \(.delivered_per_s | r0) | \(.lost) | \(if .accounted then "yes" else "**no**" end) (\(.delivered) + \(.lost) = \(.produced)) |"] | join("\n")) +
  "\n\n- highest delivered rate with no loss: \($sum.max_lossless_delivered_per_s | r0) events/s; " +
  (if $sum.loss_begins_produced_per_s < 0 then "no loss at any rate the guest produced" else "loss begins at \($sum.loss_begins_produced_per_s | r0) events/s produced" end) +
  "\n- target, no loss at the highest shmget rate the guest can produce (unpaced, \($sum.unpaced_iterations_per_s | r0) iterations/s): " +
  verdict($sum.unpaced_lossless) +
  "\n- every lost event counted: " + verdict($sum.accounted) + "\n\n" end;

def top_table:
  [.results[] | select(.section == "top")] as $t
  | if ($t | length) == 0 then "" else
  "### ipcwatch top -b -n 1 against ipcs and lsipc\n\n" +
  "CPU: user + system time of the whole process (ipcwatch: loading its BPF programs included); " +
  "refresh: the CPU of the refresh itself (--stats).\n\n" +
  "Max RSS is the kernel's high-water mark of the process, whose floor is the harness's resident set at the fork (shown).\n\n" +
  "| objects | count | tool | CPU ms | refresh CPU ms | wall ms | max RSS KiB | harness RSS KiB |\n|---|---|---|---|---|---|---|---|\n" +
  ([$t[] | "| \(.objects) | \(.count) | \(.name) | \(.cpu_ms | r0) | \(.refresh_cpu_ms | r2) | \(.wall_ms | r0) | \(.max_rss_kib) | \(.harness_rss_kib // "-") |"] | join("\n")) +
  "\n\n" +
  ([$t[] | select(.objects == "segments" and .name == "ipcwatch_top")] | max_by(.count)) as $top
  | ([$t[] | select(.objects == "segments" and .name == "lsipc_m" and .count == $top.count)][0]) as $ls
  | (if $top and $ls then
      "- target, a \($top.count)-segment top refresh cheaper than one lsipc -m: " +
      verdict($top.refresh_cpu_ms < $ls.cpu_ms) +
      " (refresh \($top.refresh_cpu_ms | r2) ms against lsipc -m \($ls.cpu_ms | r0) ms CPU; ratio \(($top.refresh_cpu_ms / $ls.cpu_ms) | r3); a whole top -n 1 run, BPF load included, \($top.cpu_ms | r0) ms)\n\n"
    else "" end) end;

def start_table:
  [.results[] | select(.section == "start")][0] as $s
  | if $s == null then "" else
  "### Start to first event (ipcwatch events, auto mode)\n\n" +
  "- exec to \"watching\": \($s.start_to_ready_ms | map(r0) | join(", ")) ms; " +
  "then a shmget() to its event: \($s.ready_to_event_ms | map(r2) | join(", ")) ms\n" +
  "- exec to first event: median \($s.start_to_first_event_ms.median | r0) ms (\($s.start_to_first_event_ms.min | r0)-\($s.start_to_first_event_ms.max | r0))\n\n" end;

def enforce_table:
  [.results[] | select(.section == "enforce")] as $e
  | if ($e | length) == 0 then "" else
  "### enforce: shmget() + IPC_RMID with the policy loaded\n\n" +
  "Rules 1..N-1 match other uids, the last matches everyone (the LSM program tries them in order, first match wins).\n\n" +
  "| rules | started | ns per shmget+rmid | ratio to none |\n|---|---|---|---|\n" +
  ([$e[] | select(.name != "refused") | "| \(.rules) | \(.started) | \(nsrange) | \(if .ratio then range("ratio") else "1" end) |"] | join("\n")) +
  "\n\n" +
  ([$e[] | select(.name == "refused") | "- \(.rules) rules: refused at load (exit \(.exit)): `\(.error)`"] | join("\n")) + "\n\n" end;

def attach_table:
  [.results[] | select(.section == "attachload")] as $a
  | (.last_attachload_step // "") as $last_step
  | ((.attachload_steps // 0) > ($a | length)) as $hung
  | if ($a | length) == 0 then "" else
  "### Attach under a shmget() load (one shmget+rmid every 2 ms while ipcwatch events attaches)\n\n" +
  "| mode | order | attached | load iterations in the 2 s after | load task reaped | events |\n|---|---|---|---|---|---|\n" +
  ([$a[] | "| \(.name) | \(.order // "under_load") | \(.started) | \(.load_iterations_after_attach) | \(.load_reaped // "-") | \(.events) |"] | join("\n")) + "\n" +
  (if $hung then
     "| **\($last_step)** | | **never came back**: the loading task stuck in the kernel (soft lockup), the suite timed out | | | |\n"
   else "" end) + "\n" end;

"# Benchmarks\n\n" +
"Generated by `scripts/bench-report.sh` from the guest runs below, one per heading: " +
"`bench` and `stock` are one `make bench`, others (attachload) runs of one section (the raw numbers: " +
"[benchmarks.json](benchmarks.json)). Numbers only: nothing here passes or fails on time. " +
"Absolute times under emulation mean little; each figure is a ratio taken side by side " +
"in one guest run per kernel, every configuration interleaved over the cycles.\n\n" +
"Reproduce: `flock /tmp/vmtest.lock \(.command)` (run \(.date); BENCH_TIMEOUT only bounds the guest).\n\n" +
"Machine: \(.host.cpu_model), \(.host.cores) cores; \(.host.qemu), \(.host.accel).\n\n" +
([.kernels[] |
  "## Kernel \(.machine.release // .label) (\(.label))\n\n" +
  "Guest: \(.machine.cpus_online) CPUs online, clocksource \(.machine.clocksource); " +
  "\(.machine.cycles) cycles, median of \(.machine.rounds) rounds of \(.machine.ops) operations " +
  "(contended and shmget: ops/20); bpftrace in the guest: \(.machine.bpftrace). " +
  "Guest run: \(.run_seconds) s\(if .guest_finished then "" else ", **the guest did not finish**" end); judge: \(.verdict).\n\n" +
  semop_table +
  (semop_targets | if . == "" then "" else "Targets:\n\n" + . + "\n\n" end) +
  flood_table + top_table + start_table + enforce_table + attach_table
] | join(""))
JQ
if [ -r "$out/benchmarks.notes.md" ]; then
	{ echo; cat "$out/benchmarks.notes.md"; } >> "$out/benchmarks.md"
fi
echo "bench-report: wrote $out/benchmarks.json and $out/benchmarks.md"
