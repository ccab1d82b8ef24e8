# Processes and faults on `local`: a benchmark's grandchildren die with its
# process group; a killed agent is started again and the run completes; a
# killed coordinator leaves its agent carrying on (orch status sees it,
# orch stop stops it) and orch run --resume completes the run. After each,
# every (bench, variant, round) is present exactly once.
. tests/e2e/lib.sh

# exactly_once DIR ROUNDS: each measured (bench, variant, round) once.
exactly_once() {
	local csv=$1/samples.csv rounds=$2 dup n
	dup=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort | uniq -d | head -3)
	[ -z "$dup" ] || fail "duplicated samples: $dup"
	n=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" && $10!="signal" {print $4,$5,$6}' "$csv" | sort -u | wc -l)
	expect_eq "distinct (bench, variant, round)" "$n" "$((2 * rounds))"
}

note "grandchild left by a benchmark is killed"
rc=0; run_orch "$T/log1" run --out="$T/out1" tests/suites/leftover.ini || rc=$?
cat "$T/log1"
expect_eq "exit code" "$rc" 0
no_leftovers

note "agent killed with SIGKILL mid-run: started again, the run completes"
"$ORCH" run --out="$T/out4" --rounds=16 tests/suites/slow.ini >"$T/log4" 2>&1 &
orch_pid=$!
wait_samples "$T/out4" 3000
pkill -9 -f "orch-agent serve --workdir=$T/workdir" || fail "no agent to kill"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log4"
expect_eq "exit code after the agent was restarted" "$rc" 0
expect_grep 'local: the agent exited .*starting its agent again \(1 of 3\)' "$T/log4"
expect_eq "complete" "$(jq .complete "$T/out4/summary.json")" true
exactly_once "$T/out4" 16
no_leftovers

note "coordinator killed with SIGKILL mid-run: the agent carries on"
"$ORCH" run --out="$T/out2" --rounds=30 tests/suites/slow.ini >"$T/log2" 2>&1 &
orch_pid=$!
wait_samples "$T/out2" 3000
kill -9 "$orch_pid"
wait "$orch_pid" 2>/dev/null || true
sleep 0.5
pgrep -f "orch-agent serve --workdir=$T/workdir" >/dev/null || fail "the agent did not carry on"
rc=0; run_orch "$T/log3" status "$T/out2" || rc=$?
cat "$T/log3"
expect_eq "status exit" "$rc" 0
expect_grep '^local +[0-9]+ +unfinished +running pid [0-9]+ journal [0-9]+' "$T/log3"
note "the partial record still renders, marked incomplete"
mkdir "$T/copy" && cp "$T/out2/samples.msgpack" "$T/copy/"
rc=0; run_orch "$T/log5" report "$T/copy" || rc=$?
expect_eq "report exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/copy/summary.json")" false
expect_grep 'Incomplete record' "$T/copy/report.md"

note "orch run --resume: reconnects, collects the journal, completes"
rc=0; run_orch "$T/log6" run --resume="$T/out2" || rc=$?
cat "$T/log6"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out2/summary.json")" true
exactly_once "$T/out2" 30
rc=0; run_orch "$T/log7" run --resume="$T/out2" || rc=$?
expect_eq "resume of a complete run" "$rc" 2
expect_grep 'every host of this run has finished|the run is complete' "$T/log7"
no_leftovers

note "a frozen coordinator (SIGSTOP): the agent goes on without its ACKs"
"$ORCH" run --out="$T/out10" tests/suites/brisk.ini >"$T/log10" 2>&1 &
orch_pid=$!
wait_samples "$T/out10" 3000
kill -STOP "$orch_pid"
J=$(ls "$T"/workdir/runs/*/journal | xargs ls -t | head -1)
j0=$(stat -c %s "$J")
# Each run waits at most 100 ms for the last sample's ACK: the journal goes
# on growing (a dozen samples, 2000 bytes) while no ACK can come. How fast
# depends on the machine's load; that it grows at all does not.
grown() { [ "$(( $(stat -c %s "$J") - j0 ))" -gt 2000 ]; }
wait_until 120 "the agent to journal 2000 bytes without ACKs (it stalled?)" grown
kill -CONT "$orch_pid"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log10"
expect_eq "exit after SIGCONT" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out10/summary.json")" true
exactly_once "$T/out10" 60
no_leftovers

note "orch stop: a detached agent is stopped, and nothing is left"
"$ORCH" run --out="$T/out8" --rounds=30 tests/suites/slow.ini >"$T/log8" 2>&1 &
orch_pid=$!
wait_samples "$T/out8" 3000
kill -9 "$orch_pid"; wait "$orch_pid" 2>/dev/null || true
rc=0; run_orch "$T/log9" stop "$T/out8" || rc=$?
cat "$T/log9"
expect_eq "stop exit" "$rc" 0
expect_grep '^local .* stopped pid [0-9]+ journal [0-9]+' "$T/log9"
no_leftovers
echo PASS
