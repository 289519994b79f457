#!/bin/sh
# Demo inside the guest: the ipc tracepoints of the patched kernel
# firing on a small workload.
T=/sys/kernel/tracing
echo
echo "=== ipcwatch demo on $(uname -r): the ipc trace events ==="
ls $T/events/ipc
echo 1 > $T/events/ipc/enable
/demo/workload
echo 0 > $T/events/ipc/enable
echo
echo "=== $T/trace ==="
grep -v '^#' $T/trace | sed 's/^ *//'
echo
echo "=== demo done, powering off ==="
