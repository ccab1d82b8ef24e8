# A successful run on a lab host (real sshd, the tunnel transport) says
# nothing alarming at its end: with -v, "cannot open the tunnel to the
# agent" (nanomsg reconnecting to the agent that just left) is not logged.
# And Ctrl-C on a run over SSH leaves the remote agent measuring, and
# --resume collects the run.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
INV="$LAB_INVENTORY"

note "a run on h1 with -v: complete, and no tunnel message"
rc=0; run_orch "$T/log1" run -v --inventory="$INV" --hosts=h1 --rounds=4 \
    --out="$T/out1" tests/suites/brisk.ini || rc=$?
tail -20 "$T/log1"
expect_eq "exit" "$rc" 0
expect_grep '^orch: h1: done, 8 measured runs$' "$T/log1"
! grep -q 'cannot open the tunnel to the agent' "$T/log1" ||
	fail "the tunnel's end after a successful run was logged"

note "Ctrl-C on a run over SSH: the remote agent carries on; --resume completes it"
"$ORCH" run --inventory="$INV" --hosts=h1 --rounds=10 --out="$T/out2" \
    tests/suites/slow.ini >"$T/log2" 2>&1 &
orch_pid=$!
wait_samples "$T/out2" 3000
kill -INT "$orch_pid"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log2"
expect_eq "exit after Ctrl-C" "$rc" 130
rc=0; run_orch "$T/st2" status --inventory="$INV" "$T/out2" || rc=$?
cat "$T/st2"
expect_grep '^run .*, interrupted: .* 1 agent carries the run on' "$T/st2"
rc=0; run_orch "$T/log3" run --resume="$T/out2" --inventory="$INV" || rc=$?
cat "$T/log3"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out2/summary.json")" true
n=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" {print $4,$5,$6}' "$T/out2/samples.csv" | sort | uniq | wc -l)
d=$(awk -F, '$11=="wall_ns" && $9==0 && $4!="(floor)" {print $4,$5,$6}' "$T/out2/samples.csv" | sort | uniq -d | wc -l)
expect_eq "distinct samples" "$n" 20
expect_eq "duplicated samples" "$d" 0
echo PASS
