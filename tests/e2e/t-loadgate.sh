# The load gate helps. While a host waits for a quiet machine, orch says
# the load, the threshold, the time left of load_wait and how to measure
# anyway; a run measured with the gate off says so in the report's host
# section (report.md, report.html) and summary.json, from the record.
. tests/e2e/lib.sh

P=tests/progs/bin/linux-$(uname -m)
gate() {
	cat <<INI
[suite]
rounds    = 2
warmup    = 0
max_load  = $1
load_wait = 4
[variant.A]
bin = $PWD/$P/noop
[variant.B]
bin = $PWD/$P/noop
[bench.n]
INI
}
gate 0.0001 > "$T/busy.ini"
gate 100 > "$T/calm.ini"

note "a busy machine: the waiting line has the load, the threshold, the time left and the hint"
# Two CPU hogs make sure the 1-minute load is above 0.0002 on 2 cores.
for i in 1 2; do ( end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do :; done ) & done
sleep 3
rc=0; run_orch "$T/log1" run --out="$T/o1" "$T/busy.ini" || rc=$?
wait
cat "$T/log1"
expect_eq "busy run exit" "$rc" 3
expect_grep '^orch: local: waiting: 1-minute load [0-9.]+ above 0\.00[0-9]* \(max_load 0\.0001 x [0-9]+ cores\); [0-9]+s left of load_wait 4s; --max-load=0 to measure anyway$' "$T/log1"

note "a gate from the inventory: the hint names the inventory, which --max-load does not override"
printf '[host.local]\nmax_load = 0.0001\n' > "$T/inv.ini"
for i in 1 2; do ( end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do :; done ) & done
sleep 3
rc=0; run_orch "$T/log1b" run --inventory="$T/inv.ini" --out="$T/o1b" "$T/calm.ini" || rc=$?
wait
cat "$T/log1b"
expect_eq "busy run exit" "$rc" 3
expect_grep '^orch: local: waiting: .*; [0-9]+s left of load_wait 4s; max_load = 0 in \[host.local\] of the inventory to measure anyway$' "$T/log1b"

note "the same suite with --max-load=0: measured, and the report says the gate was off"
rc=0; run_orch "$T/log2" run --max-load=0 --out="$T/o2" "$T/busy.ini" || rc=$?
cat "$T/log2"
expect_eq "gate-off run exit" "$rc" 0
expect_grep '^- `local`: .*; load gate off \(max_load 0\): measured whatever the machine.s load, 1-minute load up to [0-9.]+ on [0-9]+ cores?' "$T/o2/report.md"
expect_grep 'load gate off \(max_load 0\)' "$T/o2/report.html"
expect_eq "summary load_gate" "$(jq '.hosts[0].load_gate' "$T/o2/summary.json")" 0

note "a run with the gate on says nothing of it"
rc=0; run_orch "$T/log3" run --out="$T/o3" "$T/calm.ini" || rc=$?
expect_eq "gate-on run exit" "$rc" 0
! grep -q 'load gate off' "$T/o3/report.md" || fail "a run with its gate on is said to have had it off"
expect_eq "summary load_gate" "$(jq '.hosts[0].load_gate' "$T/o3/summary.json")" 100
no_leftovers
echo PASS
