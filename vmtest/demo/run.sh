#!/bin/sh
# The demo inside the guest: the ipc tracepoints of the patched kernel,
# then ipcwatch events and ipcwatch limits, on a small workload.
T=/sys/kernel/tracing
PATH=/demo:$PATH

echo
echo "=== ipcwatch demo on $(uname -r) ==="
echo
echo "--- the ipc trace events of the patched kernel ($T/events/ipc)"
echo 1 > $T/events/ipc/enable
workload > /dev/null
echo 0 > $T/events/ipc/enable
grep -v '^#' $T/trace | sed 's/^ *//'
echo > $T/trace

echo
echo "--- ipcwatch events, while the workload runs again"
ipcwatch events -T &
watcher=$!
sleep 3
workload
sleep 1
kill -INT $watcher
wait $watcher

echo
echo "--- ipcwatch limits"
ipcwatch limits
echo
echo "=== demo done, powering off ==="
