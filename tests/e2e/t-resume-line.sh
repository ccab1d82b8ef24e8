# The lines an interrupted run prints are lines to follow as printed
# (issue 32, item 6): a run on a lab host named only through ssh_config
# (--ssh-config, and an inventory entry with ssh_config = yes), Ctrl-C'd,
# prints resume and stop lines that carry --inventory and --ssh-config;
# orch status as printed reaches the agent (and its own lines carry them
# too), and the resume line, run word for word, finishes the run.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
export ORCH_KNOWN_HOSTS="$LAB_KNOWN_HOSTS"
CLEANUPS+=("pkill -9 -f '$LAB/' 2>/dev/null")
printf '[host.h1]\nssh_config = yes\nworkdir = %s\n' "$LAB/h1/wd" >"$T/sc.ini"

note "a run through --ssh-config, Ctrl-C'd mid-run"
setsid "$ORCH" run --inventory="$T/sc.ini" --ssh-config="$LAB_SSH_CONFIG" --hosts=h1 --rounds=16 --max-load=0 --out="$T/out" tests/suites/slow.ini >"$T/log1" 2>&1 &
orch_pid=$!
wait_samples "$T/out" 3000
kill -INT -- "-$orch_pid"
rc=0; wait "$orch_pid" || rc=$?
cat "$T/log1"
expect_eq "exit after Ctrl-C" "$rc" 130
expect_grep "collect it and finish it: orch run --inventory=$T/sc.ini --ssh-config=$LAB_SSH_CONFIG --resume=$T/out\$" "$T/log1"
expect_grep "or stop its agents: +orch stop --inventory=$T/sc.ini --ssh-config=$LAB_SSH_CONFIG $T/out\$" "$T/log1"

note "orch status, as printed: reaches the agent"
line=$(sed -n 's/^  its state: *orch //p' "$T/log1")
rc=0; eval "run_orch \"\$T/st\" $line" || rc=$?
cat "$T/st"
expect_eq "status exit" "$rc" 0
expect_grep '^h1 +[0-9]+ +unfinished +running pid [0-9]+' "$T/st"
expect_grep "; orch run --inventory=$T/sc.ini --ssh-config=$LAB_SSH_CONFIG --resume=$T/out collects and finishes it, orch stop --inventory=$T/sc.ini --ssh-config=$LAB_SSH_CONFIG $T/out ends it" "$T/st"

note "the resume line, as printed: the run completes"
line=$(sed -n 's/^  collect it and finish it: orch //p' "$T/log1")
rc=0; eval "run_orch \"\$T/log2\" $line" || rc=$?
tail -5 "$T/log2"
expect_eq "resume exit" "$rc" 0
expect_eq "complete" "$(jq .complete "$T/out/summary.json")" true
echo PASS
