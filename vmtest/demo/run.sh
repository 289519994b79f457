#!/bin/sh
# The demo inside the guest: a small database workload, and ipcwatch top
# watching it. Quitting top (q) powers the guest off. Without a terminal
# on the host, top runs three batch refreshes instead.
PATH=/demo:$PATH
[ -n "$IPCWATCH_ROWS" ] && stty rows "$IPCWATCH_ROWS" cols "$IPCWATCH_COLS"
export TERM=${IPCWATCH_TERM:-vt100}
[ -e "/usr/share/terminfo/${TERM%"${TERM#?}"}/$TERM" ] || export TERM=vt100

echo
echo "=== ipcwatch demo on $(uname -r) ==="
echo "--- the ipc trace events of this patched kernel:"
ls /sys/kernel/tracing/events/ipc
echo "--- one pass of the workload, as the kernel prints its ipc events:"
tracing=/sys/kernel/tracing
echo > $tracing/trace
echo 1 > $tracing/events/ipc/enable
workload > /dev/null
echo 0 > $tracing/events/ipc/enable
grep -v '^#' $tracing/trace
echo "--- the same pass through ipcwatch events -T:"
ipcwatch events -T &
sleep 2
workload > /dev/null
sleep 1
kill -INT $!
wait $!
echo "--- ipcwatch limits:"
ipcwatch limits | sed -n '/HAZARDS/,$p'
echo "--- two containers, each in an IPC namespace of its own, and ipcwatch top -A:"
slice=/sys/fs/cgroup/system.slice
docker=$slice/docker-4f1d8e2c9b7a60355e21c8d0f4a9b6e7c3d2a1f0e9b8c7d6a5f4e3d2c1b0a998.scope
mkdir -p "$docker" $slice/postgresql@15-main.service
sh -c 'echo $$ > '"$docker"'/cgroup.procs; exec unshare -i workload --live' \
	> /dev/null &
c1=$!
sh -c 'echo $$ > '"$slice"'/postgresql@15-main.service/cgroup.procs
	exec unshare -i sh -c "echo 256 > /proc/sys/kernel/shmmni; exec workload --live"' \
	> /dev/null &
c2=$!
sleep 3
ipcwatch top -A -b -n 1 -s size -r
kill $c1 $c2
wait $c1 $c2 2>/dev/null
workload --live &
sleep 2
if [ "$IPCWATCH_INTERACTIVE" = 1 ]; then
	ipcwatch top
else
	ipcwatch top -b -n 3 -d 2
fi
kill $!
wait
echo "=== demo done, powering off ==="
