# Processes: a benchmark's grandchildren die with its process group; when
# the coordinator is killed mid-run the agent and its benchmark go too; a
# killed agent fails its host with a clear error and a partial report.
. tests/e2e/lib.sh

note "grandchild left by a benchmark is killed"
rc=0; run_orch "$T/log1" run --out="$T/out1" tests/suites/leftover.ini || rc=$?
cat "$T/log1"
expect_eq "exit code" "$rc" 0
no_leftovers

note "coordinator killed with SIGKILL mid-run"
"$ORCH" run --out="$T/out2" tests/suites/slow.ini >"$T/log2" 2>&1 &
orch_pid=$!
for i in $(seq 1 100); do
	[ "$(grep -c ,nap, "$T/out2/samples.csv" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	[ -s "$T/out2/samples.msgpack" ] && [ "$(stat -c %s "$T/out2/samples.msgpack")" -gt 2000 ] && break
	sleep 0.1
done
pgrep -f "$T/workdir" >/dev/null || fail "no agent or benchmark running"
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
no_leftovers
note "the partial record still renders, marked incomplete"
rc=0; run_orch "$T/log3" report "$T/out2" || rc=$?
cat "$T/log3"
expect_eq "report exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out2/summary.json")" false
expect_grep 'Incomplete record' "$T/out2/report.md"

note "agent killed with SIGKILL mid-run"
"$ORCH" run --out="$T/out4" tests/suites/slow.ini >"$T/log4" 2>&1 &
orch_pid=$!
for i in $(seq 1 100); do
	pgrep -f "orch-agent serve --workdir=$T/workdir" >/dev/null && [ -s "$T/out4/samples.msgpack" ] && break
	sleep 0.1
done
sleep 0.5
pkill -9 -f "orch-agent serve --workdir=$T/workdir" || fail "no agent to kill"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log4"
expect_eq "exit code after the agent died" "$rc" 3
expect_grep 'local failed: the agent exited' "$T/log4"
expect_eq "host status" "$(jq -r '.hosts[0].status' "$T/out4/summary.json")" failed
no_leftovers
echo PASS
